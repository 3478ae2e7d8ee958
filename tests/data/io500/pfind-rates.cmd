/opt/io500/bin/pfind ft -newer ts -size 3901c -name '*01*' -C -q 10000 -D rates
# not launched (1 process); ExitCode=0  date=2026-11-25
# ft/sub holds 5 files of 3901 bytes (f1 f2 f3 f01 f101), ts is older than them; pfind: VI4IO/pfind HEAD as built for /opt/io500 (run-2x1/io500.cmd); output file: pfind-rates.txt = stdout+stderr
