# R2 (1 GPU): auto's selection after 26210e7 (issue 25's 1 ms at 1e8 nonzeros; issue 24's small
# setups): the same traces as R1 (SPMVKIT_BUILD_PROFILE=trace on four bsr-all matrices, and the
# three small csr-suite matrices paired with cuSPARSE CSR ALG1, two processes); bsr-all with auto
# alone (its selection on every matrix); the select tests and auto's format tests on the GPU.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli spmvkit_select_tests spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
for m in reservoir_bs20_33 reservoir_bs14_42 reservoir_bs12_46 reservoir_bs7_66; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 100 build-gpu/spmvkit bench $m \
    --formats auto --setup-reps 6 --reps 5 --no-check --backend cuda --json $OUT/r/big_$m.json > $OUT/r/big_$m.txt 2> $OUT/r/big_$m.err
  echo "$m rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
for i in 1 2; do
SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench rajat01 bcsstk13 Groebner_id2003_aug \
  --formats auto,csr3,csr_vector,cusparse_csr_alg1 --setup-reps 15 --backend cuda --json $OUT/r/small_$i.json > $OUT/r/small_$i.txt 2> $OUT/r/small_$i.err
echo "small $i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
( cd build-gpu && timeout 200 ctest -R "Select|auto" -j4 --output-on-failure > $OUT/r/tests.txt 2>&1; echo "tests rc=$?" >> $OUT/summary.txt; tail -3 $OUT/r/tests.txt >> $OUT/summary.txt )
left=$((T0 + 560 - $(date +%s)))
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout $left build-gpu/spmvkit bench bsr-all --formats auto --setup-reps 3 --reps 5 --no-check \
  --backend cuda --time-limit $((left - 20)) --json $OUT/r/bsr_all_auto.json > $OUT/r/bsr_all_auto.txt 2>&1
echo "bsr-all auto rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
for f in $OUT/r/big_*.err; do grep -E "auto (features|choose|pick|features_)" $f | tail -8; done
grep -E "build-trace: auto " $OUT/r/small_2.err | tail -24
grep -o "selection [0-9.]* ms" $OUT/r/bsr_all_auto.txt | sort -k2 -n | tail -5
cd $OUT && tar czf r.tgz r && rm -rf r
