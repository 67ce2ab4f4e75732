# S1 (1 GPU): 0063307 (the ranking without printf or a sort's buffer, packed neighbour points,
# the features' slice columns prefetched) against b33be4d's three select files, built in turn
# from the same tree (build-gpu/spmvkit-new, -old). The select tests and auto's format tests
# (new); issue 24's small setups (bcsstk13, rajat01, Groebner_id2003_aug), six processes of
# each binary in turn; a trace of auto on rajat01 in each; bsr-all with auto alone, one process
# of each (its selection at ~1e8 nonzeros).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli spmvkit_select_tests spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
( cd build-gpu && timeout 200 ctest -R "Select|auto" -j4 --output-on-failure > $OUT/r/tests.txt 2>&1; echo "tests rc=$?" >> $OUT/summary.txt; grep "tests passed" $OUT/r/tests.txt >> $OUT/summary.txt )
cp build-gpu/spmvkit /tmp/spmvkit-new
cp .deps/old-sel/model.cpp .deps/old-sel/model.hpp select/ && cp .deps/old-sel/features.cpp select/
cmake --build build-gpu -j 16 --target spmvkit_cli > /tmp/build-old.log 2>&1 || { tail -20 /tmp/build-old.log; exit 1; }
cp build-gpu/spmvkit /tmp/spmvkit-old
echo "old built at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20 --backend cuda"
for i in 1 2 3 4 5 6; do
  for v in old new; do
    OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 /tmp/spmvkit-$v bench $S --json $OUT/r/small_${v}_$i.json > /dev/null 2> $OUT/r/small_${v}_$i.err
    echo "small $v #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  done
done
for v in old new; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 /tmp/spmvkit-$v bench rajat01 bcsstk13 \
    --formats auto --setup-reps 6 --reps 5 --no-check --backend cuda --json $OUT/r/trace_$v.json > /dev/null 2> $OUT/r/trace_$v.err
done
for v in old new; do
  left=$((T0 + 560 - $(date +%s))); [ $left -lt 60 ] && break
  [ $v = old ] && left=$((left / 2))
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout $left /tmp/spmvkit-$v bench bsr-all --formats auto --setup-reps 3 --reps 5 --no-check \
    --backend cuda --time-limit $((left - 15)) --json $OUT/r/bsr_all_auto_$v.json > $OUT/r/bsr_all_auto_$v.txt 2>&1
  echo "bsr-all auto $v rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
cat $OUT/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
