# SPDX-License-Identifier: BSD-3-Clause
"""Each tool declared once (pfsbench.core.tools): what the parsers, the streams
parser, Spack provenance and the binary search read of it."""

import importlib
import shutil

import pytest

from pfsbench import parsers
from pfsbench.core import tools
from pfsbench.parsers import text
from pfsbench.site import binaries


def test_every_parser_named_is_a_module_with_parse():
    for name, tool in tools.TOOLS.items():
        if tool.parser:
            assert callable(importlib.import_module(tool.parser).parse), name


def test_pfsbench_parse_names_are_the_records():
    # bonnie++'s parser keeps its old command-line name.
    assert parsers.TOOLS['bonnie'].module == 'pfsbench.parsers.bonnie'
    assert 'bonnie++' not in parsers.TOOLS
    assert parsers.TOOLS['fio'].formats == ('json', 'text', 'terse')


def test_stream_adapters_are_the_runners_programs():
    assert tools.stream_adapters() == {
        'dd': 'pfsbench.parsers.dd', 'fio': 'pfsbench.parsers.fio',
        'bonnie++': 'pfsbench.parsers.bonnie'}


def test_every_tools_package_is_part_of_provenance():
    # (BENCHMARK_PACKAGES is built from tools.packages(): only the
    # tool-to-package answers can go wrong.)
    assert binaries.package_of('mdtest') == 'ior'
    assert binaries.package_of('bonnie++') == 'bonniepp'
    # The system's dd is in no Spack package; an undeclared tool is its
    # own.
    assert binaries.package_of('dd') == ''
    assert binaries.package_of('h5bench') == 'h5bench'


def test_a_site_built_tool_says_where_to_declare_it():
    assert binaries.build_hint('mdsrate').startswith(
        "set the partition's extras.mdsrate to its path")
    assert binaries.build_hint('ior').startswith(binaries.BUILD_ADVICE)


def test_version_of_the_systems_dd():
    dd = shutil.which('dd')
    said = text.probe([dd, '--version']).splitlines()[0]
    # 'dd (coreutils) 9.1': the last word.
    assert binaries.version('dd', dd) == said.split()[-1]


@pytest.mark.parametrize('tool', ['ior', 'mdtest', 'io500'])
def test_a_tool_without_a_version_option_is_not_asked(tool, tmp_path):
    # It would print its usage, or (io500) read '--version' as its ini.
    asked = tmp_path / 'asked'
    fake = tmp_path / tool
    fake.write_text(f'#!/bin/sh\ntouch {asked}\necho "{tool} 9.9"\n')
    fake.chmod(0o755)
    assert binaries.version(tool, str(fake)) is None
    assert not asked.exists()


def test_a_version_not_printed_is_none(tmp_path):
    fake = tmp_path / 'fio'
    fake.write_text('#!/bin/sh\necho "fio: unknown option"\n')
    fake.chmod(0o755)
    assert binaries.version('fio', str(fake)) is None
    assert binaries.version('fio', str(tmp_path / 'missing')) is None
