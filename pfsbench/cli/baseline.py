# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench baseline``: record, list, show and delete named baselines."""

import datetime
import json
import sys

from pfsbench.cli import sessions
from pfsbench.cli.common import add_subparser
from pfsbench.core.errors import MissingData
from pfsbench.gate.judge import baseline

HELP = 'record, list, show or delete named baselines'
DESCRIPTION = ('A baseline holds the samples of chosen ReFrame sessions per '
               'test case and performance variable, with units, in a '
               'versioned JSON file (baselines/<name>.json beside the '
               'results database; docs/gate.md).')
EXAMPLES = (
    'pfsbench baseline record pre-upgrade --session latest',
    "pfsbench baseline record lustre-2.15 --since 7d --name '^dd_streaming'",
    'pfsbench baseline list',
)


def _when(ts):
    return datetime.datetime.fromtimestamp(
        ts, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S UTC')


def add_arguments(parser):
    sub = parser.add_subparsers(dest='action', metavar='ACTION')
    sub.required = True

    rec = add_subparser(
        sub, 'record', help='record a baseline from chosen sessions',
        description='Record a baseline from the chosen sessions. Every '
                    'chosen case must hold real measurements (no failed '
                    'run, no --dry-run) and be configured the same way in '
                    'every session.',
        invocations=(
            'pfsbench baseline record pre-upgrade --session latest',
            'pfsbench baseline record pre-upgrade --session 3f2a --session '
            '9c1e --force',
        ),
    )
    rec.add_argument('baseline', metavar='NAME',
                     help='baseline name: letters, digits, ., _, - '
                          '(required)')
    rec.add_argument('--force', action='store_true',
                     help='replace an existing baseline (default: off)')
    rec.add_argument('--allow-missing', action='store_true',
                     help='record even when a case has no uncontended '
                          'repeat, without that case (named on stderr; '
                          'default: off, such a baseline is refused, '
                          'exit 3)')
    sessions.add_source_options(rec)
    sessions.add_selection_options(rec, 'sessions to record')

    lst = add_subparser(
        sub, 'list', help='list baselines',
        invocations=('pfsbench baseline list',
                     'pfsbench baseline list --format json'),
    )
    lst.add_argument('--format', metavar='FMT', choices=('text', 'json'),
                     default='text',
                     help='text or json (default: %(default)s)')
    sessions.add_source_options(lst)

    for action, what, other in (
            ('show', "show a baseline's cases and samples",
             '--db runs/results.db'),
            ('delete', 'delete a baseline',
             '--baseline-dir /site/pfsbench/baselines')):
        named = add_subparser(
            sub, action, help=what,
            invocations=(f'pfsbench baseline {action} pre-upgrade',
                         f'pfsbench baseline {action} pre-upgrade {other}'),
        )
        named.add_argument('baseline', metavar='NAME',
                           help='baseline name (required)')
        sessions.add_source_options(named)

    sess = add_subparser(
        sub, 'sessions', help='list the stored sessions with their tags',
        description='List the sessions of the results database (or run '
                    'reports), oldest first, with their test-case count '
                    'and session extras, to choose a baseline from.',
        invocations=('pfsbench baseline sessions',
                     'pfsbench baseline sessions --db runs/results.db'),
    )
    sessions.add_source_options(sess)


def run(args):
    return {'record': _record, 'list': _list, 'show': _show,
            'delete': _delete, 'sessions': _sessions}[args.action](args)


def _record(args):
    baseline.check_name(args.baseline)
    results = sessions.load(args)
    uuids = sessions.select_sessions(args, results)
    data = baseline.build(results, uuids, args.baseline,
                          sessions.compile_name(args),
                          allow_missing=args.allow_missing)
    path = baseline.save(data, sessions.baseline_dir(args), force=args.force)
    for case in data.get('missing_cases', ()):
        print(f'pfsbench: warning: baseline {args.baseline!r}: {case}: no '
              'uncontended repeat: not in the baseline (not gated)',
              file=sys.stderr)
    nvals = sum(len(pv['values']) for c in data['cases']
                for pv in c['perfvars'].values())
    print(f'baseline {args.baseline!r}: {len(data["cases"])} case(s), '
          f'{nvals} sample(s) from {len(uuids)} session(s) -> {path}')
    return 0


def _list(args):
    directory = sessions.baseline_dir(args)
    rows = []
    for name in baseline.list_names(directory):
        data = baseline.load(directory, name)
        rows.append({'name': name, 'created': data.get('created'),
                     'cases': len(data['cases']),
                     'sessions': [s['uuid'] for s in data['sessions']]})

    if args.format == 'json':
        print(json.dumps(rows, indent=1))
    elif not rows:
        print(f'no baselines in {directory}')
    else:
        for r in rows:
            uuids = ', '.join(u[:8] for u in r['sessions'])
            print(f'{r["name"]}  created {r["created"]}  {r["cases"]} '
                  f'case(s)  sessions {uuids}')

    return 0


def _show(args):
    data = baseline.load(sessions.baseline_dir(args), args.baseline)
    print(f'baseline {data["name"]!r} (format {data["format_version"]}), '
          f'created {data["created"]} from {data["database"]}')
    for s in data['sessions']:
        tags = ','.join(f'{k}={v}' for k, v in s.get('extras', {}).items())
        print(f'  session {s["uuid"]} {_when(s["time_start"])} {tags}')

    for case in data['cases']:
        print(f'{case["name"]} @{case["system"]}:{case["partition"]}'
              f'+{case["environ"]}')
        for var, pv in sorted(case['perfvars'].items()):
            vals = ' '.join(f'{v:.4g}' for v in pv['values'])
            print(f'  {var} [{pv["unit"]}]: {vals}')

    return 0


def _delete(args):
    path = baseline.delete(sessions.baseline_dir(args), args.baseline)
    print(f'deleted baseline {args.baseline!r} ({path})')
    return 0


def _sessions(args):
    results = sessions.load(args)
    ordered = results.ordered_sessions()
    if not ordered:
        raise MissingData(f'{results.source}: no sessions stored')

    for s in ordered:
        tags = ','.join(f'{k}={v}' for k, v in s.extras.items())
        flags = []
        if s.num_failures:
            flags.append(f'{s.num_failures} failed')

        if s.num_aborted:
            flags.append(f'{s.num_aborted} aborted')

        if s.dry_run:
            flags.append('dry-run')

        print(f'{s.uuid}  {_when(s.time_start)}  {s.num_cases} case(s)'
              f'{" (" + ", ".join(flags) + ")" if flags else ""}  {tags}')

    return 0
