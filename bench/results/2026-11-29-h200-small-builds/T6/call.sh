# T6 (1 GPU): auto hands the registry's upload to a pick that keeps a CSR. Everything built;
# the device-build, select and cuSPARSE-peer GPU tests; then the small matrices' setup (auto,
# csr_vector, csr3 and cuSPARSE) in three processes and the csr suite's big two (auto only).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
(cd build-gpu && timeout 300 tests/spmvkit_select_tests > $OUT/select_tests.txt 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt)
(cd build-gpu && timeout 300 tests/spmvkit_formats_tests --gtest_filter='DeviceBuild.*:*cusparse*:*Cusparse*' > $OUT/formats_tests.txt 2>&1; echo "formats tests rc=$?" >> $OUT/summary.txt)
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|tests ran" $OUT/select_tests.txt $OUT/formats_tests.txt | head -30 >> $OUT/summary.txt
for r in 1 2 3; do
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$r.tsv build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --formats auto,csr_vector,csr3,cusparse_csr_alg1 \
    --setup-reps 15 --reps 20 --backend cuda --json $OUT/bench_$r.json > $OUT/bench_$r.txt 2> $OUT/bench_$r.err
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], " ".join("%s/%s=%.3f/%s/peak%d" % (r["matrix"][:6], r["format"], r["setup_ms"], "%.2f" % r["setup_vs_peer_paired"] if r.get("setup_vs_peer_paired") else "-", r.get("build_peak_bytes") or 0) for r in d["results"]))' $OUT/bench_$r.json $r >> $OUT/summary.txt
done
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_big.tsv timeout 200 build-gpu/spmvkit bench powerlaw_8000000 --formats auto,cusparse_csr_alg1 --setup-reps 3 --reps 20 --backend cuda --json $OUT/bench_big.json > $OUT/bench_big.txt 2> $OUT/bench_big.err
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("big", " ".join("%s/%s setup=%.2f peak=%d fmt=%d spmv=%.4f" % (r["matrix"][:9], r["format"], r["setup_ms"], r.get("build_peak_bytes") or 0, r.get("format_bytes") or 0, r["spmv_ms"]) for r in d["results"]))' $OUT/bench_big.json >> $OUT/summary.txt
echo "done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
