# S7 (1 GPU): HEAD (h) against 26d4c94 (b: this tree with .deps/base7.patch
# reversed, built beside it), the small csr-suite matrices, 3 rounds alternating b and h.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
rm -rf /tmp/base && mkdir /tmp/base && tar cf - --exclude=./build-gpu --exclude=./.deps . | tar xf - -C /tmp/base
(cd /tmp/base && git apply -R $OLDPWD/.deps/base7.patch && echo "base7.patched" >> $OUT/summary.txt)
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt &
(cd /tmp/base && GPU_BUILD_LOG=/tmp/base.log gpu_build build-base "-DSPMVKIT_TESTS=OFF -DSPMVKIT_MPI=OFF" spmvkit | tee -a $OUT/summary.txt)
wait
[ -x build-gpu/spmvkit ] && [ -x /tmp/base/build-base/spmvkit ] || { grep -E "error" /tmp/build.log /tmp/base.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for r in 1 2 3; do
  SPMVKIT_COMMIT=26d4c94 /tmp/base/build-base/spmvkit bench $S --json $OUT/bench_b$r.json > $OUT/bench_b$r.txt 2>&1
  build-gpu/spmvkit bench $S --json $OUT/bench_h$r.json > $OUT/bench_h$r.txt 2>&1
done
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $S > $OUT/bench_trace.txt 2> $OUT/trace.txt
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 280 build-gpu/tests/spmvkit_formats_tests > $OUT/test_$i.log 2>&1 &
done; wait
echo "tests done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \] [0-9]" $OUT/test_*.log | sort | uniq -c
grep -h "^\[  FAILED  \]" $OUT/test_*.log | sort -u | head -20
/usr/bin/python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v "auto\|csr3\|csr_" | grep rajat01 | cut -c1-420
/usr/bin/python3 .deps/tools/setup_ab.py $OUT b1 h1 b2 h2 b3 h3 2>&1 | grep -v "csr3\|csr_vec\|csr_bal\| ell "
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
