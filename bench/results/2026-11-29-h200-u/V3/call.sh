# V3 (1 GPU, V2's machine): spmvkit at the tree given (7dd8aad); the csr suite's setups again at
# --setup-reps 15 (V2's first matrix, bcsstk13, read ~2x for csr_scalar and csr_balanced at 5).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
[ -x build-gpu/spmvkit ] || GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv timeout 400 build-gpu/spmvkit bench csr --setup-reps 15 \
  --backend cuda --time-limit 360 --json $OUT/bench_csr15.json > $OUT/bench_csr15.txt 2> $OUT/bench_csr15.err
echo "bench csr15: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py setup $OUT/bench_csr15.json > $OUT/setup_csr15.md 2>&1
cat $OUT/summary.txt; sed -n '/^Worst over every/,/^Worst over matrices/p' $OUT/setup_csr15.md
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
