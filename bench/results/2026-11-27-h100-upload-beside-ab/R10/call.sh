# R10 (1 GPU): the build profile of the small matrices at the last code (each phase's time and
# waits, --setup-reps 7), and their setup once more (--setup-reps 15).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda"
SPMVKIT_BUILD_PROFILE=1 OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --setup-reps 7 --reps 10 --json $OUT/bench_prof.json > $OUT/bench_prof.txt 2> $OUT/build_profile.txt
OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --setup-reps 15 --reps 20 --json $OUT/bench_small.json > $OUT/bench_small.txt 2>&1
/usr/bin/python3 bench/report.py setup $OUT/bench_small.json > $OUT/setup_small.md 2>&1
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; sed -n '/^| format | worst/,/^$/p' $OUT/setup_small.md
cd $OUT && gzip -9 *.json build_profile.txt; ls -la
