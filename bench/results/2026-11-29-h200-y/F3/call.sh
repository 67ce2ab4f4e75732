# F3 (1 GPU): the tree given (COMMIT: be50f2f, bench --builds N in rounds over the formats);
# the real suite in three processes (--builds 3, auto model only); issue 24's setup table: the
# small csr-suite matrices (--setup-reps 15) twice, then the csr, ell and bsr suites
# (--setup-reps 9, within bench's 2 s a format).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
DEADLINE=$((T0 + ${BUDGET:-560}))
bench_on() {  # TAG ARGS...
  local tag=$1; shift
  local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $tag: not started" >> $OUT/summary.txt; return; }
  local t0=$(date +%s)
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 30)) build-gpu/spmvkit bench "$@" \
    --backend cuda --time-limit $left --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2> $OUT/bench_$tag.err
  echo "bench $tag: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
for r in 1 2 3; do bench_on real_$r real --builds 3; /usr/bin/python3 bench/report.py oracle $OUT/bench_real_$r.json > $OUT/oracle_real_$r.md 2>&1; done
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20"
bench_on small $S; bench_on small2 $S
bench_on csr csr --setup-reps 9; bench_on ell ell --setup-reps 9; bench_on bsr bsr --setup-reps 9
for t in small small2; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
/usr/bin/python3 bench/report.py setup $OUT/bench_csr.json $OUT/bench_ell.json $OUT/bench_bsr.json > $OUT/setup_table.md 2>&1
/usr/bin/python3 bench/report.py oracle $OUT/bench_csr.json $OUT/bench_ell.json $OUT/bench_bsr.json > $OUT/oracle_suites.md 2>&1
cat $OUT/summary.txt
for r in 1 2 3; do tail -n 1 $OUT/oracle_real_$r.md; done; tail -n 1 $OUT/oracle_suites.md
for t in small small2; do echo "== $t"; sed -n "/^| format | worst/,/^$/p" $OUT/setup_$t.md | grep -v "^|---"; done
echo "== suites"; sed -n '/^Worst over every/,$p' $OUT/setup_table.md
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
