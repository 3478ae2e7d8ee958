# SPDX-License-Identifier: BSD-3-Clause
"""Each tool declared once (pfsbench.core.tools): what the parsers, the streams
parser, Spack provenance and the binary search read of it."""

import importlib

from pfsbench import parsers
from pfsbench.core import tools
from pfsbench.site import binaries


def test_every_parser_named_is_a_module_with_parse():
    parsed = {name: tool for name, tool in tools.TOOLS.items()
              if tool.parser}
    assert len(parsed) >= 5, tools.TOOLS.keys()
    for name, tool in parsed.items():
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
