#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up and run the tests.  As root, installs the Debian packages the
# integration tests use and lets them bring up the localhost Slurm cluster
# (tests/localslurm), which is stopped again afterwards if this run started
# it; likewise it brings up the MooseFS test file system (tests/mfs) and
# takes it down afterwards if this run started it.  Without root, the Slurm
# and MooseFS tests skip and say so.  Without arguments the pure lane runs on
# two workers, then the rest on one; arguments go to one pytest as given.
#
# --fast runs the pure lane only: no ReFrame run, no Slurm, no root, no real
# benchmark build (tests/lanes.py marks each test from what it uses), and
# not the gate's slow rate simulations (marker 'rates'); it
# installs no Debian package and starts no cluster.  Without it, everything
# runs (.ci/run calls this script with no argument).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
    -h|--help)
        sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
        echo "usage: scripts/test.sh [--fast] [PYTEST ARGUMENTS]"
        exit 0 ;;
    --fast)
        shift
        scripts/setup.sh --test
        # Temporary files in memory: a tmpfs /dev/shm with 1 GiB free,
        # unless TMPDIR is set.  On disk the tests' SQLite commits wait
        # on fdatasync: docs/testing.md measures what that costs.
        if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && \
                [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && \
                [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -ge 1048576 ]
        then
            export TMPDIR=/dev/shm
        fi
        # No cache: the fast lane reruns everything, and writes nothing
        # (a passing test's temporary directory is removed).  Two workers
        # (pytest-xdist): pure tests share nothing.  The gate's rate tests
        # (marker 'rates': hundreds of simulated nights each) run in the
        # full suite only.
        exec .venv/bin/python -m pytest -ra -p no:cacheprovider -n 2 \
            -o tmp_path_retention_policy=failed \
            -m 'not reframe and not slurm and not root and not tool and not rates' \
            "$@" ;;
esac

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    # xfsprogs: E4 compares ext4, XFS and tmpfs loop targets.  moosefs-*
    # and fuse3: the MooseFS test file system (tests/mfs/mfs.sh installs
    # them too, when run by hand).  postgresql: the results store's
    # tests start a throw-away PostgreSQL 15 (tests/pgcluster.py).
    wanted=(slurm-wlm munge openmpi-bin libopenmpi-dev bonnie++ fio
            xfsprogs shellcheck moosefs-master moosefs-chunkserver
            moosefs-client moosefs-cli fuse3 postgresql chromium)
    missing=()
    for pkg in "${wanted[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "pfsbench: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            "${missing[@]}" >/dev/null
    fi
fi

scripts/setup.sh --test

# With a Spack on this machine (never in the repository; see docs/spack.md),
# the recipe tests concretize for real: Spack needs clingo in this Python,
# or it would try to bootstrap it online.
if [ -n "${PFSBENCH_SPACK_ROOTS:-}" ] || compgen -G '/opt/spack-*/bin/spack' \
        >/dev/null; then
    .venv/bin/pip install --quiet --disable-pip-version-check clingo
fi

cluster_was_up=yes
if ! bash tests/localslurm/localslurm.sh status >/dev/null 2>&1; then
    cluster_was_up=no
fi

mfs_was_up=yes
if ! bash tests/mfs/mfs.sh status >/dev/null 2>&1; then
    mfs_was_up=no
    if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ]; then
        # Up before pytest: its tests then only use it (tests/test_mfs.py
        # fails, naming the error, if this did not work).
        bash tests/mfs/mfs.sh up || true
    fi
fi

status=0
# The slowest tests are named at the end: CI has 40 minutes.
if [ "$#" -gt 0 ]; then
    # A selection of the caller's: as given, one worker.
    .venv/bin/python -m pytest -ra --durations=25 "$@" || status=$?
else
    # Everything, in two passes.  The pure lane (about 1,500 tests that
    # share nothing: no ReFrame run, no Slurm, no root, no tool) on two
    # workers; then the rest on one: those measure real I/O and probe for
    # foreign load, and two at once would be each other's foreign load.
    pure='not reframe and not slurm and not root and not tool'
    .venv/bin/python -m pytest -ra -p no:cacheprovider -n 2 \
        -m "$pure" || status=$?
    .venv/bin/python -m pytest -ra --durations=25 -m "not ($pure)" \
        || status=$?
fi

if [ "$mfs_was_up" = no ] && [ "$(id -u)" = 0 ]; then
    bash tests/mfs/mfs.sh down >/dev/null 2>&1 || true
fi
if [ "$cluster_was_up" = no ] && [ "$(id -u)" = 0 ]; then
    bash tests/localslurm/localslurm.sh down >/dev/null 2>&1 || true
fi
exit "$status"
