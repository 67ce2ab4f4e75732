# R3 (1 GPU): a same-machine A/B of the small matrices' setup (15 builds each): the session's
# start (69784c9, .deps/base) against HEAD, HEAD with the upload waited for
# (SPMVKIT_UPLOAD_WAIT=1); three rounds, alternating; then HEAD's build profile.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit > /tmp/head.txt &
(cd .deps/base && GPU_BUILD_LOG=/tmp/base.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit > /tmp/base.txt) ; wait
cat /tmp/head.txt /tmp/base.txt >> $OUT/summary.txt
[ -x build-gpu/spmvkit ] && [ -x .deps/base/build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log /tmp/base.log | head -30; exit 1; }
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for i in 1 2 3; do
  SPMVKIT_COMMIT=69784c9 OMP_NUM_THREADS=16 .deps/base/build-gpu/spmvkit bench $A --json $OUT/bench_base$i.json > $OUT/bench_base$i.txt 2>&1
  OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --json $OUT/bench_head$i.json > $OUT/bench_head$i.txt 2>&1
  SPMVKIT_UPLOAD_WAIT=1 OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --json $OUT/bench_wait$i.json > $OUT/bench_wait$i.txt 2>&1
  echo "round $i at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
SPMVKIT_BUILD_PROFILE=1 OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --setup-reps 5 --json $OUT/bench_prof.json > $OUT/bench_prof.txt 2> $OUT/bench_prof.err
for t in base1 head1 wait1 base2 head2 wait2 base3 head3 wait3; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
cat $OUT/summary.txt
for t in base1 head1 wait1 base2 head2 wait2 base3 head3 wait3; do echo "== $t"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_$t.md | grep -v "csr_scalar\|csr_vector\|^|---\|^| format\|^$" | awk -F'|' '{printf "%s %s %s; ", $2, $3, $4}'; echo; done
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
