# SPDX-License-Identifier: BSD-3-Clause
"""The seeds' published figures as data (pfsbench/papers/seedNNN.yaml),
``pfsbench paper``, and the references built from them (issue 24, item 6).

Every record is checked against the seed it quotes (its line, verbatim, at
its line number, holds its value), so a retyped or shifted figure fails;
seed 004's tables are counted cell by cell, so a dropped figure fails."""

import json
import re

import pytest
import yaml

import synth
from conftest import SEEDS

from pfsbench import papers
from pfsbench.cli import main
from pfsbench.core.errors import ConfigError
from pfsbench.site import references
from pfsbench.site.config import validate_reference_file

NUMBER = re.compile(r'-?\d+(?:\.\d+)?')


def _seed_lines(paper):
    path = SEEDS / paper.source.split('/')[-1]
    return path.read_text(encoding='utf-8').splitlines()


@pytest.mark.parametrize('seed', papers.SEEDS)
def test_every_record_quotes_its_source_line(seed):
    paper = papers.load(seed)
    lines = _seed_lines(paper)
    assert paper.figures
    for fig in paper.figures:
        assert lines[fig.lineno - 1] == fig.line, fig
        # The value is one of the numbers the line prints (GB/s in seed
        # 001's text: "3GB/s" is 3).
        assert fig.value in [float(n) for n in NUMBER.findall(fig.line)], \
            fig


def test_seed004_has_every_cell_of_its_tables():
    paper = papers.load('004')
    lines = _seed_lines(paper)
    rows = {}
    for fig in paper.figures:
        rows.setdefault(fig.lineno, []).append(fig)
    # Every tab-separated numeric cell of a table row is one record, at
    # the NP its column says (blank cells: none).
    cells = 0
    np_columns = (1, 2, 4, 8, 16, 32, 64)
    first = next(i for i, line in enumerate(lines) if 'perf number' in line)
    last = lines.index('Observations')
    for no, line in enumerate(lines[first:last], first + 1):
        parts = line.split('\t')
        if len(parts) < 3 or not re.match(r'^[a-zA-Z]', parts[0]) or \
                not any(NUMBER.fullmatch(p) for p in parts[1:]) or \
                parts[0].startswith(('Operations', 'Ops per')):
            continue
        values = {np_columns[i]: float(p) for i, p in enumerate(parts[1:8])
                  if NUMBER.fullmatch(p)}
        cells += len(values)
        assert {f.get('np'): f.value for f in rows.get(no, [])} == values, no
    assert cells == len(paper.figures) == 562


def test_seed004_e16_headline_figure():
    (fig,) = [f for f in papers.load('004').figures
              if f.experiment == 'E16' and f.get('lustre') == '2.0' and
              f.get('clients') == 'multi' and f.get('np') == 16 and
              f.operation == 'stat']
    assert fig.value == 237378.41 and fig.lineno == 214
    # metabench's worker counts stay beside the total process counts.
    workers = {f.get('np'): f.get('workers') for f in papers.load('004')
               .figures if f.tool == 'metabench'}
    assert workers == {1: 1, 2: 1, 4: 3, 8: 7, 16: 15, 32: 31, 64: 63}


def test_paper_e16_prints_the_table(capsys):
    assert main(['paper', 'E16']) == 0
    out = capsys.readouterr().out
    table = out.split('mdsrate: lustre 2.0, clients multi [ops/s]')[1]
    head, stat = table.splitlines()[1], table.splitlines()[3]
    assert head.split()[3:10] == ['1', '2', '4', '8', '16', '32', '64']
    # The NP 16 column of the stat row: printed as the source did.
    assert stat.split()[0] == 'stat' and stat.split()[5] == '237378.41'


def test_paper_json(capsys):
    assert main(['paper', 'e16', '--format', 'json']) == 0
    record = json.loads(capsys.readouterr().out)
    assert record['seed'] == '004' and 'site' not in record
    assert {'lustre': '2.0', 'clients': 'multi', 'np': 16,
            'operation': 'stat', 'value': 237378.41,
            'unit': 'ops/s', 'lineno': 214}.items() <= \
        next(f for f in record['figures'] if f['value'] == 237378.41).items()
    assert len(record['figures']) == 102


def test_paper_unknown_experiment_is_one_line(capsys):
    assert main(['paper', 'E99']) == 3
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'E99' in err and 'E16' in err


def _e17_db(tmp_path, scale, contended_np=None):
    """A results database with one E17 session: multi-client NP 1, 2, 16
    at ``scale`` times the paper's 2.0 figures, two repeats each (the
    second of NP ``contended_np`` measured under foreign load)."""
    paper = {(f.get('np'), f.operation): f.value
             for f in papers.load('004').figures
             if f.experiment == 'E17' and f.get('lustre') == '2.0' and
             f.get('clients') == 'multi'}
    uuid = 'sess-e17'
    cases = []
    for np_ in (1, 2, 16):
        for rep in (0, 1):
            perf = {op.replace(' ', '_'): (paper[np_, op] * scale, 'ops/s')
                    for (n, op) in paper if n == np_}
            cases.append(synth.make_testcase(
                uuid, 0, len(cases),
                f'mdtest_e17_stride_sync %clients=multi %np={np_}', perf,
                system='localslurm', partition='mpi', repeat=rep,
                num_tasks=np_, time=1e9 + 1))
            cases[-1]['contended'] = np_ == contended_np and rep == 1
    db = tmp_path / 'results.db'
    synth.write_database(str(db), [synth.make_report(
        cases, time_start=1e9, session_uuid=uuid)])
    return db


def test_paper_puts_the_site_beside_the_paper(tmp_path, capsys):
    db = _e17_db(tmp_path, 0.5, contended_np=2)
    assert main(['paper', 'E17', '--db', str(db), '--format', 'json']) == 0
    site = json.loads(capsys.readouterr().out)['site']
    # Every point both have: 3 NP x 6 phases, each beside the 1.6.7.1, 1.8
    # and 2.0 multi-client figure of that point (no single-client one).
    assert len(site) == 3 * 6 * 3
    assert {s['paper']['clients'] for s in site} == {'multi'}
    for s in site:
        if s['paper']['lustre'] == '2.0':
            assert s['ratio'] == pytest.approx(0.5)
            # A repeat under foreign load is kept beside a paper, counted.
            assert s['n'] == 2
            assert s['contended'] == (1 if s['paper']['np'] == 2 else 0)
    assert main(['paper', 'E17', '--db', str(db)]) == 0
    text = capsys.readouterr().out
    assert 'site beside paper' in text
    assert re.search(r'localslurm:mpi mdtest_e17_stride_sync %clients=multi'
                     r' %np=16 +file_stat \[ops/s\] n=2 .* 25016\.13 +0\.5 ',
                     text)
    assert re.search(r'%np=2 +file_stat \[ops/s\] n=2 \(1 contended\) ',
                     text)


def test_paper_html_draws_both_curves(tmp_path):
    db = _e17_db(tmp_path, 2.0)
    out = tmp_path / 'e17.html'
    assert main(['paper', 'E17', '--db', str(db), '--format', 'html',
                 '-o', str(out)]) == 0
    page = out.read_text()
    svg = next(s for s in page.split('<svg')[1:]
               if 'lustre 2.0, clients multi: file stat' in s)
    assert 'stroke-dasharray' in svg          # the paper's curve
    assert 'site localslurm:mpi' in svg       # the site's, beside it
    assert svg.count('<circle') == 3          # NP 1, 2, 16


def test_paper_without_site_figures_says_so(tmp_path, capsys):
    db = _e17_db(tmp_path, 1.0)
    assert main(['paper', 'E16', '--db', str(db)]) == 0
    assert 'no figure of the site' in capsys.readouterr().out


def test_references_come_from_the_data():
    # The published figures, at the check's index, as the file had them
    # retyped before (e.g. 2.0 multi-client mdsrate stat at NP 16).
    ref = references.load('config/references/example_seed004.yaml')
    e16 = ref['mdtest_e16_mdsrate_standin']['example_seed004:clients']
    assert e16['multi'][16]['file_stat'] == [237378.41, -0.10, None,
                                             'ops/s']
    assert ref['mdsrate_e16'] == ref['mdtest_e16_mdsrate_standin']
    assert len(e16['single']) == 7 and len(e16['multi']) == 7
    e17 = ref['mdtest_e17_stride_sync']['example_seed004:clients']
    assert e17['single'][64]['dir_create'][0] == 2499.35
    e11 = references.load('config/references/example_seed002.yaml')[
        'ior_mpiio_fpp_bandwidth']
    # 72 tasks: Gluster's own FUSE, not the kernel's.
    assert e11['example_seed002:ib']['striped'][72]['write_bw'][0] == 262.79
    assert e11['example_seed002:gige']['striped'] == {
        36: {'write_bw': [203.89, -0.10, None, 'MiB/s'],
             'read_bw': [209.22, -0.10, None, 'MiB/s']}}
    for name in ('example_seed002', 'example_seed004'):
        assert validate_reference_file(f'config/references/{name}.yaml') > 0


@pytest.mark.parametrize('entry, field, why', [
    ({'experiment': 'E99'}, 'c.p.$paper.experiment', 'expected one of'),
    ({'experiment': 'E16', 'lustre': '9.9'}, 'c.p.$paper',
     'selects no published figure'),
    # Without a Lustre version, three versions' figures fall on one point.
    ({'experiment': 'E16'}, 'c.p.$paper', 'two figures for'),
    ('E16', 'c.p.$paper', 'expected the only key'),
])
def test_bad_paper_entry_names_file_and_field(tmp_path, entry, field, why):
    path = tmp_path / 'refs.yaml'
    path.write_text(yaml.safe_dump({'c': {
        '$index': ['$partition', 'clients', 'np'],
        'p': {'$paper': entry}}}))
    with pytest.raises(ConfigError) as err:
        validate_reference_file(str(path))
    assert err.value.field == field and why in err.value.why
    assert str(path.name) in str(err.value)


def test_bad_data_file_names_record_and_field(tmp_path):
    with open(papers.HERE + '/seed003.yaml') as fp:
        good = yaml.safe_load(fp)
    good['figures'][4]['value'] = 'n/a'
    (tmp_path / 'seed003.yaml').write_text(yaml.safe_dump(good))
    with pytest.raises(ConfigError) as err:
        papers.load('003', str(tmp_path))
    assert err.value.field == 'figures.4.value' and err.value.value == 'n/a'


@pytest.mark.slurm
def test_paper_beside_a_localslurm_run_of_e17(localslurm, tmp_path, capsys):
    from test_checks_mdtest import MDTEST_BINARY, needs_mdtest
    if MDTEST_BINARY is None:
        pytest.skip(needs_mdtest.kwargs['reason'])
    from conftest import CHECKS, run_reframe

    proc = run_reframe(['--system', 'localslurm:srun', '-c',
                        str(CHECKS / 'mdtest'), '-n',
                        'mdtest_e17_stride_sync', '-P', 'clients=multi',
                        '-P', 'np=1,2', '-S', 'total_items=400',
                        '-S', 'pre_delay_s=0',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path, env=localslurm)
    assert proc.returncode == 0, proc.stdout
    capsys.readouterr()
    db = tmp_path / 'results.db'
    assert main(['paper', 'E17', '--db', str(db), '--format', 'json']) == 0
    site = json.loads(capsys.readouterr().out)['site']
    # NP 1 and 2, six phases, each beside 1.6.7.1, 1.8 and 2.0.
    assert len(site) == 2 * 6 * 3
    assert {(s['paper']['np'], s['system'], s['partition']) for s in site} \
        == {(1, 'localslurm', 'srun'), (2, 'localslurm', 'srun')}
    assert all(s['value'] > 0 and s['ratio'] == pytest.approx(
        s['value'] / s['paper']['value']) for s in site)
    assert main(['paper', 'E17', '--db', str(db)]) == 0
    text = capsys.readouterr().out
    print(text[text.index('site beside paper'):])
    assert 'mdtest_e17_stride_sync %clients=multi %np=2' in text


def test_a_published_peak_is_compared_with_the_sites_sweep_peak(tmp_path,
                                                                capsys):
    # Seed 001's E6 aggregates are the peaks of 1..64-node curves: the
    # site's figure is its own sweep's peak (MB/s -> the paper's GB/s),
    # and the node count where it fell.
    uuid = 'sess-e6'
    cases = [synth.make_testcase(
        uuid, 0, i, f'dd_stream_per_node %nodes={nodes}',
        {'write_bw_sum': (rate, 'MB/s'), 'read_bw_sum': (rate / 2, 'MB/s')},
        time=1e9 + 1) for i, (nodes, rate) in enumerate(
            ((1, 1000.0), (2, 2850.0), (4, 1900.0)))]
    db = tmp_path / 'results.db'
    synth.write_database(str(db), [synth.make_report(
        cases, time_start=1e9, session_uuid=uuid)])
    assert main(['paper', 'E6', '--db', str(db), '--format', 'json']) == 0
    site = json.loads(capsys.readouterr().out)['site']
    # One peak per published figure (4 file systems x write, read).
    assert len(site) == 8
    lfs3_write = next(s for s in site if s['paper']['file_system'] == 'lfs3'
                      and s['paper']['operation'] == 'write')
    assert lfs3_write['at'] == '2' and lfs3_write['value'] == 2.85
    assert lfs3_write['ratio'] == pytest.approx(2.85 / 5.7)
    assert lfs3_write['case'] == 'dd_stream_per_node %nodes=2'
