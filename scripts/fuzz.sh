#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: Debian's clang, AddressSanitizer + UBSan) into
# build-fuzz/ and runs each for a fixed number of executions:
#   scripts/fuzz.sh [RUNS] [TARGET ...]     RUNS default 200000; targets default: all three
#     fuzz_matrix_market     the Matrix Market reader on raw bytes (plain, and gzip by magic)
#     fuzz_matrix_market_gz  the same on gzip-compressed bytes
#     fuzz_names             generator names, --params values, --reorder values
# Seeds: fuzz/seeds/, the bundled tests/data matrices, fuzz/regressions/ and the small files of
# $SPMVKIT_MATRICES or ../shared/matrices. A finding (crash, sanitizer report, timeout,
# memory blow-up) stops that target with a non-zero exit and leaves the input in
# build-fuzz/findings/: add it under fuzz/regressions/TARGET/ (tests/core replays them).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200000}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_matrix_market fuzz_matrix_market_gz fuzz_names)

# Debian's clang and its sanitizer/fuzzer runtimes (the default version's metapackages).
scripts/deps.sh clang libclang-rt-dev

CXX=clang++ cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" > build-fuzz/build.log 2>&1 ||
  { grep -E 'error|FAILED' build-fuzz/build.log | head -20; exit 1; }

shared=${SPMVKIT_MATRICES:-../shared/matrices}
mkdir -p build-fuzz/findings
status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus"
  case $t in
    fuzz_names) seeds=(fuzz/seeds/names fuzz/regressions/names); max_len=256 ;;
    *)
      seeds=(fuzz/seeds/matrix_market fuzz/regressions/matrix_market)
      max_len=65536
      cp -n tests/data/*.mtx "$corpus/" 2>/dev/null || true
      [ -d "$shared" ] && find "$shared" -maxdepth 1 -name '*.mtx' -size -64k -exec cp -n {} "$corpus/" \;
      ;;
  esac
  t0=$(date +%s)
  if build-fuzz/"$t" "$corpus" "${seeds[@]}" -runs="$runs" -max_len=$max_len -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix=build-fuzz/findings/"$t"- -print_final_stats=1 \
      > build-fuzz/"$t".log 2>&1; then
    execs=$(grep -E '^stat::number_of_executed_units' build-fuzz/"$t".log | awk '{print $2}')
    echo "$t: $execs executions in $(( $(date +%s) - t0 )) s, no finding"
  else
    echo "$t: FINDING after $(( $(date +%s) - t0 )) s (log build-fuzz/$t.log):"
    grep -E 'SUMMARY|ERROR|Test unit written' build-fuzz/"$t".log | head -5
    status=1
  fi
done
exit $status
