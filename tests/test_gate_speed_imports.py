# SPDX-License-Identifier: BSD-3-Clause
"""The gate verb's imports: what it does not need on every night is not
imported before it is needed (docs/gate-evidence.md, "Speed: a year of
nightlies")."""

import subprocess
import sys


def _imported_after(code):
    out = subprocess.run(
        [sys.executable, '-c', code + '\nimport sys\n'
         'print(" ".join(sorted(sys.modules)))'],
        capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_gate_verb_does_not_import_jsonschema():
    # A baseline whose bytes passed before is not checked again, so the
    # validator's import (about a tenth of the command's serial start)
    # waits until a document is checked.
    modules = _imported_after('import pfsbench.cli.entry, pfsbench.cli.gate')
    assert 'pfsbench.gate.judge.baseline' in modules
    assert 'jsonschema' not in modules
    assert 'referencing' not in modules
    # The schemas are read from the package's directory, and the
    # traceback module waits for a traceback.
    assert 'importlib.resources' not in modules
    assert 'traceback' not in modules


def test_a_check_still_imports_the_validator_and_rejects():
    modules = _imported_after(
        'from pfsbench import schemas\n'
        'from pfsbench.core.errors import ConfigError\n'
        'try:\n'
        '    schemas.check({"kind": 1}, "baseline.json", "b.json")\n'
        'except ConfigError as e:\n'
        '    print("REJECTED")\n')
    assert 'REJECTED' in modules
    assert 'jsonschema' in modules
