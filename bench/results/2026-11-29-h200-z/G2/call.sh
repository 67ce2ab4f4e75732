# G2 (1 GPU): the tree given (COMMIT). Does `tune auto --model` on a user's family help auto on
# the family's other members? The 35 real matrices expanded by 4x4 and 6x6 blocks (70, training)
# measured by `tune auto --model` into a store; the same 35 expanded by 5x5 blocks (in no H200
# table; the evaluation) benched with every GPU candidate of auto and auto (model only), with
# that store (w) and with a fresh one (n), two processes each in turn (--builds 3). Then one
# SPMVKIT_BUILD_PROFILE=trace bench of the small matrices' builds (issue 24).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
REAL=$(awk -F'\t' 'NR>1{print $1}' $SPMVKIT_MATRICES/MANIFEST.tsv)
TRAIN=""; EVAL=""; for m in $REAL; do TRAIN="$TRAIN expand_bs4_$m expand_bs6_$m"; EVAL="$EVAL expand_bs5_$m"; done
echo "train $(echo $TRAIN | wc -w), eval $(echo $EVAL | wc -w)" >> $OUT/summary.txt
t0=$(date +%s)
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_w.tsv timeout 150 build-gpu/spmvkit tune auto --model $TRAIN \
  > $OUT/tune_model.txt 2> $OUT/tune_model.err
echo "tune auto --model: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cp $OUT/tuning_w.tsv /tmp/store_w.tsv
F=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,cusparse_csr_alg1,auto
for i in 1 2; do for v in w n; do
  left=$((T0 + 560 - $(date +%s))); [ $left -lt 40 ] && { echo "eval $v$i: not started" >> $OUT/summary.txt; continue; }
  rm -f /tmp/store.tsv; [ $v = w ] && cp /tmp/store_w.tsv /tmp/store.tsv
  t0=$(date +%s)
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/store.tsv timeout $((left)) build-gpu/spmvkit bench $EVAL --formats $F \
    --builds 3 --backend cuda --time-limit $((left - 30)) --json $OUT/eval_$v$i.json > $OUT/eval_$v$i.txt 2>&1
  echo "eval $v$i: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  /usr/bin/python3 bench/report.py oracle $OUT/eval_$v$i.json > $OUT/oracle_$v$i.md 2>&1
done; done
SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t.tsv timeout 30 build-gpu/spmvkit bench rajat01 bcsstk13 \
  --formats suraa,suraa_static,sellp,bsr_balanced,hec,ell,csr_scalar,cusparse_csr_alg1 --setup-reps 15 --backend cuda \
  --json $OUT/trace.json > /dev/null 2> $OUT/trace.err
echo "trace rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; for f in $OUT/oracle_*.md; do echo "== $f"; tail -n 3 $f; done
cd $OUT && gzip -9 *.json *.err; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
