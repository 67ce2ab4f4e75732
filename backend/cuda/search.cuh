// Binary search on the device, and on the host where a rule is shared by both (the balanced
// CSR tiles, formats/common/csr_tiles.hpp): .cpp files may include it (plain inline there).
#pragma once

#include <cstdint>
#include <vector>

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
// last_at_most(ptr, lo, hi, k) by the 32 lanes of a warp together, every lane calling it with
// the same arguments and getting the answer: each step the lanes probe 32 evenly spaced points
// of [lo, hi] and keep the gap after the last one <= k, so 7.2M rows take 5 dependent probes
// instead of 23.
static __device__ __forceinline__ index_t warp_last_at_most(const index_t* __restrict__ ptr,
                                                            index_t lo, index_t hi,
                                                            std::int64_t k) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  while (lo < hi) {
    const index_t step = static_cast<index_t>((std::int64_t{hi} - lo + 32) / 32);
    const std::int64_t q = std::int64_t{lo} + std::int64_t{lane} * step;
    const unsigned below = __ballot_sync(0xffffffffu, q <= hi && ptr[q] <= k);
    if (below == 0) return lo;  // ptr[lo] > k: last_at_most answers lo too
    const index_t next = static_cast<index_t>(lo + std::int64_t{31 - __clz(below)} * step);
    hi = static_cast<index_t>(min(std::int64_t{next} + step - 1, std::int64_t{hi}));
    lo = next;
  }
  return lo;
}

// last_at_most(ptr, lo, hi, k) in a kernel with a thread an item, k = blockIdx.x * blockDim.x +
// threadIdx.x over [0, n), every thread of the block calling it once (0 past n), blockDim.x a
// multiple of 32: the first two warps search [lo, hi] for the block's first and last items
// (warp_last_at_most, side by side; one warp both when the block has one), then each thread
// searches only the range between (a few rows for a block of entries, in lines the block
// shares). One thread searching the whole row pointer, as before, took log2(rows) dependent
// probes (23 for 7.2M rows) while the block waited: the BSR conversion's passes and the row
// permutation ran at about a quarter of the memory rate (H100, issue 24).
static __device__ __forceinline__ index_t block_last_at_most(const index_t* __restrict__ ptr,
                                                             index_t lo, index_t hi, std::int64_t n,
                                                             std::int64_t k) {
  __shared__ index_t range[2];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  if (first < n) {
    const std::int64_t last = min(first + static_cast<std::int64_t>(blockDim.x), n) - 1;
    const unsigned warp = threadIdx.x / 32;
    if (warp == 0) {
      const index_t r = warp_last_at_most(ptr, lo, hi, first);
      if (threadIdx.x == 0) range[0] = r;
      if (blockDim.x < 64) {
        const index_t r1 = warp_last_at_most(ptr, r, hi, last);
        if (threadIdx.x == 0) range[1] = r1;
      }
    } else if (warp == 1) {
      const index_t r = warp_last_at_most(ptr, lo, hi, last);
      if (threadIdx.x == 32) range[1] = r;
    }
  }
  __syncthreads();
  return k < n ? last_at_most(ptr, range[0], range[1], k) : 0;
}
#endif

// The row of every entry of `row_ptr` (rows + 1 offsets from 0) found on the device by
// block_last_at_most in blocks of `block_threads` threads (a multiple of 32): for the tests,
// against last_at_most on the host.
std::vector<index_t> entry_rows_device(const std::vector<index_t>& row_ptr, int block_threads);

}  // namespace spmvkit::cuda
