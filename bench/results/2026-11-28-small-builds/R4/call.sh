# R4 (1 GPU): the small upload in pinned pieces taken by a pool (HEAD) against the one worker's
# pageable upload (base 42b1d7f, built beside from .deps/base), alternating, three rounds; then
# HEAD's trace.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
(cd .deps/base && GPU_BUILD_LOG=/tmp/base.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit) | tee -a $OUT/summary.txt
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
for t in h1 b2 h3 b4 h5 b6; do
  bin=build-gpu/spmvkit; [ ${t:0:1} = b ] && bin=.deps/base/build-gpu/spmvkit
  $bin bench $A --setup-reps 15 --reps 20 --json $OUT/bench_$t.json > $OUT/bench_$t.txt 2>&1
  /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1
done
SPMVKIT_BUILD_PROFILE=trace build-gpu/spmvkit bench $A --setup-reps 9 --reps 5 --json $OUT/bench_trace.json > $OUT/bench_trace.txt 2> $OUT/trace.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
python3 .deps/tools/setup_ab.py $OUT h1 b2 h3 b4 h5 b6
python3 .deps/tools/trace_summary.py $OUT/trace.txt | grep -v "auto/" | grep rajat01 | cut -c1-250
cd $OUT && tar czf all.tgz --remove-files *.json *.txt *.md && ls
