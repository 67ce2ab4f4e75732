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

// The range [lo', hi'] of [lo, hi] that holds last_at_most(ptr, lo, hi, k) for every k in
// [first, last], for a block whose items all lie there: every thread of the block calls it with
// the same arguments (blockDim.x a multiple of 32); the first two warps search for first and
// last side by side (warp_last_at_most; one warp both when the block has one). Each thread
// then searches only the range (a few rows for a block of entries, in lines the block shares).
// One thread searching the whole row pointer took log2(rows) dependent probes (23 for 7.2M
// rows) while the block waited: the BSR conversion's passes and the row permutation ran at
// about a quarter of the memory rate (H100, issue 24). The span costs the block about 10
// dependent probes, so a kernel of cheap items gives each thread several (block_items_span).
struct RowSpan {
  index_t lo, hi;
};
static __device__ __forceinline__ RowSpan block_row_span(const index_t* __restrict__ ptr,
                                                         index_t lo, index_t hi, std::int64_t first,
                                                         std::int64_t last) {
  __shared__ index_t range[2];
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
  __syncthreads();
  const RowSpan span{range[0], range[1]};
  __syncthreads();  // range may be written again by a later call in the same kernel
  return span;
}

// last_at_most(ptr, lo, hi, k) in a kernel with a thread an item, k = blockIdx.x * blockDim.x +
// threadIdx.x over [0, n), every thread of the block calling it once (0 past n): the block's
// span (block_row_span), then the thread's search within it.
static __device__ __forceinline__ index_t block_last_at_most(const index_t* __restrict__ ptr,
                                                             index_t lo, index_t hi, std::int64_t n,
                                                             std::int64_t k) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t last = min(first + static_cast<std::int64_t>(blockDim.x), n) - 1;
  const RowSpan span = first < n ? block_row_span(ptr, lo, hi, first, last) : RowSpan{lo, lo};
  return k < n ? last_at_most(ptr, span.lo, span.hi, k) : 0;
}

// Items per thread for block_items_span's kernels: a block of 256 threads takes 2,048 items, so
// the span's dependent probes are paid once for 8 items a thread. With a thread an item,
// csr_balanced's far count over powerlaw_8000000's 1e8 entries took 1.5 ms (H100), 390K blocks
// each waiting on its span.
inline constexpr int kSpanItems = 8;

// The items [begin, end) of block blockIdx.x in a kernel of blockDim.x * kSpanItems items a
// block over [0, n) (item begin + i * blockDim.x + threadIdx.x for i < kSpanItems, coalesced),
// and their span in [lo, hi] (block_row_span). Every thread of the block calls it.
struct ItemsSpan {
  std::int64_t begin, end;
  RowSpan rows;
};
static __device__ __forceinline__ ItemsSpan block_items_span(const index_t* __restrict__ ptr,
                                                             index_t lo, index_t hi,
                                                             std::int64_t n) {
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * blockDim.x * kSpanItems;
  const std::int64_t end = min(begin + static_cast<std::int64_t>(blockDim.x) * kSpanItems, n);
  return {begin, end, begin < end ? block_row_span(ptr, lo, hi, begin, end - 1) : RowSpan{lo, lo}};
}
#endif

// The row of every entry of `row_ptr` (rows + 1 offsets from 0) found on the device by
// block_last_at_most in blocks of `block_threads` threads (a multiple of 32), or with
// `span_items` by block_items_span (kSpanItems entries a thread): for the tests, against
// last_at_most on the host.
std::vector<index_t> entry_rows_device(const std::vector<index_t>& row_ptr, int block_threads,
                                       bool span_items = false);

}  // namespace spmvkit::cuda
