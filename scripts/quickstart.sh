#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set everything up and run the quick suite on the `local` system: no
# scheduler, no root, each test writing into its own fresh stage directory
# under runs/ (or $PFSBENCH_RUNS).  Ends with a summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PFSBENCH_RUNS="${PFSBENCH_RUNS:-$(pwd)/runs}"
status=0
.venv/bin/reframe -C config/settings.py --system local -c reframe-checks \
    -t quick -r "$@" || status=$?
echo
.venv/bin/pfsbench summary || true
exit "$status"
