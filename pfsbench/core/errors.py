# SPDX-License-Identifier: BSD-3-Clause
"""Domain errors.  Every message names the file, the field and the value,
never a password (:func:`pfsbench.core.secrets.scrub`)."""

import os

from pfsbench.core import secrets


def shown_path(path):
    """A path as messages show it: relative when below the working dir."""
    rel = os.path.relpath(path)
    return path if rel.startswith('..') else rel


class PfsbenchError(Exception):
    """Base of every error pfsbench raises on bad input.

    The CLI prints ``pfsbench: error: <message>`` for these and exits with
    :attr:`exit_code`, without a traceback.
    """

    exit_code = 2

    def __str__(self):
        # One place for every message, traceback and log line of an error:
        # a store URL's password is never in it.
        return secrets.scrub(super().__str__())


#: Characters of an offending line a ParseError's message quotes.
QUOTED_MOST = 200


class ParseError(PfsbenchError):
    """A tool's output could not be parsed, or the tool itself failed.

    Args:
        source: where the text came from (a file name or ``'<stdout>'``).
        lineno: 1-based line number of the offending line (0 if none).
        line: the offending line, quoted in the message.
        expected: what the parser expected to find there.
    """

    def __init__(self, source, lineno, line, expected):
        self.source = source
        self.lineno = lineno
        self.line = line
        self.expected = expected
        if len(line) > QUOTED_MOST:
            # A damaged output can hold a line of megabytes: one screen line.
            line = f'{line[:QUOTED_MOST]}... ({len(line)} characters)'
        super().__init__(f'{source}:{lineno}: {expected}, got: "{line}"')


class ConfigError(PfsbenchError):
    """A site configuration, reference or baseline file is wrong.

    Args:
        file: the file (or configuration object) that holds the value.
        field: the key, dotted from the top (``partitions.0.extras.scratch``).
        value: the offending value.
        why: what is wrong with it.
    """

    def __init__(self, file, field, value, why):
        self.file = file
        self.field = field
        self.value = value
        self.why = why
        super().__init__(f'{file}:{field}: {value!r}: {why}')


class ResultsError(PfsbenchError):
    """The results database or a run report cannot be read (exit 2)."""


class MissingData(PfsbenchError):
    """Data the gate needs is absent (zero tests ran, a case is missing)."""

    exit_code = 3


class NotEnoughSamples(MissingData):
    """Fewer samples than a statistic needs."""
