# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench notify``: post the night's verdict to a webhook."""

import sys

from pfsbench import notify
from pfsbench.core.errors import MissingData
from pfsbench.gate.report import load_record

HELP = "post the gate's verdict to a chat or alert webhook"
DESCRIPTION = (
    "Post the gate's one-screen verdict (pfsbench gate --json FILE) to a "
    'webhook: Slack/Mattermost JSON ({"text": ...}) or Alertmanager alerts '
    '(--form alertmanager), only when a trigger of --on is met: a '
    'regression, a loss held back as inconclusive, a results store that '
    'did not take the night (--store-down). The URL is a secret: give it '
    'in a file (--url-file) or $PFSBENCH_NOTIFY_URL rather than on the '
    'command line; it is never printed. A receiver that does not take the '
    'post is a warning on stderr (exit 0): the night\'s verdict is the '
    "gate's exit code (docs/notify.md).")
EXAMPLES = (
    'pfsbench notify --record out/gate.json --url-file ~/.pfsbench-webhook',
    'PFSBENCH_NOTIFY_URL=https://alertmanager.example.org/api/v2/alerts '
    'pfsbench notify --record out/gate.json --form alertmanager --cluster '
    'hawk',
    'pfsbench notify --record out/gate.json --on regression,store '
    "--store-down 'did not answer; the night waits in the spool'",
)


def add_arguments(parser):
    parser.add_argument(
        '--record', metavar='FILE', default=None,
        help="the gate's JSON record (pfsbench gate --json FILE); a file "
             'that does not exist posts only a --store-down (default: '
             'none)')
    url = parser.add_argument_group('where (a secret: never printed)')
    url.add_argument(
        '--url', metavar='URL', default=None,
        help='the webhook URL (visible to ps: prefer --url-file or the '
             'environment; default: none)')
    url.add_argument(
        '--url-file', metavar='FILE', default=None,
        help='a file holding the webhook URL (default: none)')
    url.add_argument(
        '--url-env', metavar='VAR', default=notify.URL_ENV,
        help='the environment variable holding the URL (default: '
             '%(default)s)')
    what = parser.add_argument_group('what and when')
    what.add_argument(
        '--form', metavar='FORM', choices=notify.FORMS, default='slack',
        help=f'{", ".join(notify.FORMS)}: Slack/Mattermost {{"text"}} or '
             'Alertmanager alerts (default: %(default)s)')
    what.add_argument(
        '--on', metavar='LIST', default=','.join(notify.TRIGGERS),
        help='post only when one of these is met: '
             f'{", ".join(notify.TRIGGERS)} (default: %(default)s)')
    what.add_argument(
        '--store-down', metavar='TEXT', default='',
        help='the results store did not take the night: what happened '
             '(the nightly gives it; default: the store took it)')
    what.add_argument(
        '--cluster', metavar='NAME', default='',
        help="the cluster's name in the message (default: none)")
    what.add_argument(
        '--note', metavar='TEXT', default=None,
        help='a line added before the link (the nightly: the first line of '
             'pfsbench triage record; default: none)')
    what.add_argument(
        '--link', metavar='URL', default=None,
        help='where the reports are, e.g. the HTML report (default: none)')
    what.add_argument(
        '--timeout', metavar='SECONDS', type=float, default=10.0,
        help='give up on the receiver after this long (default: '
             '%(default)s)')


def run(args):
    triggers = notify.parse_triggers(args.on)
    url, source = notify.resolve_url(args.url, args.url_file, args.url_env)
    if url is None:
        raise MissingData(f'no notify URL: give --url-file FILE, '
                          f'${args.url_env} or --url')
    record = None
    if args.record:
        try:
            record = load_record(args.record)
        except MissingData:
            if not args.store_down:
                raise
    met = notify.fired(record, args.store_down, triggers)
    if not met:
        print(f'pfsbench notify: nothing to post (none of {args.on} '
              'tonight)')
        return 0
    payload = notify.compose(record, args.form, cluster=args.cluster,
                             store_down=args.store_down, link=args.link,
                             note=args.note, triggers=met)
    try:
        notify.post(url, source, payload, timeout=args.timeout)
    except notify.PostFailed as err:
        print(f'pfsbench notify: warning: {err}; the verdict is not '
              'posted', file=sys.stderr)
        return 0
    print(f'pfsbench notify: posted ({", ".join(met)}) to {source}')
    return 0
