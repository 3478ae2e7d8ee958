# SPDX-License-Identifier: BSD-3-Clause
"""The ``lfs getstripe`` parser on the Lustre manual's published samples.

The samples and their source are in tests/data/lfs/ (SOURCES.md); each
assertion is a fact the manual states about its sample.
"""

from pathlib import Path

import pytest

from pfsbench.core.errors import ParseError
from pfsbench.parsers import lfs

DATA = Path(__file__).parent / 'data' / 'lfs'


def _parse(name):
    return lfs.parse((DATA / name).read_text(), name)


def test_every_sample_is_cited():
    cited = (DATA / 'SOURCES.md').read_text()
    samples = sorted(p.name for p in DATA.glob('*.txt'))
    assert samples
    for name in samples:
        assert f'`{name}`' in cited, f'{name} has no source in SOURCES.md'


def test_plain_file_on_one_ost():
    layout = _parse('getstripe-plain-one-stripe.txt').layout(
        '/mnt/testfs/file1')
    assert layout.kind == 'file'
    comp = layout.plain
    assert (comp.stripe_count, comp.stripe_size_bytes,
            comp.stripe_offset) == (1, 1048576, 0)
    assert comp.ost_indices == (0,)       # created with --index 0
    assert comp.pattern == '1'
    assert lfs.layout_mismatches(layout, 1, 2**20) == []


def test_plain_file_with_4m_stripes():
    result = _parse('getstripe-plain-4m-stripe.txt')
    (layout,) = result.layouts
    assert layout.plain.stripe_size_bytes == 4 * 2**20
    assert layout.plain.ost_indices == (1,)
    assert lfs.layout_mismatches(layout, 1, 4 * 2**20) == []
    # Asked for 1 MiB stripes: the check must say the layout differs.
    assert lfs.layout_mismatches(layout, 1, 2**20) == [
        '/mnt/lustre/4mb_file: stripe size 4194304, requested 1048576']


def test_objects_only_output_counts_the_objects():
    (layout,) = _parse('getstripe-objects-only-full-stripe.txt').layouts
    # "striped over all six active OSTs"
    assert layout.plain.ost_indices == (0, 1, 2, 3, 4, 5)
    assert layout.plain.stripe_count is None
    assert lfs.layout_mismatches(layout, 6, 0) == []
    # A request for 8 stripes on this 6-OST file system fell back to 6.
    assert lfs.layout_mismatches(layout, 8, 0) == [
        '/mnt/lustre/full_stripe: stripe count 6, requested 8']


def test_published_object_row_typo_is_read():
    (layout,) = _parse('getstripe-plain-manual-typo.txt').layouts
    assert layout.plain.ost_indices == (2,)   # "located on obdidx 2"


def test_composite_layout_has_three_components():
    (layout,) = _parse('getstripe-pfl-three-components.txt').layouts
    assert layout.kind == 'composite'
    assert layout.plain is None
    assert [c.stripe_count for c in layout.components] == [1, 4, 8]
    assert [(c.extent_start, c.extent_end) for c in layout.components] == [
        (0, 4194304), (4194304, 67108864), (67108864, None)]
    assert all(c.flags == 'init' for c in layout.components)
    assert layout.components[2].ost_indices == (4, 5, 6, 7, 0, 1, 2, 3)
    for comp in layout.components:
        assert len(comp.ost_indices) == comp.stripe_count
    # A plain-layout request that got a composite file is a mismatch.
    (problem,) = lfs.layout_mismatches(layout, 4, 2**20)
    assert 'composite layout with 3 components' in problem


def test_directory_default_and_file():
    result = _parse('getstripe-d-directory-and-file.txt')
    directory = result.layout('/mnt/testfs/pfldir')
    assert directory.kind == 'directory-default'
    assert (directory.plain.stripe_count, directory.plain.stripe_size_bytes,
            directory.plain.stripe_offset) == (1, 1048576, -1)
    file = result.layout('/mnt/testfs/pfldir/commonfile')
    assert file.plain.ost_indices == (2,)
    assert file.plain.stripe_offset == 0


@pytest.mark.parametrize('text,line', [
    ('error: getstripe: /mnt/x: No such file or directory\n',
     'error: getstripe: /mnt/x: No such file or directory'),
    ('/tmp/file has no stripe info\n', '/tmp/file has no stripe info'),
])
def test_lfs_error_is_quoted(text, line):
    with pytest.raises(ParseError) as err:
        lfs.parse(text, 'job.out')
    assert err.value.line == line
    assert 'lfs reported an error' in str(err.value)


def test_empty_output_is_an_error():
    with pytest.raises(ParseError) as err:
        lfs.parse('\n', 'job.out')
    assert 'expected at least one path' in str(err.value)


def test_unknown_line_is_quoted_with_its_number():
    text = (DATA / 'getstripe-plain-one-stripe.txt').read_text()
    text = text.replace('lmm_pattern:        1', 'garbage here 1')
    with pytest.raises(ParseError) as err:
        lfs.parse(text, 'job.out')
    assert err.value.lineno == 4
    assert str(err.value).startswith('job.out:4: expected a path')
