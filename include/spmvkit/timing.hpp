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
// samples, each a batch of applies queued back to back and divided by the batch, the batch as
// many applies as make a sample at least `min_sample_ms` (at most 1000; 1, time_runs itself,
// for an apply that long). Timed alone, a microsecond apply's sample holds the gap while the
// host launches it: on an H100, the same 5 us csr_vector product timed 5.4 and 5.8 us in one
// run, and one format 4.5 to 22 us over 100 samples. Batched, the device runs the applies back
// to back, as in a solver.
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
