# E4 (1 GPU): this tree (baa3284) only: its small tables' pinned ring on (ring) and off
# (SPMVKIT_PLAN_STAGING=0, pageable copies as before baa3284), alternating in 12 rounds of the
# small matrices' setups of SELL-P, HEC, HYB, SURAA, suraa_static and cuSPARSE CSR (E3 read
# SURAA, suraa_static and HYB slower after the change on rajat01).
T0=$(date +%s); export OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
S=bench/results/2026-11-29-h200-x
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
[ -x build-gpu/spmvkit ] || GPU_BUILD_LOG=/tmp/after.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli >> $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -hE "error" /tmp/after.log | head -30; exit 1; }
F=sellp,hec,hyb,suraa,suraa_static,cusparse_csr_alg1
for r in 1 2 3 4 5 6 7 8 9 10 11 12; do
  for side in ring off; do
    st=1; [ $side = off ] && st=0
    SPMVKIT_PLAN_STAGING=$st OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$side.tsv build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --formats $F \
      --setup-reps 15 --reps 20 --backend cuda --json $OUT/${side}_$r.json > /dev/null 2> $OUT/${side}_$r.err
    /usr/bin/python3 $S/summ.py $OUT/${side}_$r.json "$side $r" >> $OUT/summary.txt
  done
done
echo "benches done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
tail -n 3 $OUT/summary.txt
cd $OUT && gzip -9 *.json *.err; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
