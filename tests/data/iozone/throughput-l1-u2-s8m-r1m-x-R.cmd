cd /var/tmp/classic-ioz && /opt/iozone/bin/iozone -l 1 -u 2 -s 8m -r 1m -i 0 -i 1 -x -R -F /var/tmp/classic-ioz/f1 /var/tmp/classic-ioz/f2
# ExitCode=0:0  wall_s=24.6  date=2026-11-23T16:16:15Z
# output file: throughput-l1-u2-s8m-r1m-x-R.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
