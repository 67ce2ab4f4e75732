# S6 (1 GPU): HEAD (h) against the session's start e75589b (b: this tree with .deps/base.patch
# reversed, built beside it), the small csr-suite matrices, 3 rounds alternating b and h.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
rm -rf /tmp/base && mkdir /tmp/base && tar cf - --exclude=./build-gpu --exclude=./.deps . | tar xf - -C /tmp/base
(cd /tmp/base && git apply -R $OLDPWD/.deps/base.patch && echo "base patched" >> $OUT/summary.txt)
[ -x build-gpu/spmvkit ] || GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt &
(cd /tmp/base && GPU_BUILD_LOG=/tmp/base.log gpu_build build-base "-DSPMVKIT_TESTS=OFF -DSPMVKIT_MPI=OFF" spmvkit | tee -a $OUT/summary.txt)
wait
[ -x build-gpu/spmvkit ] && [ -x /tmp/base/build-base/spmvkit ] || { grep -E "error" /tmp/build.log /tmp/base.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for r in 1 2 3; do
  SPMVKIT_COMMIT=e75589b /tmp/base/build-base/spmvkit bench $S --json $OUT/bench_b$r.json > $OUT/bench_b$r.txt 2>&1
  build-gpu/spmvkit bench $S --json $OUT/bench_h$r.json > $OUT/bench_h$r.txt 2>&1
done
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
/usr/bin/python3 .deps/tools/setup_ab.py $OUT b1 h1 b2 h2 b3 h3 2>&1 | grep -v "csr3\|csr_vec\|csr_bal\| ell "
cd $OUT && tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
