# W2 (1 GPU): after the mirror's column indices and tails: the small matrices' setup (device
# builders), then the same with SPMVKIT_HOST_BUILD=1 (the host builders, for comparison), then
# with the build profile; the device-build and format GPU tests.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
B="build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
OMP_NUM_THREADS=16 $B --setup-reps 9 --reps 20 --json $OUT/bench_small.json > $OUT/bench_small.txt 2>&1; echo "small rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
SPMVKIT_HOST_BUILD=1 OMP_NUM_THREADS=16 $B --setup-reps 9 --reps 20 --json $OUT/bench_host.json > $OUT/bench_host.txt 2>&1; echo "host rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
SPMVKIT_HOST_BUILD=1 OMP_NUM_THREADS=1 $B --setup-reps 9 --reps 20 --json $OUT/bench_host1.json > $OUT/bench_host1.txt 2>&1; echo "host1 rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
SPMVKIT_BUILD_PROFILE=1 OMP_NUM_THREADS=16 $B --setup-reps 5 --reps 10 --json $OUT/bench_prof.json > $OUT/bench_prof.txt 2> $OUT/bench_prof.err; echo "prof rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 200 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 --gtest_filter='DeviceBuild*:*Tiling*:*hyb*:*hec*:*Auto*:*auto*:*Select*' > $OUT/tests.txt 2>&1
echo "formats tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for t in small host host1; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
cat $OUT/summary.txt; tail -6 $OUT/tests.txt
for t in small host host1; do echo "== $t"; grep -E "^\| (bcsstk13|rajat01|Groebner)" $OUT/setup_$t.md | grep -v cusparse_[cs][oe] | awk -F'|' '{print $2,$3,$5,$6,$12,$13}'; done
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
