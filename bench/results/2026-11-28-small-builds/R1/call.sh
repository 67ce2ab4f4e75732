# R1 (1 GPU): the session's baseline of the small builds (tree 1120f5d + the trace mode and the
# probe's host-side costs): runtime and host costs (scripts/api_cost_probe.cu), the three small
# csr-suite matrices' setup twice (--setup-reps 15), and their build trace (no synchronisation,
# SPMVKIT_BUILD_PROFILE=trace).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
(nvcc -arch=sm_90 -std=c++17 -O2 -o /tmp/probe scripts/api_cost_probe.cu && /tmp/probe > $OUT/probe.txt 2>&1) &
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
wait
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
for t in small1 small2; do
  OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1
done
SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --setup-reps 9 --reps 5 --json $OUT/bench_trace.json > $OUT/bench_trace.txt 2> $OUT/trace.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt $OUT/probe.txt
for t in small1 small2; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md; done
grep -c build-trace $OUT/trace.txt
cd $OUT && gzip -9 *.json trace.txt; ls
