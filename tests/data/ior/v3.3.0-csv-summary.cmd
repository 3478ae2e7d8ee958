srun --mpi=pmix /opt/ior-3.3.0/bin/ior -a POSIX -t 1m -b 16m -i 3 -C -e -O summaryFormat=CSV -o /var/tmp/pfsbench-hostile-rec/scratch/v3.3.0-csv-summary.dat
# sbatch -N 2 --ntasks-per-node=2 fx-ior-v3.3.0-csv-summary.sbatch    # job 23 on NodeList=n[3-4]
# ExitCode=0:0  wall_s=2  date=2026-11-23T19:33:20Z
# output file: v3.3.0-csv-summary.txt = job stdout+stderr; env: OMPI_MCA_mpi_yield_when_idle=1 PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; 4 emulated nodes n[1-4] = 4 slurmd (tests/localslurm) on one 2-core VM
