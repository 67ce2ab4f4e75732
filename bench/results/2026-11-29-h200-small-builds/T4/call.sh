# T4 (1 GPU, T3's machine): rajat01's small setups in 8 processes under SPMVKIT_BUILD_PROFILE=trace
# (host phases, device done times, page faults, per build), to see where a slow process's
# extra time goes.
export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
[ -x build-gpu/spmvkit ] || GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit
F=csr_balanced,hyb,sellp,hec,suraa_static,suraa,bsr,cusparse_csr_alg1
for r in 1 2 3 4 5 6 7 8; do
  SPMVKIT_BUILD_PROFILE=trace OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$r.tsv build-gpu/spmvkit bench rajat01 --formats $F \
    --setup-reps 15 --reps 20 --backend cuda --json $OUT/bench_$r.json > $OUT/bench_$r.txt 2> $OUT/trace_$r.txt
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], " ".join("%s=%.3f/%s" % (r["format"], r["setup_ms"], "%.2f" % r["setup_vs_peer_paired"] if r.get("setup_vs_peer_paired") else "-") for r in d["results"]))' $OUT/bench_$r.json $r
done
cd $OUT && gzip -9 *.json trace_*; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
