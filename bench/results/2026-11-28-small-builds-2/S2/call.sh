# S2 (1 GPU): pinned plan tables (p) against pageable ones (q, SPMVKIT_PINNED_TABLES=0) on the
# small matrices, 3 rounds alternating; the trace; every formats test in 8 shards.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; tail -30 /tmp/build.log; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $S > $OUT/bench_trace.txt 2> $OUT/trace.txt
for r in 1 2 3; do
  SPMVKIT_PINNED_TABLES=0 build-gpu/spmvkit bench $S --json $OUT/bench_q$r.json > $OUT/bench_q$r.txt 2>&1
  build-gpu/spmvkit bench $S --json $OUT/bench_p$r.json > $OUT/bench_p$r.txt 2>&1
done
for f in $OUT/bench_[pq]?.json; do /usr/bin/python3 bench/report.py setup $f > ${f%.json}.md 2>&1; done
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 280 build-gpu/tests/spmvkit_formats_tests > $OUT/test_$i.log 2>&1 &
done; wait
echo "tests done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \] [0-9]" $OUT/test_*.log | sort | uniq -c
grep -h "^\[  FAILED  \]" $OUT/test_*.log | sort -u | head -20
/usr/bin/python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v auto | grep rajat01 | cut -c1-420
/usr/bin/python3 .deps/tools/setup_ab.py $OUT q1 p1 q2 p2 q3 p3 2>&1 | grep -v "csr3\|auto"
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
