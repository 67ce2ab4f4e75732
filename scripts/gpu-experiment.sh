#!/usr/bin/env bash
# One device call for a kernel experiment, on the GPU machine (needs the carried .deps/):
# build the CLI and the format tests, run the GPU tests that FILTER selects, benchmark
# format variants next to cuSPARSE, and optionally profile one kernel with Nsight Compute.
#   FILTER='CsrBalanced.*' MATRICES='powerlaw_8000000 stencil27_150' \
#   FORMATS=csr_balanced,cusparse_csr_alg1 PARAMS='csr_balanced:far_panels=0|far_panels=3' \
#   NCU_KERNEL=csr_balanced_kernel NCU_PARAMS='csr_balanced:far_panels=0;csr_balanced:far_panels=3' \
#   SPMVKIT_COMMIT=<hash> scripts/gpu-experiment.sh
# Writes under $OUT: tests.txt, bench.txt, bench.json and, with NCU_KERNEL, ncu.txt (one line
# of NCU_PARAMS variants separated by ';' profiles each on the first matrix).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
gpu_build build-gpu "" spmvkit_cli spmvkit_formats_tests || exit 1

if [ -n "${FILTER:-}" ]; then
  t0=$(date +%s)
  build-gpu/tests/spmvkit_formats_tests --gtest_filter="$FILTER" > "$OUT/tests.txt" 2>&1
  echo "tests rc=$? $(( $(date +%s) - t0 ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/tests.txt" | head -20
  grep -B2 -A12 Failure "$OUT/tests.txt" | head -40
fi

read -r -a matrices <<< "${MATRICES:-powerlaw_8000000}"
if [ -n "${FORMATS:-}" ]; then
  t0=$(date +%s)
  build-gpu/spmvkit bench "${matrices[@]}" --backend cuda --formats "$FORMATS" \
    ${PARAMS:+--params "$PARAMS"} --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
  echo "bench rc=$? $(( $(date +%s) - t0 ))s"
  cut -c1-200 "$OUT/bench.txt"
fi

if [ -n "${NCU_KERNEL:-}" ]; then
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
  metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  metrics+=,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_active
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  metrics+=,lts__t_sectors_op_read.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed
  metrics+=,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
  IFS=';' read -r -a variants <<< "${NCU_PARAMS:-}"
  : > "$OUT/ncu.txt"
  for v in "${variants[@]:-}"; do
    echo "==== $v" >> "$OUT/ncu.txt"
    "$NCU" --kernel-name "regex:${NCU_KERNEL}" --launch-count 1 --metrics "$metrics" \
      build-gpu/spmvkit bench "${matrices[0]}" --backend cuda --formats "${v%%:*}" \
      ${v:+--params "$v"} --reps 1 --warmup 0 --no-check >> "$OUT/ncu.txt" 2>&1
  done
  grep -E "^====|duration|sectors|wavefronts|tag_requests|fabric|bytes_|requests" "$OUT/ncu.txt" |
    awk '{print $1, $NF}'
fi
