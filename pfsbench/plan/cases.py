# SPDX-License-Identifier: BSD-3-Clause
"""The test cases a run would select, as ReFrame itself selects them.

``pfsbench check-config`` (does the partition fit them?) and ``pfsbench
nightly plan`` (what will a night cost?) ask ReFrame, through ``reframe
--describe``, instead of repeating its selection: the same ``-c``, ``-t``
and ``--system`` then give the same cases as the run.
"""

import json
import os
import re
import sys
import tempfile

from pfsbench.core.errors import ConfigError
from pfsbench.parsers import text
from pfsbench.site.mounts import target_is_lustre

def reframe_command():
    """The ``reframe`` of this Python's environment."""
    return os.path.join(os.path.dirname(sys.executable), 'reframe')


def describe(settings, system, checks, tags=(), extra_env=None, args=()):
    """The test cases ``reframe -C settings --system system -c checks -t
    tags`` would run, as ``reframe --describe`` prints them.

    Args:
        settings: the ReFrame configuration file (``config/settings.py``).
        system: ``NAME:PARTITION``.
        checks: the check search path (``reframe-checks``).
        tags: ``-t`` patterns (all must match).
        extra_env: more environment variables for ReFrame.
        args: more reframe arguments (:func:`every_target`'s).

    Returns:
        a list of dicts, one per case (``display_name``, ``nodes``,
        ``num_tasks``, ``time_limit`` in seconds, ``@file``...).

    Raises:
        ConfigError: ReFrame refused the configuration or the system.
    """
    proc = _reframe(settings, system, checks, tags, extra_env, '--describe',
                    *args)
    try:
        cases = json.loads(proc.stdout)
    except ValueError:
        cases = None
    if proc.returncode != 0 or not isinstance(cases, list):
        raise ConfigError(settings, '--system', system,
                          f'reframe cannot list the cases: {_why(proc)}')

    return cases


def every_target(partition):
    """The reframe arguments that run every case on each of a partition's
    targets (``-P target=a,b``: the checks' ``target`` variable becomes a
    parameter, ``%.target=a`` in every case's name); none with fewer than
    two targets, whose cases keep their names (and their history)."""
    names = [t['name'] for t in
             partition.get('extras', {}).get('targets', [])]
    return ['-P', 'target=' + ','.join(names)] if len(names) > 1 else []


def _reframe(settings, system, checks, tags, extra_env, *args):
    """Run ``reframe`` on the selection (its logs and stage directories in
    a temporary directory, removed); the finished process."""
    cmd = [reframe_command(), '-C', settings, '--system', system, '-c',
           checks, '-R', *args]
    for tag in tags:
        cmd += ['-t', reframe_tag(tag)]
    # Listing loads no module: without this, a system whose module system
    # is not installed here (Lmod on a laptop) cannot even be listed.
    env = dict(os.environ, RFM_RESOLVE_MODULE_CONFLICTS='0', RFM_COLORIZE='n',
               **(extra_env or {}))
    with tempfile.TemporaryDirectory(prefix='pfsbench-describe-') as logs:
        # A listing's log files are of no use: keep them out of runs/.
        env['PFSBENCH_RUNS'] = logs
        return text.run(cmd, env=env)


def _why(proc):
    """The line of a failed ``reframe`` that says why."""
    lines = [ln for ln in (proc.stderr + proc.stdout).splitlines()
             if ln.strip()]
    why = next((ln for ln in lines if 'error' in ln.lower()),
               lines[-1] if lines else f'exit {proc.returncode}')
    return why.strip()


#: ReFrame's line for a skipped case: ``[     SKIP ] ( 7/46) NAME /HASH
#: @SYSTEM:PARTITION+ENVIRON [REASON]`` (the count padded to the total's
#: width).
_SKIP_LINE = re.compile(r'^\[\s*SKIP\s*\] \(\s*\d+/\d+\) (.+?) /[0-9a-f]{8} '
                        r'@\S+ \[(.*)\]$', re.M)


def skipped_cases(output):
    """``{display_name: reason}`` of the cases a ReFrame run's output
    says it skipped."""
    return dict(_SKIP_LINE.findall(output))


def dry_run_skips(settings, system, checks, tags=(), extra_env=None,
                  args=()):
    """The cases of the selection that a run would skip, and why, as the
    checks' own hooks decide in a ReFrame dry run (node counts, tracers,
    declared tools; with ``PFSBENCH_DRY_RUN_TOOLS=check`` in
    ``extra_env``, also the tools this host lacks).

    Args:
        args: more reframe arguments (:func:`every_target`'s).

    Returns:
        ``{display_name: reason}``.

    Raises:
        ConfigError: ReFrame refused the configuration or the system.
    """
    proc = _reframe(settings, system, checks, tags, extra_env, '--dry-run',
                    *args)
    skips = skipped_cases(proc.stdout)
    if proc.returncode != 0 and not skips:
        raise ConfigError(settings, '--system', system,
                          f'reframe cannot dry-run the cases: '
                          f'{_why(proc)}')
    return skips


#: A tag written as a plain word (``E1``, ``nightly``): matched exactly.
_PLAIN_TAG = re.compile(r'[A-Za-z0-9_.-]+')


def reframe_tag(tag):
    """The ``reframe -t`` pattern of a tag: a plain word matches that tag
    exactly (ReFrame's ``-t E1`` is a regular expression that also selects
    E10-E19); anything else is passed on as the pattern it is."""
    return f'^{tag}$' if _PLAIN_TAG.fullmatch(tag) else tag


#: Checks that run IO500's find phase (pfind) beside their own tool.
_FIND_CHECKS = ('mdtest_io500_phases', 'io500_suite_run')
#: Families whose checks set seed 001's Lustre layout on a Lustre target
#: (``extras.lustre_stripe_count``, 0: none), and the checks that sweep
#: layouts whatever it is.
_LAYOUT_FAMILIES = ('dd', 'bonnie', 'iozone')
_STRIPE_CHECKS = ('ior_lustre_stripe_bandwidth', 'bonnie_lustre_stripe')


def helper_tools(case, partition):
    """The tools a case runs beside its own (:func:`case_tool`) on a
    partition: ``pfind`` for IO500's find phase; ``lfs`` where it sets a
    Lustre layout (the ``lustre`` feature, a target that is Lustre).

    Returns:
        a set of tool names.
    """
    cls = case.get('@class') or case['display_name'].split()[0]
    family = os.path.basename(os.path.dirname(case.get('@file', '')))
    extras = partition.get('extras', {})
    targets = extras.get('targets') or [{'name': 'stage'}]
    lustre = any(target_is_lustre(t, partition.get('features', []))
                 for t in targets)
    out = set()
    if cls in _FIND_CHECKS:
        out.add('pfind')
    if lustre and (cls in _STRIPE_CHECKS or (
            family in _LAYOUT_FAMILIES and
            extras.get('lustre_stripe_count', 4) != 0)):
        out.add('lfs')
    return out


def case_tool(case):
    """The tool a case runs: its check's ``tool`` variable, as ``reframe
    --describe`` reports it (None for none)."""
    return case.get('tool') or None
