# E2 (1 GPU): this tree (baa3284: the small tables through a pinned ring) against the session's
# start (b876b2b, .deps/before): the small matrices' setups of SELL-P, HEC, HYB, ELL, SURAA,
# suraa_static and cuSPARSE CSR in 3 rounds of before / after with the ring off
# (SPMVKIT_PLAN_STAGING=0) / after, then one traced process; then every GPU test.
T0=$(date +%s); export OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
S=bench/results/2026-11-29-h200-x
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
(cd .deps/before && GPU_BUILD_LOG=/tmp/before.log gpu_build build-before "-DSPMVKIT_TESTS=OFF" spmvkit_cli) >> $OUT/summary.txt &
GPU_BUILD_LOG=/tmp/after.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" >> $OUT/summary.txt &
wait
[ -x build-gpu/spmvkit ] && [ -x .deps/before/build-before/spmvkit ] || { grep -hE "error" /tmp/before.log /tmp/after.log | head -30; exit 1; }
F=sellp,hec,hyb,ell,suraa,suraa_static,cusparse_csr_alg1
for r in 1 2 3 4; do
  for side in before ring_off after; do
    [ $r = 4 ] && [ $side != after ] && continue
    bin=build-gpu/spmvkit; [ $side = before ] && bin=.deps/before/build-before/spmvkit
    st=1; [ $side = ring_off ] && st=0
    tr=0; [ $r = 4 ] && tr=trace
    SPMVKIT_BUILD_PROFILE=$tr SPMVKIT_PLAN_STAGING=$st OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$side.tsv $bin bench bcsstk13 rajat01 Groebner_id2003_aug --formats $F \
      --setup-reps 15 --reps 20 --backend cuda --json $OUT/${side}_$r.json > /dev/null 2> $OUT/${side}_$r.err
    /usr/bin/python3 $S/summ.py $OUT/${side}_$r.json "$side $r" >> $OUT/summary.txt
  done
done
echo "benches done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1; echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.json *.err; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
