# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-config``: ReFrame's schema and pfsbench's, one line per
problem naming file and key (partitions by name), and with ``--system``
the targets, tools and limits of a partition."""

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
], ids=['max_jobs-eight', 'misspelt-extras-key', 'missing-target',
        'short-counters', 'silent-provenance'])
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
