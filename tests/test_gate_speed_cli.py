# SPDX-License-Identifier: BSD-3-Clause
"""The command builds the sub-parser of the verb it is given only (each
verb's module imported to build its own: the others cost the gate a
sixth of a second), and parses a verb's line as the whole parser does;
with no verb, an unknown one or the top-level help, every verb is there
(docs/gate-evidence.md, "Speed: a year of nightlies")."""

import pytest

from pfsbench.cli import entry


def _imported(monkeypatch, argv):
    seen = []
    real = entry.verb_module

    def spy(verb):
        seen.append(verb)
        return real(verb)

    monkeypatch.setattr(entry, 'verb_module', spy)
    with pytest.raises(SystemExit):
        entry.main(argv)
    return seen


def test_a_named_verb_builds_its_own_sub_parser_only(monkeypatch, capsys):
    assert _imported(monkeypatch, ['--debug', 'gate', '--no-such']) == \
        ['gate']
    assert 'pfsbench gate: error: ' in capsys.readouterr().err
    assert _imported(monkeypatch, ['ingest', '-h']) == ['ingest']


@pytest.mark.parametrize('argv', [[], ['-h'], ['-h', 'gate'], ['--version'],
                                  ['no-verb'], ['--debug']])
def test_without_a_known_verb_every_verb_is_built(monkeypatch, capsys,
                                                  argv):
    assert _imported(monkeypatch, argv) == entry.VERBS
    if argv == ['no-verb']:
        assert "invalid choice: 'no-verb'" in capsys.readouterr().err


def test_a_verb_line_parses_as_with_every_verb():
    argv = ['--debug', 'gate', '-b', 'speed', '--db', 'x/results.db',
            '--session', 'latest', '--junit', 'g.xml', '--format', 'json']
    whole = vars(entry.build_parser().parse_args(argv))
    alone = vars(entry.build_parser(['gate']).parse_args(argv))
    assert whole.pop('_run') is alone.pop('_run')
    assert whole == alone
    assert whole['verb'] == 'gate' and whole['debug']
