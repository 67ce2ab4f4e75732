# E9 (1 GPU): this tree (HEC's small CSR part gathered through its listed rows) against the
# session's start (b876b2b, .deps/before), both built at once (the tree with the formats tests);
# the ELL, HYB, HEC and device-build GPU tests; the small matrices' setups of HEC, HYB and
# cuSPARSE CSR alternating before/after in 6 rounds.
T0=$(date +%s); export OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
S=bench/results/2026-11-29-h200-x
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
(cd .deps/before && GPU_BUILD_LOG=/tmp/before.log gpu_build build-before "-DSPMVKIT_TESTS=OFF" spmvkit_cli) >> $OUT/summary.txt &
GPU_BUILD_LOG=/tmp/after.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" spmvkit_cli spmvkit_formats_tests >> $OUT/summary.txt &
wait
[ -x build-gpu/spmvkit ] && [ -x .deps/before/build-before/spmvkit ] || { grep -hE "error" /tmp/before.log /tmp/after.log | head -30; exit 1; }
(cd build-gpu && timeout 100 tests/spmvkit_formats_tests --gtest_filter='DeviceBuild.*:Registry/DeviceBuildTest.*:Ell*:Hyb*:Hec*:*_ell*:*hyb*:*hec*' > $OUT/format_tests.txt 2>&1; echo "format tests rc=$?" >> $OUT/summary.txt)
grep -hE "^\[  PASSED|^\[  FAILED|SKIPPED \] [0-9]" $OUT/format_tests.txt >> $OUT/summary.txt
F=hec,hyb,cusparse_csr_alg1
for r in 1 2 3 4 5 6; do
  for side in before after; do
    bin=build-gpu/spmvkit; [ $side = before ] && bin=.deps/before/build-before/spmvkit
    OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$side.tsv $bin bench bcsstk13 rajat01 Groebner_id2003_aug --formats $F \
      --setup-reps 15 --reps 20 --backend cuda --json $OUT/${side}_$r.json > /dev/null 2> $OUT/${side}_$r.err
    /usr/bin/python3 $S/summ.py $OUT/${side}_$r.json "$side $r" >> $OUT/summary.txt
  done
done
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
grep -vE "^(before|after) " $OUT/summary.txt
cd $OUT && gzip -9 *.json *.err; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
