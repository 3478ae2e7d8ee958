#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set everything up and run the quick suite on the `local` system: no
# scheduler, no root, each test writing into its own fresh stage directory
# under runs/ (or $PFSBENCH_RUNS).  Ends with a summary table.
#
# With a Spack ($SPACK_ROOT/bin/spack, or spack on PATH), it first offers to
# build the local Spack environment (IOR with mdtest, bonnie++, iozone, fio
# and IO500, against the system MPI; spack-repo/environments/local/default)
# and then runs the quick cases on those binaries.  --build builds without
# asking, --no-build never builds (also PFSBENCH_BUILD=yes|no); without a
# terminal to ask on, it does not build.  Other arguments go to reframe.
# PFSBENCH_QUICKSTART_ENV names another environment directory to build and
# use instead of spack-repo/environments/local/default (the tests point it
# at a copy, so an environment installed in the checkout does not change
# what they see).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${PFSBENCH_BUILD:-ask}
reframe_args=()
for arg in "$@"; do
    case "$arg" in
        --build) build=yes ;;
        --no-build) build=no ;;
        *) reframe_args+=("$arg") ;;
    esac
done

scripts/setup.sh
export PFSBENCH_RUNS="${PFSBENCH_RUNS:-$(pwd)/runs}"
mkdir -p "$PFSBENCH_RUNS"
env_dir=${PFSBENCH_QUICKSTART_ENV:-$(pwd)/spack-repo/environments/local/default}

installed() {
    [ -f "$env_dir/spack.lock" ] && [ -x "$env_dir/.spack-env/view/bin/ior" ]
}

# Follows Spack's output into the log and shows one line: what it is
# building now ("==> Installing ior-4.0.0-<hash> [15/19]").
progress() {
    local line
    local installing='Installing (.+)-[a-z0-9]{32} \[([0-9]+/[0-9]+)\]'
    printf 'pfsbench: concretizing'
    while IFS= read -r line; do
        printf '%s\n' "$line" >>"$log"
        if [[ $line =~ $installing ]]; then
            printf '\r\033[Kpfsbench: building %s (%s)' \
                "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        fi
    done
    printf '\r\033[K'
}

build_environment() {
    local spack=$1
    log=$PFSBENCH_RUNS/spack-install.log
    : >"$log"
    # Spack concretizes with clingo; in pfsbench's own Python it needs no
    # bootstrapping from the network (docs/spack.md, "Air-gapped sites").
    if [ -z "${SPACK_PYTHON:-}" ]; then
        .venv/bin/pip install --quiet --disable-pip-version-check clingo
        SPACK_PYTHON=$(pwd)/.venv/bin/python
        export SPACK_PYTHON
    fi
    if ! .venv/bin/pfsbench check-spack --spack "$spack" --env "$env_dir"; then
        echo "pfsbench: not building: fix the Spack set-up above first" >&2
        return 1
    fi
    echo "pfsbench: building the local environment with $spack" \
         "(log: $log)"
    local start=$SECONDS
    if ! { "$spack" -e "$env_dir" concretize -f 2>&1 &&
           "$spack" -e "$env_dir" install 2>&1; } | progress ||
            ! installed; then
        echo "pfsbench: the build failed; the end of $log:" >&2
        tail -n 20 "$log" >&2
        return 1
    fi
    echo "pfsbench: built in $((SECONDS - start)) s into" \
         "$env_dir/.spack-env/view"
}

spack=$(.venv/bin/python -c 'from pfsbench.site.spack_check import find_spack
print(find_spack() or "")')

if [ -n "$spack" ] && ! installed; then
    if [ "$build" = ask ]; then
        build=no
        if [ -t 0 ]; then
            read -r -p "pfsbench: build IOR, mdtest, bonnie++, iozone, fio and
IO500 with $spack against the system MPI (a few minutes)? [Y/n] " answer
            case "$answer" in [nN]*) ;; *) build=yes ;; esac
        fi
    fi
    if [ "$build" = yes ]; then
        build_environment "$spack" || true
    fi
elif [ -z "$spack" ] && ! installed; then
    echo "pfsbench: no Spack (\$SPACK_ROOT/bin/spack or spack on PATH):" \
         "the checks look for their tools on PATH"
fi

if installed; then
    export PFSBENCH_SPACK_ENV=$env_dir
    echo "pfsbench: running on the tools of $env_dir"
fi

status=0
.venv/bin/reframe -C config/settings.py --system local -c reframe-checks \
    -t quick -r ${reframe_args[@]+"${reframe_args[@]}"} || status=$?
echo
.venv/bin/pfsbench summary || true
exit "$status"
