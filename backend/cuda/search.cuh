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

}  // namespace spmvkit::cuda
