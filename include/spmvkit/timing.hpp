// Timing and the bandwidth ceiling, per backend: what the benchmark and the tuners measure
// with. CUDA timings use events on the context stream; CPU timings a steady clock.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "spmvkit/backend.hpp"

namespace spmvkit {

// Runs `fn` `warmup` times untimed, then `reps` times, each timed on its own; returns the
// per-run times in milliseconds.
std::vector<double> time_runs(Backend b, int warmup, int reps, const std::function<void()>& fn);

// Per-apply times of `fn` (one apply, e.g. an SpMV): after `warmup` untimed runs, `reps`
// samples. An apply of at least `min_sample_ms` is timed alone (time_runs); a shorter one in
// batches queued back to back, each sample a batch divided by its size, the batch as many
// applies as make `min_sample_ms` (at most 1000) by an estimate from batches of 8. Timed
// alone, a microsecond apply's sample holds the gap while the host launches it: on an H100
// the same 5 us csr_vector product timed 5.4 and 5.8 us in one run, and auto's tuning, timing
// one apply to size its batches, measured 42-46 us for 5-10 us products while four benchmark
// processes shared the host.
std::vector<double> time_applies(Backend b, int warmup, int reps, const std::function<void()>& fn,
                                 double min_sample_ms = 0.05);

// Median of a sample (the figure every report quotes).
double median(std::vector<double> v);

// The device's read-bandwidth ceiling in GB/s (1e9 bytes/s): a read-only pass over `bytes`
// (several times the last-level cache). On the GPU 16-byte loads, median of several runs; on
// the CPU every OpenMP thread, fastest of several passes.
double measure_read_bandwidth_gbs(Backend b, std::size_t bytes = std::size_t{2} << 30);

// Last-level cache size in bytes (L2 on the GPU, L3 or else L2 on the CPU; 0 when unknown).
std::size_t last_level_cache_bytes(Backend b);

}  // namespace spmvkit
