#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The nightly gate: run the nightly checks, tagged with what can explain a
# change, then compare with a baseline.  Exits with the gate's code: 0 pass,
# 1 regression, 2 configuration error, 3 missing data (zero tests ran, a
# baseline case absent, a failed run) -- ReFrame's own exit code cannot say
# that (it is 0 for zero tests).  Reports go to --out.
#
#   scripts/nightly.sh --system NAME:PARTITION --baseline NAME --target DIR
#                      [--tags nightly] [--repeat MAX] [--budget HOURS]
#                      [--nodes N] [--out DIR]
#                      [--gate-config FILE] [--extra KEY=VALUE ...]
#                      [--store URL] [--cluster NAME] [-- ARGS]
#   scripts/nightly.sh --system NAME:PARTITION --baseline NAME --target DIR
#                      --plan FILE [--out DIR] [--gate-config FILE]
#                      [--extra ...] [--store URL] [--cluster NAME] [-- ARGS]
#
# The night has a window: the partition's extras.nightly_budget_hours
# (default 2 h) or --budget HOURS.  pfsbench nightly-plan chooses the
# cases and repeats that fit it, from the durations of earlier nights
# (first-night estimates before), every family and target first at 5
# repeats, the fewest that keep the page budget on quiet nights
# (docs/gate-evidence.md); its plan is OUT/nightly.plan.  The nightly's
# repeat count is the plan's, never below 5 of its own: where the window
# does not hold every case 5 times, fewer cases at 5 (the default nightly:
# 4 of 6 cases in 2 h, the others named); --repeat MAX (default 5) is the
# most it may choose, and below 5 lowers the floor (with a warning).
# --nodes N leaves out the cases of more nodes.  --budget 0: no
# window, the tags at --repeat.
# --plan FILE runs the cases and repeats of a plan that pfsbench
# nightly-plan --write-plan FILE chose (checked against --system and the
# checks first; it replaces --tags, --repeat and the window).
# ARGS after -- go to reframe (e.g. -S var=value; with --budget 0 also
# -n NAME, -P var=value, which select other cases than a plan's).  --extra
# adds a session extra, e.g. --extra intended_change=lustre-2.15 on the first night
# after a planned upgrade (the gate's lookback rule restarts its level).
# --gate-config: the gate's settings (default config/gate.yaml).
# --store URL: the results store the night is ingested into
# (docs/results-store.md; default $PFSBENCH_STORE, else the gate settings'
# store, else runs/pfsbench-store.sqlite); --cluster NAME: this cluster's
# name there (default: the ReFrame system).  A store that does not answer
# keeps the night in runs/store-spool/ for the next night; the gate judges
# from the local runs directory either way.
# --notify URL | --notify-file FILE (or $PFSBENCH_NOTIFY_URL): post the
# verdict to a webhook (docs/notify.md), only on --notify-on LIST
# (regression,hold,store: the default), as --notify-form slack|alertmanager.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

usage() {
    sed -n '9,16p' "$0" >&2
    exit 2
}
fail() {
    echo "nightly.sh: error: $*" >&2
    exit 2
}

system='' baseline='' target='' tags=nightly repeat=5 out='' plan=''
budget='' nodes=''
extra=() picked=() gate_config=() store=() cluster=''
notify=() notify_url=''
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        --) shift; break ;;
        --extra|--system|--baseline|--target|--tags|--repeat|--out|--plan|\
        --gate-config|--store|--cluster|--budget|--nodes)
            [ $# -ge 2 ] || fail "$1: expects a value" ;;&
        --extra) extra+=(--extra "$2"); shift 2 ;;
        --system) system=$2; shift 2 ;;
        --baseline) baseline=$2; shift 2 ;;
        --target) target=$2; shift 2 ;;
        --tags) tags=$2; picked+=(--tags); shift 2 ;;
        --repeat) repeat=$2; picked+=(--repeat); shift 2 ;;
        --budget) budget=$2; picked+=(--budget); shift 2 ;;
        --nodes) nodes=$2; picked+=(--nodes); shift 2 ;;
        --plan) plan=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --gate-config) gate_config=(--config "$2"); shift 2 ;;
        --store) store+=(--store "$2"); shift 2 ;;
        --cluster) cluster=$2; shift 2 ;;
        --notify|--notify-file|--notify-on|--notify-form)
            [ $# -ge 2 ] || fail "$1: expects a value" ;;&
        --notify) notify_url=$2; shift 2 ;;
        --notify-file) notify+=(--url-file "$2"); shift 2 ;;
        --notify-on) notify+=(--on "$2"); shift 2 ;;
        --notify-form) notify+=(--form "$2"); shift 2 ;;
        *) echo "nightly.sh: unknown option: $1" >&2; usage ;;
    esac
done
if [ -z "$system" ] || [ -z "$baseline" ] || [ -z "$target" ]; then
    usage
fi
case "$repeat" in
    ''|*[!0-9]*|0*) fail "--repeat: '$repeat': expected a whole number of" \
                          "at least 1" ;;
esac
if [ -n "$plan" ] && [ ${#picked[@]} -gt 0 ]; then
    fail "--plan: '$plan': the plan sets the tags and repeats; drop" \
         "${picked[*]}"
fi
# --budget 0 (0.0, ...): no window.
window='' windowed=()
if [ -z "$plan" ] && ! [[ $budget =~ ^(0+\.?0*|\.0+)$ ]]; then
    window=yes
    [ -z "$budget" ] || windowed+=(--budget "$budget")
    [ -z "$nodes" ] || windowed+=(--nodes "$nodes")
    # The plan names its cases (reframe -n, any of which selects): ARGS
    # that select would add theirs, beyond the window.
    for arg in "$@"; do
        case "$arg" in
            -n|-n?*|--name|--name=*|-x|-x?*|--exclude|--exclude=*|\
            -t|-t?*|--tag|--tag=*|-P|-P?*|--parameterize|--parameterize=*|\
            -E|-E?*|--filter-expr|--filter-expr=*)
                fail "$arg: reframe arguments that select cases do not" \
                     "combine with the night window's plan: give --budget" \
                     "0 (no window) or --plan FILE" ;;
        esac
    done
elif [ -n "$nodes" ]; then
    fail "--nodes: '$nodes': needs the night window (not --budget 0)"
fi
[ -n "$tags" ] || fail "--tags: '': expected a tag (e.g. nightly)"
# A bare system runs every partition, the login node's included.
case "$system" in
    *:?*) ;;
    *) echo "nightly.sh: --system $system: give NAME:PARTITION (pfsbench" \
            "nightly-plan --system NAME:PARTITION shows what it runs)" >&2
       exit 2 ;;
esac

# This cluster's name in the store, the same for the ingest and the gate:
# a gate given no name judges the store's only cluster, and refuses a
# store that holds several.  $PFSBENCH_STORE is read by pfsbench itself,
# not copied onto a command line that other users see (ps).
store+=(--system "${cluster:-${system%%:*}}")

export PFSBENCH_RUNS="${PFSBENCH_RUNS:-$(pwd)/runs}"
out=${out:-$PFSBENCH_RUNS/nightly/$(date +%Y%m%dT%H%M%S)}
mkdir -p "$out"
# Sessions of this night only: ReFrame stores no session when zero tests
# ran, and 'the latest session' would then be yesterday's.
since=$(date +%Y-%m-%dT%H:%M:%S)

# Everything that can be wrong before a job runs is checked first: the
# baseline (a missing one is a configuration error, exit 2, not the missing
# data of a run that happened), the target, and what the tags select.
if ! .venv/bin/pfsbench baseline show "$baseline" >/dev/null; then
    fail "--baseline: '$baseline': no usable baseline (pfsbench baseline" \
         "list shows the recorded ones)"
fi
# --system: the partition's Spack environment (pfsbench.site.spack.environment
# decides, as for the checks) is recorded, and its spack.lock kept under
# $PFSBENCH_RUNS/spack-locks/.
extras=$(.venv/bin/pfsbench session-extras --target "$target" \
    --system "$system" "${extra[@]}") || exit 2
if [ -n "$window" ]; then
    # Tonight's plan within the window, from the nights before.
    plan=$out/nightly.plan
    .venv/bin/pfsbench nightly-plan --system "$system" --tags "$tags" \
        --repeat "$repeat" "${windowed[@]}" --write-plan "$plan" \
        > "$out/nightly-plan.txt" || exit 2
    echo "nightly: $(head -n 1 "$out/nightly-plan.txt")"
    grep -E '^(budget|total|warning): ' "$out/nightly-plan.txt" |
        sed 's/^/nightly: /'
fi
if [ -n "$plan" ]; then
    selection=$(.venv/bin/pfsbench nightly-plan --system "$system" \
        --check-plan "$plan") || exit 2
    mapfile -t selection <<< "$selection"
else
    tags=$(.venv/bin/pfsbench nightly-plan --system "$system" --tags "$tags" \
        --repeat "$repeat" --reframe-tags) || exit 2
    selection=(-t "$tags" --repeat "$repeat")
fi
# Every target the partition lists, each case on each (nothing to add
# with one target: the cases keep their names).
targets=$(.venv/bin/pfsbench nightly-plan --system "$system" \
    --reframe-targets) || exit 2
if [ -n "$targets" ]; then
    echo "nightly: every case on each target: -P $targets"
    set -- -P "$targets" "$@"
fi
echo "nightly: session extras: $extras"
.venv/bin/reframe -C config/settings.py --system "$system" \
    -c reframe-checks "${selection[@]}" -r \
    --session-extras "$extras" "$@" 2>&1 | tee "$out/reframe.log"
echo "nightly: reframe exited ${PIPESTATUS[0]} (not a verdict)"

# Tonight's sessions into the results store (idempotent: a session stored
# already is one session).  A store that does not answer keeps them in the
# spool for the next night; the gate below judges from the local runs
# directory either way.
.venv/bin/pfsbench ingest --from-runs "$PFSBENCH_RUNS" --since "$since" \
    "${store[@]}" "${gate_config[@]}" > "$out/ingest.log" 2>&1
ingested=$?
source=("${store[@]}")
if [ "$ingested" = 0 ]; then
    echo "nightly: tonight's sessions are in the results store"
elif grep -q ' wait in ' "$out/ingest.log"; then
    echo "nightly: the results store did not answer: $(grep -v -m 1 \
        '^pfsbench: warning:' "$out/ingest.log"); tonight's reports wait" \
        "in the spool for the next night; the gate judges from the local" \
        "runs directory"
    source=(--db "$PFSBENCH_RUNS/results.db")
elif grep -q 'refused role' "$out/ingest.log"; then
    # A configuration to fix, not an outage: nothing waits in the spool.
    echo "nightly: the results store refused the login, tonight's" \
        "sessions are NOT in it and do not wait in the spool:" \
        "$(grep -m 1 'refused role' "$out/ingest.log"); once fixed," \
        "pfsbench ingest --from-runs $PFSBENCH_RUNS --since $since loads" \
        "them; the gate judges from the local runs directory"
    source=(--db "$PFSBENCH_RUNS/results.db")
else
    echo "nightly: pfsbench ingest exited $ingested: $(tail -n 1 \
        "$out/ingest.log"); the gate judges from the local runs directory"
    source=(--db "$PFSBENCH_RUNS/results.db")
fi

.venv/bin/pfsbench gate -b "$baseline" --since "$since" "${gate_config[@]}" \
    "${source[@]}" \
    --markdown "$out/gate.md" --junit "$out/gate.xml" \
    --html "$out/gate.html" --json "$out/gate.json"
verdict=$?
echo "nightly: gate exited $verdict; reports in $out"

# Tonight's pages into the store, and the site's record of its last 90
# nights beside the reports (docs/triage.md); neither changes the verdict.
if [ -s "$out/gate.json" ]; then
    .venv/bin/pfsbench triage pages --record "$out/gate.json" \
        "${store[@]}" "${gate_config[@]}" > "$out/triage.log" 2>&1 &&
        .venv/bin/pfsbench triage record "${store[@]}" "${gate_config[@]}" \
            > "$out/triage.txt" 2>> "$out/triage.log" &&
        echo "nightly: $(head -n 1 "$out/triage.txt")" ||
        echo "nightly: warning: pfsbench triage: $(tail -n 1 \
            "$out/triage.log")" >&2
fi

# The verdict where people look (docs/notify.md): posted only on what
# --notify-on names; a receiver that is down is a warning, and the exit
# code stays the gate's.  The URL goes by the environment, not argv.
if [ -n "$notify_url" ] || [ ${#notify[@]} -gt 0 ] || \
        [ -n "${PFSBENCH_NOTIFY_URL:-}" ]; then
    store_down=''
    if [ "$ingested" != 0 ] && grep -q ' wait in ' "$out/ingest.log"; then
        store_down="did not answer: tonight's reports wait in the spool"
    elif [ "$ingested" != 0 ]; then
        store_down="pfsbench ingest exited $ingested ($out/ingest.log)"
    fi
    note=$(head -n 1 "$out/triage.txt" 2>/dev/null)
    PFSBENCH_NOTIFY_URL=${notify_url:-${PFSBENCH_NOTIFY_URL:-}} \
        .venv/bin/pfsbench notify --record "$out/gate.json" \
        --cluster "${cluster:-${system%%:*}}" --store-down "$store_down" \
        --note "$note" --link "$out/gate.html" "${notify[@]}" ||
        echo "nightly: warning: pfsbench notify exited $?; the verdict" \
             "stands" >&2
fi
exit "$verdict"
