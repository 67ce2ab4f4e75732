# R5 (1 GPU): every target of the tree given (COMMIT) built and every GPU test run
# (scripts/gpu_tests.py).

T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
DEADLINE=$((T0 + 420)) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
tail -15 $OUT/tests.txt >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && tar czf all.tgz --remove-files $(ls | grep -v summary.txt) 2>/dev/null; ls
