# SPDX-License-Identifier: BSD-3-Clause
"""Names of the test-case fields the gate reads, each defined once.

A check records these as loggable variables; ReFrame writes every loggable
variable into its run report (and so into the results database) and the
perflog, and :mod:`pfsbench.gate` reads them back by these names.  A
check declares a variable by its attribute name, so it cannot import the
name: ``tests/test_fields.py`` loads the real checks with ReFrame's loader
and fails when a check no longer has, as a loggable variable, a field that
the gate reads for it.

The module sits outside :mod:`pfsbench.gate` because both sides use it:
the checks that write the fields and the gate that reads them.
"""

import re

#: Where the case wrote: the target's path and file-system type
#: (pfsbench.checks.FileSystemCheck, every check).
TARGET_PATH = 'target_path'
TARGET_FSTYPE = 'target_fstype'

#: What the benchmark binaries were built from, ``name@version/hash`` of
#: each Spack package (pfsbench.checks.FileSystemCheck, every check).
SPACK_PROVENANCE = 'spack_provenance'

#: The exact build of the tool the case ran, ``<spec> /<full hash>`` from
#: ``spack.lock`` (pfsbench.checks.FileSystemCheck, every check with a
#: tool).
TOOL_SPACK_BUILD = 'tool_spack_build'

#: Server-side facts of the file system (versions, servers, layout) from
#: the partition's ``extras.server_provenance_command`` (every check).
SERVER_PROVENANCE = 'server_provenance'

#: Fields that can explain a change of one case (beside the session
#: extras): the change-point report names them when they differ.
CASE_TAG_FIELDS = (SPACK_PROVENANCE, TOOL_SPACK_BUILD, TARGET_PATH,
                   TARGET_FSTYPE, SERVER_PROVENANCE)

#: Whether the run met the IO500 rules (io500's own verdict, or the one
#: the IO500 checks apply to their phases; ``io500_invalid`` says why).
#: Logged by the IO500 checks only: a score of a run whose phases ended
#: before the stonewall is not like one of a valid run.
IO500_VALID = 'io500_valid'

#: Case tags only some families log; a case without one is compared as
#: before (pfsbench.gate.judge.samples.like_for_like).
FAMILY_TAG_FIELDS = (IO500_VALID,)

#: Every case tag the gate reads.
TAG_FIELDS = CASE_TAG_FIELDS + FAMILY_TAG_FIELDS

#: The tool's own iteration count in one case: IOR ``-i`` (the IOR checks'
#: ``repetitions``) and mdtest ``-i`` (``iterations``).  The first one a
#: case logs as an integer >= 1 counts.
REPETITIONS = 'repetitions'
ITERATIONS = 'iterations'
ITERATION_COUNT_FIELDS = (REPETITIONS, ITERATIONS)

#: A performance variable ``<x>_mean`` with a ``<x>_stddev`` sibling is the
#: mean of the tool's iterations and their population standard deviation;
#: with an iteration count the gate rebuilds every iteration's moments
#: (pfsbench.gate.judge.samples.iteration_moments).
MEAN_SUFFIX = '_mean'
STDDEV_SUFFIX = '_stddev'

#: ``True`` when foreign load was seen on the target during the case's
#: measurement (every check); the gate leaves such a case out of
#: baselines and verdicts.  A record without the field is uncontended.
CONTENDED = 'contended'

#: What foreign load was seen (free text, for the reports), or empty.
CONTENTION = 'contention'

#: The figures the tool could not time in the case (bonnie++'s ``+++++``),
#: space-separated: absent from its perflog, and read by the gate as too
#: fast to time, not as missing (:mod:`pfsbench.checks.streams`).
UNTIMED = 'untimed_figures'

#: ReFrame's own variables that must agree between the samples of one
#: case: the run was configured the same way (``-S`` variables are added
#: from the session's command line).
CONFIG_FIELDS = ('num_tasks', 'num_tasks_per_node', 'num_cpus_per_task')


#: ``reframe --repeat`` names each repeat of a case ``<display name>
#: %.repeat_no=N``.
_REPEAT_NO = re.compile(r'\s*%\.repeat_no=\d+')


def same_case(display_name):
    """A display name without ``reframe --repeat``'s ``%.repeat_no``: the
    name every repeat of the case shares."""
    return _REPEAT_NO.sub('', display_name or '')


#: How a case's ``contention`` text names the foreign sources the per-client
#: or per-job counters found (pfsbench.load.attribution.verdict writes
#: ``... from 1 other client (session 4, mount /mnt/m2) ...``); the gate
#: counts contended repeats per source by it.  Here, below both, so the
#: gate need not import the probe.
_NAMED_SOURCES = re.compile(r'from \d+ other (?:client|job)s? \(([^()]*)\)')


def sources_named(contention):
    """The foreign sources a case's ``contention`` names, in order, each
    once: ``['session 4, mount /mnt/m2']``."""
    found = []
    for group in _NAMED_SOURCES.findall(contention or ''):
        for name in group.split('; '):
            if name and name not in found:
                found.append(name)
    return found


#: A diagnostic figure explains the headline ones rather than being one:
#: the repeats' or streams' spread, per-node min/mean/max, CPU or device
#: utilisation, an overhead share, a tool's iteration stddev, counts.
#: The gate shows and trends it, never pages on it, and does not count it
#: in the night's false-alarm budget (docs/gate.md, "Headline and
#: diagnostic figures").  Every other figure (bandwidth sums, metadata
#: rates, IO500 scores) is a headline one: a site is paged on those.
DIAGNOSTIC_FIGURE = re.compile(
    r'(_repeat_spread|_stream_spread|_node_bw_(min|mean|max)|_util(_max)?'
    r'|_overhead_pct|_stddev|_count|_spread_pct|_util_pct)$')

#: Units only diagnostic figures have (shares of a time or of a mean).
DIAGNOSTIC_UNITS = ('%',)


def figure_role(var, unit=''):
    """``'diagnostic'`` or ``'headline'`` of a figure (its name and unit,
    :data:`DIAGNOSTIC_FIGURE`)."""
    if unit in DIAGNOSTIC_UNITS or DIAGNOSTIC_FIGURE.search(var):
        return 'diagnostic'

    return 'headline'
