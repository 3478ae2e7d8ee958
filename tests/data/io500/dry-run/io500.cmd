cd /var/tmp/tools-io500/dry && /opt/io500/bin/io500 config.ini --dry-run
# not launched (1 process); ExitCode=0  date=2026-11-25T18:36Z
# config.ini as given: config-given.ini (datadir and resultdir only: every other value is IO500's default); result.txt, result_summary.txt, config.ini: io500's result directory; io500.out: its stdout+stderr
# io500: IO500/io500 02091cf with IOR 5fcf0ba995f and pfind HEAD, as run-2x1/io500.cmd says
