# V1 (1 GPU): full build; the three small csr-suite matrices' setup alone (--setup-reps 9, the
# bench fix for CSR-3's details); SELL-P's setup on powerlaw_8000000 and stencil27_150 against
# cuSPARSE CSR (--setup-reps 3); the SELL-P, tiling and device-build tests on the GPU.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
OMP_NUM_THREADS=16 build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 9 --reps 20 \
  --json $OUT/bench_small.json > $OUT/bench_small.txt 2>&1; echo "small rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
OMP_NUM_THREADS=16 timeout 150 build-gpu/spmvkit bench powerlaw_8000000 stencil27_150 --backend cuda --formats sellp,cusparse_csr_alg1 \
  --setup-reps 3 --reps 20 --json $OUT/bench_sellp.json > $OUT/bench_sellp.txt 2>&1; echo "sellp rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 200 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 --gtest_filter='*Sellp*:*SELLP*:*sellp*:DeviceBuild*:*Tiling*' > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py setup $OUT/bench_small.json > $OUT/setup_small.md 2>&1
cat $OUT/summary.txt; tail -5 $OUT/tests.txt; grep -E "powerlaw|stencil27" $OUT/bench_sellp.txt
grep -E "^\| (bcsstk13|rajat01|Groebner)" $OUT/setup_small.md | awk -F'|' '{print $2,$3,$5,$6,$7,$12,$13}'
sed -n '/^| format | worst/,$p' $OUT/setup_small.md
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
