srun --mpi=pmix /opt/io500/bin/io500 config.ini
# sbatch -N 2 --ntasks-per-node=1 job.sbatch    # job 8 on the localhost Slurm cluster (tests/localslurm)
# ExitCode=0:0  date=2026-11-25T18:33:53Z
# output file: io500.out = job stdout+stderr; the other files are io500's result directory (results/2026.11.25-18.33.54); config.ini as given: config-orig.ini
# io500: IO500/io500 02091cf built by hand (its prepare.sh wants the network) with IOR 5fcf0ba995f (prepare.sh's IOR_HASH) and pfind HEAD (PFIND_HASH 2742734 is not in the snapshot fetched), lz4 off
# env: OMPI_MCA_mpi_yield_when_idle=1 PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; 4 emulated nodes n[1-4] = 4 slurmd on one 2-core VM; datadir and resultdir under /var/tmp (local disk); several other engineers' jobs ran on the host: the figures are outputs, not measurements
