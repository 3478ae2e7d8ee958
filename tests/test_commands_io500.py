# SPDX-License-Identifier: BSD-3-Clause
"""IO500's mdtest and IOR phases as ``io500 --dry-run`` prints them,
against the command builders (issue 10, item 7).

``io500 <ini> --dry-run`` writes, per phase, the exact command line it
would run (``exe = ./mdtest ...`` in ``result.txt``) without running it.
Each mdtest phase of :mod:`pfsbench.commands.mdtest`'s presets, and each
ior-easy/ior-hard phase of :mod:`pfsbench.commands.ior`'s, must have the
same arguments, in any order, except ``-G`` (IO500 hashes the phase and the
time into it; the builders fix one value per run) and the binary.
The phases' order is the family's (``reframe-checks/mdtest/mdtest_io500.py``).
Skipped, saying why, where no io500 binary is installed.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess

import pytest

from pfsbench.commands import ior, mdtest

IO500 = next((p for p in [shutil.which('io500')] + sorted(glob.glob(
    '/opt/pfsbench-spack/opt-*/*/io500-*/bin/io500'))
    if p and os.access(p, os.X_OK)), None)
pytestmark = pytest.mark.skipif(
    IO500 is None, reason='no io500 binary (PATH or the Spack build under '
                          '/opt/pfsbench-spack); spack install io500')
#: The family's phase order (reframe-checks/mdtest/mdtest_io500.py).
FAMILY_ORDER = ['mdtest-easy-write', 'mdtest-hard-write', 'mdtest-easy-stat',
                'mdtest-hard-stat', 'mdtest-easy-delete', 'mdtest-hard-read',
                'mdtest-hard-delete']


def _words(argv):
    """The arguments without the binary and ``-G``'s value, sorted."""
    words = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word == '-G':
            words.append('-G')
            skip = True
        else:
            words.append('-G' if word.startswith('-G=') else word)
    return sorted(words)


@pytest.fixture(scope='module')
def dry_run(tmp_path_factory):
    """``{phase: argv}`` of the mdtest phases, in io500's order, and the
    run's data and result directories."""
    work = tmp_path_factory.mktemp('io500')
    ini = work / 'config.ini'
    ini.write_text(f'[global]\ndatadir = {work}/data\n'
                   f'resultdir = {work}/results\n')
    cmd = [IO500, str(ini), '--dry-run']
    print('+', ' '.join(cmd))
    subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, timeout=120)
    (result,) = glob.glob(f'{work}/results/*/result.txt')
    stamp = os.path.basename(os.path.dirname(result))
    phases = {}
    section = None
    for line in open(result):
        if m := re.match(r'^\[(\S+)\]', line):
            section = m.group(1)
        elif section and section.startswith(('mdtest-', 'ior-easy-',
                                             'ior-hard-')) and \
                line.startswith('exe'):
            phases[section] = shlex.split(line.split('=', 1)[1])
    return phases, f'{work}/data/{stamp}', f'{work}/results/{stamp}'


def test_the_family_runs_io500s_mdtest_phases_in_its_order(dry_run):
    phases, _, _ = dry_run
    assert [p for p in phases if p.startswith('mdtest-')] == FAMILY_ORDER


@pytest.mark.parametrize('phase', ['ior-easy-write', 'ior-hard-write',
                                   'ior-easy-read', 'ior-hard-read'])
def test_ior_builder_gives_io500s_arguments(dry_run, phase):
    phases, datadir, resultdir = dry_run
    _, preset, step = phase.split('-')
    build = {'easy': ior.io500_ior_easy, 'hard': ior.io500_ior_hard}[preset]
    assert _words(build(datadir, resultdir, step)) == _words(phases[phase])


@pytest.mark.parametrize('phase', FAMILY_ORDER)
def test_builder_gives_io500s_arguments(dry_run, phase):
    phases, datadir, resultdir = dry_run
    _, preset, step = phase.split('-')
    build = {'easy': mdtest.io500_mdtest_easy_argv,
             'hard': mdtest.io500_mdtest_hard_argv}[preset]
    assert _words(build(datadir, resultdir, step)) == _words(phases[phase])
