#!/usr/bin/env bash
# compute-sanitizer over the GPU tests, on the GPU machine (needs the carried .deps/):
#   TOOLS='memcheck racecheck initcheck synccheck' SHARDS=4 FILTER='gtest filter' \
#     SANITIZE_LOGS=/tmp/sanitize (the shards' logs; another folder for a concurrent run) \
#     SANITIZE_TIMES='an earlier sweep's logs folder or sanitize_logs.tgz ...' \
#     TESTS='formats solvers' scripts/gpu-sanitize.sh
# FILTER_<program> and SHARDS_<program> (e.g. FILTER_solvers, SHARDS_formats) override FILTER
# and SHARDS for one test program.
# Builds the tests without dynamic parallelism (SPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF) in
# build-nodp/: racecheck checks nothing in a program that holds a device-side launch (suraa's
# G1 then runs its static kernel). Each tool first runs on its deliberate defect
# (scripts/sanitizer_probes.cu) and the sweep stops unless the tool reports it. Then every tool
# runs over each test program, its tests dealt over SHARDS processes, all tools and shards at
# once (with several GPUs, the processes dealt over them in turn). The dealing
# (scripts/sanitize_plan.py) puts the longest tests first, each into the least loaded process,
# by their times in SANITIZE_TIMES (equal times without it): a few tests take minutes under a
# tool, and gtest's own sharding had piled them into the same shards (2026-11-27: 4 of 14
# shards unfinished after 470 s while others had ended). Each process reads its list from a
# gtest flag file (a list as an argument could pass Linux's 128 KB limit on one).
# racecheck checks our kernels, not those of NVIDIA's libraries (CUB's, cuSPARSE's, cuBLAS's:
# the other three tools still run them): on one H100 (2026-11-27) CUB's shared-memory sorts
# made a BSR test take 110 s under racecheck, 22 s without them; RACECHECK_ALL=1 checks every
# kernel.
# Writes one <tool>.txt under $OUT (every shard's output, in order) and prints a table: tool x
# tests: passed, failed, errors, shards that ran to the end.
# The logs also come back as $OUT/sanitize_logs.tgz: unpacked into SANITIZE_LOGS on another
# machine, a RESUME=1 round there goes on from them (at the same commit).
# RESUME=1 (on the same machine, the logs of the calls before still there) runs a further round:
# each tool and program only over the tests that no earlier round finished (passed or failed),
# and the table counts every round. A sweep longer than one device call is then several calls
# of this script at one commit.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
logs=${SANITIZE_LOGS:-/tmp/sanitize}  # one folder a concurrent run
[ "${RESUME:-0}" = 1 ] || rm -rf "$logs"
mkdir -p "$logs"
round=$(( $(find "$logs" -maxdepth 1 -name 'round_*' | wc -l) + 1 ))
touch "$logs/round_$round"
. scripts/gpu-env.sh
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
tools=(${TOOLS:-memcheck racecheck initcheck synccheck})
tests=(${TESTS:-formats solvers})
shards=${SHARDS:-4}
# racecheck's exclusions (substrings of mangled names): CUB's and cuSPARSE's kernels, in
# namespaces cub and cusparse, cuSPARSE's legacy bsrmv kernels (bsrmv_small_core and the like,
# the cusparse_bsrmv peer; its 18 warnings were the only reports of the 2026-11-27 sweep), and
# cuBLAS's (the reference solvers' BLAS-1 calls), whose parameters are cublas*Params types;
# ours are in namespace spmvkit and name none of these. RACECHECK_ALL=1 checks them too.
racecheck_exclude=()
for k in _ZN3cub _ZN8cusparse bsrmv cublas; do
  racecheck_exclude+=(--kernel-name-exclude "kns=$k")
done
[ "${RACECHECK_ALL:-0}" = 1 ] && racecheck_exclude=()
# Every test: CPU-only cases cost nothing under the tools (they only watch the GPU). The
# out-of-memory tests are left out: they make allocations fail on purpose, which memcheck
# reports as API errors.
filter=${FILTER:-*:-CudaOutOfMemory.*}

# remaining_tests EXE FILTER LOG_PREFIX: the full names of EXE's tests under FILTER that no log
# LOG_PREFIX*.txt shows finished (passed, failed or skipped), a line each.
remaining_tests() {
  local finished
  finished=$(cat "$3"*.txt 2>/dev/null |
    grep -aE '^\[ {7}OK \]|^\[  (FAILED|SKIPPED) \] .*\([0-9]+ ms\)$' |
    sed -E 's/^\[[^]]*\] ([^ ]+) .*/\1/' | sort -u)
  "$1" --gtest_list_tests --gtest_filter="$2" | awk '
    /^[^ ]/ { suite = $1; next }
    /^  / { print suite $1 }' | sort -u | comm -23 - <(printf '%s\n' "$finished" | sed '/^$/d')
}
nvcc -arch=sm_90 -lineinfo -o "$logs/probes" scripts/sanitizer_probes.cu || exit 1
for tool in "${tools[@]}"; do
  report=$("$CS" --tool "$tool" --error-exitcode 9 "$logs/probes" "$tool" 2>&1)
  if ! grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]|Race reported" <<< "$report"; then
    echo "$tool did not report its deliberate defect: its results here would mean nothing"
    echo "$report" | tail -5
    exit 1
  fi
  echo "$tool probe: defect reported (the tool works here)"
done

targets=()
for t in "${tests[@]}"; do targets+=("spmvkit_${t}_tests"); done
gpu_build build-nodp -DSPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF "${targets[@]}" || exit 1
t0=$(date +%s)
pids=()
# Several GPUs (CUDA_VISIBLE_DEVICES or all the machine has): process i on GPU i mod G, so
# every GPU gets a share of each tool (racecheck's processes are the slow ones).
IFS=, read -ra gpu_ids <<< "${CUDA_VISIBLE_DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | paste -sd,)}"
[ ${#gpu_ids[@]} -gt 0 ] || gpu_ids=(0)
pi=0
for tool in "${tools[@]}"; do
  for t in "${tests[@]}"; do
    exe=build-nodp/tests/spmvkit_${t}_tests
    [ -x "$exe" ] || continue
    f_var=FILTER_$t s_var=SHARDS_$t
    # The tests no earlier round finished (passed, failed or skipped; every test in round 1),
    # dealt over at most SHARDS processes by their expected times; none when every test finished.
    remaining_tests "$exe" "${!f_var:-$filter}" "$logs/${tool}_${t}_" > "$logs/remaining_${tool}_$t"
    mapfile -t lists < <(python3 scripts/sanitize_plan.py deal "${!s_var:-$shards}" "$tool" "$t" \
      ${SANITIZE_TIMES:-} "$logs" < "$logs/remaining_${tool}_$t")
    n=${#lists[@]}
    for ((s = 0; s < n; ++s)); do
      gpu=${gpu_ids[$((pi % ${#gpu_ids[@]}))]}
      pi=$((pi + 1))
      # synccheck reports every block barrier inside a WHILE conditional node as divergent
      # (scripts/sync_while_probe.cu), and racecheck ends the process of a merged solve in
      # WHILE graphs (SolverMergedCuda.DeviceLoopStopsExactly, after 6 s, "process didn't
      # terminate successfully"; one H100, 2026-11-27; it passes in 24 s with the unrolled
      # graphs): under these two the merged solvers run their unrolled graphs. memcheck and
      # initcheck check the WHILE graphs.
      graphs=while
      [ "$tool" = synccheck ] || [ "$tool" = racecheck ] && graphs=unrolled
      # racecheck leaves NVIDIA's library kernels (CUB's, cuSPARSE's, cuBLAS's) alone: CUB's
      # shared-memory sorts made a test 5x slower under it (the header).
      tool_opts=()
      [ "$tool" = racecheck ] && tool_opts=("${racecheck_exclude[@]}")
      flags=$logs/${tool}_${t}_r${round}_$s.flags
      printf -- '--gtest_filter=%s\n' "${lists[$s]}" > "$flags"
      SPMVKIT_SOLVER_GRAPHS=$graphs CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=1 \
        timeout "${TOOL_TIMEOUT:-480}" "$CS" --tool "$tool" "${tool_opts[@]}" --print-limit 20 \
        "$exe" --gtest_flagfile="$flags" > "$logs/${tool}_${t}_r${round}_$s.txt" 2>&1 &
      pids+=($!)
    done
  done
done
wait "${pids[@]}"
echo "sweep round $round: $(( $(date +%s) - t0 ))s, ${#pids[@]} processes"
# errors: memcheck's, initcheck's and synccheck's reports, racecheck's hazards it calls errors;
# warnings: racecheck's hazards it calls warnings (the result may not depend on the order).
printf '%-10s %-8s %8s %8s %8s %8s %8s %s\n' tool tests passed failed errors warnings dp_warn \
  complete
for tool in "${tools[@]}"; do
  for t in "${tests[@]}"; do
    files=("$logs/${tool}_${t}_"*.txt)
    [ -e "${files[0]}" ] || continue
    passed=$(cat "${files[@]}" | grep -cE '^\[       OK \]')
    failed=$(cat "${files[@]}" | grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$')
    # The summary lines, not their "N errors were not printed" twins (counted twice before).
    read -r errors warnings < <(cat "${files[@]}" |
      grep -E '(ERROR|RACECHECK) SUMMARY: [0-9]+' | grep -v 'not printed' | awk '
        /RACECHECK/ { s = $0; sub(/.*\(/, "", s); split(s, n, /[ ,]+/); e += n[1]; w += n[3]; next }
        { e += $4 }
        END { print e + 0, w + 0 }')
    dp=$(cat "${files[@]}" | grep -c 'Dynamic Parallelism is not supported')
    complete=$(cat "${files[@]}" | grep -cE '^\[==========\] .* ran')
    printf '%-10s %-8s %8s %8s %8s %8s %8s %s/%s\n' "$tool" "$t" "$passed" "$failed" "$errors" \
      "$warnings" "$dp" "$complete" "${#files[@]}"
  done
done
# Where the reports point: the kernels (or API calls) named in their first lines, with counts
# (cuSPARSE's own kernels, reached through the peer formats, are named cusparse::... or, from
# its legacy API, bsrmv_small_core and the like).
for tool in "${tools[@]}"; do
  files=("$logs/${tool}_"*.txt)
  [ -e "${files[0]}" ] || continue
  first='^========= (Error|Warning|Invalid|Uninitialized|Barrier|Program hit|Race)'
  named=$(cat "${files[@]}" | grep -E "$first" |
    grep -oE '(access at|in) (void )?[A-Za-z_][A-Za-z_0-9:<>]*' |
    sed -E 's/^(access at|in) (void )?//' | sort | uniq -c | sort -rn | head -12)
  [ -n "$named" ] && { echo "$tool: reports name"; echo "$named"; }
done
for tool in "${tools[@]}"; do
  for f in "$logs/${tool}_"*.txt; do
    [ -e "$f" ] && { echo "==== $(basename "$f")"; cat "$f"; }
  done | gzip > "$OUT/$tool.txt.gz"
done
(cd "$logs" && tar czf "$OUT/sanitize_logs.tgz" --exclude=probes .)
