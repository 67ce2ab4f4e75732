# V5 (1 x H200): the tree given (COMMIT: the session's library). Every GPU test (scripts/gpu_tests.py).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
CUDA_VISIBLE_DEVICES=0 DEADLINE=$((T0 + ${BUDGET:-400})) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.txt *.log *.json 2>/dev/null; gunzip summary.txt.gz; tar czf /tmp/all.tgz --remove-files * 2>/dev/null; mv /tmp/all.tgz .; ls -la
