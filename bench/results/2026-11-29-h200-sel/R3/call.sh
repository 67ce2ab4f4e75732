# R3 (1 GPU): where auto's first round trip goes at 1e8 nonzeros (SPMVKIT_BUILD_PROFILE=trace,
# its phases split: features_sample = host ranges, features_gather = meta and the lock,
# gather_launch = meta up and the kernels queued, gather_download = the download and its wait);
# then issue 24's small setups without a trace in four processes (every format, paired with
# cuSPARSE CSR ALG1's setup, --setup-reps 15, as 2026-11-29-h200-z/G1 with the upload beside).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
for m in reservoir_bs20_33 reservoir_bs7_66; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 100 build-gpu/spmvkit bench $m \
    --formats auto --setup-reps 6 --reps 5 --no-check --backend cuda --json $OUT/r/big_$m.json > $OUT/r/big_$m.txt 2> $OUT/r/big_$m.err
  echo "$m rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20 --backend cuda"
for i in 1 2 3 4; do
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 60 build-gpu/spmvkit bench $S --json $OUT/r/small_$i.json > /dev/null 2> $OUT/r/small_$i.err
  echo "small #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
cat $OUT/summary.txt
for f in $OUT/r/big_*.err; do grep -E "build-trace: auto (features|choose|gather)" $f | tail -12; done
cd $OUT && tar czf r.tgz r && rm -rf r
