#!/usr/bin/env bash
# The one command to run on the GPU machine: build for Hopper, run every test (GPU cases
# included), run benchmark suites, write logs + JSON under $OUT and print a compact table last.
#   scripts/gpu-check.sh [SUITE ...]        (default suite: smoke; none: no benchmark)
#   SKIP_TESTS=1 BENCH_ARGS='--params auto:tune=0|tune=1' scripts/gpu-check.sh auto csr ell
#                                            format=auto model-only and tuned against the oracle
#                                            (auto_oracle.md / .svg in $OUT)
# Needs the carried folder .deps/ (CLI11 + nlohmann-json .debs, a copy of the shared matrices).
# Env: SPMVKIT_COMMIT (commit reported in results: give the hash from the developer machine,
#      the device's copy of .git can be stale), SKIP_TESTS=1, SKIP_BUILD=1, BENCH_ARGS,
#      BUILD_TARGETS (ninja targets, default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(smoke)
export NCCL_NVLS_ENABLE=0
. scripts/gpu-env.sh
export SPMVKIT_TUNING_FILE=${SPMVKIT_TUNING_FILE:-$OUT/tuning.tsv}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2086  # BUILD_TARGETS holds several names
  GPU_BUILD_LOG=$OUT/build.log gpu_build build-gpu "" ${BUILD_TARGETS:-} || exit 1
fi

summary="$OUT/summary.txt"
: > "$summary"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # The GoogleTest programs in gtest shards over the GPUs, failures re-run alone, then the
  # out-of-memory program alone and the rest under ctest (scripts/gpu_tests.py says why).
  python3 scripts/gpu_tests.py build-gpu "$OUT" > "$OUT/tests.txt" 2>&1
  echo "tests: rc=$?" | tee -a "$summary"
  tee -a "$summary" < "$OUT/tests.txt"
fi

for s in "${suites[@]}"; do
  [ "$s" = none ] && continue
  t0=$(date +%s)
  build-gpu/spmvkit bench "$s" --backend cuda --json "$OUT/bench_$s.json" ${BENCH_ARGS:-} \
    > "$OUT/bench_$s.txt" 2>&1
  echo "bench $s: rc=$? in $(( $(date +%s) - t0 ))s" >> "$summary"
  cat "$OUT/bench_$s.txt" >> "$summary"
done
# format=auto against the oracle and cuSPARSE, over the suites just run (docs/select.md).
if grep -qs '"oracle": "[a-z]' "$OUT"/bench_*.json && command -v python3 > /dev/null; then
  python3 bench/report.py oracle "$OUT"/bench_*.json --svg "$OUT/auto_oracle.svg" \
    > "$OUT/auto_oracle.md" 2>&1
  sed -n '/^| variant/,$p' "$OUT/auto_oracle.md" >> "$summary"
fi
# The setup split of every format (issue 24): upload and build ms, SpMV-equivalents, peak
# device memory, setup against cuSPARSE CSR's on the same matrix.
jsons=()
for s in "${suites[@]}"; do [ -f "$OUT/bench_$s.json" ] && jsons+=("$OUT/bench_$s.json"); done
if [ ${#jsons[@]} -gt 0 ]; then
  python3 bench/report.py setup "${jsons[@]}" > "$OUT/setup_table.md" 2>&1
  { echo "setup table ($OUT/setup_table.md):"; cat "$OUT/setup_table.md"; } >> "$summary"
fi
echo "==== summary ===="
cat "$summary"
