# S12 (1 GPU): where a small build's upload runs slow. The small csr-suite matrices 8 times
# (--setup-reps 15), each run under .deps/tools/thread_sampler.py (each thread's CPU, the CPUs'
# steal time); the upload worker thread is named spmvkit-upload.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=16
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
nproc >> $OUT/summary.txt; lscpu >> $OUT/lscpu.txt 2>&1
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
S="bcsstk13 rajat01 Groebner_id2003_aug --backend cuda --setup-reps 15 --reps 20"
for r in 1 2 3 4 5 6 7 8; do
  /usr/bin/python3 .deps/tools/thread_sampler.py $OUT/run$r build-gpu/spmvkit bench $S --json $OUT/bench_$r.json > $OUT/bench_$r.txt 2>&1
  echo "run $r rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
done
cat $OUT/summary.txt
for r in 1 2 3 4 5 6 7 8; do
  /usr/bin/python3 - $OUT/bench_$r.json $OUT/run$r <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
slow = [(r["matrix"][:8], r["format"], r["upload_ms"]) for r in d["results"]
        if r.get("upload_ms") and r["matrix"].startswith("Groeb")]
print(" ".join(f"{f}={u:.2f}" for m, f, u in slow))
cpus = collections.Counter()
for line in open(sys.argv[2] + ".threads.tsv"):
    p = line.split("\t")
    if len(p) == 5 and p[2] == "spmvkit-upload":
        cpus[p[3]] += 1
main = collections.Counter(l.split("\t")[3] for l in open(sys.argv[2] + ".threads.tsv")
                           if l.count("\t") == 4 and l.split("\t")[2] == "spmvkit")
st = [l.split() for l in open(sys.argv[2] + ".steal.tsv")]
print("  upload worker on cpus", dict(cpus), "| main on", dict(main), "| steal", " ".join(f"{c[0][3:]}:{c[3]}" for c in st if int(c[3]) > 0))
PY
done
cd $OUT && gzip -9 *.json *.tsv; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
