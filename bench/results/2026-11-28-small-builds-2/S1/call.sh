# S1 (1 GPU): SELL-P's host-counted footprint and 16-bit pack; the trace with page faults; the
# small matrices' setups twice; SELL-P and device-build tests.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; cat /tmp/build.log | tail -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $S > $OUT/bench_trace.txt 2> $OUT/trace.txt
for t in small small2; do build-gpu/spmvkit bench $S --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 build-gpu/tests/spmvkit_formats_tests --gtest_filter='Sellp*:*sellp*:DeviceBuild.*' > $OUT/test_$i.log 2>&1 &
done; wait
echo "tests done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \] [0-9]" $OUT/test_*.log | sort | uniq -c
grep -h "^\[  FAILED  \]" $OUT/test_*.log | sort -u | head -20
/usr/bin/python3 .deps/tools/trace_summary.py $OUT/trace.txt | cut -c1-400
for t in small small2; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md | grep -v "^|---"; done
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
