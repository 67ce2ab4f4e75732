# R4 (1 GPU): after 6733e24 (pinned transfers, one range a window index): R3's traces of auto at
# 1e8 nonzeros and its small setups (four processes, no trace); bsr-all with auto alone (its
# selection on every matrix, two processes); the select tests and auto's format tests on the GPU.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli spmvkit_select_tests spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
for m in reservoir_bs20_33 reservoir_bs7_66; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 100 build-gpu/spmvkit bench $m \
    --formats auto --setup-reps 6 --reps 5 --no-check --backend cuda --json $OUT/r/big_$m.json > $OUT/r/big_$m.txt 2> $OUT/r/big_$m.err
  echo "$m rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20 --backend cuda"
for i in 1 2 3 4; do
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench $S --json $OUT/r/small_$i.json > /dev/null 2> $OUT/r/small_$i.err
  echo "small #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
( cd build-gpu && timeout 200 ctest -R "Select|auto" -j4 --output-on-failure > $OUT/r/tests.txt 2>&1; echo "tests rc=$?" >> $OUT/summary.txt; grep "tests passed" $OUT/r/tests.txt >> $OUT/summary.txt )
for i in 1 2; do
  left=$((T0 + 560 - $(date +%s))); [ $left -lt 60 ] && break
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout $left build-gpu/spmvkit bench bsr-all --formats auto --setup-reps 3 --reps 5 --no-check \
    --backend cuda --time-limit $((left - 20)) --json $OUT/r/bsr_all_auto_$i.json > $OUT/r/bsr_all_auto_$i.txt 2>&1
  echo "bsr-all auto #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
cat $OUT/summary.txt
for f in $OUT/r/big_*.err; do grep -E "build-trace: auto (features|choose|gather)" $f | tail -12; done
cd $OUT && tar czf r.tgz r && rm -rf r
