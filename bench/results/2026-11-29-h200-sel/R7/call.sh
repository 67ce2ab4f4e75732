# R7 (1 GPU): the tree of ce7ef8a (after the review: the store generation, prepare sizing): the select tests and auto's format
# tests on the GPU; bsr-all with auto alone (its selection on every matrix), one process.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli spmvkit_select_tests spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
( cd build-gpu && timeout 200 ctest -R "Select|auto" -j4 --output-on-failure > $OUT/r/tests.txt 2>&1; echo "tests rc=$?" >> $OUT/summary.txt; grep "tests passed" $OUT/r/tests.txt >> $OUT/summary.txt )
left=$((T0 + 400 - $(date +%s)))
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout $left build-gpu/spmvkit bench bsr-all --formats auto --setup-reps 3 --reps 5 --no-check \
  --backend cuda --time-limit $((left - 20)) --json $OUT/r/bsr_all_auto.json > $OUT/r/bsr_all_auto.txt 2>&1
echo "bsr-all auto rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
