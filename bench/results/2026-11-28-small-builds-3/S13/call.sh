# S13 (1 GPU): the spins' yield (h, HEAD) against 31dc41d (b: this tree with .deps/base13.patch
# reversed, built beside it) where the caller and the upload worker share CPUs: the small
# csr-suite matrices (--setup-reps 15) under taskset -c 3 (one CPU), -c 2,3 (two) and on all 16,
# b then h each, twice.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
rm -rf /tmp/base && mkdir /tmp/base && tar cf - --exclude=./build-gpu --exclude=./.deps . | tar xf - -C /tmp/base
(cd /tmp/base && git apply -R $OLDPWD/.deps/base13.patch && echo "base13.patched" >> $OUT/summary.txt)
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt &
(cd /tmp/base && GPU_BUILD_LOG=/tmp/base.log gpu_build build-base "-DSPMVKIT_TESTS=OFF -DSPMVKIT_MPI=OFF" spmvkit | tee -a $OUT/summary.txt)
wait
[ -x build-gpu/spmvkit ] && [ -x /tmp/base/build-base/spmvkit ] || { grep -E "error" /tmp/build.log /tmp/base.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for round in 1 2; do
  for cpus in 3 2,3 0-15; do
    n=$(taskset -c $cpus nproc)
    for v in b h; do
      bin=build-gpu/spmvkit; [ $v = b ] && bin=/tmp/base/build-base/spmvkit
      OMP_NUM_THREADS=$n taskset -c $cpus $bin bench $S --json $OUT/bench_${v}_${cpus}_$round.json > $OUT/bench_${v}_${cpus}_$round.txt 2>&1
    done
  done
done
echo "bench done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt
/usr/bin/python3 - $OUT <<'PY'
import json, sys, glob, os, statistics
out = sys.argv[1]
for f in sorted(glob.glob(out + "/bench_*.json")):
    d = json.load(open(f))
    ups, ratios = [], []
    for r in d["results"]:
        if r.get("peer") or r.get("upload_ms") is None: continue
        ups.append((r["matrix"][:8], r["format"], r["upload_ms"]))
        if r.get("setup_vs_peer_paired"): ratios.append(r["setup_vs_peer_paired"])
    base = {r["matrix"]: r["setup_ms"] for r in d["results"] if r["format"] == "cusparse_csr_alg1"}
    g = [u for m, f_, u in ups if m == "Groebner"]
    print(os.path.basename(f), "Groebner uploads median %.3f max %.3f" % (statistics.median(g), max(g)),
          "| paired worst %.2f median %.2f" % (max(ratios), statistics.median(ratios)),
          "| cuSPARSE setups", " ".join(f"{v:.3f}" for v in base.values()))
PY
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
