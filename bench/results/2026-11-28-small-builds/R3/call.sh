# R3 (1 GPU): a small matrix's upload queued from pinned staging on the calling thread (the new
# default) against the worker thread's pageable upload beside the plan (SPMVKIT_SMALL_UPLOAD=beside),
# alternating twice on one machine; then the queued path's build trace.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
for t in q1 b2 q3 b4; do
  m=queued; [ ${t:0:1} = b ] && m=beside
  SPMVKIT_SMALL_UPLOAD=$m build-gpu/spmvkit bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1
done
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $A --setup-reps 9 --reps 5 --json $OUT/bench_trace.json > $OUT/bench_trace.txt 2> $OUT/trace.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
for t in q1 b2 q3 b4; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md; done
python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v "auto/" | awk '{print $1, $2, $5, $6, $7, $8}'
cd $OUT && tar czf all.tgz --remove-files *.json *.txt *.md && ls
