# SPDX-License-Identifier: BSD-3-Clause
"""``python -m pfsbench.runner.iozone_clients``: the client file of
iozone's cluster mode (``iozone ... -+m FILE``) for the job's nodes.

iozone's cluster mode starts one client per line of that file, on the
line's host (through ``$RSH``, e.g. ``ssh``), in the line's directory, with
the line's iozone binary, and synchronises every sub-test of every client
itself.  The hosts are the job's nodes (``scontrol show hostnames
$SLURM_JOB_NODELIST``), or ``localhost`` outside a Slurm job (the ``local``
launcher: this host); every client gets a directory of its own under the
run directory, ``<host>.<i>``, as seed 001 gave every process its own.  The
file is printed as well, so the job's output records where every client
ran (client ``i`` is iozone's ``Child[i-1]``).

Only the standard library (Python 3.6), as the rest of the runner.
"""

import argparse
import os
import subprocess
import sys


def job_hosts(environ=None):
    """The job's node names, in Slurm's order, or ``['localhost']``
    outside a Slurm job.

    Raises:
        OSError, subprocess.CalledProcessError: ``scontrol`` failed.
    """
    environ = os.environ if environ is None else environ
    nodelist = environ.get('SLURM_JOB_NODELIST')
    if not nodelist:
        return ['localhost']

    # The runner keeps to the standard library (pfsbench.parsers.text is
    # not imported here), but decodes as that helper does: with replacement.
    out = subprocess.run(['scontrol', 'show', 'hostnames', nodelist],
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True, encoding='utf-8',
                         errors='replace').stdout
    return out.split()


def clients(hosts, per_host, run_dir):
    """``(host, directory)`` of every client: ``per_host`` on each host,
    host by host."""
    return [(host, os.path.join(run_dir, f'{host}.{i}'))
            for host in hosts for i in range(1, per_host + 1)]


def cluster_file_text(pairs, executable):
    """The ``-+m`` file: one line per client, ``host directory iozone``.

    Args:
        pairs: ``(host, directory)`` of every client, in order
            (:func:`clients`).
        executable: iozone's path on the nodes.
    """
    return ''.join(f'{host} {directory} {executable}\n'
                   for host, directory in pairs)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m pfsbench.runner.iozone_clients',
        description='Write the client file of iozone -+m for this job.')
    parser.add_argument('--run-dir', required=True, metavar='DIR',
                        help="the test's run directory (shared by the "
                             'nodes)')
    parser.add_argument('--per-host', type=int, required=True, metavar='N',
                        help='clients on every node')
    parser.add_argument('--iozone', required=True, metavar='PATH',
                        help="iozone's path on the nodes")
    parser.add_argument('--output', required=True, metavar='FILE',
                        help='the client file to write')
    args = parser.parse_args(argv)
    if args.per_host < 1:
        parser.error(f'--per-host {args.per_host}: expected at least 1')

    try:
        pairs = clients(job_hosts(), args.per_host, args.run_dir)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f'iozone_clients: error: scontrol show hostnames: {err}',
              file=sys.stderr)
        return 1

    for _, directory in pairs:
        os.makedirs(directory, exist_ok=True)
    text = cluster_file_text(pairs, args.iozone)
    with open(args.output, 'w') as fp:
        fp.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
