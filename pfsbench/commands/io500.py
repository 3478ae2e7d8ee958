# SPDX-License-Identifier: BSD-3-Clause
"""IO500 as the list runs it: its phases in its order, its find phase's
command line, its score, and the ini file for the real ``io500`` binary.

Everything here is read from IO500's source (IO500/io500, the snapshot
``02091cf``): the phase order from ``src/phase-definitions.h``, the find
arguments from ``src/phase_find.c`` (``validate``), the score from
``src/main.c`` (``calc_score`` and the validity checks of ``main``).  The
ior and mdtest phases' command lines are :mod:`pfsbench.commands.ior` and
:mod:`pfsbench.commands.mdtest` (``io500_*``).
"""

import math
from typing import NamedTuple


class Phase(NamedTuple):
    """One scored phase of IO500's standard mode."""

    name: str
    #: 'bw' (GiB/s, ``IO500_SCORE_BW``) or 'md' (kIOPS, ``IO500_SCORE_MD``).
    group: str
    #: The tool the suite runs it with: 'ior', 'mdtest' or 'pfind'.
    tool: str
    #: ``verify_stonewall`` in IO500: a write that must run at least the
    #: stonewall time to be valid.
    stonewalled: bool = False


#: The scored phases of the standard mode in IO500's order
#: (src/phase-definitions.h ``phases[]``, without the optional
#: mdworkbench/find-easy/find-hard phases, the unscored ior-rnd4K-easy-read
#: and the dummies).  ``timestamp`` (a dummy) runs after mdtest-easy-write:
#: find looks for files newer than it.
PHASES = (
    Phase('ior-easy-write', 'bw', 'ior', True),
    Phase('mdtest-easy-write', 'md', 'mdtest', True),
    Phase('ior-hard-write', 'bw', 'ior', True),
    Phase('mdtest-hard-write', 'md', 'mdtest', True),
    Phase('find', 'md', 'pfind'),
    Phase('ior-easy-read', 'bw', 'ior'),
    Phase('mdtest-easy-stat', 'md', 'mdtest'),
    Phase('ior-hard-read', 'bw', 'ior'),
    Phase('mdtest-hard-stat', 'md', 'mdtest'),
    Phase('mdtest-easy-delete', 'md', 'mdtest'),
    Phase('mdtest-hard-read', 'md', 'mdtest'),
    Phase('mdtest-hard-delete', 'md', 'mdtest'),
)
#: Every phase by its name (``'ior-easy-write'``).
PHASE_NAMED = {p.name: p for p in PHASES}
#: The file whose mtime separates the ior-easy/mdtest-easy files from the
#: later ones (src/phase_timestamp.c: ``<resultdir>/timestampfile``).
TIMESTAMP_FILE = 'timestampfile'
#: pfind's queue length in IO500 (src/phase_find.c, ``pfind-queue-length``).
FIND_QUEUE_LENGTH = 10000
#: The stonewall a valid list entry uses (src/main.c: ``opt.minwrite``).
LIST_STONEWALL_S = 300


def find_argv(datadir, resultdir, *, executable='pfind',
              queue_length=FIND_QUEUE_LENGTH):
    """IO500's ``find`` phase as the pfind command ``io500 --dry-run``
    prints (``exe = ./pfind ...``), plus ``-D rates``.

    io500 runs pfind inside its own process and scores
    ``total_files / runtime / 1000`` from pfind's own clock
    (src/phase_find.c ``run_find``); the pfind binary prints that same
    figure only with ``-D rates`` (``[DONE] rate: X kiops``), an output
    option that changes nothing pfind does.
    """
    return [
        executable,
        datadir,                                    # every phase's files
        '-newer', f'{resultdir}/{TIMESTAMP_FILE}',  # after mdtest-easy-write
        '-size', f'{IO500_HARD_FILE_SIZE}c',        # mdtest-hard's files
        '-name', '*01*',                            # a fraction of them
        '-C',                                       # count, list nothing
        '-q', str(queue_length),                    # IO500's queue length
        '-D', 'rates',                              # print pfind's rate
    ]


#: mdtest-hard's file size (src/phase_mdtest_hard.c, ``-w 3901``), which
#: find matches with ``-size 3901c``.
IO500_HARD_FILE_SIZE = 3901


class Score(NamedTuple):
    """IO500's score of one run (src/main.c ``calc_score``)."""

    #: Geometric mean of the bandwidth phases, GiB/s.
    bw: float
    #: Geometric mean of the metadata phases, kIOPS.
    md: float
    #: sqrt(bw * md).
    total: float
    #: Phases IO500's rules make invalid, with why; a run with any is
    #: printed ``[INVALID]`` by io500 (its score is still computed).
    invalid: tuple


def stonewall_invalid(phase, ran_s, stonewall_s=LIST_STONEWALL_S):
    """IO500's rule for a stonewalled write (``verify_stonewall``) that ran
    ``ran_s`` seconds by its tool's clock (src/main.c ``main``): why it is
    invalid, or '' when it is not.  Shorter than the stonewall, the files
    or the block ran out before the time did (the result measures a
    smaller run than IO500 asks for); shorter than the list's 300 s
    (``opt.minwrite``), it is no list entry."""
    if ran_s < stonewall_s:
        return (f'{phase}: ran {ran_s} s, below the stonewall of '
                f'{stonewall_s} s')
    if ran_s < LIST_STONEWALL_S:
        return (f"{phase}: ran {ran_s} s, below the list's minimum of "
                f"{LIST_STONEWALL_S} s")
    return ''


def score(figures, times_s=None, stonewall_s=LIST_STONEWALL_S, group=None):
    """IO500's score of the phase figures ``{phase name: value}`` (GiB/s
    for the ior phases, kIOPS for the others), as io500 computes it.

    src/main.c ``calc_score``: per group, the geometric mean of the
    phases whose figure is above 0 (a phase at 0 or missing is left out,
    not counted as 0); a group with none scores 0; the total is the square
    root of the product of the two groups.

    Validity (src/main.c ``main``, the loop over the phases): a phase whose
    figure is 0 is invalid; so is a stonewalled write that
    :func:`stonewall_invalid` finds too short.  ``times_s`` gives each
    phase's runtime; without it only the zero rule applies.  Invalid
    phases still count in the score, as in io500.  ``group`` ('bw' or
    'md'): that group's phases alone (a family that runs only those; the
    other group scores 0).
    """
    groups = {'bw': [], 'md': []}
    invalid = []
    for phase in PHASES:
        if group is not None and phase.group != group:
            continue
        value = figures.get(phase.name)
        if value is None or value <= 0:
            invalid.append(f'{phase.name}: {value!r}: the score should not '
                           f'be 0')
        else:
            groups[phase.group].append(value)
        ran_s = (times_s or {}).get(phase.name)
        if phase.stonewalled and ran_s is not None:
            why = stonewall_invalid(phase.name, ran_s, stonewall_s)
            if why:
                invalid.append(why)

    means = {g: (math.prod(v) ** (1 / len(v)) if v else 0.0)
             for g, v in groups.items()}
    return Score(means['bw'], means['md'],
                 math.sqrt(means['bw'] * means['md']), tuple(invalid))


def ini_text(datadir, resultdir, *, stonewall_s=LIST_STONEWALL_S,
             api='POSIX', ior_easy_block_size=None, ior_hard_segments=None,
             mdtest_easy_files=None, mdtest_hard_files=None):
    """The ``config.ini`` the real ``io500`` runs for one case.

    Only what differs from IO500's defaults is written: the directories
    (no timestamped subdirectories, so the case knows where its results
    are), the stonewall (``[debug] stonewall-time``: below 300 s io500
    marks the run invalid itself) and, for a partition's size cap, the
    ior-easy block, ior-hard segments and mdtest files per process.
    """
    lines = ['[global]', f'datadir = {datadir}', f'resultdir = {resultdir}',
             'timestamp-datadir = FALSE', 'timestamp-resultdir = FALSE',
             f'api = {api}', '']
    if stonewall_s != LIST_STONEWALL_S:
        lines += ['[debug]', f'stonewall-time = {stonewall_s}', '']
    sections = (('ior-easy', 'blockSize', ior_easy_block_size),
                ('mdtest-easy', 'n', mdtest_easy_files),
                ('ior-hard', 'segmentCount', ior_hard_segments),
                ('mdtest-hard', 'n', mdtest_hard_files))
    for section, key, value in sections:
        if value is not None:
            lines += [f'[{section}]', f'{key} = {value}', '']
    return '\n'.join(lines)
