# SPDX-License-Identifier: BSD-3-Clause
"""Probing a tool reads bytes (issue 21, item 1): its help, version or API
list is decoded with replacement, never strictly.

IOR 3.3.0's ``-h`` prints bytes of uninitialised memory (different on
every run); a strict decode made every IOR check fail in setup with
``'utf-8' codec can't decode byte 0xb4``.
"""

import ast

import pytest

from conftest import REPO
from pfsbench.commands import ior, mdtest
from pfsbench.load import contention
from pfsbench.parsers import text
from pfsbench.site import binaries
from tool_builds import ior_builds

#: What IOR 3.3.0 printed around its module list on one run (the 0xb4 of
#: the issue, then half a UTF-8 sequence), as a shell script prints it.
_BAD_HELP = (r"printf 'Synopsis ior\n\264\377 garbage\nModule POSIX\n\n"
             r"Module MPIIO\n\342\202\n'")


def _tool(tmp_path, body, name='tool'):
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\n{body}\n')
    path.chmod(0o755)
    return str(path)


def test_probe_decodes_non_utf8_with_replacement(tmp_path):
    said = text.probe([_tool(tmp_path, _BAD_HELP)])
    assert said is not None
    assert 'Module POSIX' in said and 'Module MPIIO' in said
    assert '\ufffd\ufffd garbage' in said
    assert text.bad_bytes(said, 'tool') == ['tool:2', 'tool:6']


def test_probe_of_a_missing_or_hung_tool_is_none(tmp_path):
    assert text.probe([str(tmp_path / 'absent')]) is None
    assert text.probe([_tool(tmp_path, 'sleep 30')], timeout=1) is None


def test_run_keeps_stdout_and_stderr_apart_and_decodes_both(tmp_path):
    tool = _tool(tmp_path, r"printf 'out \377\n'; printf 'err \264\n' >&2;"
                           ' exit 3')
    proc = text.run([tool])
    assert (proc.returncode, proc.stdout, proc.stderr) == \
        (3, 'out \ufffd\n', 'err \ufffd\n')
    merged = text.run([tool], merge_stderr=True)
    assert sorted(merged.stdout.splitlines()) == ['err \ufffd', 'out \ufffd']
    assert merged.stderr == ''


def test_ior_apis_reads_a_help_text_that_is_not_utf8(tmp_path):
    fake_ior = _tool(tmp_path, _BAD_HELP, 'ior')
    assert binaries.ior_apis(fake_ior) == frozenset({'POSIX', 'MPIIO'})


def test_squeue_output_with_bad_bytes_still_names_the_jobs(tmp_path):
    squeue = _tool(tmp_path, r"printf '41 n1\n42 n\377\n'")
    assert contention.foreign_jobs(['n1'], [41], squeue=squeue) == \
        'Slurm job(s) 42 running on n1'


@pytest.mark.parametrize('build', ior_builds(), ids=lambda b: b.name)
def test_ior_apis_of_every_ior_build_found(build):
    # The real thing: 3.3.0's help differs on every run and holds bytes
    # that are not UTF-8; every build must list at least POSIX.
    if build.missing:
        pytest.skip(build.missing)
    binaries.ior_apis.cache_clear()
    apis = binaries.ior_apis(build.ior)
    assert apis is not None and 'POSIX' in apis, (build.ior, apis)


def _strict_decodes(source):
    """Calls in ``source`` that decode a tool's output strictly: a
    ``subprocess`` call asking for text without ``errors='replace'``, a
    ``.decode()`` without it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or \
                not isinstance(node.func, ast.Attribute):
            continue
        words = {k.arg: k.value for k in node.keywords}
        lenient = isinstance(words.get('errors'), ast.Constant) and \
            words['errors'].value == 'replace'
        if node.func.attr == 'decode':
            lenient = lenient or any(
                isinstance(a, ast.Constant) and a.value == 'replace'
                for a in node.args)
            if not lenient:
                found.append(node.lineno)
        elif node.func.attr in ('run', 'Popen', 'check_output') and \
                isinstance(node.func.value, ast.Name) and \
                node.func.value.id == 'subprocess':
            asks_text = any(k in words for k in
                            ('text', 'universal_newlines', 'encoding'))
            if asks_text and not lenient:
                found.append(node.lineno)
    return found


def test_the_strict_decode_finder_finds_one():
    # The finder below must be able to fail.
    assert _strict_decodes(
        'import subprocess\nsubprocess.run(a, universal_newlines=True)\n'
        'b"x".decode()\nb"y".decode("utf-8", "replace")\n') == [2, 3]


def test_nothing_in_the_package_decodes_a_tool_strictly():
    strict = []
    for path in sorted((REPO / 'pfsbench').rglob('*.py')):
        strict += [f'{path.relative_to(REPO)}:{line}'
                   for line in _strict_decodes(path.read_text())]
    assert strict == []


@pytest.mark.parametrize('build', ior_builds(), ids=lambda b: b.name)
def test_io500_options_are_found_in_each_builds_help(build):
    # IO500's command lines need IOR/mdtest 4.0.0 or newer; 3.3.0's help
    # (not UTF-8) lacks the options, and the IO500 checks skip naming them.
    for tool, options in (('ior', ior.IO500_IOR_OPTIONS),
                          ('mdtest', mdtest.IO500_MDTEST_OPTIONS)):
        if build.missing_tool(tool):
            pytest.skip(build.missing_tool(tool))
        path = getattr(build, tool)
        said = binaries.io500_unusable(path, options, tool)
        if build.name.startswith('3.'):
            assert said.startswith(f"{path} lacks IO500's options "
                                   f'--dataPacketType, '), said
        else:
            assert said == ''
