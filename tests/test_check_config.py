# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-config``: ReFrame's schema and pfsbench's, one line per
problem naming file and key (partitions by name), and with ``--system``
the targets, tools and limits of a partition."""

import re
import shutil
import socket

import pytest

from conftest import REPO
from pfsbench import schemas
from pfsbench.cli import main

SITE = '''
site_configuration = {{'systems': [{{
    'name': 'site', 'hostnames': [{hostname!r}], 'modules_system': 'nomod',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': 'srun',
        'environs': ['builtin'], 'features': ['pfs', 'mpi'],
        'max_jobs': {max_jobs!r},
        'extras': {{'targets': [{{'name': 'scratch', 'path': {path!r}}}],
                    {extra}}},
    }}],
}}]}}
'''


def _config(tmp_path, max_jobs=1, path='/lustre/scratch', extra='',
            hostname='^site-login$'):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'site.py'
    site.write_text(SITE.format(max_jobs=max_jobs, path=path, extra=extra,
                                hostname=hostname))
    return config, site


def _check(capsys, config, *args):
    code = main(['check-config', '--config-dir', str(config), *args])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err.splitlines()


def _known_extras():
    return ', '.join(sorted(schemas.load('extras.json')['properties']))


@pytest.mark.parametrize('mistake,args,why', [
    ({'max_jobs': 'eight'}, [], ".max_jobs: 'eight': expected a number"),
    ({'extra': "'max_node': 4"}, [],
     '.extras.max_node: 4: unknown pfsbench extras key; known: {known}'),
    # On a host of the system (its hostnames match), a typo in a target.
    ({'path': '{tmp}/lustre/scartch', 'hostname': '^{host}$'},
     ['--system', 'site:compute', '--tags', 'E6'],
     ".extras.targets[scratch].path: '{tmp}/lustre/scartch': does not "
     "exist"),
    # A server hook that prints what pfsbench cannot read (one that fails:
    # tests/test_mfs.py).
    ({'path': '{tmp}', 'hostname': '^{host}$',
      'extra': "'fs_counters_command': 'echo read_bytes 1'"},
     ['--system', 'site:compute', '--tags', 'E6'],
     ".extras.fs_counters_command: 'echo read_bytes 1': no write_bytes, "
     "metadata_ops line in its output"),
    ({'path': '{tmp}', 'hostname': '^{host}$',
      'extra': "'server_provenance_command': 'true'"},
     ['--system', 'site:compute', '--tags', 'E6'],
     ".extras.server_provenance_command: 'true': printed nothing"),
    ({'path': '{tmp}', 'hostname': '^{host}$',
      'extra': "'fs_clients_command': 'echo bytes=1'"},
     ['--system', 'site:compute', '--tags', 'E6'],
     ".extras.fs_clients_command: 'echo bytes=1': 'bytes=1': expected "
     "source=<name>"),
], ids=['max_jobs-eight', 'misspelt-extras-key', 'missing-target',
        'short-counters', 'silent-provenance', 'sourceless-clients'])
def test_a_mistake_is_one_line_naming_file_and_key(tmp_path, capsys,
                                                   mistake, args, why):
    fill = dict(tmp=tmp_path, host=socket.gethostname(),
                known=_known_extras())
    config, site = _config(tmp_path, **{k: v.format(**fill)
                                        if isinstance(v, str) else v
                                        for k, v in mistake.items()})
    code, _, lines = _check(capsys, config, *args)
    assert code == 2
    assert lines == [f'pfsbench: error: {site}:systems[site].partitions'
                     f'[compute]{why.format(**fill)}']


@pytest.mark.parametrize('extra, method', [
    # Where both are declared, the per-client counters judge.
    ("'fs_counters_command': 'false', "
     "'fs_clients_command': 'echo source=4 mount=/m2 bytes=1'",
     'per-client counters'),
    ("'fs_job_stats_command': 'cat {data}/manual-ost-five-osts.txt'",
     'per-job counters'),
])
def test_the_method_that_judges_foreign_load_is_named_per_target(
        tmp_path, capsys, extra, method):
    data = REPO / 'tests' / 'data' / 'lustre-job-stats'
    config, _ = _config(tmp_path, path=str(tmp_path),
                        hostname=f'^{socket.gethostname()}$',
                        extra=extra.format(data=data))
    _, out, _ = _check(capsys, config, '--system', 'site:compute',
                       '--tags', 'E6')
    (note,) = [line for line in out if 'foreign load' in line]
    assert note.startswith(f'site:compute: note: target scratch: foreign '
                           f'load judged by {method} (extras.'), note
    assert re.search(r'; runs, [14] source\(s\) now\)$', note), note


def test_another_machines_target_is_not_judged_here(tmp_path, capsys):
    config, _ = _config(tmp_path, path='/lustre/hawk/scartch/pfsbench')
    code, lines, _ = _check(capsys, config, '--system', 'site',
                            '--tags', 'E6')
    assert code == 0, lines
    assert lines[0] == (f'site:compute: ok (7 case(s); targets and tools '
                        f'not checked: this host ({socket.gethostname()}) '
                        f'is not site)')


@pytest.mark.parametrize('spec,why', [
    ('nosuch', "'nosuch': no such system; known: "),
    ('site:login', "'site:login': no partition 'login' in site; known: "
                   "compute"),
])
def test_unknown_system_or_partition(tmp_path, capsys, spec, why):
    config, _ = _config(tmp_path)
    code, _, lines = _check(capsys, config, '--system', spec)
    assert code == 2
    assert lines[-1].startswith(f'pfsbench: error: <command line>:--system: '
                                f'{why}')


MPI_SITE = '''
site_configuration = {{'systems': [{{
    'name': 'site', 'hostnames': ['^site-login$'], 'modules_system': 'nomod',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': {launcher!r},
        'environs': ['builtin'], 'features': ['pfs', 'mpi'],
        'access': {access!r}, 'env_vars': {env_vars!r},
        'time_limit': {time_limit!r},
        'extras': {{'targets': [{{'name': 'gpfs', 'path': {path!r}}}]}},
    }}],
}}]}}
'''


@pytest.mark.parametrize('mistake,key,why', [
    ({'path': 'gpfs/scratch/$USER/pfsbench'}, '.extras.targets[gpfs].path',
     "'gpfs/scratch/$USER/pfsbench': is a relative path, which no job could "
     "use; give an absolute path (or one starting with $VARIABLE, e.g. "
     "$SCRATCH/pfsbench)"),
    ({'launcher': 'srun --mpi=pmi2'}, '.launcher',
     "'srun --mpi=pmi2': a launcher is one of ReFrame's launcher names "
     "(srun, mpirun, local, ...), without arguments; srun's --mpi=pmi2 "
     "belongs in the partition's env_vars: ['SLURM_MPI_TYPE', 'pmi2']"),
    ({'env_vars': [['SLURM_MPI_TYPE', 'pmx']]}, '.env_vars.SLURM_MPI_TYPE',
     "'pmx': not a Slurm MPI plugin; did you mean 'pmix'? (srun --mpi=list "
     "lists a cluster's: none, pmi2, pmix, pmix_v2, pmix_v3, pmix_v4, "
     "pmix_v5, cray_shasta are Slurm's own)"),
    ({'access': ['--mpi=pmx']}, '.access.0',
     "'--mpi=pmx': an srun option, not an #SBATCH one; the MPI plugin "
     "belongs in the partition's env_vars: ['SLURM_MPI_TYPE', 'pmx'] (srun "
     "reads it)"),
    ({'access': ['--mpi pmix']}, '.access.0',
     "'--mpi pmix': an srun option, not an #SBATCH one; the MPI plugin "
     "belongs in the partition's env_vars: ['SLURM_MPI_TYPE', 'pmix'] (srun "
     "reads it)"),
    # Issue 36: 'ok' and an error in one run, the error naming no file.
    ({'time_limit': '12 hours'}, '.time_limit',
     "'12 hours': expected a time limit above 0: ReFrame's 30m, 12h, "
     "1d12h or a number of seconds (43200), or Slurm's MM, MM:SS, HH:MM:SS, "
     "D-HH, D-HH:MM or D-HH:MM:SS"),
], ids=['relative-target', 'launcher-with-mpi', 'mpi-type-typo',
        'mpi-in-access', 'mpi-in-access-spaced', 'time-limit-in-words'])
def test_what_no_host_could_run_is_one_error_and_no_ok(tmp_path, capsys,
                                                       mistake, key, why):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'site.py'
    fields = dict(launcher='srun', access=['--account=proj'],
                  env_vars=[['SLURM_MPI_TYPE', 'pmi2']],
                  path='/gpfs/scratch/$USER/pfsbench', time_limit='12h')
    fields.update(mistake)
    site.write_text(MPI_SITE.format(**fields))
    code, out, err = _check(capsys, config, '--system', 'site:compute')
    assert code == 2
    assert not any(': ok' in line for line in out), out
    assert err == [f'pfsbench: error: {site}:systems[site].partitions'
                   f'[compute]{key}: {why}']


def test_an_unknown_mpi_plugin_is_a_warning_off_the_cluster(tmp_path,
                                                            capsys):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'site.py'
    site.write_text(MPI_SITE.format(
        launcher='srun', access=[], env_vars=[['SLURM_MPI_TYPE', 'openmpi']],
        path='/gpfs/scratch', time_limit=None))
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'E6')
    assert code == 0, err
    assert out[-1] == (
        f"site:compute: warning: {site}:systems[site].partitions[compute]"
        f".env_vars.SLURM_MPI_TYPE: 'openmpi': not a plugin Slurm ships "
        f"(none, pmi2, pmix, pmix_v2, pmix_v3, pmix_v4, pmix_v5, "
        f"cray_shasta); run check-config on the cluster, where srun "
        f"--mpi=list decides")


@pytest.mark.parametrize('tags,tool,where,advice', [
    # The check's own tool (its variable), not its folder's (mdtest).
    ('mdsrate', 'mdsrate', 'extras.mdsrate not set',
     "set the partition's extras.mdsrate to its path"),
    ('E13', 'mds-survey', 'no spack_view, nothing on PATH',
     "build it with the suite's Spack environment"),
])
def test_the_tool_looked_for_is_the_checks_own(tmp_path, capsys, tags, tool,
                                              where, advice, monkeypatch):
    config, site = _config(tmp_path, path=str(tmp_path),
                           hostname=f'^{socket.gethostname()}$')
    site.write_text(site.read_text().replace(
        "'features': ['pfs', 'mpi']", "'features': ['pfs', 'mpi', "
                                      "'lustre_mds']"))
    monkeypatch.setenv('PATH', '/usr/bin:/bin')
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', tags)
    assert code == 2
    (line,) = err
    assert f"[compute]: '{tool}': no binary ({where}); {advice}" in line
    assert "'mdtest'" not in line


def _mdsrate_site(tmp_path, extra=''):
    config, site = _config(tmp_path, path=str(tmp_path), extra=extra,
                           hostname=f'^{socket.gethostname()}$')
    site.write_text(site.read_text().replace(
        "'features': ['pfs', 'mpi']", "'features': ['pfs', 'mpi', "
                                      "'lustre_mds']"))
    return config


def _executable(path):
    # Never run: check-config asks only whether it is an executable file.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\nexit 1\n')
    path.chmod(0o755)


@pytest.mark.parametrize('declared', ['~/lustre/mdsrate',
                                      '$LUSTRE_TESTS/mdsrate'])
def test_a_declared_mdsrate_is_expanded_as_the_check_expands_it(
        tmp_path, capsys, monkeypatch, declared):
    _executable(tmp_path / 'home' / 'lustre' / 'mdsrate')
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    monkeypatch.setenv('LUSTRE_TESTS', str(tmp_path / 'home' / 'lustre'))
    config = _mdsrate_site(tmp_path, f"'mdsrate': {declared!r}")
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'mdsrate')
    assert (code, err) == (0, []), (out, err)


def test_mdsrate_is_looked_for_where_declared_only(tmp_path, capsys,
                                                   monkeypatch):
    # On PATH and in a Spack view, as the check never looks (it skips
    # unless extras.mdsrate names it): not found.
    _executable(tmp_path / 'bin' / 'mdsrate')
    _executable(tmp_path / 'view' / 'bin' / 'mdsrate')
    monkeypatch.setenv('PATH', f'{tmp_path / "bin"}:/usr/bin:/bin')
    config = _mdsrate_site(tmp_path,
                           f"'spack_view': {str(tmp_path / 'view')!r}")
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'mdsrate')
    assert code == 2
    (line,) = err
    assert line.endswith("[compute]: 'mdsrate': no binary (extras.mdsrate "
                         "not set); set the partition's extras.mdsrate to "
                         "its path, or run with -S "
                         "tool_binary=/path/to/mdsrate"), line


def test_the_helper_tools_of_a_targets_cases_are_named(tmp_path, capsys,
                                                       monkeypatch):
    # Issue 36: check-config named neither lfs (the lustre feature's
    # layouts) nor pfind (IO500's find phase) where they were missing.
    config, site = _config(tmp_path, path=str(tmp_path),
                           hostname=f'^{socket.gethostname()}$')
    site.write_text(site.read_text().replace(
        "'features': ['pfs', 'mpi']", "'features': ['pfs', 'mpi', "
                                      "'lustre']"))
    monkeypatch.setenv('PATH', '/usr/bin:/bin')
    if shutil.which('lfs') or shutil.which('pfind'):
        pytest.skip('lfs or pfind is on /usr/bin:/bin')
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'E6')
    assert code == 2 and not any(': ok' in line for line in out)
    assert err == [f"pfsbench: error: {site}:systems[site].partitions"
                   f"[compute]: 'lfs': not on PATH; 7 case(s) set a Lustre "
                   f"layout on target(s) scratch (the lustre feature; e.g. "
                   f"dd_stream_per_node %nodes=1): install the Lustre client "
                   f"utilities, or declare each non-Lustre target's fstype"]
    # A target that declares another file system needs no lfs.
    site.write_text(site.read_text().replace(
        "'name': 'scratch',", "'name': 'scratch', 'fstype': 'xfs',"))
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'E6')
    assert code == 0, err
    code, out, err = _check(capsys, config, '--system', 'site:compute',
                            '--tags', 'io500', '--tags', 'mdtest')
    assert code == 2
    assert any("'pfind': no binary (no spack_view, nothing on PATH) "
               "(IO500's find phase of " in line and
               "case(s), e.g. mdtest_io500_phases %" in line
               for line in err), err


@pytest.mark.parametrize('fstype,judge', [
    ('nfs', 'nothing: nfs has no block device on the client'),
    ('xfs', 'the block device, when the target is on one here'),
])
def test_a_network_target_is_not_said_to_be_judged_by_a_block_device(
        tmp_path, capsys, fstype, judge):
    # An nfs target has no block device on the client: the note said it
    # would be judged by one.
    config, site = _config(tmp_path)
    site.write_text(site.read_text().replace(
        "'path': '/lustre/scratch'",
        f"'path': '/lustre/scratch', 'fstype': {fstype!r}"))
    code, out, _ = _check(capsys, config, '--system', 'site:compute',
                          '--tags', 'E6')
    assert code == 0, out
    (note,) = [line for line in out if 'foreign load' in line]
    assert note == (f'site:compute: note: target scratch: foreign load '
                    f'judged by {judge}; no server-side counters '
                    f'(extras.fs_clients_command, fs_job_stats_command or '
                    f'fs_counters_command)')
