#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A throw-away multi-node Slurm cluster on one host, for pfsbench's tests.
#
#   localslurm.sh up [--nodes N]   start munged, slurmctld and N slurmd (default 4)
#   localslurm.sh down             stop exactly those daemons, remove runtime files
#   localslurm.sh status           print sinfo; exit 0 only if every node is usable
#   localslurm.sh env              print the exports a caller needs:
#                                  eval "$(tests/localslurm/localslurm.sh env)"
#
# Everything lives under one state directory, $PFSBENCH_SLURM_DIR
# (default /var/tmp/pfsbench-localslurm), so the script never reads or writes
# /etc/slurm or /etc/munge and never talks to a system Slurm or munged that may
# also run on the machine: its own munged listens on its own socket, slurm.conf
# points AuthInfo at that socket, and the daemons use non-default ports.
# The measured facts this relies on are in tests/localslurm/README.md and
# the project's notes on Slurm on one host (SLURM-ON-ONE-HOST.md).
set -euo pipefail

readonly PROG=${0##*/}
readonly STATE_DIR=${PFSBENCH_SLURM_DIR:-/var/tmp/pfsbench-localslurm}
readonly CONF=$STATE_DIR/slurm.conf
readonly RUN_DIR=$STATE_DIR/run
readonly LOG_DIR=$STATE_DIR/log
# munged refuses a socket whose directory is not executable by everyone, and a
# key whose directory others can write; hence two directories with two modes.
readonly MUNGE_RUN_DIR=$RUN_DIR/munge
readonly MUNGE_SOCKET=$MUNGE_RUN_DIR/munge.socket
readonly MUNGE_KEY_DIR=$STATE_DIR/etc
readonly MUNGE_KEY=$MUNGE_KEY_DIR/munge.key
readonly NODES_FILE=$STATE_DIR/nodes
# Non-default ports, so a system slurmctld (6817) or slurmd (6818) that may be
# running on this host is never contacted and never collides with ours.
readonly CTLD_PORT=16817
readonly SLURMD_PORT_BASE=17000
readonly CTLD_HOSTNAME=pfsbench-ctl
readonly UP_TIMEOUT_S=60
readonly STOP_TIMEOUT_S=10
readonly PACKAGES=(slurm-wlm munge openmpi-bin libopenmpi-dev)

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

note() {
    echo "$PROG: $*" >&2
}

require_root() {
    # slurmd must run as root to launch job steps as the submitting user, and
    # the UTS namespaces need CAP_SYS_ADMIN; failing later would be obscure.
    [[ $(id -u) -eq 0 ]] || die "must run as root (uid 0), not uid $(id -u)"
}

now() {
    date +%s.%N
}

elapsed_since() {
    awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'
}

# Every client call goes through here so that it reads our slurm.conf and
# never a system one, whatever the caller's environment says.
slurm_client() {
    SLURM_CONF=$CONF "$@"
}

install_missing_packages() {
    local missing=() pkg
    for pkg in "${PACKAGES[@]}"; do
        if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) != "install ok installed" ]]; then
            missing+=("$pkg")
        fi
    done
    ((${#missing[@]} == 0)) && return 0
    note "installing missing Debian packages: ${missing[*]}"
    # Package scripts may try to start the system munged; that one is not
    # ours and is left alone (our munged has its own socket and key).
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

node_count() {
    if [[ -s $NODES_FILE ]]; then cat "$NODES_FILE"; else echo 0; fi
}

# The pid files we own: slurmd first, so nodes go away before the controller
# and the controller before munged, which both of them need until the end.
owned_pid_files() {
    local f
    for f in "$RUN_DIR"/slurmd-*.pid "$RUN_DIR/slurmctld.pid" "$MUNGE_RUN_DIR/munged.pid"; do
        [[ -e $f ]] && echo "$f"
    done
    return 0
}

# A pid from a pid file is only ours if that process still exists and its
# command line names our state directory (every daemon is started with a path
# under it); a recycled pid belonging to something else is never signalled.
pid_is_ours() {
    local pid=$1 cmdline
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    [[ $cmdline == *"$STATE_DIR/"* ]]
}

daemons_alive() {
    local n=$1 i pid f
    for f in "$MUNGE_RUN_DIR/munged.pid" "$RUN_DIR/slurmctld.pid"; do
        pid=$(cat "$f" 2>/dev/null) || return 1
        pid_is_ours "$pid" || return 1
    done
    for ((i = 1; i <= n; i++)); do
        pid=$(cat "$RUN_DIR/slurmd-n$i.pid" 2>/dev/null) || return 1
        pid_is_ours "$pid" || return 1
    done
}

# Prints how many nodes sinfo reports in a usable state: idle, mixed,
# allocated or completing. A '*' suffix (not responding), down, drain or
# unknown is not usable.
usable_node_count() {
    # sinfo retries for MessageTimeout when slurmctld is gone; bound it.
    timeout 15 env SLURM_CONF="$CONF" sinfo -h -N -o '%N %t' 2>/dev/null |
        awk '$2 ~ /^(idle|mix|alloc|comp)$/ { n++ } END { print n + 0 }'
}

idle_node_count() {
    timeout 15 env SLURM_CONF="$CONF" sinfo -h -N -o '%N %t' 2>/dev/null |
        awk '$2 == "idle" { n++ } END { print n + 0 }'
}

cluster_healthy() {
    local n=$1
    [[ -f $CONF && $(node_count) -eq $n ]] || return 1
    daemons_alive "$n" || return 1
    [[ $(usable_node_count) -eq $n ]]
}

write_slurm_conf() {
    local n=$1 cpus=$2
    cat >"$CONF" <<EOF
# Written by tests/localslurm/localslurm.sh; regenerated on every 'up'.
ClusterName=pfsbench
# slurmctld runs in its own UTS namespace with this host name, so the check
# "this host is the controller" never depends on the machine's real name.
SlurmctldHost=$CTLD_HOSTNAME(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
# Our own munged; without this Slurm would use /run/munge, a system daemon.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$STATE_DIR/state
SlurmctldPidFile=$RUN_DIR/slurmctld.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
# One spool, pid file, log and TmpFS per emulated node: nodes sharing them
# overwrite each other's state, and PMIx per-job directories under TmpFS collide.
SlurmdSpoolDir=$STATE_DIR/spool/%n
SlurmdPidFile=$RUN_DIR/slurmd-%n.pid
SlurmdLogFile=$LOG_DIR/slurmd-%n.log
TmpFS=$STATE_DIR/tmp/%n
# The host may have fewer cores than the nodes declare; trust slurm.conf.
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
SchedulerType=sched/backfill
# Without this a batch job waits ~3 s between submission and allocation
# (measured), which dominates every short test job.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# No slurmdbd: ReFrame must use its 'squeue' scheduler, which needs no sacct.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# A node whose slurmd restarts comes back without an admin's 'scontrol update'.
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
# Keep finished jobs visible to squeue for 5 minutes, so a poller that looks
# late still sees the final state.
MinJobAge=300
SlurmctldDebug=info
SlurmdDebug=info
NodeName=n[1-$n] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((SLURMD_PORT_BASE + 1))-$((SLURMD_PORT_BASE + n)) CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
# OverSubscribe=YES lets a job that asks for it (--oversubscribe) share nodes;
# the CPU count above already admits up to $cpus tasks per node per job.
PartitionName=debug Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
}

start_munged() {
    mkdir -p "$MUNGE_RUN_DIR" "$MUNGE_KEY_DIR"
    chmod 0755 "$MUNGE_RUN_DIR"
    chmod 0700 "$MUNGE_KEY_DIR"
    if [[ ! -s $MUNGE_KEY ]]; then
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile="$MUNGE_KEY"
        else
            # munge < 0.5.14 has no mungekey; any 1024 random bytes do.
            dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none
        fi
    fi
    chmod 0600 "$MUNGE_KEY"
    # munged runs as root here: it accepts that, and it avoids handing the
    # state directory to the munge user. It forks and writes its pid file.
    munged --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
        --pid-file="$MUNGE_RUN_DIR/munged.pid" --log-file="$LOG_DIR/munged.log" \
        --seed-file="$MUNGE_KEY_DIR/munged.seed"
}

# Runs a command in a new UTS namespace whose host name is $1. Open MPI names
# its shared-memory segments after the host name, so "nodes" that share one
# collide and MPI jobs hang; a namespace per slurmd gives each its own name,
# and every job step inherits it.
in_uts_namespace() {
    local name=$1
    shift
    # shellcheck disable=SC2016  # "$1" and "$@" belong to the inner sh
    unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "$name" "$@"
}

wait_for_idle() {
    local n=$1 start=$2 idle
    while :; do
        idle=$(idle_node_count)
        ((idle == n)) && return 0
        if awk -v s="$start" -v t="$(now)" -v lim="$UP_TIMEOUT_S" 'BEGIN { exit !(t - s > lim) }'; then
            echo "$PROG: error: only $idle of $n nodes idle after ${UP_TIMEOUT_S}s; sinfo and log tails follow; run '$PROG down' to clean up" >&2
            slurm_client sinfo -N >&2 || true
            local log
            for log in "$LOG_DIR"/*.log; do
                echo "==> $log <==" >&2
                tail -n 15 "$log" >&2
            done
            exit 1
        fi
        sleep 0.1
    done
}

cmd_up() {
    local n=4
    while (($#)); do
        case $1 in
        --nodes) (($# >= 2)) || die "--nodes needs a value"; n=$2; shift 2 ;;
        --nodes=*) n=${1#--nodes=}; shift ;;
        *) die "up: unknown argument '$1' (usage: $PROG up [--nodes N])" ;;
        esac
    done
    if ! [[ $n =~ ^[1-9][0-9]*$ ]] || ((n > 64)); then
        die "--nodes must be an integer from 1 to 64, got '$n'"
    fi
    require_root
    local start
    start=$(now)
    install_missing_packages
    if cluster_healthy "$n"; then
        echo "$PROG: already up: $n nodes under $STATE_DIR (checked in $(elapsed_since "$start") s)"
        return 0
    fi
    # Anything left over (a half-dead cluster, another node count) goes first.
    stop_daemons quiet
    remove_runtime_files
    local i d
    for d in "$STATE_DIR" "$RUN_DIR" "$LOG_DIR" "$STATE_DIR/state" "$STATE_DIR/spool" "$STATE_DIR/tmp"; do
        mkdir -p "$d"
    done
    # munged checks every ancestor of its socket: group/other must not be able
    # to write there unless the sticky bit is set (/var/tmp has it).
    chmod 0755 "$STATE_DIR" "$RUN_DIR"
    for ((i = 1; i <= n; i++)); do
        mkdir -p "$STATE_DIR/spool/n$i" "$STATE_DIR/tmp/n$i"
    done
    : >"$LOG_DIR/munged.log"
    echo "$n" >"$NODES_FILE"
    # Four CPUs per node: two ranks per node fit with room to spare, and four
    # tasks per node are accepted without --overcommit on a two-core host.
    write_slurm_conf "$n" 4
    start_munged
    in_uts_namespace "$CTLD_HOSTNAME" slurmctld -f "$CONF" -i
    for ((i = 1; i <= n; i++)); do
        in_uts_namespace "n$i" slurmd -f "$CONF" -N "n$i"
    done
    wait_for_idle "$n" "$start"
    echo "$PROG: up: $n nodes idle under $STATE_DIR in $(elapsed_since "$start") s"
    echo "$PROG: use it with: eval \"\$($0 env)\""
}

# Job steps (slurmstepd and the tasks) outlive a killed slurmd. They are ours
# if they share the UTS namespace of one of our slurmd, which nothing else on
# the host does, so that namespace is how they are found.
uts_namespaces_of_nodes() {
    local f pid
    for f in "$RUN_DIR"/slurmd-*.pid; do
        [[ -e $f ]] || continue
        pid=$(cat "$f" 2>/dev/null) || continue
        pid_is_ours "$pid" && readlink "/proc/$pid/ns/uts" 2>/dev/null
    done
    return 0
}

pids_in_namespaces() {
    local ns p own_ns want
    own_ns=$(readlink /proc/self/ns/uts)
    for p in /proc/[0-9]*; do
        ns=$(readlink "$p/ns/uts" 2>/dev/null) || continue
        [[ $ns == "$own_ns" ]] && continue
        for want in "$@"; do
            [[ $ns == "$want" ]] && echo "${p#/proc/}"
        done
    done
    return 0
}

signal_and_wait() {
    local pids=("$@") pid deadline alive
    ((${#pids[@]})) || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + STOP_TIMEOUT_S))
    while ((SECONDS < deadline)); do
        alive=()
        for pid in "${pids[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive+=("$pid")
        done
        ((${#alive[@]})) || return 0
        sleep 0.1
    done
    note "still running after ${STOP_TIMEOUT_S}s, sending KILL: ${alive[*]}"
    kill -KILL "${alive[@]}" 2>/dev/null || true
}

stop_daemons() {
    local quiet=${1:-} f pid namespaces=() daemons=() stepd=() stopped=0
    mapfile -t namespaces < <(uts_namespaces_of_nodes)
    # Cancel jobs first so their steps end cleanly while slurmd still runs.
    if [[ -f $CONF ]] && daemons_alive 0 2>/dev/null; then
        local jobs
        jobs=$(timeout 15 env SLURM_CONF="$CONF" squeue -h -o %A 2>/dev/null || true)
        if [[ -n $jobs ]]; then
            # shellcheck disable=SC2086  # one job id per word
            SLURM_CONF=$CONF timeout 15 scancel $jobs 2>/dev/null || true
            sleep 1
        fi
    fi
    while read -r f; do
        pid=$(cat "$f" 2>/dev/null) || continue
        if pid_is_ours "$pid"; then
            daemons+=("$pid")
        fi
    done < <(owned_pid_files)
    # slurmd and slurmctld before munged: stop them as one group, then munged.
    local munged_pid=
    if [[ -e $MUNGE_RUN_DIR/munged.pid ]]; then
        munged_pid=$(cat "$MUNGE_RUN_DIR/munged.pid" 2>/dev/null || true)
    fi
    local slurm_pids=()
    for pid in "${daemons[@]}"; do
        [[ $pid == "$munged_pid" ]] || slurm_pids+=("$pid")
    done
    signal_and_wait "${slurm_pids[@]}"
    if ((${#namespaces[@]})); then
        mapfile -t stepd < <(pids_in_namespaces "${namespaces[@]}")
        signal_and_wait "${stepd[@]}"
    fi
    if [[ -n $munged_pid ]] && pid_is_ours "$munged_pid"; then
        signal_and_wait "$munged_pid"
    fi
    stopped=$((${#daemons[@]} + ${#stepd[@]}))
    [[ -n $quiet ]] || echo "$PROG: stopped $stopped processes under $STATE_DIR"
}

remove_runtime_files() {
    # Logs stay, so a failed run can still be read after 'down'; the key is
    # remade on the next 'up'. Only names we create are removed.
    rm -rf "$RUN_DIR" "$STATE_DIR/state" "$STATE_DIR/spool" "$STATE_DIR/tmp" \
        "$MUNGE_KEY_DIR" "$CONF" "$NODES_FILE"
}

cmd_down() {
    (($# == 0)) || die "down takes no arguments"
    require_root
    [[ -d $STATE_DIR ]] || { echo "$PROG: nothing to stop under $STATE_DIR"; return 0; }
    stop_daemons
    remove_runtime_files
}

cmd_status() {
    (($# == 0)) || die "status takes no arguments"
    local n
    n=$(node_count)
    if [[ ! -f $CONF ]] || ((n == 0)); then
        echo "$PROG: no cluster under $STATE_DIR (run '$PROG up')" >&2
        return 1
    fi
    timeout 15 env SLURM_CONF="$CONF" sinfo -N || true
    # slurmctld notices a dead slurmd only after SlurmdTimeout, so sinfo alone
    # would call a half-dead cluster healthy; the pid files tell at once.
    if ! daemons_alive "$n"; then
        echo "$PROG: a daemon of ours is not running (see $LOG_DIR)" >&2
        return 1
    fi
    local usable
    usable=$(usable_node_count)
    if ((usable != n)); then
        echo "$PROG: $usable of $n nodes usable" >&2
        return 1
    fi
}

cmd_env() {
    (($# == 0)) || die "env takes no arguments"
    cat <<EOF
export SLURM_CONF=$CONF
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
export PMIX_MCA_gds=hash
EOF
}

main() {
    (($#)) || die "usage: $PROG up [--nodes N] | down | status | env"
    local cmd=$1
    shift
    case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    env) cmd_env "$@" ;;
    -h | --help | help) sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "unknown subcommand '$cmd' (usage: $PROG up [--nodes N] | down | status | env)" ;;
    esac
}

main "$@"
