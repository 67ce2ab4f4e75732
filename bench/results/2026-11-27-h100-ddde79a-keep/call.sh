# V3 (1 GPU): after the keep path (csr_scalar, csr_vector, csr_balanced keep the registry's upload):
# the small matrices' setup alone (--setup-reps 9), the device-build, tiling and CSR GPU tests, the out-of-memory program.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests spmvkit_gpu_memory_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
OMP_NUM_THREADS=16 build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 9 --reps 20 \
  --json $OUT/bench_small.json > $OUT/bench_small.txt 2>&1; echo "small rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 150 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 --gtest_filter='DeviceBuild*:*Tiling*:*csr_scalar*:*csr_vector*:*csr_balanced*:*Csr*' > $OUT/tests.txt 2>&1
echo "formats tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 120 build-gpu/tests/spmvkit_gpu_memory_tests --gtest_brief=1 > $OUT/oom.txt 2>&1
echo "gpu memory tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py setup $OUT/bench_small.json > $OUT/setup_small.md 2>&1
cat $OUT/summary.txt; tail -4 $OUT/tests.txt; tail -4 $OUT/oom.txt
grep -E "^\| (bcsstk13|rajat01|Groebner)" $OUT/setup_small.md | awk -F'|' '{print $2,$3,$5,$6,$7,$10,$11,$12,$13}'
sed -n '/^| format | worst/,$p' $OUT/setup_small.md
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
