# R6 (1 GPU): the whole build; HEAD's small builds against the session's start (cb0d1b6's binary,
# carried), alternating three times, and HEAD's build trace; then every GPU test
# (scripts/gpu_tests.py).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16 NCCL_NVLS_ENABLE=0
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
xz -dc .deps/bin/spmvkit-base.xz > /tmp/spmvkit-base && chmod +x /tmp/spmvkit-base
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
for t in h1 b2 h3 b4 h5 b6; do
  if [ ${t:0:1} = b ]; then LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} /tmp/spmvkit-base bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  else build-gpu/spmvkit bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1; fi
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1
done
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $A --setup-reps 9 --reps 5 --json $OUT/bench_trace.json > $OUT/bench_trace.txt 2> $OUT/trace.txt
echo "small done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
DEADLINE=$((T0 + 560)) TEST_TIMEOUT=300 python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests: rc=$? done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; tail -25 $OUT/tests.txt
python3 .deps/tools/setup_ab.py $OUT h1 b2 h3 b4 h5 b6 | grep -E "rajat01|cusparse"
for t in h1 h3 h5; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md | grep -v "^|---"; done
python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v "auto/" | grep rajat01 | grep -E "sellp|suraa|bsr|hec" | cut -c1-330
cd $OUT && tar czf all.tgz --remove-files *.json *.txt *.md *.log 2>/dev/null; ls
