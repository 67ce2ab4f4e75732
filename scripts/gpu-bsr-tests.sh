#!/usr/bin/env bash
# Device helper for BSR work: build, BSR GPU tests, optional tune + bsr-all bench.
#   TUNE="2-9" PRECISION=f64 BENCH=1 scripts/gpu-bsr-tests.sh   (PRECISION: f64, f32 or both)
# Writes under $OUT: bsr_tests.txt, tune.txt, defaults.cpp, bench_bsr_all.{txt,json}.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
export SPMVKIT_TUNING_FILE=/tmp/tuning.tsv
rm -f /tmp/tuning.tsv
gpu_build build-gpu "" spmvkit_cli spmvkit_formats_tests || exit 1
T=build-gpu/tests/spmvkit_formats_tests
t0=$(date +%s)
$T --gtest_filter="${FILTER:-*bsr*:*Bsr*}" > $OUT/bsr_tests.txt 2>&1
echo "bsr tests rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests? ran" $OUT/bsr_tests.txt | head -5
grep -B2 -A12 Failure $OUT/bsr_tests.txt | head -40
if [ -n "${TUNE:-}" ]; then
  cp formats/bsr/bsr_tuning_defaults.cpp $OUT/defaults.cpp
  t0=$(date +%s)
  build-gpu/spmvkit tune bsr --block-sizes "$TUNE" --precision "${PRECISION:-f64}" --emit-defaults $OUT/defaults.cpp > $OUT/tune.txt 2>&1
  echo "tune rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "^  (k1|k2|k3|tma):|autotune: bs" $OUT/tune.txt | awk '/autotune: bs/{printf "\n%s %s ",$3,$4} /^  (k1|k2|k3|tma)/{printf "| %s %s %s ", $1,$(NF-1),$6}'; echo
fi
if [ "${BENCH:-0}" = 1 ]; then
  t0=$(date +%s)
  build-gpu/spmvkit bench bsr-all --backend cuda --formats bsr,cusparse_bsr,cusparse_bsrmv \
    --json $OUT/bench_bsr_all.json > $OUT/bench_bsr_all.txt 2>&1
  echo "bench rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "ceiling|^reservoir.* bsr " $OUT/bench_bsr_all.txt | awk '{print $1, $5, $(NF-4), $(NF-3)}' | head -40
fi
