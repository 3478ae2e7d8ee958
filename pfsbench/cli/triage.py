# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench triage``: keep the nights' pages, mark them, count them."""

import datetime
import json

from pfsbench import notify, store
from pfsbench.cli.common import add_subparser
from pfsbench.cli.ingest import configured_store
from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.history.results import default_runs_dir
from pfsbench.gate.report import load_record
from pfsbench.gate.report.triaged import record_line, tally
from pfsbench.store import db, triage

HELP = 'keep the pages, mark them invalid or acknowledged, count them'
DESCRIPTION = (
    'Triage that counts (docs/triage.md): the nightly keeps each night\'s '
    'pages in the results store (pages); a person marks a page invalid '
    '(noise) or acknowledged (a known change), with who and why (mark); '
    'the site\'s record over its last nights says how many pages there '
    'were, how many were marked invalid, acknowledged or held (record).')
EXAMPLES = (
    "pfsbench triage mark 3f2a9c1e --invalid --by alice --why 'OST 3 "
    "rebuilding'",
    'pfsbench triage record --system hawk --nights 90',
)


def _store_options(parser):
    parser.add_argument(
        '--store', metavar='URL', default=None,
        help='the results store (default: $PFSBENCH_STORE, else the '
             f'store --config names, else <runs>/{db.SQLITE_FILE})')
    parser.add_argument(
        '--config', metavar='FILE', default=None,
        help='gate settings naming the store (default: config/gate.yaml)')
    parser.add_argument(
        '--system', metavar='NAME', default=None,
        help="the cluster (default: the store's only one)")


def add_arguments(parser):
    sub = parser.add_subparsers(dest='action', metavar='ACTION')
    sub.required = True
    pages = add_subparser(
        sub, 'pages', help="keep a night's pages (the nightly does)",
        invocations=('pfsbench triage pages --record out/gate.json '
                     '--system hawk',
                     'pfsbench triage pages --record gate.json --store '
                     'postgresql://pfsbench_ingest@db/pfsbench'))
    pages.add_argument(
        '--record', metavar='FILE', required=True,
        help="the gate's JSON record (pfsbench gate --json FILE; "
             'required)')
    _store_options(pages)
    mark = add_subparser(
        sub, 'mark', help='mark a night\'s pages invalid or acknowledged',
        invocations=(EXAMPLES[0], "pfsbench triage mark 3f2a9c1e --ack "
                     "--case 'dd_stream_per_node %nodes=1 @hawk:batch+gnu' "
                     "--by bob --why 'lustre 2.15 upgrade'"))
    mark.add_argument('session', metavar='SESSION',
                      help="the paged night's session (uuid or its first "
                           '8 or more characters; required)')
    what = mark.add_mutually_exclusive_group(required=True)
    what.add_argument('--invalid', dest='mark', action='store_const',
                      const='invalid', help='a false alarm (noise); this or --ack is required')
    what.add_argument('--ack', dest='mark', action='store_const',
                      const='ack', help='a known change, acknowledged; this or --invalid is '
                      'required')
    mark.add_argument('--by', metavar='WHO', required=True,
                      help='who marks it (required)')
    mark.add_argument('--why', metavar='TEXT', required=True,
                      help='why (required)')
    mark.add_argument('--case', metavar='CASE', default='',
                      help="one case, as the gate's report names it "
                           '(default: every page of the session)')
    mark.add_argument('--figure', metavar='VAR', default='',
                      help='one figure (default: every figure)')
    _store_options(mark)
    rec = add_subparser(
        sub, 'record', help="the site's record over its last nights",
        invocations=(EXAMPLES[1], 'pfsbench triage record --format json'))
    rec.add_argument('--nights', metavar='N', type=int,
                     default=triage.RECORD_NIGHTS,
                     help='the last N nights (default: %(default)s)')
    rec.add_argument('--format', metavar='FMT', choices=('text', 'json'),
                     default='text', help='text or json (default: '
                     '%(default)s)')
    _store_options(rec)


def _now():
    """Microseconds: a page's mark is the newest, also of two marks given
    within a second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec='microseconds')


def run(args):
    if getattr(args, 'nights', 1) < 1:
        raise ConfigError('<command line>', '--nights', args.nights,
                          'expected a whole number of at least 1')
    url = db.resolve_url(args.store, default_runs_dir(),
                         configured_store(args.config))
    with store.open_store(url, create=args.action == 'pages') as conn:
        # The pages of a night the store did not take are kept all the
        # same: a named cluster need not have sessions there.
        system = args.system or store.choose_system(conn, None)
        return {'pages': _pages, 'mark': _mark,
                'record': _record}[args.action](args, conn, system)


def _pages(args, conn, system):
    found = notify.pages(load_record(args.record))
    added = triage.keep_pages(conn, system, found, _now())
    print(f'triage: {added} page(s) of {args.record} kept for {system}'
          + (f' ({len(found) - added} kept already)'
             if added < len(found) else ''))
    return 0


def _mark(args, conn, system):
    if len(args.session) < 8:
        raise ConfigError('<command line>', 'SESSION', args.session,
                          'give 8 or more characters of the uuid')
    uuids = triage.sessions_like(conn, args.session)
    if len(uuids) != 1:
        raise MissingData(f'{conn.where}: {len(uuids)} paged sessions '
                          f'begin with {args.session!r}' +
                          (': give more characters' if uuids else ''))
    n = triage.mark(conn, uuids[0], args.case, args.figure, args.mark,
                    args.by, args.why, _now())
    if not n:
        raise MissingData(f'session {uuids[0][:8]}: no page of case '
                          f'{args.case!r} figure {args.figure!r}')
    print(f'triage: {n} page(s) of session {uuids[0][:8]} marked '
          f'{args.mark} by {args.by}')
    return 0


def _record(args, conn, system):
    rec = triage.record(conn, system, args.nights)
    counts = tally(rec)
    if args.format == 'json':
        print(json.dumps(dict(rec, counts=counts), indent=1))
        return 0
    print(text_of(rec))
    return 0


def text_of(rec):
    """The record as text: one line of counts, one per page."""
    lines = [record_line(rec)]
    for p in rec['pages']:
        change = '' if p['change'] is None else f" {p['change']:+.1%}"
        mark = (f": {p['mark']} by {p['who']}: {p['why']}" if p['mark']
                else '')
        lines.append(f"{p['night']} {p['kind']} {p['name']} {p['figure']}"
                     f"{change} (session {p['session'][:8]}){mark}")
    return '\n'.join(lines)
