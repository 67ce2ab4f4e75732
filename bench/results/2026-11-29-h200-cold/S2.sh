# S2 (1 GPU): 9ab6e50's code. Where a small auto build's selection goes on the H200 host: S1 had
# auto's features and ranking on rajat01 (uploaded beside the build by the worker thread) 3-4x
# slower than the same ranking on bcsstk13 (whose features wait for the upload). A trace of auto
# on rajat01 and bcsstk13 (SPMVKIT_BUILD_PROFILE=trace), with the upload beside (default) and
# before the build (SPMVKIT_UPLOAD_BESIDE=0), two processes each, in turn; then the small setups
# without a trace, two processes each way.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)|L3" >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
for i in 1 2; do
  for b in 1 0; do
    SPMVKIT_UPLOAD_BESIDE=$b SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench rajat01 bcsstk13 \
      --formats auto --setup-reps 8 --reps 5 --no-check --backend cuda --json $OUT/r/trace_b${b}_$i.json > /dev/null 2> $OUT/r/trace_b${b}_$i.err
    echo "trace beside=$b #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  done
done
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20 --backend cuda"
for i in 1 2; do
  for b in 1 0; do
    SPMVKIT_UPLOAD_BESIDE=$b OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench $S --json $OUT/r/small_b${b}_$i.json > /dev/null 2> $OUT/r/small_b${b}_$i.err
    echo "small beside=$b #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  done
done
cat $OUT/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
