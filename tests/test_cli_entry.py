# SPDX-License-Identifier: BSD-3-Clause
"""The ``pfsbench`` command's entry point: the console script of
pyproject.toml resolves to :func:`pfsbench.cli.entry.main`, and the
verbs the parser builds are :data:`pfsbench.cli.entry.VERBS` (the list
tests narrow to keep a parser small)."""

import importlib
import pathlib
import re

from pfsbench import cli
from pfsbench.cli import entry

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_console_script_is_the_entry_main():
    # tomllib is 3.11's; the project supports 3.10.
    text = (ROOT / 'pyproject.toml').read_text()
    scripts = text.split('[project.scripts]', 1)[1].split('\n[', 1)[0]
    target = re.search(r'^pfsbench\s*=\s*"([^"]+)"', scripts, re.M)
    assert target, 'pyproject.toml: [project.scripts] names no pfsbench'
    module, _, name = target.group(1).partition(':')
    assert getattr(importlib.import_module(module), name) is entry.main
    assert cli.main is entry.main


def test_parser_builds_the_verbs_of_entry(monkeypatch):
    monkeypatch.setattr(entry, 'VERBS', ['report'])
    parser = cli.build_parser()
    verbs = next(a for a in parser._actions if a.dest == 'verb').choices
    assert list(verbs) == ['report']
