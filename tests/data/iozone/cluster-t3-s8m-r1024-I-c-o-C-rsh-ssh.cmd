cd /var/tmp/s1-ioz-cluster && RSH=ssh /opt/iozone/bin/iozone -s 8192 -r 1024 -I -c -o -l 3 -u 3 -t 3 -i 0 -i 1 -C -+m /var/tmp/s1-ioz-cluster/iozone.clients
# ExitCode=0:0  wall_s=30.4  date=2026-11-23T19:04:48Z
# iozone.clients (written by python -m pfsbench.runner.iozone_clients --run-dir /var/tmp/s1-ioz-cluster --per-host 3 --iozone /opt/iozone/bin/iozone --output /var/tmp/s1-ioz-cluster/iozone.clients, outside Slurm):
#   localhost /var/tmp/s1-ioz-cluster/localhost.1 /opt/iozone/bin/iozone
#   localhost /var/tmp/s1-ioz-cluster/localhost.2 /opt/iozone/bin/iozone
#   localhost /var/tmp/s1-ioz-cluster/localhost.3 /opt/iozone/bin/iozone
# output file: cluster-t3-s8m-r1024-I-c-o-C-rsh-ssh.txt = stdout+stderr of the command, run directly (no Slurm) as root on the helper VM (Debian 12, 2 cores, ext4 on virtio disk), clients started through OpenSSH 9.2 to localhost with a passwordless key
