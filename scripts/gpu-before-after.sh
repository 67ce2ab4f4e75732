#!/usr/bin/env bash
# On the GPU machine: the same benchmark with two builds, in one run, to show a change left the
# figures alone (or what it moved). BEFORE is a source tree of the earlier commit (e.g.
# `git archive BASE | tar -x -C .wt-before`, carried); the working tree is "after".
#   BEFORE=.wt-before MATRICES='stencil27_150 powerlaw_8000000 reservoir_bs7_66' \
#     REPS=30 scripts/gpu-before-after.sh
# Both trees build at once (half the cores each); the matrices then alternate between the two
# binaries (before, after, before, ...) so drift in the machine hits both. Writes
# before_<m>.json / after_<m>.json under $OUT and prints, per matrix and format, the two
# SpMV times and their ratio.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
. scripts/gpu-env.sh
before=${BEFORE:?BEFORE: a source tree of the earlier commit}
jobs=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
build() {  # build SOURCE DIR
  (cd "$1" && cmake -S . -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPMVKIT_CUDA=ON \
     -DSPMVKIT_CUDA_ARCHS=90 -DSPMVKIT_TESTS=OFF > "$2.log" 2>&1 &&
   cmake --build "$2" -j "$jobs" --target spmvkit_cli >> "$2.log" 2>&1) ||
    { grep -E 'error|FAILED' "$1/$2.log" | head -20; return 1; }
}
t0=$(date +%s)
build "$before" build-before & b1=$!
build . build-after & b2=$!
wait $b1 || exit 1
wait $b2 || exit 1
echo "builds: $(( $(date +%s) - t0 ))s"
for m in ${MATRICES:-stencil27_150 powerlaw_8000000 reservoir_bs7_66}; do
  for side in before after; do
    bin=build-after/spmvkit
    [ "$side" = before ] && bin=$before/build-before/spmvkit
    $bin bench "$m" --backend cuda --reps "${REPS:-30}" --json "$OUT/${side}_$m.json" \
      > "/tmp/${side}_$m.txt" 2>&1 || { echo "$side $m: rc=$?"; tail -3 "/tmp/${side}_$m.txt"; }
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print(f"{'matrix':<20} {'format':<20} {'before_ms':>10} {'after_ms':>10} {'after/before':>12}")
for f in sorted(glob.glob(os.path.join(out, "before_*.json"))):
    m = os.path.basename(f)[len("before_"):-len(".json")]
    a = os.path.join(out, f"after_{m}.json")
    if not os.path.exists(a):
        continue
    rb = {r["format"]: r for r in json.load(open(f))["results"]}
    ra = {r["format"]: r for r in json.load(open(a))["results"]}
    for fmt, r in rb.items():
        s = ra.get(fmt)
        if not s or r["status"] != "ok" or s["status"] != "ok":
            print(f"{m:<20} {fmt:<20} {r['status'][:10]:>10} {(s or {}).get('status', 'missing')[:10]:>10}")
            continue
        print(f"{m:<20} {fmt:<20} {r['spmv_ms']:10.4f} {s['spmv_ms']:10.4f} {s['spmv_ms'] / r['spmv_ms']:12.3f}")
PY
