# R5 (1 GPU): HEAD's small builds against the session's start (cb0d1b6's binary, built on the
# developer machine and carried), alternating three times; HEAD's build trace; the formats and
# select GPU tests (8 gtest shards each).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
xz -dc .deps/bin/spmvkit-base.xz > /tmp/spmvkit-base && chmod +x /tmp/spmvkit-base
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests spmvkit_select_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
for t in h1 b2 h3 b4 h5 b6; do
  bin=build-gpu/spmvkit; [ ${t:0:1} = b ] && bin=/tmp/spmvkit-base
  $bin bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1
done
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $A --setup-reps 9 --reps 5 --json $OUT/bench_trace.json > $OUT/bench_trace.txt 2> $OUT/trace.txt
t1=$(date +%s)
for p in formats select; do for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 build-gpu/tests/spmvkit_${p}_tests > $OUT/test_${p}_$i.log 2>&1 &
done; done; wait
echo "tests in $(( $(date +%s) - t1 ))s" >> $OUT/summary.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \]" $OUT/test_*.log | grep -v "^\[  SKIPPED \] [A-Z]" | sort | uniq -c | head -20
grep -h "^\[  FAILED  \]" $OUT/test_*.log | sort -u | head -30
python3 .deps/tools/setup_ab.py $OUT h1 b2 h3 b4 h5 b6
python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v "auto/" | grep rajat01 | cut -c1-300
cd $OUT && tar czf all.tgz --remove-files *.json *.txt *.md *.log && ls
