# W3 (1 GPU): the tree given (106de0c: the review's mends to SURAA's small plan and SELL-P's
# footprint), everything built; the SURAA, SELL-P and device-build GPU tests.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
(cd build-gpu && timeout 200 tests/spmvkit_formats_tests --gtest_filter='DeviceBuild.*:Registry/DeviceBuildTest.*:Suraa*:*suraa*:Sellp*:*sellp*' > $OUT/format_tests.txt 2>&1; echo "format tests rc=$?" >> $OUT/summary.txt)
grep -hE "^\[  PASSED|^\[  FAILED|SKIPPED \] [0-9]" $OUT/format_tests.txt >> $OUT/summary.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
