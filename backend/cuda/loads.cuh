// Global loads with the cache policy of their access pattern.
//
// The matrix stream (values, column and row indices: read once per apply) comes in two kinds:
//   Cache::streaming  __ldcs: L1 and L2 with evict-first priority;
//   Cache::global     __ldcg: L2 only (not L1).
// Which is faster depends on the kernel (H100, bench/results/2026-11-23-h100-hints): streaming
// for the balanced CSR tiles (powerlaw_8000000 0.830 against 0.883 ms), global for BSR K2
// (reservoir_bs7_66 0.301 against 0.308 ms). Loads that skip L1 through the non-coherent path
// (ld.global.nc.L1::no_allocate) were slower everywhere (0.94 ms on powerlaw_8000000).
//
// ld_gather_keep: an x gather whose line L2 should keep (evict-last cache policy), for gathers
// spread over a vector that competes for L2 with other traffic.
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

// One L2 evict-last policy register (createpolicy is pure: the compiler shares it).
__device__ __forceinline__ unsigned long long l2_evict_last_policy() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// Not volatile: the compiler may batch and reorder these like any read-only load.
__device__ __forceinline__ double ld_gather_keep(const double* p) {
  double r;
  asm("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;"
      : "=d"(r)
      : "l"(p), "l"(l2_evict_last_policy()));
  return r;
}
__device__ __forceinline__ float ld_gather_keep(const float* p) {
  float r;
  asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;"
      : "=f"(r)
      : "l"(p), "l"(l2_evict_last_policy()));
  return r;
}

}  // namespace spmvkit::cuda
