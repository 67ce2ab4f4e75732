# S6 (1 GPU): was S5's drop on bsr-expand part 11 (auto as timed: F4 97.0%, S5 83.3%) the model's?
# The tree given (COMMIT: f5bd38d, COO a candidate) built, then b33be4d's six select files (the
# model before COO, as F4 ran it) swapped in and the CLI built again; auto alone (model only,
# --builds 3) on part 11, old and new binaries in turn, two processes each. S5's records of
# every other format give the oracle (another process).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
cp build-gpu/spmvkit /tmp/spmvkit-new
for f in model.cpp model.hpp model_defaults.cpp model_neighbours.cpp model_neighbours_h200.cpp features.cpp; do cp .deps/old-model/$f select/$f; done
cmake --build build-gpu -j 16 --target spmvkit_cli > /tmp/build-old.log 2>&1 || { tail -20 /tmp/build-old.log; exit 1; }
cp build-gpu/spmvkit /tmp/spmvkit-old
echo "old built at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for i in 1 2; do
  for v in old new; do
    left=$((T0 + 420 - $(date +%s))); [ $left -lt 30 ] && break 2
    OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t_${v}_$i.tsv timeout $((left + 10)) /tmp/spmvkit-$v bench bsr-expand --part 11/16 \
      --formats auto --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((left - 5)) \
      --json $OUT/auto_${v}_$i.json > $OUT/auto_${v}_$i.txt 2>&1
    echo "auto $v #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  done
done
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
