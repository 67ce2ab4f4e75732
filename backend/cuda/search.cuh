// Binary search on the device, and on the host where a rule is shared by both (the balanced
// CSR tiles, formats/common/csr_tiles.hpp): .cpp files may include it (plain inline there).
#pragma once

#include <cstdint>

#include "spmvkit/csr.hpp"

#if defined(__CUDACC__)
#define SPMVKIT_SEARCH_HD __host__ __device__ __forceinline__
#else
#define SPMVKIT_SEARCH_HD inline
#endif

namespace spmvkit::cuda {

// The last r in [lo, hi] with ptr[r] <= k, for a non-decreasing ptr with ptr[lo] <= k: with a
// CSR row pointer and hi = rows - 1, the row holding entry k (empty rows skipped).
SPMVKIT_SEARCH_HD index_t last_at_most(const index_t* __restrict__ ptr, index_t lo, index_t hi,
                                       std::int64_t k) {
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (ptr[mid] <= k)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

#if defined(__CUDACC__)
// last_at_most(ptr, lo, hi, k) in a kernel with a thread an item, k = blockIdx.x * blockDim.x +
// threadIdx.x over [0, n), every thread of the block calling it once (0 past n): thread 0
// searches [lo, hi] for the block's first and last items, then each thread searches only the
// range between (a few rows for a block of entries, in lines the block shares, where a search
// of a whole row pointer takes log2(rows) dependent probes: 23 for 7.2M rows).
static __device__ __forceinline__ index_t block_last_at_most(const index_t* __restrict__ ptr,
                                                             index_t lo, index_t hi, std::int64_t n,
                                                             std::int64_t k) {
  __shared__ index_t range[2];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  if (threadIdx.x == 0 && first < n) {
    range[0] = last_at_most(ptr, lo, hi, first);
    range[1] =
        last_at_most(ptr, range[0], hi, min(first + static_cast<std::int64_t>(blockDim.x), n) - 1);
  }
  __syncthreads();
  return k < n ? last_at_most(ptr, range[0], range[1], k) : 0;
}
#endif

}  // namespace spmvkit::cuda
