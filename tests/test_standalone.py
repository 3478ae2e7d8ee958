# SPDX-License-Identifier: BSD-3-Clause
"""A clone stands alone (issue 38): the tests, the benches, the package and
the scripts read nothing beside the repository.

The recorded tool outputs and the seeds are in tests/data; a file that
reaches for the project's old shared store (``../shared``, the
``PFSBENCH_SHARED`` variable, ``/work/shared``, a path joined with
``'shared'``) fails here, naming the file, line and text."""

import re

import pytest

from conftest import FIXTURES, REPO, SEEDS

#: What a read of the shared store looks like.  Built from parts so that
#: this file does not match itself.
_SHARED = 'sha' + 'red'
PATTERNS = [
    re.compile(r'\.\./' + _SHARED + r'\b'),
    re.compile('PFSBENCH_' + _SHARED.upper()),
    re.compile('/work/' + _SHARED + r'\b'),
    re.compile(_SHARED + r'/(fixtures|seeds)\b'),
    re.compile(r'''/\s*['"]''' + _SHARED + r'''['"]'''),
    re.compile(r'''['"]''' + _SHARED + r'''['"]\s*/'''),
]
#: The directories whose files must not read it (tests/data holds the
#: recorded outputs themselves, whose text is the tools').
ROOTS = ('tests', 'bench', 'pfsbench', 'scripts', '.ci', 'reframe-checks',
         'config', 'slurm-templates', 'spack-repo')
SKIP_DIRS = {REPO / 'tests' / 'data', REPO / '.venv'}
SUFFIXES = {'.py', '.sh', '.yaml', '.yml', '.json', '.toml', '.cfg', '.ini',
            '.j2', '.tmpl', '.txt', '.md', ''}


def _files():
    for root in ROOTS:
        top = REPO / root
        if top.is_file():
            yield top
            continue
        for path in sorted(top.rglob('*')):
            if (path.is_file() and path.suffix in SUFFIXES
                    and '__pycache__' not in path.parts
                    and not any(d in path.parents for d in SKIP_DIRS)):
                yield path


def offenders(paths):
    """``file:line: text`` for every line of ``paths`` that reads the
    shared store."""
    found = []
    for path in paths:
        try:
            lines = path.read_text(encoding='utf-8').splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        found += [f'{path.relative_to(REPO)}:{no}: {lines[no - 1].strip()}'
                  for no in _offending_lines(lines)]
    return found


def test_nothing_reads_beside_the_clone():
    files = [p for p in _files() if p != REPO / 'tests' / 'test_standalone.py']
    assert len(files) > 100, files
    assert offenders(files) == []


@pytest.mark.parametrize('line', [
    "FIXTURES = REPO.parent / 'shared' / 'fixtures'",
    "SHARED = Path(os.environ.get('PFSBENCH_SHARED', REPO.parent))",
    'path = "../shared/fixtures/ior/posix-1task.txt"',
    "cat /work/shared/fixtures/dd/f.txt",
    "source: shared/seeds/004_14c859b115bbed1c.txt",
])
def test_the_guard_bites(tmp_path, line):
    path = tmp_path / 'reader.py'
    path.write_text(f'x = 1\n{line}\n')
    assert _offending_lines(path.read_text().splitlines()) == [2]


@pytest.mark.parametrize('line', [
    "access='shared'", "'-P', 'access=fpp,shared',",
    "# a shared file system", "scope: shared",
])
def test_the_guard_lets_the_word_be(tmp_path, line):
    path = tmp_path / 'reader.py'
    path.write_text(line + '\n')
    assert _offending_lines(path.read_text().splitlines()) == []


def _offending_lines(lines):
    """The numbers of the lines that match a pattern."""
    return [no for no, line in enumerate(lines, 1)
            if any(p.search(line) for p in PATTERNS)]


def test_the_fixtures_are_in_the_repository():
    # Every recorded output keeps its command line; the index and the
    # versions are beside them.
    outputs = sorted(FIXTURES.glob('*/*.txt'))
    assert len(outputs) >= 100
    missing = [p.name for p in outputs
               if not p.with_suffix('.cmd').is_file()]
    assert missing == []
    index = (FIXTURES / 'INDEX.md').read_text()
    assert [str(p.relative_to(FIXTURES)) for p in outputs
            if str(p.relative_to(FIXTURES)) not in index] == []
    assert 'mdtest-3.3.0' in (FIXTURES / 'VERSIONS.txt').read_text()
    assert len(sorted(SEEDS.glob('00[0-4]_*.txt'))) == 5
