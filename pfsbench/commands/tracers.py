# SPDX-License-Identifier: BSD-3-Clause
"""Seed 003's metadata tracers (E12), as ``extras.tracers`` entries.

Seed 003 traced mdtest with "debugfs (ftrace)" on the metadata calls
"create, open, link, unlink, readdir, getattr, setattr" and with the
"Lustre Debug" log, "no mask".  Each builder returns one ``{'name', 'on',
'off', 'descr'}`` entry for a partition's ``extras.tracers``: shell
commands that E12's job runs once, on its first node, before the traced
mdtest and before the untraced one (``mdtest_e12_tracing_overhead``).

The ftrace tracers work in a tracefs *instance* of their own
(``instances/pfsbench-e12-<job id>``): the global tracer, and anyone
else's instance, are left as they were, and the instance is removed when
the tracer goes off (the trace with it).  tracefs is mounted at
``/sys/kernel/tracing`` if it is not (and left mounted: it is the
kernel's own place for it, others may use it).  All of them need root:
``run_as`` prefixes each command (e.g. ``sudo -n``, with a sudoers rule,
docs/systems.md).
"""

import shlex

#: The calls seed 003 traced.
SEED003_CALLS = ('create', 'open', 'link', 'unlink', 'readdir', 'getattr',
                 'setattr')

#: The Lustre client's (llite) function of each call, for ftrace's
#: function tracer on a Lustre client.
LUSTRE_CLIENT_FUNCTIONS = {
    'create': ('ll_create_nd',),
    'open': ('ll_file_open',),
    'link': ('ll_link',),
    'unlink': ('ll_unlink',),
    'readdir': ('ll_readdir',),
    'getattr': ('ll_getattr',),
    'setattr': ('ll_setattr',),
}

#: The system calls of each call, for ftrace's syscall events (any file
#: system; where the function tracer is not allowed, as in a locked-down
#: or virtualised kernel).  ``openat`` both opens and creates.
SYSCALLS = {
    'create': ('creat', 'openat'),
    'open': ('openat',),
    'link': ('link', 'linkat'),
    'unlink': ('unlink', 'unlinkat'),
    'readdir': ('getdents64',),
    'getattr': ('newstat', 'newlstat', 'newfstatat', 'statx'),
    'setattr': ('fchmodat', 'fchownat', 'utimensat', 'setxattr'),
}

TRACEFS = '/sys/kernel/tracing'
#: The instance, one per job (``local`` outside Slurm, and through sudo,
#: which drops ``SLURM_JOB_ID``: a second concurrent run on the node then
#: finds it and fails, ``mkdir``, rather than share it).
INSTANCE = TRACEFS + '/instances/pfsbench-e12-${SLURM_JOB_ID:-local}'


def _command(script, run_as):
    command = 'set -e; ' + script
    if run_as:
        return f'{run_as} sh -c {shlex.quote(command)}'
    return command


def _ftrace(name, set_up, descr, run_as):
    """An ftrace entry: its instance made and ``set_up`` in it, then on;
    off: :func:`_instance_off`."""
    on = (f'[ -d {TRACEFS}/instances ] || '
          f'mount -t tracefs tracefs {TRACEFS}; I="{INSTANCE}"; '
          f'mkdir "$I"; {set_up}echo 1 > "$I/tracing_on"')
    return {'name': name, 'on': _command(on, run_as),
            'off': _command(_instance_off(), run_as), 'descr': descr}


def _instance_off():
    # How many events the tracer recorded (the ring buffer keeps the
    # latest), in the job's output, before the instance and its trace go.
    return (f'I="{INSTANCE}"; echo 0 > "$I/tracing_on"; '
            f'echo "pfsbench-tracer: $(grep -vc "^#" "$I/trace" || true) '
            f'events in the trace buffer"; '
            f'echo nop > "$I/current_tracer"; rmdir "$I"')


def ftrace_functions(functions=LUSTRE_CLIENT_FUNCTIONS, calls=SEED003_CALLS,
                     run_as=''):
    """ftrace's function tracer on the kernel functions of ``calls``.

    Args:
        functions: ``{call: (kernel function, ...)}``.
        calls: the calls to trace (default: seed 003's).
        run_as: a prefix that gives root (``sudo -n``), or ``''``.

    Returns:
        an ``extras.tracers`` entry named ``ftrace``.
    """
    names = sorted({f for call in calls for f in functions[call]})
    return _ftrace('ftrace', f'echo {" ".join(names)} > '
                             f'"$I/set_ftrace_filter"; '
                             f'echo function > "$I/current_tracer"; ',
                   f'ftrace function tracer on {", ".join(calls)} '
                   f'({", ".join(names)}; seed 003)', run_as)


def ftrace_syscalls(calls=SEED003_CALLS, run_as=''):
    """ftrace's syscall events of ``calls`` (:data:`SYSCALLS`).

    Returns:
        an ``extras.tracers`` entry named ``ftrace_syscalls``.
    """
    names = sorted({s for call in calls for s in SYSCALLS[call]})
    return _ftrace('ftrace_syscalls',
                   f'for call in {" ".join(names)}; do '
                   f'echo 1 > "$I/events/syscalls/sys_enter_$call/enable"; '
                   f'done; ',
                   f'ftrace syscall events of {", ".join(calls)} '
                   f'({", ".join(names)}; seed 003)', run_as)


#: Where the Lustre debug tracer keeps the mask it replaced, per job.
SAVED_MASK = '/tmp/pfsbench-e12-lustre-debug.${SLURM_JOB_ID:-local}'


def lustre_debug(run_as=''):
    """The Lustre debug log with no mask (every debug flag, ``debug=-1``),
    seed 003's second tracer; off restores the mask it found and empties
    the log.

    Returns:
        an ``extras.tracers`` entry named ``lustre_debug``.
    """
    on = (f'M="{SAVED_MASK}"; lctl get_param -n debug > "$M"; lctl clear; '
          f'lctl set_param debug=-1')
    off = (f'M="{SAVED_MASK}"; lctl set_param debug="$(cat "$M")"; '
           f'lctl dk /dev/null; rm -f "$M"')
    return {'name': 'lustre_debug', 'on': _command(on, run_as),
            'off': _command(off, run_as),
            'descr': 'Lustre debug log, no mask (debug=-1; seed 003)'}
