cd /var/tmp/classic-ioz && /opt/iozone/bin/iozone -t 2 -s 4m -r 1m -i 0 -i 1 -C -R -F /var/tmp/classic-ioz/f1 /var/tmp/classic-ioz/f2
# ExitCode=0:0  wall_s=12.2  date=2026-11-23T16:16:03Z
# output file: throughput-t2-s4m-r1m-C-R.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
