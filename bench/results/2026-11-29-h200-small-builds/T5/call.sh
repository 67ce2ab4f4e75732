# T5 (1 GPU): auto's small setups traced (SPMVKIT_BUILD_PROFILE=trace: features, choose, pick),
# beside csr3 and cuSPARSE, three processes.
export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
[ -x build-gpu/spmvkit ] || GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit
for r in 1 2 3; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$r.tsv build-gpu/spmvkit bench bcsstk13 rajat01 Groebner_id2003_aug --formats auto,csr3,cusparse_csr_alg1 \
    --setup-reps 15 --reps 20 --backend cuda --json $OUT/bench_$r.json > $OUT/bench_$r.txt 2> $OUT/trace_$r.txt
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], " ".join("%s/%s=%.3f/%s" % (r["matrix"][:6], r["format"], r["setup_ms"], "%.2f" % r["setup_vs_peer_paired"] if r.get("setup_vs_peer_paired") else "-") for r in d["results"]))' $OUT/bench_$r.json $r
done
grep "build-trace: auto " $OUT/trace_1.txt | head -40
cd $OUT && gzip -9 *.json trace_*; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
