# S3 (1 GPU): the table-upload probe; traces with pinned (p) and pageable (q) plan tables; the
# small matrices' setups, 3 rounds alternating q and p.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
(nvcc -arch=sm_90 -std=c++17 -O2 -o /tmp/tp .deps/probe/table_probe.cu && /tmp/tp > $OUT/probe.txt 2>&1) &
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
wait
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; tail -30 /tmp/build.log; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $S > $OUT/bench_trace.txt 2> $OUT/trace_p.txt
SPMVKIT_PINNED_TABLES=0 SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $S > $OUT/bench_trace.txt 2> $OUT/trace_q.txt
for r in 1 2 3; do
  SPMVKIT_PINNED_TABLES=0 build-gpu/spmvkit bench $S --json $OUT/bench_q$r.json > $OUT/bench_q$r.txt 2>&1
  build-gpu/spmvkit bench $S --json $OUT/bench_p$r.json > $OUT/bench_p$r.txt 2>&1
done
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt $OUT/probe.txt
for t in p q; do echo "== trace $t"; /usr/bin/python3 .deps/tools/trace_summary.py $OUT/trace_$t.txt | grep -v "auto\|csr3\|csr_" | grep rajat01 | cut -c1-420; done
/usr/bin/python3 .deps/tools/setup_ab.py $OUT q1 p1 q2 p2 q3 p3 2>&1 | grep -v "csr3\|auto\|csr_vec\|csr_bal\| ell "
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
