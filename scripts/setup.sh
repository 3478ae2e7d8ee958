#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up pfsbench in .venv: a Python virtual environment with the package
# (editable) and the pinned ReFrame.  Idempotent.  With --test, also the test
# requirements.  PYTHON picks the interpreter (default: python3, >= 3.10,
# which ReFrame 4.10 needs).
set -euo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null; then
    echo "pfsbench: error: $py not found; install Python >= 3.10" >&2
    exit 2
fi
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "pfsbench: error: $("$py" --version 2>&1) is too old: ReFrame 4.10" \
         "needs Python >= 3.10 (set PYTHON=/path/to/python3.x)" >&2
    exit 2
fi

# A venv left half-made by an earlier failure has no pip: start again.
if [ -d .venv ] && [ ! -x .venv/bin/pip ]; then
    rm -rf .venv
fi
if [ ! -d .venv ]; then
    if ! "$py" -m venv .venv 2>/dev/null; then
        rm -rf .venv
        # Debian and Ubuntu ship venv separately.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
            "$py" -m venv .venv
        else
            echo "pfsbench: error: '$py -m venv' failed; install the" \
                 "python3-venv package (Debian/Ubuntu) and run again" >&2
            exit 2
        fi
    fi
fi

extras=
if [ "${1:-}" = --test ]; then
    extras='[test]'
fi
# The install is editable: only pyproject.toml (dependencies, entry points)
# and the extras asked for change what pip would do.  Unchanged since the
# last install, pip is not asked again (it takes seconds of every
# scripts/test.sh --fast).
stamp=".venv/.pfsbench-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1) ${extras:-none}"
if [ -f "$stamp" ] && [ -x .venv/bin/reframe ] &&
        [ "$(cat "$stamp")" = "$want" ]; then
    echo "pfsbench: $(pwd)/.venv is up to date"
    exit 0
fi
rm -f "$stamp"
.venv/bin/pip install --quiet --disable-pip-version-check -e ".${extras}"
echo "$want" > "$stamp"
echo "pfsbench: set up in $(pwd)/.venv ($(.venv/bin/reframe --version 2>&1 | head -n1 | sed 's/^/reframe /'))"
