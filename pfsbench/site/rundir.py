# SPDX-License-Identifier: BSD-3-Clause
"""Run directories: what pfsbench creates on a target, and so may delete.

Every run writes only inside a fresh ``pfsbench-<name>-<time>-<id>``
directory under the target, marked with :data:`MARKER`.  Deletion only ever
touches directories that carry the marker.  Four layers remove them, from
the first to the last resort:

1. the job script's epilogue (:func:`job_epilogue`), whatever the tool's
   exit status;
2. the job script's trap (:func:`job_prologue`), when the job is stopped by
   a signal: ``scancel``, Slurm's time limit (SIGTERM, then SIGKILL after
   ``KillWait``), ReFrame cancelling its jobs after Ctrl-C or SIGTERM;
3. the ``reframe`` process: a case whose job ended without removing its
   directory (killed with SIGKILL, its node lost, cancelled before it
   started) has it removed when ReFrame looks at the results
   (:func:`remove_after_job`), and every directory this process created is
   removed when it exits, also after Ctrl-C or SIGTERM
   (:func:`remove_created`);
4. the next suite run on the same scratch root (:func:`sweep`), for a
   ``reframe`` killed with SIGKILL: its markers name the process that
   created them, and a directory whose creator is gone is removed before
   anything is measured, saying so.  ``pfsbench cleanup`` does the same by
   hand.
"""

import contextlib
import os
import re
import shutil
import signal
import socket
import stat
import time

from pfsbench.core.jobsteps import JOB_EXIT_PREFIX
from pfsbench.core.shell import shell_join

#: Marker file in every run directory pfsbench creates.
MARKER = '.pfsbench-run'
#: The job script's record of a signal that stopped it (its trap).
JOB_SIGNAL_PREFIX = 'pfsbench-job: stopped by SIG'
#: Signals the job script traps, with the exit status it then ends with.
TRAPPED_SIGNALS = {'TERM': 143, 'INT': 130, 'HUP': 129}
#: Seconds :func:`remove_created` keeps trying on a directory that a
#: cancelled job may still write into.
REMOVE_RETRY_S = 10.0

#: Run directories this process created and has not seen removed.
_CREATED = []

# Slurm's own line when it stops a job, in the job's stderr (slurmstepd).
_SLURM_CANCELLED = re.compile(
    r'\*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT \S+'
    r'(?: DUE TO [A-Z]+(?: [A-Z]+)*)?(?: \*\*\*)?')

# srun's own line when Slurm ended a step under it (its node lost).
_SRUN_ABORTED = re.compile(r'^srun: (Job step aborted[^\n]*)', re.M)


def run_dir_name(name, unique=None):
    """``pfsbench-<name>-<YYYYmmddTHHMMSS>-<unique>`` (unique: our PID)."""
    stamp = time.strftime('%Y%m%dT%H%M%S')
    return f'pfsbench-{name}-{stamp}-{unique or os.getpid()}'


def create(path, owner):
    """Create the run directory ``path`` and its marker naming ``owner``
    and the process that created it (for :func:`sweep`).

    The directory is remembered: :func:`remove_created` removes it if it
    is still there when this process ends.
    """
    os.makedirs(path)
    with open(os.path.join(path, MARKER), 'w') as fp:
        fp.write(f'{owner}\n')
        fp.write(f'host={socket.gethostname()} pid={os.getpid()}\n')
    _CREATED.append(path)


def creator(path):
    """(host, pid) of the process that created the run directory ``path``,
    from its marker; None where the marker does not say (written by a job
    script, or by an older pfsbench)."""
    try:
        with open(os.path.join(path, MARKER)) as fp:
            text = fp.read()
    except OSError:
        return None

    m = re.search(r'^host=(\S+) pid=(\d+)$', text, re.M)
    return (m.group(1), int(m.group(2))) if m else None


def job_prologue(run_dir, on_every_node=False):
    """Job-script lines that remove ``run_dir`` when the job is stopped by
    a signal (:data:`TRAPPED_SIGNALS`) and record which one.

    Bash runs a trap when the command in the foreground ends: the tasks get
    the same signal from Slurm (or from ReFrame's local scheduler, which
    signals the whole process group), so the trap runs within Slurm's
    ``KillWait``.

    Args:
        run_dir: the run directory (or a shell variable, as
            :func:`job_epilogue`).
        on_every_node: a node target's run directory: the trap asks for
            one removal step per node (Slurm refuses a new step of a job
            it is cancelling: then only the batch script's node is
            cleaned, docs/targets.md), then removes the batch node's own.
    """
    remove = f'rm -rf {shell_join([run_dir])}'
    if on_every_node:
        remove = (f'{node_job_remove(run_dir)}; [ -f "{run_dir}/{MARKER}" ] '
                  f'&& rm -rf "{run_dir}"')
    lines = [f'pfsbench_stopped() {{ echo "{JOB_SIGNAL_PREFIX}$1"; '
             f'{remove}; exit "$2"; }}']
    lines += [f"trap 'pfsbench_stopped {sig} {status}' {sig}"
              for sig, status in TRAPPED_SIGNALS.items()]
    return lines


def job_epilogue(run_dir, on_every_node=False):
    """Job-script lines run after the tool, whatever its exit status.

    ``run_dir`` may be a shell variable (``$RUN_DIR`` in a rendered script).
    ``on_every_node``: the run directory is a node target's
    (:func:`on_every_node`), removed by one job step per node.
    """
    if on_every_node:
        return [f'echo "{JOB_EXIT_PREFIX}$?"', node_job_remove(run_dir)]
    return [f'echo "{JOB_EXIT_PREFIX}$?"',
            f'rm -rf {shell_join([run_dir])}']


#: The variable a node target's path may hold: the name Slurm gives the
#: node a job step runs on (every "node" of tests/localslurm shares this
#: host's file systems, so a node-local directory differs by name there).
NODE_NAME_VAR = 'SLURMD_NODENAME'
#: What every node of a node target's job reports after the per-node
#: removal step (the job's output, one line per node).
NODE_REMOVED_PREFIX = 'pfsbench-node: removed '
#: The job's first line when a node could not make its run directory (the
#: sanity error quotes it; srun names the node in the job's stderr).
NODE_FAILED_LINE = ('pfsbench-node: a node could not make its run directory '
                    '(rfm_job.err names it): the tool did not run')


def on_every_node_of_job(command):
    """The job-script line that runs ``command`` (a shell command, run by
    ``sh -c`` so that ``$SLURMD_NODENAME`` expands on each node) once on
    every node of the job: one job step, one task per node.

    ``--mpi=none``: the partition's ``SLURM_MPI_TYPE`` is for the tool's
    MPI step, not for ``mkdir``.
    """
    return ('srun --nodes="$SLURM_JOB_NUM_NODES" '
            '--ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 '
            f'--mpi=none sh -c {shell_join([command])}')


def node_job_create(run_dir, owner):
    """Job-script lines that create a node target's run directory on every
    node of the job, with its marker, before anything else runs; the job
    stops (exit 1) when a node cannot (its target directory missing)."""
    marker = f'"{run_dir}/{MARKER}"'
    # The marker names the job, not a process: sweep() leaves such a
    # directory to `pfsbench cleanup`, as a rendered job's.
    make = (f'mkdir "{run_dir}" && printf "%s\\n" {shell_join([owner])} '
            f'"node=${NODE_NAME_VAR} job=$SLURM_JOB_ID" > {marker}')
    # A node that could not: the others' directories go too, and the
    # job ends as a failed tool would (its exit line, then exit 1).
    return [f'{on_every_node_of_job(make)} || {{ echo "{NODE_FAILED_LINE}"; '
            f'echo "{JOB_EXIT_PREFIX}1"; {node_job_remove(run_dir)}; '
            f'exit 1; }}']


def node_job_remove(run_dir):
    """The job-script line that removes a node target's run directory on
    every node, each node saying so (:data:`NODE_REMOVED_PREFIX`)."""
    # Only a directory that holds pfsbench's marker: a node where the
    # creation failed keeps whatever was at that path.
    return on_every_node_of_job(
        f'if [ -f "{run_dir}/{MARKER}" ]; then rm -rf "{run_dir}" && echo '
        f'"{NODE_REMOVED_PREFIX}${NODE_NAME_VAR}:{run_dir}"; fi')


def is_run_dir(path):
    """Whether ``path`` is a run directory pfsbench made: named
    ``pfsbench-*``, a real directory (not a symbolic link) holding the
    marker as a regular file (a link named like the marker marks
    nothing)."""
    if not os.path.basename(path).startswith('pfsbench-'):
        return False

    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return False
        return stat.S_ISREG(os.lstat(os.path.join(path, MARKER)).st_mode)
    except OSError:
        return False


def job_end_problem(stdout, stderr='', state=None):
    """Why a job was stopped before its tool ended, from its output; ''
    if it was not (the tool's own failures are the checks' to name).

    Args:
        stdout: the job's standard output.
        stderr: its standard error (where Slurm says why it stopped a job).
        state: the scheduler's final state of the job (``NODE_FAIL``), if
            known; ``COMPLETED`` says nothing (ReFrame's ``squeue``
            scheduler gives it to every job that left the queue).

    Returns:
        one sentence naming the cause: the signal that stopped the job
        (its trap's record, or a job step's exit status above 128 where
        Slurm says it cancelled the job), with Slurm's own ``CANCELLED``
        line where there is one.
    """
    # The job's line (the batch step's) says more than a step's.
    lines = sorted(_SLURM_CANCELLED.findall(stderr),
                   key=lambda line: not line.startswith('*** JOB'))
    said = f' (Slurm: "{lines[0]}")' if lines else ''
    trapped = re.search(rf'^{re.escape(JOB_SIGNAL_PREFIX)}(\w+)$', stdout,
                        re.M)
    exits = re.findall(rf'^{re.escape(JOB_EXIT_PREFIX)}(\d+)$', stdout,
                       re.M)
    name = None
    if trapped:
        name = f'SIG{trapped.group(1)}'
    elif exits and int(exits[-1]) > 128 and lines:
        # Slurm signalled the step first: it ended, the script went on.
        with contextlib.suppress(ValueError):
            name = signal.Signals(int(exits[-1]) - 128).name
    if name:
        return (f'the job was stopped by {name}{said}: scancel, its time '
                f'limit, or an interrupted reframe; its run directory was '
                f'removed')

    if state and state != 'COMPLETED':
        said += f' (Slurm job state {state})'
    aborted = _SRUN_ABORTED.search(stderr)
    if aborted and (not exits or exits[-1] == '0'):
        # Its node lost, srun gives up on the step and may exit 0 (after a
        # task failed it says the same, with that task's status).
        return (f'the job step was aborted by Slurm (srun: '
                f'"{aborted.group(1)}"){said}: its tasks were killed before '
                f'the tool ended, e.g. its node lost')

    if exits:
        return ''

    return (f'the job script did not finish: no "{JOB_EXIT_PREFIX}" '
            f'line{said}; killed (SIGKILL, node lost) before its end')


def leftovers(directory):
    """Marked run directories directly under ``directory`` that belong to
    the user running pfsbench (another user's runs are theirs to clean)."""
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if is_run_dir(path) and os.lstat(path).st_uid == os.geteuid():
            found.append(path)

    return found


def remove(path):
    """Remove a run directory, refusing anything :func:`is_run_dir` does
    not recognise."""
    if not is_run_dir(path):
        raise ValueError(f'{path}: no {MARKER} marker: not a pfsbench run '
                         f'directory, not removing it')

    shutil.rmtree(path)


def _remove_marked(path, deadline):
    """Remove ``path`` if it is still a marked run directory; retry until
    ``deadline`` (a cancelled job may still create files in it).

    Returns:
        True when it is gone.
    """
    while True:
        if not os.path.isfile(os.path.join(path, MARKER)):
            # Gone, or the job's own trap removed the marker first: what is
            # left of it is the job's, which removes it.
            return not os.path.exists(path)
        try:
            remove(path)
            return True
        except FileNotFoundError:
            continue        # removed under us: look again
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)


def remove_after_job(path, say=print):
    """Remove ``path``, a run directory whose job has ended, if the job did
    not (killed by SIGKILL, node lost, cancelled before it started).

    Returns:
        True when a leftover was removed.
    """
    if not os.path.isdir(path):
        return False

    if _remove_marked(path, time.monotonic() + REMOVE_RETRY_S):
        say(f'pfsbench: removed {path}: its job ended without removing it')
        return True

    return False


def remove_created(say=print):
    """Remove the run directories this process created that are still
    there (at exit: after Ctrl-C or SIGTERM their jobs were cancelled).

    What cannot be removed keeps its marker, and the next run on the same
    target removes it first (:func:`sweep`); that is said.
    """
    deadline = time.monotonic() + REMOVE_RETRY_S
    while _CREATED:
        path = _CREATED.pop()
        if not os.path.exists(path):
            continue
        if _remove_marked(path, deadline):
            say(f'pfsbench: removed {path}: its case did not finish')
        elif os.path.exists(path):
            say(f'pfsbench: could not remove {path} yet (its job may still '
                f'be writing); the next pfsbench run on '
                f'{os.path.dirname(path)} removes it first')


def sweep(root, say=print):
    """Remove the marked run directories under ``root`` whose creating
    process is gone; called by a suite run that holds ``root``'s lock
    (:mod:`pfsbench.site.exclusive`), so no other run uses them.

    A directory created on another host, or whose marker does not name its
    creator, is left and named (``pfsbench cleanup`` removes it).

    Returns:
        the paths removed.
    """
    removed = []
    here = socket.gethostname()
    try:
        found = leftovers(root)
    except OSError:
        return removed

    for path in found:
        made_by = creator(path)
        if made_by is None or made_by[0] != here:
            origin = (f'a run on {made_by[0]}' if made_by else
                      'a job script')
            say(f'pfsbench: {path}: made by {origin}; not removed while it '
                f'may be in use (pfsbench cleanup {root} removes it)')
            continue
        if made_by[1] == os.getpid() or pid_alive(made_by[1]):
            continue
        if _remove_marked(path, time.monotonic()):
            say(f'pfsbench: removed {path}: left over from an interrupted '
                f'run (pid {made_by[1]}, gone)')
            removed.append(path)

    return removed


def pid_alive(pid):
    """Whether process ``pid`` of this host exists (another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True

    return True
