// Binary search on the device (included by .cu files only).
#pragma once

#include <cstdint>

#include "spmvkit/csr.hpp"

namespace spmvkit::cuda {

// The last r in [lo, hi] with ptr[r] <= k, for a non-decreasing ptr with ptr[lo] <= k: with a
// CSR row pointer and hi = rows - 1, the row holding entry k (empty rows skipped).
__device__ __forceinline__ index_t last_at_most(const index_t* __restrict__ ptr, index_t lo,
                                                index_t hi, std::int64_t k) {
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
