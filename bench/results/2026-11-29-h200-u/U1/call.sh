# U1 (1 GPU): the tree given (1cd7ddb), everything built; the GPU tests of the handles' wait
# (b4ac5a1, never run on a GPU) and of the formats it touches: DeviceBuild, cuSPARSE peers, SELL-P,
# HEC, SURAA, the select tests; then rajat01's small setups traced in 3 processes.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
(cd build-gpu && timeout 200 tests/spmvkit_formats_tests --gtest_filter='DeviceBuild.*:Registry/DeviceBuildTest.*:*usparse*:Sellp*:*sellp*:Hec*:*hec*:Suraa*:*suraa*' > $OUT/format_tests.txt 2>&1; echo "format tests rc=$?" >> $OUT/summary.txt)
(cd build-gpu && timeout 100 tests/spmvkit_select_tests > $OUT/select_tests.txt 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt)
grep -hE "^\[  PASSED|^\[  FAILED|tests ran|SKIPPED \] [0-9]" $OUT/format_tests.txt $OUT/select_tests.txt >> $OUT/summary.txt
echo "tests done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
F=sellp,hec,suraa,suraa_static,csr3,auto,cusparse_csr_alg1
for r in 1 2 3; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --formats $F \
    --setup-reps 15 --reps 20 --backend cuda --json $OUT/bench_$r.json > /dev/null 2> $OUT/trace_$r.txt
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], " ".join("%s/%s=%.3f/%s" % (r["matrix"][:6], r["format"], r["setup_ms"], "%.2f" % r["setup_vs_peer_paired"] if r.get("setup_vs_peer_paired") else "-") for r in d["results"]))' $OUT/bench_$r.json $r >> $OUT/summary.txt
done
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json trace_*; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
