# T3 (1 GPU): the small matrices' setup, glibc's malloc as is (d) against a heap that is never
# trimmed nor grown in small steps (t: GLIBC_TUNABLES trim_threshold 1 GiB, top_pad 64 MiB),
# alternating, 5 rounds; the process's minor page faults (/usr/bin/time) beside each.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --setup-reps 15 --reps 20"
run() {  # TAG [ENV...]
  local tag=$1; shift
  env "$@" OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv /usr/bin/python3 -c 'import resource, subprocess, sys, time
t = time.time(); rc = subprocess.call(sys.argv[2:]); r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(sys.argv[1], "rc", rc, "minor faults", r.ru_minflt, "major", r.ru_majflt, "wall %.1f" % (time.time() - t), file=sys.stderr)' $tag \
    build-gpu/spmvkit bench $S --backend cuda --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2> $OUT/bench_$tag.err
  tail -1 $OUT/bench_$tag.err >> $OUT/summary.txt
  /usr/bin/python3 bench/report.py setup $OUT/bench_$tag.json > $OUT/setup_$tag.md 2>&1
}
for r in 1 2 3 4 5; do
  run d$r
  run t$r GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864
done
cat $OUT/summary.txt
/usr/bin/python3 - $OUT <<'PY'
import json, sys, glob, os
out = sys.argv[1]
fmts = ["bsr","bsr_balanced","hec","hyb","sellp","suraa","suraa_static","ell","csr_balanced","auto"]
for f in sorted(glob.glob(out + "/bench_*.json")):
    tag = os.path.basename(f)[6:-5]
    d = json.load(open(f))
    worst = {}
    for r in d["results"]:
        p = r.get("setup_vs_peer_paired")
        if p is None or r["format"] not in fmts: continue
        worst[r["format"]] = max(worst.get(r["format"], 0), p)
    peer = [r["setup_ms"] for r in d["results"] if r["format"] == "cusparse_csr_alg1" and r["matrix"] == "rajat01"]
    print(tag, "peer(rajat01)=%.3f" % peer[0] if peer else "", " ".join("%s=%.2f" % (k, worst[k]) for k in fmts if k in worst))
PY
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
