# W5 (1 GPU): after the ELL family's one-pass speculative pack and its split grid: the small
# matrices' setup with the host mirror on and off (15 builds, alternating), the device-build,
# host-mirror and ELL-family GPU tests.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
B="build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
OMP_NUM_THREADS=16 $B --json $OUT/bench_on.json > $OUT/bench_on.txt 2>&1; echo "on rc=$?" >> $OUT/summary.txt
SPMVKIT_HOST_PLAN=0 OMP_NUM_THREADS=16 $B --json $OUT/bench_off.json > $OUT/bench_off.txt 2>&1; echo "off rc=$?" >> $OUT/summary.txt
OMP_NUM_THREADS=16 $B --json $OUT/bench_on2.json > $OUT/bench_on2.txt 2>&1; echo "on2 rc=$?" >> $OUT/summary.txt
SPMVKIT_HOST_PLAN=0 OMP_NUM_THREADS=16 $B --json $OUT/bench_off2.json > $OUT/bench_off2.txt 2>&1; echo "off2 rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 200 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 --gtest_filter='DeviceBuild*:HostMirror*:*ell*:*Ell*:*hyb*:*Hyb*:*hec*:*Hec*' > $OUT/tests.txt 2>&1
echo "formats tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for t in on off on2 off2; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
cat $OUT/summary.txt; tail -4 $OUT/tests.txt
for t in on off on2 off2; do echo "== $t"; grep -E "^\| (bcsstk13|rajat01|Groebner)" $OUT/setup_$t.md | grep -E "\| (ell|hyb|hec|cusparse_csr_alg1) " | awk -F'|' '{print $2,$3,$5,$6,$12,$13}'; done
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
