/opt/bonnie++-1.97/bin/bonnie++ -d /var/tmp/classic-bonnie -s 256 -r 128 -n 16 -m helper-vm -u root
# ExitCode=0:0  wall_s=32.4  date=2026-11-23T16:12:10Z
# output file: v1.97-s256-r128-n16.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
