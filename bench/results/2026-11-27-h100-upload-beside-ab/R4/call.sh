# R4 (1 GPU): the upload beside the build (3a20727): the small matrices' setup (15 builds each)
# with it and without it (SPMVKIT_UPLOAD_BESIDE=0), six runs in the order on off off on on off;
# the build profile; then every formats and select GPU test.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests spmvkit_select_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
i=0
for v in on off off on on off; do
  i=$((i + 1))
  if [ $v = on ]; then E=1; else E=0; fi
  SPMVKIT_UPLOAD_BESIDE=$E OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --json $OUT/bench_${v}$i.json > $OUT/bench_${v}$i.txt 2>&1
  echo "$v$i rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
SPMVKIT_BUILD_PROFILE=1 OMP_NUM_THREADS=16 build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 5 --reps 10 --json $OUT/bench_prof.json > $OUT/bench_prof.txt 2> $OUT/bench_prof.err
timeout 300 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "formats tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
timeout 100 build-gpu/tests/spmvkit_select_tests --gtest_brief=1 > $OUT/select_tests.txt 2>&1
echo "select tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; tail -5 $OUT/tests.txt; grep -E "FAILED|Failure" $OUT/tests.txt | head -20; tail -3 $OUT/select_tests.txt
for f in $OUT/bench_on*.json $OUT/bench_off*.json; do t=$(basename $f .json); /usr/bin/python3 bench/report.py setup $f > $OUT/setup_${t#bench_}.md 2>&1; done
for t in on1 off2 off3 on4 on5 off6; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md | grep -v "csr_scalar\|csr_vector\|^|---\|^| format\|^$" | awk -F'|' '{printf "%s %s %s; ", $2, $3, $4}'; echo; done
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
