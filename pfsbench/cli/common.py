# SPDX-License-Identifier: BSD-3-Clause
"""What every verb of the ``pfsbench`` command shares: how a (sub)command
parser is made, with its *Examples* epilog, the exit codes, and how an error
becomes one line on stderr."""

import argparse
import os
import sys
import textwrap

from pfsbench.core import secrets
from pfsbench.core.errors import PfsbenchError

#: The exit codes of every verb (STYLE.md section 7), shown by ``pfsbench
#: --help`` and tabled in docs/cli.md.
EXIT_CODES = {
    0: 'pass',
    1: 'regression found (gate)',
    2: 'usage, configuration or input error',
    3: 'missing data: zero tests ran, a baseline case absent, dry-run '
       'records, a run that stopped early',
}

# Continuation lines of a long example, under the example's first word.
_CONTINUATION = ' \\\n      '


def examples(*invocations):
    """The *Examples* epilog of a (sub)command's ``--help``.

    Args:
        invocations: real command lines, each a string, or a tuple of
            strings that are printed as one command continued over lines
            with ``\\``.

    Returns:
        The epilog text, which :class:`Formatter` prints line by line.
    """
    lines = [_CONTINUATION.join(i) if isinstance(i, tuple) else i
             for i in invocations]
    return 'Examples:\n' + '\n'.join(f'  {line}' for line in lines)


def exit_codes():
    """The *Exit codes* epilog of ``pfsbench --help``."""
    return 'Exit codes:\n' + '\n'.join(
        textwrap.fill(meaning, 78, initial_indent=f'  {code}  ',
                      subsequent_indent='     ')
        for code, meaning in EXIT_CODES.items())


class Formatter(argparse.HelpFormatter):
    """Wraps descriptions, keeps the *Examples* and *Exit codes* epilogs
    line by line."""

    def _fill_text(self, text, width, indent):
        if text.startswith(('Examples:', 'Exit codes:')):
            return ''.join(indent + line
                           for line in text.splitlines(keepends=True))

        return super()._fill_text(text, width, indent)


def add_subparser(subparsers, name, *, help, invocations, description=None):
    """Add a verb (or a verb's action) the one way every verb does.

    Its ``--help`` wraps ``description`` and ends with the *Examples*
    epilog; long options must be spelled out in full, so that a
    misspelled option is an error instead of another option
    (``--tasks`` is not ``--tasks-per-node``).

    Args:
        subparsers: what ``add_subparsers()`` returned.
        name: the verb, in kebab-case.
        help: one line for the parent's list of verbs.
        invocations: two or three real command lines, see
            :func:`examples`.
        description: the paragraph under the usage line (default: none).

    Returns:
        The new :class:`argparse.ArgumentParser`.
    """
    return subparsers.add_parser(
        name, help=help, description=description,
        epilog=examples(*invocations), formatter_class=Formatter,
        allow_abbrev=False)


def add_format_and_output(parser, formats):
    """``--format FMT`` (``formats``, the first the default) and ``-o
    FILE``, for a verb that prints one result (:func:`write_output`)."""
    parser.add_argument(
        '--format', metavar='FMT', choices=formats, default=formats[0],
        help=f'{", ".join(formats)} (default: %(default)s)')
    parser.add_argument(
        '-o', '--output', metavar='FILE', default=None,
        help='write to FILE instead of stdout (default: stdout)')


def write_output(path, text):
    """Write a verb's result to ``path`` (``-o``), or to stdout when
    ``path`` is None."""
    if path:
        with open(path, 'w') as fp:
            fp.write(text)
    else:
        sys.stdout.write(text)


def run_verb(args):
    """Run the verb ``args`` selected; an error becomes its exit code.

    Args:
        args: the parsed command line, with ``_run`` set to the verb's
            ``run(args) -> int`` and ``debug`` to ``--debug``.

    Returns:
        The exit code (:data:`EXIT_CODES`; 130 on Ctrl-C), the same with
        ``--debug``, which adds the traceback; an unexpected exception (a
        bug) shows its traceback and exits 2, never 1 (a regression).
    """
    try:
        return args._run(args)
    except PfsbenchError as err:
        if args.debug:
            print_traceback(err)
        print(f'pfsbench: error: {err}', file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print('pfsbench: interrupted', file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (| head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as err:    # noqa: BLE001 (a bug: its traceback)
        print_traceback(err)
        return 2


def print_traceback(err):
    """``err``'s traceback on stderr, every password taken out of it
    (a driver's message may quote a connection string).  The traceback
    module is imported here: a command that ends well never needs it."""
    import traceback

    text = ''.join(traceback.format_exception(type(err), err,
                                              err.__traceback__))
    sys.stderr.write(secrets.scrub(text))
