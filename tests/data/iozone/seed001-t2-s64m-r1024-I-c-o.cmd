cd /var/tmp/classic-ioz && /opt/iozone/bin/iozone -s 65536 -r 1024 -I -c -o -l 2 -u 2 -t 2 -F /var/tmp/classic-ioz/f1 /var/tmp/classic-ioz/f2
# ExitCode=0:0  wall_s=49.4  date=2026-11-23T16:16:40Z
# output file: seed001-t2-s64m-r1024-I-c-o.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
