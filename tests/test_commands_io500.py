# SPDX-License-Identifier: BSD-3-Clause
"""IO500's phases as ``io500 --dry-run`` prints them, against the command
builders (issue 10, item 7; the find phase and the order: issue 21,
item 3).

``io500 <ini> --dry-run`` writes, per phase, the exact command line it
would run (``exe = ./mdtest ...`` in ``result.txt``) without running it.
Each mdtest phase of :mod:`pfsbench.commands.mdtest`'s presets, each
ior-easy/ior-hard phase of :mod:`pfsbench.commands.ior`'s and the find
phase of :mod:`pfsbench.commands.io500` must have the same arguments, in
any order, except ``-G`` (IO500 hashes the phase and the time into it; the
builders fix one value per run), the binary and find's ``-D rates`` (an
output option: io500 reads pfind's rate in-process).  The phases' order
is IO500's (:data:`pfsbench.commands.io500.PHASES`).

Two sources: the recorded real dry run (tests/data/io500/dry-run, its
command in ``io500.cmd``), always; and, where an io500 binary is installed
(PATH, /opt/io500/bin, the Spack build under /opt/pfsbench-spack), a fresh
one, so a newer io500 that changed a phase fails here.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import REPO
from pfsbench.commands import io500, ior, mdtest
from pfsbench.parsers import text

IO500 = next((p for p in [shutil.which('io500'), '/opt/io500/bin/io500'] +
              sorted(glob.glob('/opt/pfsbench-spack/opt-*/*/io500-*/bin/'
                               'io500'))
              if p and os.access(p, os.X_OK)), None)
RECORDED = REPO / 'tests' / 'data' / 'io500' / 'dry-run'
#: The family's mdtest phase order (reframe-checks/mdtest/mdtest_io500.py).
FAMILY_ORDER = ['mdtest-easy-write', 'mdtest-hard-write', 'mdtest-easy-stat',
                'mdtest-hard-stat', 'mdtest-easy-delete', 'mdtest-hard-read',
                'mdtest-hard-delete']


def _words(argv):
    """The arguments without the binary, ``-G``'s value and find's
    ``-D rates``, sorted."""
    words = []
    skip = False
    argv = list(argv[1:])
    if argv[-2:] == ['-D', 'rates']:
        argv = argv[:-2]
    for word in argv:
        if skip:
            skip = False
        elif word == '-G':
            words.append('-G')
            skip = True
        else:
            words.append('-G' if word.startswith('-G=') else word)
    return sorted(words)


def _phases(result_txt):
    """``{phase: argv}`` of every phase with an ``exe`` line, in order, and
    the run's data and result directories."""
    phases = {}
    section = None
    run = {}
    for line in text.read_output(result_txt).splitlines():
        if m := re.match(r'^\[(\S+)\]', line):
            section = m.group(1)
        elif section == 'run' and '=' in line:
            key, _, value = line.partition('=')
            run[key.strip()] = value.strip()
        elif section and line.startswith('exe'):
            phases[section] = shlex.split(line.split('=', 1)[1])
    resultdir = run['result-dir']
    stamp = os.path.basename(resultdir)
    datadir = phases['find'][1]
    return phases, datadir, resultdir, stamp


def _fresh_dry_run(work):
    ini = work / 'config.ini'
    ini.write_text(f'[global]\ndatadir = {work}/data\n'
                   f'resultdir = {work}/results\n')
    cmd = [IO500, str(ini), '--dry-run']
    print('+', ' '.join(cmd))
    subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    (result,) = glob.glob(f'{work}/results/*/result.txt')
    return result


@pytest.fixture(scope='module', params=['recorded', 'fresh'])
def dry_run(request, tmp_path_factory):
    if request.param == 'recorded':
        return _phases(RECORDED / 'result.txt')
    if IO500 is None:
        pytest.skip('no io500 binary (PATH, /opt/io500/bin or the Spack '
                    'build under /opt/pfsbench-spack); spack install io500')
    return _phases(_fresh_dry_run(tmp_path_factory.mktemp('io500')))


def test_the_suite_runs_io500s_scored_phases_in_its_order(dry_run):
    phases, _, _, _ = dry_run
    scored = [p for p in phases if p in {ph.name for ph in io500.PHASES}]
    assert scored == [p.name for p in io500.PHASES]
    # ... and io500 prints no other phase but the unscored random read.
    assert set(phases) - set(scored) == {'ior-rnd4K-easy-read'}


def test_the_mdtest_family_runs_io500s_mdtest_phases_in_its_order(dry_run):
    phases, _, _, _ = dry_run
    assert [p for p in phases if p.startswith('mdtest-')] == FAMILY_ORDER


@pytest.mark.parametrize('phase', ['ior-easy-write', 'ior-hard-write',
                                   'ior-easy-read', 'ior-hard-read'])
def test_ior_builder_gives_io500s_arguments(dry_run, phase):
    phases, datadir, resultdir, _ = dry_run
    _, preset, step = phase.split('-')
    build = {'easy': ior.io500_ior_easy, 'hard': ior.io500_ior_hard}[preset]
    assert _words(build(datadir, resultdir, step)) == _words(phases[phase])


@pytest.mark.parametrize('phase', FAMILY_ORDER)
def test_builder_gives_io500s_arguments(dry_run, phase):
    phases, datadir, resultdir, _ = dry_run
    _, preset, step = phase.split('-')
    build = {'easy': mdtest.io500_mdtest_easy_argv,
             'hard': mdtest.io500_mdtest_hard_argv}[preset]
    assert _words(build(datadir, resultdir, step)) == _words(phases[phase])


def test_find_builder_gives_io500s_arguments(dry_run):
    phases, datadir, resultdir, _ = dry_run
    argv = io500.find_argv(datadir, resultdir)
    assert argv[-2:] == ['-D', 'rates']
    assert _words(argv) == _words(phases['find'])
    # Flag for flag in io500's order, too (pfind reads its options in
    # order: the workdir first).
    assert argv[1:-2] == phases['find'][1:]
