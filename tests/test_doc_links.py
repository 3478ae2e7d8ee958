# SPDX-License-Identifier: BSD-3-Clause
"""The docs hold together: every link from docs/ and README.md to a page of
the repository finds its file and, with a ``#fragment``, a heading of that
page (GitHub's anchors); and docs/gate.md stays the site engineer's manual,
its measurements and method on pages of their own (issue 33)."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / 'docs').glob('*.md')) + [REPO / 'README.md']
LINK = re.compile(r'\]\(([^)\s]+)\)')


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation out, spaces
    to hyphens."""
    return re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')


def anchors(page):
    """Every heading's anchor of a Markdown page (code blocks left out; a
    repeated heading gets -1, -2, ... as on GitHub)."""
    found, seen, in_code = set(), {}, False
    for line in page.read_text().splitlines():
        if line.startswith('```'):
            in_code = not in_code
        elif not in_code and (m := re.match(r'#+ (.*)', line)):
            name = anchor(m.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            found.add(name if count == 0 else f'{name}-{count}')
    return found


def test_anchor_follows_github():
    assert anchor('3. The verdict') == '3-the-verdict'
    assert anchor('Power against the bound (issue 19)') == \
        'power-against-the-bound-issue-19'
    assert anchor('Rules (higher-is-better; mirror them for '
                  'lower-is-better)') == \
        'rules-higher-is-better-mirror-them-for-lower-is-better'


@pytest.mark.parametrize('page', PAGES, ids=lambda p: p.name)
def test_links_find_their_page_and_heading(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r'[a-z]+:', target):
            continue                                # a URL, mailto:
        path, _, fragment = target.partition('#')
        dest = (page.parent / path).resolve() if path else page
        if REPO not in dest.parents and dest != REPO:
            continue                                # outside the repository
        if not dest.exists():
            broken.append(f'{target}: no such file')
        elif fragment and dest.suffix == '.md' \
                and fragment not in anchors(dest):
            broken.append(f'{target}: no heading #{fragment} in {dest.name}')
    assert not broken, f'{page.relative_to(REPO)}: ' + '; '.join(broken)


def test_the_gate_manual_reads_in_ten_minutes():
    manual = (REPO / 'docs' / 'gate.md').read_text()
    assert len(manual.splitlines()) <= 400
    for heading in ('Set up the nightly', 'Record a baseline',
                    'Read a verdict', 'Acknowledge a change',
                    'Tune the settings', 'Exit codes'):
        assert re.search(rf'^#+ {heading}$', manual, re.M), heading
    # The method and the measurements moved, linked, not deleted.
    assert '](gate-method.md' in manual and '](gate-evidence.md' in manual
    evidence = (REPO / 'docs' / 'gate-evidence.md').read_text()
    for bench in ('bench/gate_quality.py', 'bench/nightly_month.py',
                  'bench/gate_speed.py'):
        assert bench in evidence
