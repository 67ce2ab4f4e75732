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

// Median of a sample (the figure every report quotes).
double median(std::vector<double> v);

// The device's read-bandwidth ceiling in GB/s (1e9 bytes/s): a read-only pass over `bytes`
// (several times the last-level cache). On the GPU 16-byte loads, median of several runs; on
// the CPU every OpenMP thread, fastest of several passes.
double measure_read_bandwidth_gbs(Backend b, std::size_t bytes = std::size_t{2} << 30);

// Last-level cache size in bytes (L2 on the GPU, L3 or else L2 on the CPU; 0 when unknown).
std::size_t last_level_cache_bytes(Backend b);

}  // namespace spmvkit
