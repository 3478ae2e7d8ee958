bonnie++ -q -d /var/tmp/classic-bonnie -s 0 -n 1:4096:1024:3 -m helper-vm -u root
# ExitCode=0:0  wall_s=3.8  date=2026-11-23T16:14:03Z
# output file: s0-n1-dirs3-q.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
