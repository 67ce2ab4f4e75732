# E3 (1 H100, experiment, not committed): csr_balanced with the L1/shared carveout preference set by SPMVKIT_EXP_CARVEOUT
# (percent of the shared-memory maximum; unset: the driver's choice), block_threads 128 and 256, against cuSPARSE CSR ALG1
# on the generated power laws where ALG1 leads.
T0=$(date +%s); export OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
for m in powerlaw_2000000 powerlaw_1000000_5000 powerlaw_4000000_20000 random_3000000_3000000_16; do
  for c in none 0 25 50 100; do
    if [ $c = none ]; then unset SPMVKIT_EXP_CARVEOUT; else export SPMVKIT_EXP_CARVEOUT=$c; fi
    OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --formats csr_balanced,cusparse_csr_alg1 \
      --params 'csr_balanced:block_threads=128|block_threads=256' --json $OUT/e3_${m}_$c.json > $OUT/e3_${m}_$c.txt 2>&1
    grep -E "csr_balanced|cusparse_csr_alg1" $OUT/e3_${m}_$c.txt | awk -v c=$c '{print c, $1, $2, $7, $9}'
  done
done
echo "done at $(( $(date +%s) - T0 ))s"
