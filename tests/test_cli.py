# SPDX-License-Identifier: BSD-3-Clause
"""What every verb of ``pfsbench`` shares (STYLE.md section 7), checked on
the real parser: no abbreviated options, help with metavar and default on
every option, an *Examples* epilog whose examples parse, docs/cli.md naming
every option, and the ``parse`` tool table."""

import argparse
import json
import pkgutil
import re
import shlex
import subprocess
import sys

import pytest

from conftest import REPO
from pfsbench import __version__, cli, parsers
from pfsbench.cli.common import EXIT_CODES

DOC = (REPO / 'docs' / 'cli.md').read_text()
# Argument groups documented once, under these headings, for every verb
# that has them.
SHARED_GROUPS = {'results': 'Results options',
                 'session selection': 'Session selection options'}
# Shell syntax that ends the pfsbench part of an example.
REDIRECTIONS = ('>', '>>', '|', '&&', ';')


def walk(parser, path=('pfsbench',)):
    """``(path, parser)`` for the command and every verb and action."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, path + (name,))


PARSERS = list(walk(cli.build_parser()))
VERB_PARSERS = PARSERS[1:]


def ids(items):
    return [' '.join(path) for path, _ in items]


def options(parser):
    """The parser's own arguments (no --help, --version, sub-commands)."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction,
                                  argparse._VersionAction,
                                  argparse._SubParsersAction))]


def run(argv, capsys):
    print('+ pfsbench ' + shlex.join(argv))
    capsys.readouterr()
    try:
        code = cli.main(argv)
    except SystemExit as exc:      # argparse's own usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_abbreviated_option_is_an_error(capsys):
    # allow_abbrev would take --tasks for --tasks-per-node and render a
    # job with a task count nobody asked for.
    code, out, err = run(['render', 'E11', '--tasks', '36', '--target',
                          '/scratch'], capsys)
    assert code == 2 and out == ''
    assert 'unrecognized arguments: --tasks 36' in err
    code, out, _ = run(['render', 'E11', '--tasks-per-node', '36',
                        '--target', '/scratch'], capsys)
    assert code == 0 and '--ntasks-per-node=36' in out


@pytest.mark.parametrize('path,parser', PARSERS, ids=ids(PARSERS))
def test_no_parser_takes_abbreviations(path, parser):
    assert parser.allow_abbrev is False


@pytest.mark.parametrize('path,parser', PARSERS, ids=ids(PARSERS))
def test_every_option_has_help_metavar_and_default(path, parser):
    for action in options(parser):
        name = '/'.join(action.option_strings) or action.dest
        assert action.help, f'{name}: no help'
        if action.option_strings:
            assert re.search(r'default|required', action.help), \
                f'{name}: help shows no default: {action.help!r}'
        if action.nargs != 0:
            assert action.metavar, f'{name}: no metavar'


def _invocations(epilog):
    lines = epilog.replace(' \\\n', ' ').splitlines()
    assert lines[0] == 'Examples:'
    return [line.strip() for line in lines[1:]]


@pytest.mark.parametrize('path,parser', VERB_PARSERS, ids=ids(VERB_PARSERS))
def test_help_ends_with_examples_that_parse(path, parser):
    invocations = _invocations(parser.epilog)
    assert 2 <= len(invocations) <= 3
    # The formatter keeps the epilog line by line, last in --help.
    assert parser.format_help().rstrip().endswith(
        parser.epilog.splitlines()[-1])
    ours = [i for i in invocations if i.startswith('pfsbench ')]
    assert len(ours) >= 2
    for invocation in ours:
        words = shlex.split(invocation)[1:]
        cut = [n for n, w in enumerate(words) if w in REDIRECTIONS]
        words = words[:cut[0]] if cut else words
        assert words[:len(path) - 1] == list(path[1:]), invocation
        cli.build_parser().parse_args(words)   # SystemExit(2) if wrong


def _doc_section(title):
    match = re.search(rf'^#+ {re.escape(title)}\n(.*?)(?=^#|\Z)', DOC,
                      re.M | re.S)
    assert match, f'docs/cli.md: no heading {title!r}'
    return match.group(1)


def _doc_title(path):
    return '`' + ' '.join(path) + '`' if len(path) > 1 else 'Global options'


@pytest.mark.parametrize('path,parser', PARSERS, ids=ids(PARSERS))
def test_docs_name_every_option(path, parser):
    section = _doc_section(_doc_title(path))
    # A verb's shared groups may be linked from it or from its parent verb.
    linked = ''.join(_doc_section(_doc_title(path[:n]))
                     for n in range(1, len(path) + 1))
    for group in parser._action_groups:
        where = section
        if group.title in SHARED_GROUPS:
            heading = SHARED_GROUPS[group.title]
            anchor = '#' + heading.lower().replace(' ', '-')
            assert f']({anchor})' in linked, \
                f'docs/cli.md: {_doc_title(path)} does not link {anchor}'
            where = _doc_section(heading)
        for action in group._group_actions:
            if action not in options(parser):
                continue
            if action.option_strings:
                for opt in action.option_strings:
                    assert re.search(rf'`{re.escape(opt)}[ `]', where), \
                        f'docs/cli.md: {_doc_title(path)}: no {opt}'
            else:
                assert f'`{action.metavar}`' in where, \
                    f'docs/cli.md: {_doc_title(path)}: no {action.metavar}'


def test_docs_and_help_list_the_same_exit_codes(capsys):
    rows = re.findall(r'^\| (\d+) \| (.*) \|$', _doc_section('Exit codes'),
                      re.M)
    assert {int(code): meaning for code, meaning in rows} == EXIT_CODES
    with pytest.raises(SystemExit):
        cli.main(['--help'])
    shown = ' '.join(capsys.readouterr().out.split('Exit codes:')[1].split())
    for code, meaning in EXIT_CODES.items():
        assert f'{code} {meaning}' in shown


def test_every_parser_module_is_a_parse_tool():
    modules = {f'pfsbench.parsers.{m.name}'
               for m in pkgutil.iter_modules(parsers.__path__)}
    assert modules - set(parsers.HELPERS) == {
        p.module for p in parsers.TOOLS.values()}, \
        "add the new parser to its tool's record in pfsbench/core/tools.py"
    tool = next(a for a in options(dict(VERB_PARSERS)[('pfsbench', 'parse')])
                if a.dest == 'tool')
    assert tool.choices == sorted(parsers.TOOLS)


def test_parse_reads_a_tool_from_the_table(capsys):
    fixture = REPO / 'tests' / 'data' / 'lfs' / 'getstripe-plain-4m-stripe.txt'
    code, out, err = run(['parse', 'lfs', str(fixture), '--format', 'json'],
                         capsys)
    assert code == 0, err
    layouts = json.loads(out)['layouts']
    assert layouts and layouts[0]['components'][0]['stripe_size_bytes'] \
        == 4 * 2**20


def test_check_config_finds_the_repository_config(capsys):
    code, out, err = run(['check-config'], capsys)
    assert code == 0, err
    assert out.startswith('systems: ') and 'local' in out


def test_python_dash_m_runs_the_command():
    proc = subprocess.run([sys.executable, '-m', 'pfsbench.cli',
                           '--version'], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f'pfsbench {__version__}'
