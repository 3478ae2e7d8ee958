bonnie++ -d /var/tmp/classic-bonnie -s 256 -r 128 -n 16 -m helper-vm -u root
# ExitCode=0:0  wall_s=39.3  date=2026-11-23T16:13:24Z
# output file: s256-r128-n16-text-file-rates.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, 24 GiB RAM, ext4 on virtio disk)
