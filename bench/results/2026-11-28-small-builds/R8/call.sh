# R8 (1 GPU): the core and solver tests that R6 ran with only three matrices at hand (the shared
# matrices' manifest and the solvers' listed matrices), with the whole shared folder; then the
# small csr-suite matrices' setup twice.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_core_tests spmvkit_solvers_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
build-gpu/tests/spmvkit_core_tests --gtest_filter='MatrixMarketShared.*' > $OUT/test_core.log 2>&1; echo "core rc=$?" >> $OUT/summary.txt
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 240 build-gpu/tests/spmvkit_solvers_tests --gtest_filter='*SolverSharedMatrices*' > $OUT/test_solvers_$i.log 2>&1 &
done; wait
echo "tests at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for t in small small2; do build-gpu/spmvkit bench $S --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \] [0-9]" $OUT/test_*.log | sort | uniq -c
grep -h "^\[  FAILED  \]" $OUT/test_*.log | sort -u | head
for t in small small2; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md | grep -v "^|---"; done
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
