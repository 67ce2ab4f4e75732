// z += alpha * (COO entries) * x on the GPU: the HYB COO part and csr_balanced's far entries
// (included by .cu files only).
//
// A thread takes ITEMS consecutive entries with 16-byte vector loads (row, column and value
// streams, evict-first so that L2 keeps x and z), gathers x, and sums its runs of equal row
// (adjacent entries with the same row); runs strictly inside a thread are added to z at once.
// A thread's last run can continue into the next threads: a segmented scan over the lanes
// (a lane starts a segment when it is lane 0, has several runs, or changes row) sums such
// chains, and the chain is added by its last lane, or by the next lane's first run. So a row
// costs one atomic add per warp it touches, however long, and the entries need not be sorted:
// any run of equal adjacent rows is summed (csr_balanced's column panels, each sorted by row,
// run in one launch). Items past nnz carry row -1 and add nothing.
//
// On powerlaw_8000000 (H100, 3 far panels) this took the far part from 3 x 115 us with a warp
// segmented reduction over 8 strided items a lane (48 registers, 4.4 waves a panel) to 322 us
// in one launch (28 registers): bench/results/2026-11-23-h100-coo-runs.
#pragma once

#include <cstdint>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/vector_types.cuh"
#include "spmvkit/csr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

struct CooPolicy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 4;  // 8 was slower (0.870 against 0.837 ms)
};

template <class V, int ITEMS>
__global__ void __launch_bounds__(CooPolicy::block_threads)
    coo_add_kernel(index_t nnz, const index_t* __restrict__ row, const index_t* __restrict__ col,
                   const V* __restrict__ val, const V* __restrict__ x, V* z, V alpha) {
  static_assert(ITEMS % 4 == 0, "vector loads of 4 entries");
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if ((thread - lane) * ITEMS >= nnz) return;  // the whole warp leaves together
  const std::int64_t first = thread * ITEMS;
  index_t key[ITEMS];
  index_t c[ITEMS];
  V v[ITEMS];
  if (first + ITEMS <= nnz) {
#pragma unroll
    for (int i = 0; i < ITEMS; i += 4) {
      cuda::load_stream<index_t, 4>(row + first + i, key + i);
      cuda::load_stream<index_t, 4>(col + first + i, c + i);
      cuda::load_stream<V, 4>(val + first + i, v + i);
    }
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const bool in = first + i < nnz;
      key[i] = in ? row[first + i] : index_t{-1};
      c[i] = in ? col[first + i] : index_t{0};
      v[i] = in ? val[first + i] : V(0);
    }
  }
  V prod[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) prod[i] = key[i] >= 0 ? v[i] * __ldg(x + c[i]) : V(0);

  auto flush = [&](index_t r, V sum) {
    if (r >= 0) atomicAdd(z + r, alpha * sum);
  };
  // The thread's runs: the first (head), the last (tail: tail_key, sum), those between flushed.
  const index_t head_key = key[0];
  V head = V(0);
  bool several = false;
  index_t tail_key = key[0];
  V sum = prod[0];
#pragma unroll
  for (int i = 1; i < ITEMS; ++i) {
    if (key[i] == tail_key) {
      sum += prod[i];
    } else {
      if (several)
        flush(tail_key, sum);
      else
        head = sum;
      several = true;
      tail_key = key[i];
      sum = prod[i];
    }
  }
  // Segmented inclusive scan of the tails: a lane continues the previous lane's chain when it
  // has one run, with the previous lane's tail row.
  const index_t prev_tail = __shfl_up_sync(full, tail_key, 1);
  bool start = lane == 0 || several || prev_tail != tail_key;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const V up = __shfl_up_sync(full, sum, offset);
    const bool up_start = __shfl_up_sync(full, start, offset);
    if (lane >= offset && !start) {
      sum += up;
      start = up_start;
    }
  }
  // A lane with several runs takes the chain ending at the previous lane into its head.
  const V prev_sum = __shfl_up_sync(full, sum, 1);
  if (several) flush(head_key, head + (lane > 0 && prev_tail == head_key ? prev_sum : V(0)));
  // The chain ends here unless the next lane's first run has the same row.
  const index_t next_head = __shfl_down_sync(full, head_key, 1);
  if (lane == 31 || next_head != tail_key) flush(tail_key, sum);
}

// Launches coo_add_kernel over entries [0, nnz). The arrays must be 16-byte aligned (as
// DeviceBuffer storage is). Nothing when nnz == 0.
template <class V>
void launch_coo_add(index_t nnz, const index_t* row, const index_t* col, const V* val, const V* x,
                    V* z, V alpha, cudaStream_t stream) {
  if (nnz == 0) return;
  if ((reinterpret_cast<std::uintptr_t>(row) | reinterpret_cast<std::uintptr_t>(col) |
       reinterpret_cast<std::uintptr_t>(val)) %
          16 !=
      0)
    throw Error("coo_add: row, column and value arrays must be 16-byte aligned (vector loads)");
  constexpr int items = CooPolicy::items_per_thread;
  constexpr int block = CooPolicy::block_threads;
  const std::size_t threads = (static_cast<std::size_t>(nnz) + items - 1) / items;
  coo_add_kernel<V, items>
      <<<cuda::grid_for(threads, block), block, 0, stream>>>(nnz, row, col, val, x, z, alpha);
  SPMVKIT_LAUNCH_CHECK();
}

}  // namespace spmvkit
