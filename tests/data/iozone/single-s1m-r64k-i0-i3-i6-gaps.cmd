cd /var/tmp/classic-ioz && /opt/iozone/bin/iozone -s 1m -r 64k -i 0 -i 3 -i 6 -f /var/tmp/classic-ioz/single.tmp
# ExitCode=0:0  wall_s=0.1  date=2026-11-23T16:16:40Z
# output file: single-s1m-r64k-i0-i3-i6-gaps.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
