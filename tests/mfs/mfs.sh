#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A throw-away MooseFS on one host, for pfsbench's tests: one metadata server
# (mfsmaster), three data servers (mfschunkserver), FUSE clients (mfsmount).
#
#   mfs.sh up                start the master, 3 chunkservers, mount 4 clients
#   mfs.sh down              unmount, stop exactly those daemons, remove the
#                            namespace and the runtime files
#   mfs.sh status            exit 0 only if every daemon runs and every mount
#                            answers
#   mfs.sh counters          the whole file system's cumulative bytes and
#                            metadata operations (extras.fs_counters_command)
#   mfs.sh clients           per mount session: bytes and metadata operations
#                            (extras.fs_clients_command)
#   mfs.sh provenance        server-side facts (extras.server_provenance_command)
#   mfs.sh master-cpu        the master's CPU as a /proc/stat line
#                            (extras.server_cpu_command)
#   mfs.sh remount           unmount and mount the 4 clients again (frees the
#                            space of files deleted through them)
#   mfs.sh copies N          set the number of copies of new data (1..3)
#   mfs.sh chunkserver stop|start I    stop or start chunkserver I (1..3)
#
# Mounts: $MOUNT_ROOT/m1 is the localslurm:mfs target; m2..m4 are further
# clients of the same file system (E3).  Everything else lives under one state
# directory, $PFSBENCH_MFS_DIR (default /var/tmp/pfsbench-mfs); nothing under
# /etc/mfs or /var/lib/mfs is read or written except the packaged empty
# metadata file, which is copied.
#
# MooseFS refuses 127.0.0.0/8 between chunkserver and master, so every daemon
# and every mfsmount runs in our own network namespace whose loopback carries
# a 10.x address.  They are started with 'nsenter --net' (not 'ip netns
# exec', which also unshares the mount namespace and would hide the FUSE
# mounts from the host, hence from every localslurm node).
set -euo pipefail

readonly PROG=${0##*/}
readonly STATE_DIR=${PFSBENCH_MFS_DIR:-/var/tmp/pfsbench-mfs}
readonly ETC_DIR=$STATE_DIR/etc
readonly RUN_DIR=$STATE_DIR/run
readonly LOG_DIR=$STATE_DIR/log
readonly MOUNT_ROOT=$STATE_DIR/mnt
readonly NETNS=${PFSBENCH_MFS_NETNS:-pfsbench-mfs}
readonly NETNS_PATH=/var/run/netns/$NETNS
readonly ADDR=${PFSBENCH_MFS_ADDR:-10.213.0.1}
# Non-default ports (9419-9422 are MooseFS's), so a system MooseFS that may
# run on the host is never contacted.
readonly MATOML_PORT=19419
readonly MATOCS_PORT=19420
readonly MATOCL_PORT=19421
readonly CSSERV_PORT_BASE=19430
readonly CHUNKSERVERS=3
readonly MOUNTS=4
# The chunkserver on a loop XFS: its image is sparse, this is its size.
readonly XFS_CHUNKSERVER=3
readonly XFS_IMAGE_SIZE=2G
# The root-disk chunkservers stop taking chunks when the disk, shared with
# everything else, has less than this free.  (A size in mfshdd.cfg is no
# use there: it caps what the whole disk holds, not what the chunkserver
# stored, so a disk more than that full leaves the chunkserver no room.)
readonly ROOT_DISK_RESERVE=8GiB
readonly UP_TIMEOUT_S=60
readonly STOP_TIMEOUT_S=20
readonly PACKAGES=(moosefs-master moosefs-chunkserver moosefs-client moosefs-cli
    fuse3 xfsprogs)

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

note() {
    echo "$PROG: $*" >&2
}

require_root() {
    # Network namespaces, FUSE mounts for every user and the loop XFS all
    # need root; failing later would be obscure.
    [[ $(id -u) -eq 0 ]] || die "must run as root (uid 0), not uid $(id -u)"
}

now() {
    date +%s.%N
}

elapsed_since() {
    awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'
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
    apt-get update
    # The packages' own services (a system mfsmaster on 9419-9421) are not
    # ours and are left alone; ours use other ports and their own configs.
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

in_netns() {
    nsenter --net="$NETNS_PATH" "$@"
}

mount_point() {
    echo "$MOUNT_ROOT/m$1"
}

# A pid from a pid file is only ours if that process still exists and its
# command line names our state directory (every daemon and mount is started
# with a path under it); a recycled pid is never signalled.
pid_is_ours() {
    local pid=$1 cmdline
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    [[ $cmdline == *"$STATE_DIR/"* ]]
}

pid_file_alive() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 1
    pid_is_ours "$pid"
}

is_mounted() {
    # /proc/self/mounts, not stat: a dead FUSE server makes stat hang.
    awk -v m="$1" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts
}

mount_answers() {
    is_mounted "$1" && timeout 10 stat -f "$1" >/dev/null 2>&1
}

daemons_alive() {
    local i
    # Written last by 'up': daemons without the settings below are not up.
    [[ -e $RUN_DIR/ready ]] || return 1
    pid_file_alive "$RUN_DIR/mfsmaster.pid" || return 1
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        pid_file_alive "$RUN_DIR/mfschunkserver-$i.pid" || return 1
    done
    for ((i = 1; i <= MOUNTS; i++)); do
        pid_file_alive "$RUN_DIR/mfsmount-$i.pid" || return 1
        mount_answers "$(mount_point "$i")" || return 1
    done
}

# The chunkservers connected to the master now.  A stopped one stays listed
# under "disconnected chunk servers:" (a line that also names our address),
# so only the first table's rows count.
connected_chunkservers() {
    mfscli_server -SCS 2>/dev/null |
        awk -F'\t' '$1 == "chunk servers:" { n++ } END { print n + 0 }'
}

mfscli_server() {
    timeout 20 nsenter --net="$NETNS_PATH" mfscli -H "$ADDR" -P "$MATOCL_PORT" -p "$@"
}

write_configs() {
    mkdir -p "$ETC_DIR"
    cat >"$ETC_DIR/mfsmaster.cfg" <<EOF
# Written by tests/mfs/mfs.sh; regenerated on every 'up'.
WORKING_USER = mfs
WORKING_GROUP = mfs
SYSLOG_IDENT = pfsbench-mfsmaster
DATA_PATH = $STATE_DIR/master
EXPORTS_FILENAME = $ETC_DIR/mfsexports.cfg
TOPOLOGY_FILENAME = $ETC_DIR/mfstopology.cfg
MATOML_LISTEN_HOST = $ADDR
MATOML_LISTEN_PORT = $MATOML_PORT
MATOCS_LISTEN_HOST = $ADDR
MATOCS_LISTEN_PORT = $MATOCS_PORT
MATOCL_LISTEN_HOST = $ADDR
MATOCL_LISTEN_PORT = $MATOCL_PORT
# Metadata is saved to disk once an hour; the test file system is thrown
# away, so keep few change logs.  Not 1: mfsmaster 3.0.117 lowers
# METADATA_SAVE_FREQ to BACK_LOGS/2, which is 0 for 1, and its hourly
# store then divides by it ('trap divide error' in the kernel log, every
# hour on the hour, the master gone and the mounts hung).
BACK_LOGS = 2
EOF
    # Every client (all run on this host, in our namespace) may mount the
    # root read-write as root: the checks run as root in CI.
    cat >"$ETC_DIR/mfsexports.cfg" <<EOF
* / rw,alldirs,maproot=0
* . rw
EOF
    : >"$ETC_DIR/mfstopology.cfg"
    local i reserve
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        # The default 256 MiB reserve is an eighth of the loop XFS.
        reserve=$ROOT_DISK_RESERVE
        ((i == XFS_CHUNKSERVER)) && reserve=64MiB
        cat >"$ETC_DIR/mfschunkserver-$i.cfg" <<EOF
# Written by tests/mfs/mfs.sh; regenerated on every 'up'.
WORKING_USER = mfs
WORKING_GROUP = mfs
SYSLOG_IDENT = pfsbench-mfschunkserver-$i
DATA_PATH = $STATE_DIR/cs$i
HDD_CONF_FILENAME = $ETC_DIR/mfshdd-$i.cfg
# Write zeros as data: by default a chunkserver leaves zero blocks as holes,
# so dd from /dev/zero (seed 001) would never reach its disks, unlike on
# Lustre or GPFS.
HDD_SPARSIFY_ON_WRITE = 0
HDD_LEAVE_SPACE_DEFAULT = $reserve
BIND_HOST = $ADDR
MASTER_HOST = $ADDR
MASTER_PORT = $MATOCS_PORT
CSSERV_LISTEN_HOST = $ADDR
CSSERV_LISTEN_PORT = $((CSSERV_PORT_BASE + i))
EOF
        echo "$STATE_DIR/hdd$i" >"$ETC_DIR/mfshdd-$i.cfg"
    done
}

make_namespace() {
    if [[ ! -e $NETNS_PATH ]]; then
        ip netns add "$NETNS"
    fi
    ip -n "$NETNS" link set lo up
    if ! ip -n "$NETNS" -4 addr show dev lo | grep -q "inet $ADDR/"; then
        ip -n "$NETNS" addr add "$ADDR/32" dev lo
    fi
}

make_xfs_disk() {
    local dir=$STATE_DIR/hdd$XFS_CHUNKSERVER image=$STATE_DIR/hdd$XFS_CHUNKSERVER.xfs
    mkdir -p "$dir"
    is_mounted "$dir" && return 0
    rm -f "$image"
    truncate -s "$XFS_IMAGE_SIZE" "$image"
    mkfs.xfs -q "$image"
    mount -o loop "$image" "$dir"
}

# Starts "$@" in our namespace in the foreground of a background shell, so
# that $! is the daemon's own pid (nsenter execs it); output goes to a log.
start_in_netns() {
    local name=$1
    shift
    setsid nsenter --net="$NETNS_PATH" "$@" </dev/null >>"$LOG_DIR/$name.log" 2>&1 &
    echo $! >"$RUN_DIR/$name.pid"
}

wait_until() {
    local what=$1 start=$2
    shift 2
    while ! "$@"; do
        if awk -v s="$start" -v t="$(now)" -v lim="$UP_TIMEOUT_S" 'BEGIN { exit !(t - s > lim) }'; then
            echo "$PROG: error: $what not ready after ${UP_TIMEOUT_S}s; log tails follow; run '$PROG down' to clean up" >&2
            local log
            for log in "$LOG_DIR"/*.log; do
                echo "==> $log <==" >&2
                tail -n 10 "$log" >&2
            done
            exit 1
        fi
        sleep 0.2
    done
}

master_answers() {
    mfscli_server -SIG >/dev/null 2>&1
}

all_chunkservers_connected() {
    [[ $(connected_chunkservers) -ge $CHUNKSERVERS ]]
}

# Mounts client I and waits until it answers (60 s after START at most).
start_mount() {
    local i=$1 start=$2 mp
    mp=$(mount_point "$i")
    # allow_other: the checks' users are not necessarily root.
    start_in_netns "mfsmount-$i" mfsmount "$mp" -f -H "$ADDR" -P "$MATOCL_PORT" \
        -o allow_other -o mfsioretries=5
    wait_until "mount $mp" "$start" mount_answers "$mp"
}

cmd_up() {
    (($# == 0)) || die "up takes no arguments"
    require_root
    [[ -c /dev/fuse ]] || die "/dev/fuse is missing: mfsmount needs FUSE (modprobe fuse)"
    local start i mp
    start=$(now)
    install_missing_packages
    if [[ -e $NETNS_PATH ]] && daemons_alive; then
        echo "$PROG: already up: MooseFS under $STATE_DIR, target $(mount_point 1) (checked in $(elapsed_since "$start") s)"
        return 0
    fi
    # Anything left over (a half-dead file system) goes first.
    stop_all quiet
    remove_runtime_files
    mkdir -p "$STATE_DIR" "$RUN_DIR" "$LOG_DIR" "$MOUNT_ROOT" "$STATE_DIR/master"
    # The compute nodes' users must reach the mounts through these.
    chmod 0755 "$STATE_DIR" "$MOUNT_ROOT"
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        mkdir -p "$STATE_DIR/cs$i" "$STATE_DIR/hdd$i"
    done
    make_xfs_disk
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        chown mfs:mfs "$STATE_DIR/cs$i" "$STATE_DIR/hdd$i"
    done
    cp /var/lib/mfs/metadata.mfs.empty "$STATE_DIR/master/metadata.mfs"
    chown -R mfs:mfs "$STATE_DIR/master"
    write_configs
    make_namespace
    start_in_netns mfsmaster mfsmaster -c "$ETC_DIR/mfsmaster.cfg" -f start
    wait_until "mfsmaster" "$start" master_answers
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        start_in_netns "mfschunkserver-$i" mfschunkserver -c "$ETC_DIR/mfschunkserver-$i.cfg" -f start
    done
    wait_until "$CHUNKSERVERS chunkservers" "$start" all_chunkservers_connected
    for ((i = 1; i <= MOUNTS; i++)); do
        mkdir -p "$(mount_point "$i")"
        start_mount "$i" "$start"
    done
    mp=$(mount_point 1)
    # Deleted files would stay in the trash for 24 h, holding chunks on the
    # shared disk; every directory made below the root inherits trash time 0.
    # The tools talk to the master directly, hence from inside the namespace.
    in_netns mfssettrashtime -r 0 "$mp" >/dev/null
    # One copy of each chunk (Lustre and GPFS without replication write each
    # byte once); 'mfs.sh copies N' changes it.
    in_netns mfssetgoal -r 1 "$mp" >/dev/null
    mkdir -p "$mp/scratch"
    chmod 1777 "$mp/scratch"
    : >"$RUN_DIR/ready"
    echo "$PROG: up: mfsmaster, $CHUNKSERVERS chunkservers, $MOUNTS mounts under $MOUNT_ROOT in $(elapsed_since "$start") s"
    echo "$PROG: target: $mp/scratch"
}

signal_and_wait() {
    local pids=("$@") pid deadline alive=()
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

owned_pids() {
    local f pid
    for f in "$@"; do
        [[ -e $f ]] || continue
        pid=$(cat "$f" 2>/dev/null) || continue
        pid_is_ours "$pid" && echo "$pid"
    done
    return 0
}

stop_all() {
    local quiet=${1:-} i mp pids=() stopped=0
    # Clients first (their unmount flushes to the chunkservers), then the
    # chunkservers, then the master, which saves the metadata on TERM.
    for ((i = 1; i <= MOUNTS; i++)); do
        mp=$(mount_point "$i")
        if is_mounted "$mp"; then
            umount "$mp" 2>/dev/null || umount -l "$mp" || true
        fi
    done
    mapfile -t pids < <(owned_pids "$RUN_DIR"/mfsmount-*.pid)
    signal_and_wait "${pids[@]}"
    stopped=$((stopped + ${#pids[@]}))
    mapfile -t pids < <(owned_pids "$RUN_DIR"/mfschunkserver-*.pid)
    signal_and_wait "${pids[@]}"
    stopped=$((stopped + ${#pids[@]}))
    mapfile -t pids < <(owned_pids "$RUN_DIR/mfsmaster.pid")
    signal_and_wait "${pids[@]}"
    stopped=$((stopped + ${#pids[@]}))
    local xfs=$STATE_DIR/hdd$XFS_CHUNKSERVER
    if is_mounted "$xfs"; then
        umount "$xfs"
    fi
    if [[ -e $NETNS_PATH ]]; then
        ip netns delete "$NETNS"
    fi
    [[ -n $quiet ]] || echo "$PROG: stopped $stopped processes under $STATE_DIR"
}

remove_runtime_files() {
    # Logs stay, so a failed run can still be read after 'down'.  Only names
    # we create are removed, and only once nothing is mounted on them.
    local i
    for ((i = 1; i <= MOUNTS; i++)); do
        is_mounted "$(mount_point "$i")" && die "$(mount_point "$i") is still mounted; not removing it"
    done
    is_mounted "$STATE_DIR/hdd$XFS_CHUNKSERVER" && die "$STATE_DIR/hdd$XFS_CHUNKSERVER is still mounted"
    rm -rf "$RUN_DIR" "$ETC_DIR" "$STATE_DIR/master" "$MOUNT_ROOT" \
        "$STATE_DIR/hdd$XFS_CHUNKSERVER.xfs"
    for ((i = 1; i <= CHUNKSERVERS; i++)); do
        rm -rf "$STATE_DIR/cs$i" "$STATE_DIR/hdd$i"
    done
}

cmd_down() {
    (($# == 0)) || die "down takes no arguments"
    require_root
    [[ -d $STATE_DIR ]] || { echo "$PROG: nothing to stop under $STATE_DIR"; return 0; }
    stop_all
    remove_runtime_files
}

cmd_status() {
    (($# == 0)) || die "status takes no arguments"
    if [[ ! -f $RUN_DIR/mfsmaster.pid ]]; then
        echo "$PROG: no MooseFS under $STATE_DIR (run '$PROG up')" >&2
        return 1
    fi
    [[ -e $NETNS_PATH ]] || { echo "$PROG: network namespace $NETNS is missing" >&2; return 1; }
    if ! daemons_alive; then
        echo "$PROG: a daemon or mount of ours is not running (see $LOG_DIR)" >&2
        return 1
    fi
    if ! all_chunkservers_connected; then
        echo "$PROG: fewer than $CHUNKSERVERS chunkservers connected to the master" >&2
        return 1
    fi
    echo "$PROG: up: target $(mount_point 1)/scratch, mounts $(mount_point 1)..$(mount_point "$MOUNTS")"
}

# The operations the master counted per mount point since MooseFS came up,
# one line each: "<mount point> <operations>", and "all <operations>" for
# every session together.  The master counts a session's operations per
# hour: at every full hour (its timer, registered every 3600 s from the
# epoch) it moves them to 'last hour' (mfscli -SMO -m 0) and counts the
# current hour (-m 1) from zero.  A case that spans a full hour would see
# its counters go backwards and get no verdict; so the hours are added up
# here, in $RUN_DIR/ops-hours: at the first sample of an hour, the hour
# before is taken from 'last hour' (complete, unlike the last sample of
# it).  If a whole hour went by unsampled, the hours between are not known:
# the sum goes on from the previous sample's, too low but never backwards.
# All columns but chunk read and write (fields 18, 19) are operations.
session_ops() {
    local hour current last
    # The reads too are under the lock: two samplers across a full hour
    # must update the state in the order they read, or the later hour's
    # 'last hour' is added twice.
    exec 9>>"$RUN_DIR/ops-hours.lock"
    flock 9
    for _ in 1 2 3; do
        # Not in the first seconds of an hour: the master may not have
        # moved its counters yet.
        (( $(date +%s) % 3600 >= 2 )) || sleep 2
        hour=$(( $(date +%s) / 3600 ))
        current=$(mfscli_server -SMO -m 1) || die "mfscli -SMO failed: is the master up ('$PROG status')?"
        last=$(mfscli_server -SMO -m 0) || die "mfscli -SMO failed: is the master up ('$PROG status')?"
        (( $(date +%s) / 3600 == hour )) && break
    done
    (( $(date +%s) / 3600 == hour )) || die "mfscli -SMO: three reads in a row straddled a full hour"
    touch "$RUN_DIR/ops-hours"
    awk -F'\t' -v hour="$hour" -v state="$RUN_DIR/ops-hours" '
        BEGIN {
            while ((getline line < state) > 0) {
                split(line, f, " ")
                h[f[1]] = f[2]; base[f[1]] = f[3]; seen[f[1]] = f[4]
            }
            close(state)
            part = "current"
        }
        $0 == "--last--" { part = "last"; next }
        $1 == "active mounts, operations:" && NF >= 20 {
            n = $20 - $18 - $19
            if (part == "current") { cur[$3] += n; cur["all"] += n }
            else { prev[$3] += n; prev["all"] += n }
        }
        END {
            cur["all"] += 0
            for (k in cur) {
                b = (k in base) ? base[k] : 0
                if ((k in h) && h[k] == hour - 1) b += prev[k]
                else if ((k in h) && h[k] < hour - 1) b += seen[k] + prev[k]
                printf "%s %d %.0f %.0f\n", k, hour, b, cur[k] > state
                printf "%s %.0f\n", k, b + cur[k]
            }
        }' <<<"$current"$'\n--last--\n'"$last"
    exec 9>&-
}

# Prints the whole file system's cumulative counters in the format of
# extras.fs_counters_command (docs/test-filesystem.md):
#   read_bytes N / write_bytes N   what the chunkservers read from and wrote
#       to their disks (/proc/PID/io of each chunkserver: server side, every
#       client's I/O; reads served from the servers' page cache are not
#       counted), the writes divided by the copies the target's new data
#       gets: what the clients wrote (with 2 copies the disks take every
#       byte twice, and a case's own second copy is no foreign load);
#   metadata_ops N   the master's operation counters summed over every
#       mount's session (mfscli -SMO, all columns but read and write), made
#       cumulative across the master's hourly restart (session_ops above).
# The copies new data on the target gets (its goal).
target_copies() {
    in_netns mfsgetgoal "$(mount_point 1)/scratch" | awk '{ print $NF }'
}

cmd_counters() {
    (($# == 0)) || die "counters takes no arguments"
    local f pid read=0 write=0 r w ops copies
    for f in "$RUN_DIR"/mfschunkserver-*.pid; do
        pid=$(cat "$f" 2>/dev/null) || continue
        pid_is_ours "$pid" || continue
        read -r r w < <(awk '$1 == "read_bytes:" { r = $2 } $1 == "write_bytes:" { w = $2 } END { printf "%.0f %.0f\n", r, w }' "/proc/$pid/io")
        read=$((read + r))
        write=$((write + w))
    done
    ops=$(session_ops | awk '$1 == "all" { print $2 }')
    copies=$(target_copies)
    [[ $copies =~ ^[1-9]$ ]] || die "mfsgetgoal $(mount_point 1)/scratch: '$copies': expected the number of copies"
    echo "read_bytes $read"
    echo "write_bytes $((write / copies))"
    echo "metadata_ops $ops"
}

# Prints one line per mount session, for extras.fs_clients_command
# (pfsbench.load.attribution; docs/test-filesystem.md):
#   source=<session id> mount=<mount point> bytes=N metadata_ops=N
# metadata_ops: the master's operation counters of that mount point's
# session (session_ops: cumulative across the master's hourly restart; the
# session is -SMS's active one at that mount point, and remount removes
# the old ones).  bytes: what that mount's client
# (mfsmount) moved, half its rchar + wchar (/proc/PID/io): every byte a
# program writes through it is read from /dev/fuse and written to a
# chunkserver's socket, every byte it reads the other way round.  MooseFS
# 3.0's master counts no bytes per session; the client process is the
# per-client counter a node's collector would read at a site.
cmd_clients() {
    (($# == 0)) || die "clients takes no arguments"
    local sms ops_by_mount i f pid path session ops rw
    sms=$(mfscli_server -SMS) || die "mfscli -SMS failed: is the master up ('$PROG status')?"
    ops_by_mount=$(session_ops)
    for ((i = 1; i <= MOUNTS; i++)); do
        path=$(mount_point "$i")
        f=$RUN_DIR/mfsmount-$i.pid
        pid=$(cat "$f" 2>/dev/null) || continue
        pid_is_ours "$pid" || continue
        session=$(awk -F'\t' -v p="$path" '$1 == "active mounts, parameters:" && $4 == p { print $2; exit }' <<<"$sms")
        [[ $session =~ ^[0-9]+$ ]] || continue
        ops=$(awk -v p="$path" '$1 == p { n = $2 } END { printf "%.0f", n }' <<<"$ops_by_mount")
        rw=$(awk '$1 == "rchar:" || $1 == "wchar:" { n += $2 } END { printf "%.0f", n / 2 }' "/proc/$pid/io")
        echo "source=$session mount=$path bytes=$rw metadata_ops=$ops"
    done
}

cmd_provenance() {
    (($# == 0)) || die "provenance takes no arguments"
    local sig version chunkservers goal
    sig=$(mfscli_server -SIG) || die "mfscli -SIG failed: is the master up ('$PROG status')?"
    version=$(awk -F'\t' '$2 == "master version" { print $3; exit }' <<<"$sig")
    local scs cs_versions
    scs=$(mfscli_server -SCS) || die "mfscli -SCS failed: is the master up ('$PROG status')?"
    chunkservers=$(awk -F'\t' '$1 == "chunk servers:" { n++ } END { print n + 0 }' <<<"$scs")
    cs_versions=$(awk -F'\t' '$1 == "chunk servers:" && NF > 5 { print $6 }' <<<"$scs" | sort -u | paste -sd/)
    goal=$(target_copies)
    echo "filesystem moosefs"
    echo "master_version ${version:-unknown}"
    echo "chunkservers $chunkservers"
    echo "chunkserver_versions ${cs_versions:-none}"
    echo "copies $goal"
}

# Prints a /proc/stat "cpu" line for the master process alone, for
# extras.server_cpu_command: user and system ticks of mfsmaster, and as idle
# the rest of one CPU's ticks since boot, so that utilisation between two
# samples is the share of one core the master used (it is single-threaded;
# the host's own /proc/stat would count the clients and chunkservers too).
cmd_master_cpu() {
    (($# == 0)) || die "master-cpu takes no arguments"
    local pid
    pid=$(cat "$RUN_DIR/mfsmaster.pid" 2>/dev/null) || die "no mfsmaster pid file under $RUN_DIR ('$PROG up')"
    pid_is_ours "$pid" || die "mfsmaster (pid $pid) is not running"
    # Fields 14 and 15 of /proc/PID/stat after the ')' of the command name.
    awk -v hz="$(getconf CLK_TCK)" -v stat="$(sed 's/.*) //' "/proc/$pid/stat")" '
        { split(stat, f, " "); u = f[12]; s = f[13]; t = int($1 * hz)
          idle = t - u - s; if (idle < 0) idle = 0
          printf "cpu %d 0 %d %d 0 0 0 0 0 0\n", u, s, idle }' /proc/uptime
}

# An unmounted client's session stays on the master as inactive, still
# counted in -SMO under its mount point, until the master's next check
# (every 10 s; none in the master's first 2 minutes, measured: a remount
# 22 s after 'up' kept them that long).  Removed at once here: else they
# vanish in the middle of some case, and that mount point's operations go
# backwards (no verdict on foreign load).
remove_inactive_sessions() {
    local sms id
    sms=$(mfscli_server -SMS) || die "mfscli -SMS failed: is the master up ('$PROG status')?"
    while read -r id; do
        mfscli_server "-CRS/$id" </dev/null >/dev/null ||
            note "mfscli -CRS/$id: the master kept inactive session $id"
    done < <(awk -F'\t' '$1 == "inactive mounts, parameters:" && $2 ~ /^[0-9]+$/ { print $2 }' <<<"$sms")
}

# MooseFS 3.0.117 keeps every file deleted through a mount "sustained",
# holding its chunks, until that client's session ends: a series of runs
# remounts between runs, or the disks fill up (docs/test-filesystem.md).
cmd_remount() {
    (($# == 0)) || die "remount takes no arguments"
    require_root
    # A stopped chunkserver ('chunkserver stop') does not stop a remount.
    if ! { [[ -e $RUN_DIR/ready ]] && pid_file_alive "$RUN_DIR/mfsmaster.pid" && master_answers; }; then
        die "the master is not up ('$PROG status'; '$PROG down' then '$PROG up' recovers)"
    fi
    local i mp start pids=() unmounted=() busy=()
    start=$(now)
    for ((i = 1; i <= MOUNTS; i++)); do
        mp=$(mount_point "$i")
        # Never lazily: a busy mount would keep its session, and its space.
        if umount "$mp" 2>/dev/null; then
            unmounted+=("$i")
            mapfile -t -O "${#pids[@]}" pids < <(owned_pids "$RUN_DIR/mfsmount-$i.pid")
        else
            busy+=("$mp")
        fi
    done
    # Each client ends with its mount (its session closes: a few seconds);
    # all together.
    signal_and_wait "${pids[@]}"
    for i in "${unmounted[@]}"; do
        start_mount "$i" "$start"
    done
    ((${#busy[@]} == 0)) ||
        die "${busy[*]}: busy (open files or a working directory there: fuser -vm); not remounted"
    remove_inactive_sessions
    echo "$PROG: remounted $MOUNTS clients in $(elapsed_since "$start") s"
}

cmd_copies() {
    (($# == 1)) || die "usage: $PROG copies N"
    [[ $1 =~ ^[1-3]$ ]] || die "copies: N must be 1, 2 or 3 (there are $CHUNKSERVERS chunkservers), got '$1'"
    require_root
    in_netns mfssetgoal -r "$1" "$(mount_point 1)" >/dev/null
    echo "$PROG: new data is written with $1 cop$([[ $1 == 1 ]] && echo y || echo ies)"
}

cmd_chunkserver() {
    (($# == 2)) || die "usage: $PROG chunkserver stop|start I"
    local action=$1 i=$2
    if ! [[ $i =~ ^[1-9]$ ]] || ((i > CHUNKSERVERS)); then
        die "chunkserver: I must be 1..$CHUNKSERVERS, got '$i'"
    fi
    require_root
    case $action in
    stop)
        local pids=()
        mapfile -t pids < <(owned_pids "$RUN_DIR/mfschunkserver-$i.pid")
        signal_and_wait "${pids[@]}"
        echo "$PROG: chunkserver $i stopped"
        ;;
    start)
        pid_file_alive "$RUN_DIR/mfschunkserver-$i.pid" && { echo "$PROG: chunkserver $i already runs"; return 0; }
        start_in_netns "mfschunkserver-$i" mfschunkserver -c "$ETC_DIR/mfschunkserver-$i.cfg" -f start
        wait_until "$CHUNKSERVERS chunkservers" "$(now)" all_chunkservers_connected
        echo "$PROG: chunkserver $i started"
        ;;
    *) die "chunkserver: expected stop or start, got '$action'" ;;
    esac
}

main() {
    local usage="up | down | status | remount | counters | clients | provenance | master-cpu | copies N | chunkserver stop|start I"
    (($#)) || die "usage: $PROG $usage"
    local cmd=$1
    shift
    case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    remount) cmd_remount "$@" ;;
    counters) cmd_counters "$@" ;;
    clients) cmd_clients "$@" ;;
    provenance) cmd_provenance "$@" ;;
    master-cpu) cmd_master_cpu "$@" ;;
    copies) cmd_copies "$@" ;;
    chunkserver) cmd_chunkserver "$@" ;;
    -h | --help | help) sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "unknown subcommand '$cmd' (usage: $PROG $usage)" ;;
    esac
}

main "$@"
