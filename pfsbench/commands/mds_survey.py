# SPDX-License-Identifier: BSD-3-Clause
"""lustre-iokit ``mds-survey`` (E13, seed 003): the script takes no
arguments, only environment variables, so its "command line" is the
environment the job exports.  The check and ``pfsbench render`` both take
it from here.
"""

#: The tests of the script's default ``tests_str``, in its order.
DEFAULT_TESTS = ('create', 'lookup', 'md_getattr', 'setxattr', 'destroy')

#: The script's thread sweep (doubling from ``thrlo`` to ``thrhi``), files
#: of all threads and directories per thread when a run gives none.
THREADS_LOW = 1
THREADS_HIGH = 16
FILE_COUNT = 100000
DIR_COUNT = 4


def environment(threads_low=THREADS_LOW, threads_high=THREADS_HIGH,
                file_count=FILE_COUNT, dir_count=DIR_COUNT,
                tests=DEFAULT_TESTS, mdt_targets=''):
    """The variables ``mds-survey`` reads, as the job exports them.

    Args:
        threads_low, threads_high: the thread sweep.
        file_count: files of all threads (the script's total).
        dir_count: directories per thread.
        tests: the tests to run, create first and destroy last.
        mdt_targets: the MDT devices (``lustre-MDT0000``); empty: every
            MDT the script finds.

    Returns:
        ``{name: value}``; lists are one double-quoted word.
    """
    env = {
        'thrlo': str(threads_low),              # fewest threads
        'thrhi': str(threads_high),             # most threads
        'file_count': str(file_count),          # files, all threads
        'dir_count': str(dir_count),            # directories per thread
        'tests_str': f'"{" ".join(tests)}"',    # the tests, in order
    }
    if mdt_targets:
        env['targets'] = f'"{mdt_targets}"'     # which MDTs
    return env
