# R7 (1 GPU): the ELL family's pack on large matrices: 84ea707 (.deps/base2, the strided pack
# loop) against HEAD (the unit-stride loop where the grid does not split), alternating twice, on
# reservoir_bs12_46 and stencil27_150 (--setup-reps 3); the small matrices once each; the
# ELL-family and device-build GPU tests at HEAD.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh; export SPMVKIT_MATRICES=$PWD/.deps/m3
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests > /tmp/head.txt &
(cd .deps/base2 && GPU_BUILD_LOG=/tmp/base.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit > /tmp/base.txt); wait
cat /tmp/head.txt /tmp/base.txt >> $OUT/summary.txt
[ -x build-gpu/spmvkit ] && [ -x .deps/base2/build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log /tmp/base.log | head -30; exit 1; }
L="reservoir_bs12_46 stencil27_150 --backend cuda --formats ell,hyb,hec,cusparse_csr_alg1 --setup-reps 3 --reps 20"
for i in 1 2; do
  SPMVKIT_COMMIT=84ea707 OMP_NUM_THREADS=16 .deps/base2/build-gpu/spmvkit bench $L --json $OUT/bench_large_base$i.json > $OUT/bench_large_base$i.txt 2>&1
  OMP_NUM_THREADS=16 build-gpu/spmvkit bench $L --json $OUT/bench_large_head$i.json > $OUT/bench_large_head$i.txt 2>&1
  echo "large round $i at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
A="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
OMP_NUM_THREADS=16 build-gpu/spmvkit bench $A --json $OUT/bench_small.json > $OUT/bench_small.txt 2>&1
timeout 200 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 --gtest_filter='DeviceBuild*:HostMirror*:*ell*:*Ell*:*hyb*:*Hyb*:*hec*:*Hec*' > $OUT/tests.txt 2>&1
echo "formats tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for t in large_base1 large_head1 large_base2 large_head2 small; do /usr/bin/python3 bench/report.py setup $OUT/bench_$t.json > $OUT/setup_$t.md 2>&1; done
cat $OUT/summary.txt; tail -4 $OUT/tests.txt
for t in large_base1 large_head1 large_base2 large_head2; do echo "== $t"; grep -E "^\| (reservoir|stencil)" $OUT/setup_$t.md | awk -F'|' '{printf "%s %s build %s eq %s; ", $2, $3, $6, $9}'; echo; done
echo "== small"; sed -n '/^| format | worst/,/^$/p' $OUT/setup_small.md
cd $OUT && gzip -9 *.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
