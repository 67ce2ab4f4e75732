# R1 (1 GPU): where auto's selection time goes (issue 25's 1 ms at 1e8 nonzeros; issue 24's small
# setups): SPMVKIT_BUILD_PROFILE=trace of auto's builds on the bsr-all matrices whose selection
# was slowest on the H200 (G3) and on the three small csr-suite matrices, with the setup paired
# against cuSPARSE CSR ALG1 (--setup-reps).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
lscpu | grep -E "Model name|^CPU\(s\)" >> $OUT/summary.txt
for m in reservoir_bs20_33 reservoir_bs14_42 reservoir_bs12_46 reservoir_bs7_66; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 100 build-gpu/spmvkit bench $m \
    --formats auto --setup-reps 6 --reps 5 --no-check --backend cuda --json $OUT/big_$m.json > $OUT/big_$m.txt 2> $OUT/big_$m.err
  echo "$m rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
for i in 1 2; do
SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench rajat01 bcsstk13 Groebner_id2003_aug \
  --formats auto,csr3,csr_vector,cusparse_csr_alg1 --setup-reps 15 --backend cuda --json $OUT/small_$i.json > $OUT/small_$i.txt 2> $OUT/small_$i.err
echo "small $i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
cat $OUT/summary.txt
for f in $OUT/big_*.err; do grep -E "auto (features|choose|pick|features_)" $f | head -16; done
grep -E "build-trace: auto " $OUT/small_1.err | head -40
