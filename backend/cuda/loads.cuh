// Global loads with the cache policy of their access pattern.
//
// The matrix stream (values, column and row indices: read once per apply) comes in two kinds:
//   Cache::streaming  __ldcs: L1 and L2 with evict-first priority;
//   Cache::global     __ldcg: L2 only (not L1).
// Which is faster depends on the kernel (H100, bench/results/2026-11-23-h100-bsr-whole): streaming
// for the balanced CSR tiles (powerlaw_8000000 0.830 against 0.883 ms), global for BSR K2
// (reservoir_bs7_66 0.301 against 0.308 ms). Loads that skip L1 through the non-coherent path
// (ld.global.nc.L1::no_allocate) were slower everywhere (0.94 ms on powerlaw_8000000), and so
// were x gathers with L1/L2 evict-last policies (bench/results/2026-11-23-h100-bsr-whole).
#pragma once

#include <cuda_runtime.h>

namespace spmvkit::cuda {

enum class Cache { streaming, global };

template <Cache C, class T>
__device__ __forceinline__ T ld_stream(const T* p) {
  if constexpr (C == Cache::global)
    return __ldcg(p);
  else
    return __ldcs(p);
}

}  // namespace spmvkit::cuda
