# G1 (1 GPU): the tree given (COMMIT), every target built; every GPU test (scripts/gpu_tests.py);
# issue 24's small setups in 8 processes, the upload beside the host plan (SPMVKIT_UPLOAD_BESIDE,
# default 1) and not (0) in turn; `spmvkit tune auto --model` on its generated set (f64), then
# auto built on those matrices again from the store.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20 --backend cuda"
for i in 1 2 3 4; do for u in 1 0; do
  SPMVKIT_UPLOAD_BESIDE=$u OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_small.tsv timeout 60 \
    build-gpu/spmvkit bench $S --json $OUT/small_${u}_$i.json > /dev/null 2> $OUT/small_${u}_$i.err
  echo "small beside=$u #$i rc=$?" >> $OUT/summary.txt
done; done
echo "small done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
t0=$(date +%s)
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_model.tsv timeout 200 build-gpu/spmvkit tune auto --model \
  > $OUT/tune_model.txt 2> $OUT/tune_model.err
echo "tune auto --model: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
DEADLINE=$((T0 + 575)) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; grep -c measured $OUT/tune_model.txt; grep fastest $OUT/tune_model.txt | cut -c1-150
tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
