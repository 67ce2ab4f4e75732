#include "spmvkit/timing.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif

namespace spmvkit {

#if SPMVKIT_HAVE_CUDA
namespace cuda {
std::vector<double> time_runs_cuda(int warmup, int reps, const std::function<void()>& fn);
double read_bandwidth_gbs_cuda(std::size_t bytes);
}  // namespace cuda
#endif

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + mid));
}

std::vector<double> time_runs(Backend b, int warmup, int reps, const std::function<void()>& fn) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return cuda::time_runs_cuda(warmup, reps, fn);
#endif
  (void)b;
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  ms.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

std::vector<double> time_applies(Backend b, int warmup, int reps, const std::function<void()>& fn,
                                 double min_sample_ms) {
  constexpr int kMaxBatch = 1000;
  constexpr int kProbe = 8;  // the estimate's batch: one apply timed alone holds the launch gap
  auto batched = [&](int batch, int warm, int runs) {
    std::vector<double> ms = time_runs(b, warm, runs, [&] {
      for (int i = 0; i < batch; ++i) fn();
    });
    for (double& t : ms) t /= batch;
    return ms;
  };
  const double alone = median(time_runs(b, warmup, 1, fn));
  if (alone >= min_sample_ms) return time_runs(b, 0, reps, fn);
  const double once = median(batched(kProbe, 0, 3));
  const int batch = static_cast<int>(
      std::min<double>(kMaxBatch, std::ceil(min_sample_ms / std::max(once, 1e-6))));
  return batch <= 1 ? time_runs(b, 0, reps, fn) : batched(batch, 0, reps);
}

double measure_read_bandwidth_gbs(Backend b, std::size_t bytes) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return cuda::read_bandwidth_gbs_cuda(bytes);
#endif
  (void)b;
  // CPU: a read-only pass over `bytes` by every OpenMP thread, each reading the part it first
  // touched (its NUMA node's pages). Integer sums vectorise without reassociation flags, and
  // four words a step keep several adds in flight, so the loop is bound by memory; the sums go
  // to a volatile sink, so the reads cannot be optimised away. The ceiling is the fastest of 10
  // passes after 2 warm-up: a pass is only ever slowed (by other processes, by frequency
  // changes), so the fastest is the closest to what the memory delivers.
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(std::uint64_t) / 4 * 4, 4);
  std::unique_ptr<std::uint64_t[]> data(new std::uint64_t[n]);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) data[i] = i & 7;
  volatile std::uint64_t sink = 0;
  const std::size_t quads = n / 4;
  const auto ms = time_runs(Backend::cpu, 2, 10, [&] {
    std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::size_t q = 0; q < quads; ++q) {
      const std::uint64_t* p = data.get() + 4 * q;
      sum += (p[0] + p[1]) + (p[2] + p[3]);
    }
    sink = sink + sum;
  });
  return static_cast<double>(n * sizeof(std::uint64_t)) /
         (*std::min_element(ms.begin(), ms.end()) * 1e-3) / 1e9;
}

std::size_t last_level_cache_bytes(Backend b) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda && cuda_available())
    return static_cast<std::size_t>(cuda::Context::get().props().l2CacheSize);
#endif
  (void)b;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<std::size_t>(l3);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) return static_cast<std::size_t>(l2);
#endif
  return 0;
}

}  // namespace spmvkit
