# S3 (1 GPU): the tree given (COMMIT). The real suite (35 matrices, every format, auto model
# only) in ten processes: --builds 3 and --builds 7 in turn, five each (bench's builds go in
# rounds over a matrix's formats; a format's time is the median of its builds' medians). Does
# the share of matrices within 1.10x of the oracle move with the rounds (noise between formats
# of 4-6 us applies), or stay (the model's picks)?
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
mkdir -p $OUT/r
for i in 1 2 3 4 5; do
  for b in 3 7; do
    OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t_${b}_$i.tsv timeout 100 build-gpu/spmvkit bench real --builds $b \
      --backend cuda --time-limit 90 --json $OUT/r/real_b${b}_$i.json > $OUT/r/real_b${b}_$i.txt 2> $OUT/r/real_b${b}_$i.err
    echo "real builds=$b #$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
    /usr/bin/python3 bench/report.py oracle $OUT/r/real_b${b}_$i.json > $OUT/r/oracle_b${b}_$i.md 2>&1
  done
done
cat $OUT/summary.txt; for f in $OUT/r/oracle_*.md; do echo "$f: $(grep -iE "within|geometric" $f | head -2 | tr '\n' ' ')"; done
cd $OUT && gzip -9 r/*.json && tar czf r.tgz r && rm -rf r
