# G6 (4 GPUs), the session's last: full build; the small csr-suite matrices' setup alone
# (--setup-reps 15) with the upload beside the build and without it (SPMVKIT_UPLOAD_BESIDE=0),
# twice each, alternating; with the build profile; the csr, ell and bsr suites (--setup-reps 5)
# on GPUs 1-3 with nothing else running; then every GPU test on GPUs 0-3 (issue 24's setup
# table).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-330}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
bench_on() {  # GPU TAG ARGS...
  local gpu=$1 tag=$2; shift 2
  local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $tag: not started" >> $OUT/summary.txt; return; }
  local t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 60)) build-gpu/spmvkit bench "$@" \
    --backend cuda --time-limit $left --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2> $OUT/bench_$tag.err
  echo "bench $tag on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20"
bench_on 0 small $S; SPMVKIT_UPLOAD_BESIDE=0 bench_on 0 before $S
bench_on 0 small2 $S; SPMVKIT_UPLOAD_BESIDE=0 bench_on 0 before2 $S
SPMVKIT_BUILD_PROFILE=1 bench_on 0 small_prof bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 7 --reps 20
bench_on 1 csr csr --setup-reps 5 & bench_on 2 ell ell --setup-reps 5 & bench_on 3 bsr bsr --setup-reps 5 & wait
mkdir -p $OUT/gt
left=$(( ${TESTS_END_S:-570} - ($(date +%s) - T0) ))
CUDA_VISIBLE_DEVICES=0,1,2,3 DEADLINE=$(( $(date +%s) + left )) timeout $((left + 15)) python3 scripts/gpu_tests.py build-gpu $OUT/gt > $OUT/gt/tests.txt 2>&1
echo "gpu tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for t in small before small2 before2 small_prof; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
/usr/bin/python3 bench/report.py setup $OUT/bench_csr.json $OUT/bench_ell.json $OUT/bench_bsr.json > $OUT/setup_table.md 2>&1
cat $OUT/summary.txt; head -16 $OUT/gt/tests.txt
for t in small before small2 before2; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md; done
echo "== suites"; sed -n '/^| format | worst/,$p' $OUT/setup_table.md
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
