#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A month at a site: N nights of a nightly through scripts/nightly.sh on
the MooseFS of tests/mfs (``localslurm:mfs``), with foreign load on some
nights and a server-side change on one, and what the gate said each night.

Before the first night it records a baseline from ``--baseline-nights``
ReFrame runs of the same cases (as docs/gate.md's first baseline).  Then
night after night, each one ReFrame session minutes apart (the gate takes
every session as a night):

* on the ``--contended`` nights a foreign writer (another client, the
  second mount ``m2``) writes new files during the whole night: the
  file-system counters must mark the cases ``contended``, the gate leave
  them out (of the night's verdicts and of every later night's history);
* on night ``--change-night`` the server changes (``mfs.sh copies 2``:
  every chunk written from then on is stored twice, or ``mfs.sh
  chunkserver stop 3``): the gate must find it (exit 1) and name it from
  the server provenance;
* every night after it passes ``--extra intended_change=<the change>``
  (the site acknowledged it; the first marked night starts a new level):
  none of them may be a regression.

No unchanged night may be a regression.  Between nights it remounts the
clients (MooseFS 3.0.117 keeps the space of files deleted through a mount
until it is unmounted; a site's nightly would not need it); before and
after each night it checks the servers, and a dead master (it crashed once
here) is brought back with ``mfs.sh down`` and ``up`` (the server-side
state re-applied) and the night recorded as an infrastructure failure,
never as a verdict.

Prints one row per night (contended?, the gate's verdicts and exit code,
the headline figures against the level with what the gate says it could
detect, the cause it named) and the assertions; exits 1 if one failed.
Whatever happens, MooseFS is restored at the end (one copy, every
chunkserver started, remounted).

Needs root, ``tests/localslurm/localslurm.sh up``, ``tests/mfs/mfs.sh up``
and ``scripts/setup.sh`` (``.venv``); mdtest in /opt/ior/bin for the
mdtest case (else the month runs without it and says so).  Everything goes
under ``--work`` (its own runs directory, never the repository's).

Usage: python3 bench/nightly_month.py --work DIR [--nights 30]
       [--change-night 20] [--contended 6,13,25] [--json FILE]
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))
sys.path.insert(0, REPO)

from conftest import reframe_env, slurm_env  # noqa: E402
from test_mfs import MFS, TARGET, _ForeignWriter  # noqa: E402

from pfsbench.gate.judge.config import GateConfig  # noqa: E402
from pfsbench.runs.contention import (CommandFailed,  # noqa: E402
                                      parse_provenance)

SYSTEM = 'localslurm:mfs'
BASELINE = 'month'
MDTEST_BIN = '/opt/ior/bin'

#: The month's selection: the dd quick cases with 1 and 2 streams per node
#: (E6 on one node, E9 with two streams; one dd run per job, not seed
#: 001's 3: the nightly's repeats are the gate's samples) and one small
#: mdtest case (1 task, 1000 files, 1 iteration).  About 1.5 min a night
#: on this machine, 2 cores shared.
SETTINGS = ('-S', 'repeats=1', '-S', 'iterations=1')
DD_CASES = ('dd_stream_per_node%nodes=1',
            'dd_streams_one_node%streams_per_node=2')
MDTEST_CASE = 'mdtest_metadata_rates%kind=files%access=unique%nodes=1' \
              '%tasks_per_node=1'

#: Headline figures of the table: (column, case name prefix, variable).
HEADLINE = (
    ('dd1 write', 'dd_stream_per_node %nodes=1', 'write_bw'),
    ('dd1 read', 'dd_stream_per_node %nodes=1', 'read_bw'),
    ('dd2 write', 'dd_streams_one_node %streams_per_node=2', 'write_bw'),
    ('md create', 'mdtest_metadata_rates', 'file_create'),
)

#: The server-side changes: (mfs.sh arguments, undo, intended_change).
CHANGES = {
    'copies': (('copies', '2'), ('copies', '1'), 'mfs-copies-2'),
    # Every chunk on all three chunkservers: writes move three times the
    # bytes, a loss larger than a loaded host's night-to-night noise.
    'copies3': (('copies', '3'), ('copies', '1'), 'mfs-copies-3'),
    'chunkserver': (('chunkserver', 'stop', '3'),
                    ('chunkserver', 'start', '3'), 'mfs-chunkserver-3-off'),
}


class MonthStopped(Exception):
    """The month cannot go on (a server command or the baseline
    failed); the message says which and where its log is."""


def load():
    with open('/proc/loadavg') as fp:
        return ' '.join(fp.read().split()[:3])


def mfs(*args, check=True):
    proc = subprocess.run(['bash', str(MFS), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=600)
    if check and proc.returncode != 0:
        raise MonthStopped(f'mfs.sh {" ".join(args)}: exit '
                           f'{proc.returncode}: {proc.stdout.strip()}')
    return proc


def provenance():
    """``{key: value}`` of ``mfs.sh provenance``, or None (master down)."""
    proc = mfs('provenance', check=False)
    if proc.returncode != 0:
        return None
    try:
        return parse_provenance(proc.stdout, 'mfs.sh provenance')
    except CommandFailed:
        return None


class Servers:
    """The MooseFS's server-side state as the month set it, so that a
    recovery (``down``, ``up``) can set it again and the end undo it."""

    def __init__(self, change):
        self.change = change
        self.changed = False

    def health(self):
        """None if the servers are as this month left them, else why not."""
        if not self.changed or self.change != 'chunkserver':
            proc = mfs('status', check=False)
            return None if proc.returncode == 0 else proc.stdout.strip()
        facts = provenance()
        if facts is None:
            return 'the master does not answer (mfs.sh provenance failed)'
        if facts.get('chunkservers') != '2':
            return f'chunkservers {facts.get("chunkservers")}, expected 2'
        return None

    def apply_change(self):
        mfs(*CHANGES[self.change][0])
        self.changed = True

    def recover(self):
        mfs('down', check=False)
        mfs('up')
        if self.changed:
            mfs(*CHANGES[self.change][0])

    def restore(self):
        """One copy, every chunkserver started, clients remounted."""
        if self.health() is not None:
            self.recover()
        mfs(*CHANGES[self.change][1], check=False)
        mfs('copies', '1', check=False)
        self.changed = False
        mfs('remount', check=False)


def gate_config(work):
    """config/gate.yaml without ``job_nodelist`` in ``lookback.match``: the
    emulated nodes are one host, as identical as nodes get, and Slurm puts
    a case on whichever is free (docs/gate.md, Limits)."""
    with open(os.path.join(REPO, 'config', 'gate.yaml')) as fp:
        cfg = yaml.safe_load(fp)
    look = cfg.setdefault('lookback', {})
    look['match'] = [m for m in look.get('match',
                                         GateConfig.lookback_match)
                     if m != 'job_nodelist']
    path = os.path.join(work, 'gate.yaml')
    with open(path, 'w') as fp:
        yaml.safe_dump(cfg, fp, sort_keys=False)
    return path


def selection(cases):
    args = ['-t', '^quick$', *SETTINGS]
    for case in cases:
        args += ['-n', case]
    return args


def run_group(argv, env, log, timeout):
    """Run ``argv`` in its own process group, output to ``log``; on
    timeout SIGTERM the group (ReFrame cancels its jobs), then SIGKILL.
    Returns its exit code, or None after a timeout."""
    with open(log, 'w') as out:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=out,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            return None


def server_changes(record):
    """What the gate named as changed on the server side (its
    ``server_provenance`` change's detail, ``copies 1 -> 2``), and whether
    that was the likeliest cause it named for every case that had it."""
    said, first = [], True
    for changes in record.get('changes', {}).values():
        for rank, change in enumerate(changes):
            if change['key'] == 'server_provenance':
                if change['detail'] not in said:
                    said.append(change['detail'])
                first = first and rank == 0
    return said, first and bool(said)


def summarise(record, repeats, cases):
    """The night's row from the gate's JSON record."""
    rows = record.get('results', [])
    figures = {}
    for column, prefix, var in HEADLINE:
        for row in rows:
            if row['case'].startswith(prefix) and row['var'] == var:
                sens = row.get('sensitivity') or {}
                figures[column] = {'change': row['change'],
                                   'verdict': row['verdict'],
                                   'detects': sens.get('detects'),
                                   'blind': sens.get('blind')}
    regressions = sorted({f"{r['case'].split(' @')[0]} {r['var']}"
                          for r in rows if r['verdict'] == 'regression'})
    return {'summary': record.get('summary', {}),
            'contended_samples': len(record.get('contended_samples', [])),
            'samples': repeats * cases,
            'missing': [m.get('reason', '') for m in record.get('missing',
                                                                 [])],
            'regressions': regressions,
            'figures': figures,
            'new_level': any('starts a new level' in r.get('reason', '')
                             for r in rows)}


class Month:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.runs = os.path.join(self.work, 'runs')
        os.makedirs(self.runs, exist_ok=True)
        self.env = reframe_env(self.runs, slurm_env())
        self.with_mdtest = (not args.no_mdtest and not args.one_case and
                            os.access(os.path.join(MDTEST_BIN, 'mdtest'),
                                      os.X_OK))
        if self.with_mdtest:
            self.env['PATH'] = f'{MDTEST_BIN}:{self.env["PATH"]}'
        self.selected = (DD_CASES[:1] if args.one_case else DD_CASES) + \
            ((MDTEST_CASE,) if self.with_mdtest else ())
        self.cases = len(self.selected)
        self.gate_config = gate_config(self.work)
        self.servers = Servers(args.change)
        self.nights = []

    def venv(self, tool):
        return os.path.join(REPO, '.venv', 'bin', tool)

    def extras(self, extra=()):
        argv = [self.venv('pfsbench'), 'session-extras', '--target', TARGET,
                '--system', SYSTEM]
        for item in extra:
            argv += ['--extra', item]
        return subprocess.run(argv, env=self.env, check=True,
                              stdout=subprocess.PIPE,
                              universal_newlines=True).stdout.strip()

    def baseline(self):
        """--baseline-nights ReFrame runs of the month's cases, recorded
        as the baseline ``month``."""
        since = time.strftime('%Y-%m-%dT%H:%M:%S')
        for i in range(self.args.baseline_nights):
            started = time.time()
            log = os.path.join(self.work, f'baseline-{i + 1}.log')
            code = run_group(
                [self.venv('reframe'), '-C', 'config/settings.py',
                 '--system', SYSTEM, '-c', 'reframe-checks',
                 *selection(self.selected), '--repeat',
                 str(self.args.repeat), '-r', '--session-extras',
                 self.extras()], self.env, log, self.args.night_timeout)
            print(f'baseline night {i + 1}: reframe exit {code} in '
                  f'{time.time() - started:.0f} s (load {load()})',
                  flush=True)
            mfs('remount', check=False)
        proc = subprocess.run(
            [self.venv('pfsbench'), 'baseline', 'record', BASELINE,
             '--since', since], env=self.env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True)
        print(proc.stdout.strip(), flush=True)
        if proc.returncode != 0:
            raise MonthStopped(f'pfsbench baseline record: exit '
                               f'{proc.returncode}: {proc.stdout.strip()} '
                               f'(the baseline nights\' logs: '
                               f'{self.work}/baseline-*.log)')

    def night(self, n):
        args = self.args
        contended = n in args.contended
        kind = ('change' if n == args.change_night else
                'after' if n > args.change_night else 'unchanged')
        night = {'night': n, 'kind': kind, 'contended': contended,
                 'infrastructure': None}
        why = self.servers.health()
        if why is not None:
            night['infrastructure'] = f'before the night: {why}; recovered'
            self.servers.recover()
        if n == args.change_night:
            self.servers.apply_change()
        extra = []
        if n > args.change_night:
            extra = ['--extra',
                     f'intended_change={CHANGES[args.change][2]}']
        out = os.path.join(self.work, 'nights', f'{n:02d}')
        argv = ['bash', 'scripts/nightly.sh', '--system', SYSTEM,
                '--baseline', BASELINE, '--target', TARGET, '--tags',
                'quick', '--repeat', str(args.repeat), '--budget', '0',
                '--out', out,
                '--gate-config', self.gate_config, *extra, '--',
                *selection(self.selected)[2:]]
        os.makedirs(out, exist_ok=True)
        started = time.time()
        night['load_before'] = load()
        if contended:
            with _ForeignWriter() as writer:
                code = run_group(argv, self.env, os.path.join(
                    out, 'nightly.log'), args.night_timeout)
            night['foreign_mib'] = writer.written // 2**20
        else:
            code = run_group(argv, self.env, os.path.join(out, 'nightly.log'),
                             args.night_timeout)
        night['wall_s'] = round(time.time() - started)
        night['load_after'] = load()
        night['exit'] = code
        try:
            with open(os.path.join(out, 'gate.json')) as fp:
                record = json.load(fp)
        except (OSError, ValueError):
            record = {}
        # The gate's own failure (a traceback, no report) is no verdict.
        night['gate_report'] = bool(record)
        night.update(summarise(record, args.repeat, self.cases))
        night['cause'], night['cause_first'] = server_changes(record)
        why = self.servers.health()
        if why is not None:
            night['infrastructure'] = f'after the night: {why}; recovered'
            self.servers.recover()
        elif code is None:
            night['infrastructure'] = (f'no end after {args.night_timeout}'
                                       ' s; stopped')
        remount = mfs('remount', check=False)
        if remount.returncode != 0 or self.servers.health() is not None:
            night['remount'] = (f'{remount.stdout.strip()}; '
                                f'{self.servers.health()}; recovered')
            print(f'night {n}: remount: {night["remount"]}', flush=True)
            self.servers.recover()
        self.nights.append(night)
        if args.json:
            with open(args.json, 'w') as fp:
                json.dump({'nights': self.nights, 'assertions': []}, fp,
                          indent=1)
        print(row(night), flush=True)
        return night

    def run(self):
        print(f'month: {self.args.nights} nights on {SYSTEM}, repeat '
              f'{self.args.repeat}, {" ".join(SETTINGS)}, cases: '
              f'{", ".join(self.selected)}'
              + ('' if self.with_mdtest or self.args.one_case else
                 ' (no mdtest: ' + (f'{MDTEST_BIN}/mdtest not built)'
                                    if not self.args.no_mdtest else
                                    '--no-mdtest)'))
              + f'; change on night {self.args.change_night}: '
              f'mfs.sh {" ".join(CHANGES[self.args.change][0])}; '
              f'contended nights {sorted(self.args.contended)}; '
              f'load {load()}', flush=True)
        try:
            self.servers.restore()
            self.baseline()
            print(HEADER, flush=True)
            for n in range(1, self.args.nights + 1):
                self.night(n)
        finally:
            self.servers.restore()
        return self.nights


def pct(value):
    return '-' if value is None else f'{value:+.0%}'


def figure_cell(fig):
    if not fig:
        return '-'
    detects = '' if fig['detects'] is None else \
        f' (>={fig["detects"]:.0%}{" blind" if fig["blind"] else ""})'
    return f'{pct(fig["change"])}{detects}'


HEADER = ('| night | kind | contended | verdicts (reg/inc/pass) | exit | '
          + ' | '.join(f'{c} vs level (detects)' for c, _, _ in HEADLINE)
          + ' | cause named | wall s |\n|' + '---|' * (8 + len(HEADLINE)))


def row(night):
    s = night.get('summary', {})
    verdicts = (f"{s.get('regression', 0)}/{s.get('inconclusive', 0)}/"
                f"{s.get('pass', 0)}")
    if not night.get('gate_report', True):
        verdicts = 'no gate report (it failed)'
    if night['infrastructure']:
        verdicts += f"; infrastructure: {night['infrastructure']}"
    contended = 'no'
    if night['contended']:
        contended = (f"yes: {night['contended_samples']}/{night['samples']}"
                     ' samples marked')
    elif night.get('contended_samples'):
        contended = f"{night['contended_samples']} samples marked"
    cells = [str(night['night']), night['kind'], contended, verdicts,
             str(night['exit'])]
    cells += [figure_cell(night['figures'].get(c)) for c, _, _ in HEADLINE]
    cells += ['; '.join(night['cause']) or '-', str(night['wall_s'])]
    return '| ' + ' | '.join(cells) + ' |'


def found_or_said_why(night):
    """The change night: a regression (exit 1), or else the gate's own
    word that it could not see a loss that large (its headline write
    figure's ``detects`` beyond the loss measured): a gate may miss what
    its noise hides, never while saying it would have found it."""
    label = f"night {night['night']} (the change)"
    if night['exit'] == 1:
        return True, (f"{label}: found, gate exit 1 "
                      f"({', '.join(night['regressions'])})")
    fig = night['figures'].get(HEADLINE[0][0]) or {}
    loss = -(fig.get('change') or 0.0)
    detects = fig.get('detects')
    said = detects is not None and loss > 0 and detects > loss
    return said, (f"{label}: not found (exit {night['exit']}); "
                  + (f"the gate said it detects >= {detects:.0%} on "
                     f"{HEADLINE[0][0]}, the loss was {loss:.0%}: hidden in "
                     'the noise, and said so' if said else
                     f"{HEADLINE[0][0]} {pct(fig.get('change'))}, detects "
                     f">= {pct(detects)}: a loss it should have found"))


def assertions(nights, change_night):
    """``[(held, text), ...]``: what the month must show."""
    out = []
    for n in nights:
        if n['infrastructure']:
            if n['kind'] == 'change' or n['night'] == change_night + 1:
                # The night the month exists to test gave no verdict.
                out.append((False, f"night {n['night']} ({n['kind']}): no "
                            f"verdict (infrastructure: "
                            f"{n['infrastructure']})"))
            continue
        label = f"night {n['night']}"
        if n['contended']:
            out.append((n['contended_samples'] > 0,
                        f"{label} (foreign writer): contended samples marked "
                        f"({n['contended_samples']} of {n['samples']})"))
        if not n['gate_report']:
            out.append((False, f"{label}: the gate wrote no report (exit "
                        f"{n['exit']}: see nights/{n['night']:02d}/"
                        'nightly.log)'))
            continue
        if n['kind'] == 'change':
            out.append(found_or_said_why(n))
            out.append((bool(n['cause']) and n['cause_first'],
                        f'{label}: the cause named first, from the server '
                        f"provenance ({'; '.join(n['cause']) or 'nothing'})"))
        else:
            out.append((n['exit'] != 1,
                        f"{label} ({n['kind']}): no regression (exit "
                        f"{n['exit']}{': ' if n['regressions'] else ''}"
                        f"{', '.join(n['regressions'])})"))
        if n['night'] == change_night + 1:
            out.append((n['new_level'], f'{label}: the intended change '
                        'starts a new level'))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work', required=True,
                        help='directory for the runs, the nights\' reports '
                             'and the gate settings (kept)')
    parser.add_argument('--nights', type=int, default=30)
    parser.add_argument('--change-night', type=int, default=20)
    parser.add_argument('--change', choices=sorted(CHANGES),
                        default='copies')
    parser.add_argument('--contended', default='6,13,25',
                        help='nights with a foreign writer (default: '
                             '%(default)s)')
    parser.add_argument('--baseline-nights', type=int, default=3)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--no-mdtest', action='store_true',
                        help='the dd cases only')
    parser.add_argument('--one-case', action='store_true',
                        help=DD_CASES[0].replace('%', '%%') +
                        " only (the CI's short month)")
    parser.add_argument('--night-timeout', type=float, default=1200.0,
                        help='seconds before a night is stopped '
                             '(default: %(default)s)')
    parser.add_argument('--json', default=None,
                        help='also write the nights and assertions here')
    args = parser.parse_args(argv)
    try:
        args.contended = {int(n) for n in args.contended.split(',') if n}
    except ValueError:
        parser.error(f'--contended: {args.contended!r}: expected night '
                     'numbers separated by commas')
    if not 1 <= args.change_night <= args.nights:
        parser.error(f'--change-night: {args.change_night}: expected 1..'
                     f'{args.nights}')
    if args.change_night in args.contended:
        parser.error(f'--contended: night {args.change_night} is the change '
                     'night: a contended change is left out, never found')
    if os.geteuid() != 0:
        sys.exit('nightly_month: needs root (MooseFS, the Slurm test '
                 'cluster)')
    for script in ('localslurm/localslurm.sh', 'mfs/mfs.sh'):
        if subprocess.run(['bash', os.path.join(REPO, 'tests', script),
                           'status'], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            sys.exit(f'nightly_month: tests/{script} is not up')

    started = time.time()
    try:
        nights = Month(args).run()
    except MonthStopped as exc:
        # Not a verdict on the gate: the month could not be run (the file
        # system failed under the baseline, a server command failed).
        sys.exit(f'nightly_month: stopped: {exc}')
    held = assertions(nights, args.change_night)
    print(f'\nmonth: {len(nights)} nights in {time.time() - started:.0f} s, '
          f'load {load()}')
    for ok, text in held:
        print(f"{'held' if ok else 'FAILED'}: {text}")
    if args.json:
        with open(args.json, 'w') as fp:
            json.dump({'nights': nights, 'assertions': [
                {'held': ok, 'text': text} for ok, text in held]}, fp,
                indent=1)
    return 0 if all(ok for ok, _ in held) else 1


if __name__ == '__main__':
    sys.exit(main())
