# SPDX-License-Identifier: BSD-3-Clause
"""Real tool outputs and the damage a job's output can carry, for the
parsers' property tests (tests/test_parser_fuzz.py) and their full fuzz
(bench/parser_fuzz.py).

The outputs are the recorded ones (``tests/data/fixtures``, ``tests/data``)
and, for the two tools that print what this host has, a run here: the
stream runner with dd, and the CPU sample of /proc/stat.  The damage is what
a killed or crowded job leaves: output cut anywhere (mid-line, mid-UTF-8
sequence), bytes flipped, another rank's text in the middle of a line or
after it, lines printed twice, bytes that are not UTF-8.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = HERE / 'data'
FIXTURES = DATA / 'fixtures'

#: ``pfsbench parse`` tool -> the directories of its recorded outputs.
RECORDED = {
    'dd': (FIXTURES / 'dd',),
    'ior': (FIXTURES / 'ior', DATA / 'ior'),
    'mdtest': (FIXTURES / 'mdtest',),
    'bonnie': (FIXTURES / 'bonnie++', DATA / 'bonnie++'),
    'iozone': (FIXTURES / 'iozone', DATA / 'iozone'),
    'fio': (FIXTURES / 'fio',),
    'lfs': (DATA / 'lfs',),
    'mds-survey': (DATA / 'mds-survey',),
    # io500's own summary and its stdout (a directory's other files are
    # IOR's and mdtest's, fuzzed above).
    'io500': (DATA / 'io500' / 'run-2x1' / 'result_summary.txt',
              DATA / 'io500' / 'run-2x1' / 'io500.out',
              DATA / 'io500' / 'dry-run' / 'result_summary.txt'),
    'pfind': (DATA / 'io500' / 'pfind-rates.txt',),
    # An E1 job's whole output: its device samples among the rest.
    'diskstats': (DATA / 'diskstats' / 'e1-loop-ext4-rfm_job.out',),
}
#: Tools with no output recorded anywhere (tests/data/mdsrate/SOURCES.md):
#: their parsers get arbitrary bytes only.
UNRECORDED = ('mdsrate',)

#: What another rank, the launcher or a dying job writes into an output.
FOREIGN = (b' WARNING: unable to stat file, rank 3', b'\xff\xfe', b'\x00',
           b'srun: error: n2: task 1: Killed', b' NA', b' -1.5e+300',
           b'\xe2\x82', b'{"', b'}', b',,,', b' : ', b'nan', b'inf',
           b'Max(MiB)', b'\t', b'\r', b'+', b'K', b'0' * 40)


def host_outputs():
    """Outputs of this host: the stream runner with dd (one task, two
    streams, in a fresh temporary directory it removes) and a CPU
    sample."""
    from pfsbench.commands import dd
    from pfsbench.commands.procstat import sample_argv

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('SLURM_', 'OMPI_', 'PMIX_', 'PMI_'))}
    env.update(SLURM_PROCID='0', SLURM_NTASKS='1', SLURM_LOCALID='0',
               SLURMD_NODENAME='n1', PYTHONPATH=str(REPO))
    with tempfile.TemporaryDirectory(prefix='pfsbench-fuzz-') as run_dir:
        argv = dd.streams_argv(run_dir, block_size=65536, count=4,
                               fan_out=2, cache_defeat='none',
                               barrier_timeout=20)
        streams = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=120,
                                 check=True).stdout
    cpu = subprocess.run(sample_argv(), stdout=subprocess.PIPE, timeout=60,
                         check=True).stdout
    return {'streams': [('streams-dd-1task.out', streams)],
            'procstat': [('procstat-this-host.out', cpu)]}


def recorded_outputs(tool):
    """``[(name, bytes)]`` of every recorded output of ``tool`` (a
    directory's ``*.txt``, or a file named alone)."""
    return [(p.name, p.read_bytes()) for d in RECORDED[tool]
            for p in (sorted(d.glob('*.txt')) if d.is_dir() else [d])]


def corpus():
    """Tool -> ``[(name, bytes)]``: every output the fuzz starts from."""
    outputs = {tool: recorded_outputs(tool) for tool in RECORDED}
    outputs.update(host_outputs())
    return outputs


def _cut(data, draw):
    return data[:draw(st.integers(0, len(data)))]


def _flip(data, draw):
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    return bytes(data)


def _insert(data, draw):
    at = draw(st.integers(0, len(data)))
    junk = draw(st.sampled_from(FOREIGN) | st.binary(min_size=1,
                                                      max_size=40))
    return data[:at] + junk + data[at:]


def _lines(data, draw):
    return data.split(b'\n'), draw(st.integers(0, data.count(b'\n')))


def _duplicate(data, draw):
    lines, at = _lines(data, draw)
    return b'\n'.join(lines[:at + 1] + lines[at:])


def _append(data, draw):
    lines, at = _lines(data, draw)
    lines[at] += draw(st.sampled_from(FOREIGN) | st.binary(max_size=40))
    return b'\n'.join(lines)


def _drop(data, draw):
    lines, at = _lines(data, draw)
    return b'\n'.join(lines[:at] + lines[at + 1:])


def _long_row(data, draw):
    """A line made long: a figure repeated, then text (what made
    mdtest's summary pattern backtrack for minutes)."""
    lines, at = _lines(data, draw)
    lines[at] += b'   307500.293' * draw(st.integers(10, 400)) + b' x'
    return b'\n'.join(lines)


#: The kinds of damage, by name (a failing example names its own).
DAMAGE = {'cut': _cut, 'flip': _flip, 'insert': _insert,
          'duplicate': _duplicate, 'append': _append, 'drop': _drop,
          'long row': _long_row}


@st.composite
def damaged(draw, outputs):
    """``(name, kinds, bytes)``: one of ``outputs`` with one to three kinds
    of damage, each applied where hypothesis draws."""
    name, data = draw(st.sampled_from(outputs))
    kinds = draw(st.lists(st.sampled_from(sorted(DAMAGE)), min_size=1,
                          max_size=3))
    for kind in kinds:
        if data:
            data = DAMAGE[kind](data, draw)
    return name, kinds, data


def arbitrary():
    """Bytes of no tool at all (for the tools nothing was recorded of)."""
    return st.builds(lambda data: ('arbitrary', ['bytes'], data),
                     st.binary(max_size=2000)
                     | st.lists(st.sampled_from(FOREIGN + (b'\n', b'Rate: ',
                                                           b'Rank 0: ')),
                                max_size=60).map(b''.join))


if __name__ == '__main__':
    for tool, outputs in sorted(corpus().items()):
        print(tool, len(outputs), file=sys.stderr)
