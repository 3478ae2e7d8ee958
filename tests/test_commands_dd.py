# SPDX-License-Identifier: BSD-3-Clause
"""dd command lines: seed 001's, exactly, and the shell quoting."""

import shlex

from pfsbench.commands import dd
from pfsbench.core.shell import shell_join


def test_seed001_write_and_read():
    assert dd.dd_write('$DIR/XX1') == [
        'dd', 'if=/dev/zero', 'of=$DIR/XX1', 'bs=1024000', 'count=50000',
        'conv=fdatasync']
    assert dd.dd_read('$DIR/XX1') == [
        'dd', 'if=$DIR/XX1', 'of=/dev/null', 'bs=1024000', 'count=50000']


def test_direct_flags():
    assert dd.dd_write('f', 4096, 2, direct=True)[-1] == 'oflag=direct'
    assert dd.dd_read('f', 4096, 2, direct=True)[-1] == 'iflag=direct'


def test_streams_argv_carries_dd_verbatim():
    argv = dd.streams_argv('/scratch/run', count=5000, fan_out=3,
                           cache_defeat='direct', python='python3')
    assert argv[:3] == ['python3', '-m', 'pfsbench.runner']
    write, read = [argv[i + 1] for i, word in enumerate(argv)
                   if word == '--phase']
    assert write == ('write=dd if=/dev/zero of={stream_dir}/XX1 bs=1024000 '
                     'count=5000 conv=fdatasync')
    assert read.endswith('count=5000 iflag=direct')
    assert argv[argv.index('--fan-out') + 1] == '3'
    assert '--drop-caches-command' not in argv


def test_drop_caches_command_only_with_that_mode():
    argv = dd.streams_argv('/r', cache_defeat='drop_caches',
                           drop_caches_command='sudo dc')
    assert argv[-2:] == ['--drop-caches-command', 'sudo dc']
    assert 'iflag=direct' not in ' '.join(argv)


def test_shell_join_round_trips_and_keeps_variables():
    argv = ['srun', 'a b', '$RUN_DIR/x', "it's", '{stream_dir}/XX1', '{a,b}']
    line = shell_join(argv)
    assert '"$RUN_DIR/x"' in line and ' {stream_dir}/XX1 ' in line
    # bash would brace-expand {a,b}: it must be quoted.
    assert "'{a,b}'" in line
    assert shlex.split(line.replace('"$RUN_DIR/x"', '$RUN_DIR/x')) == argv
