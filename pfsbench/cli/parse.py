# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench parse TOOL FILE``: a tool's output as a normalised record."""

import dataclasses
import importlib
import json
import sys

from pfsbench.core.errors import ConfigError, ParseError
from pfsbench.parsers import TOOLS
from pfsbench.parsers.text import (bad_bytes, decode, read_output,
                                   with_bad_bytes)

HELP = 'parse a benchmark tool output file'
DESCRIPTION = ('Parse one output file of a benchmark tool and print the '
               'normalised result.')
EXAMPLES = (
    'pfsbench parse dd tests/data/fixtures/dd/write-1m-x1024-fdatasync.txt',
    'pfsbench parse streams runs/output/local/default/builtin/*/rfm_job.out',
    'pfsbench parse ior --format json ior-run.txt',
)


def add_arguments(parser):
    tools = ', '.join(f'{name} ({", ".join(TOOLS[name].formats)})'
                      for name in sorted(TOOLS))
    parser.add_argument('tool', choices=sorted(TOOLS), metavar='TOOL',
                        help=f'the tool (the output formats read): {tools}')
    parser.add_argument('file', metavar='FILE',
                        help="the output file ('-' for standard input)")
    parser.add_argument('--format', choices=['text', 'json'], default='text',
                        metavar='FMT',
                        help='text or json (default: %(default)s)')


def _plain(obj):
    if dataclasses.is_dataclass(obj):
        return {f.name: _plain(getattr(obj, f.name))
                for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def run(args):
    module = importlib.import_module(TOOLS[args.tool].module)
    if args.file == '-':
        text, source = decode(sys.stdin.buffer.read()), '<stdin>'
    else:
        try:
            text = read_output(args.file)
        except OSError as err:
            raise ConfigError(args.file, 'FILE', args.file,
                              err.strerror) from None
        source = args.file

    try:
        result = module.parse(text, source)
    except ParseError as err:
        raise with_bad_bytes(err, text, source) from None
    places = bad_bytes(text, source)
    if places:
        print(f'pfsbench: warning: undecodable bytes at {", ".join(places)} '
              f'(read as U+FFFD)', file=sys.stderr)
    record = _plain(result)
    if args.format == 'json':
        json.dump(record, sys.stdout, indent=2, sort_keys=True)
        print()
    else:
        _print_text(record)

    return 0


def _print_text(record, indent=''):
    for key, value in record.items():
        if isinstance(value, dict):
            print(f'{indent}{key}:')
            _print_text(value, indent + '  ')
        elif isinstance(value, list) and value and isinstance(value[0],
                                                              dict):
            print(f'{indent}{key}: [{len(value)} entries]')
        else:
            print(f'{indent}{key}: {value}')
