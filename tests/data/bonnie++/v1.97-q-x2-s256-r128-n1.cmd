/opt/bonnie++-1.97/bin/bonnie++ -q -x 2 -d /var/tmp/classic-bonnie -s 256 -r 128 -n 1 -m helper-vm -u root
# ExitCode=0:0  wall_s=41.2  date=2026-11-23T16:12:43Z
# output file: v1.97-q-x2-s256-r128-n1.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
