#!/usr/bin/env bash
# compute-sanitizer over the GPU tests, on the GPU machine (needs the carried .deps/).
#   FILTER='gtest filter' TOOLS='memcheck racecheck' scripts/gpu-sanitize.sh
# Builds the tests without dynamic parallelism (SPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF) in
# build-nodp/: racecheck checks nothing in a program that holds a device-side launch. First
# runs racecheck on scripts/racecheck_probe.cu (a race on purpose) and stops unless it is
# reported. Writes <tool>.txt under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

nvcc -arch=sm_90 -o /tmp/racecheck_probe scripts/racecheck_probe.cu || exit 1
probe=$("$CS" --tool racecheck /tmp/racecheck_probe 2>&1)
if ! grep -q "Race reported" <<< "$probe"; then
  echo "racecheck did not report the probe's race: its results would mean nothing"; exit 1
fi
echo "racecheck probe: race reported (the tool works here)"

gpu_build build-nodp -DSPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF spmvkit_formats_tests || exit 1
T=build-nodp/tests/spmvkit_formats_tests
for tool in ${TOOLS:-memcheck racecheck}; do
  t0=$(date +%s)
  timeout "${TOOL_TIMEOUT:-400}" "$CS" --tool "$tool" "$T" --gtest_filter="${FILTER:-*uraa*}" \
    > "$OUT/$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - t0 ))s"
  grep -E "^\[  (PASSED|FAILED) |tests? ran|SUMMARY|Warning" "$OUT/$tool.txt" | sort | uniq -c
done
