// SURAA's apply kernels (Section 4.2, Algorithms 3-6): G1 (child grids or the static kernel,
// and its finish), G2/G3 by rows, and the segment-table kernel. Included by suraa_cuda.cu only.
#pragma once

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/finish.cuh"
#include "backend/cuda/search.cuh"
#include "formats/suraa/suraa_cuda.cuh"

namespace spmvkit::suraa_gpu {

namespace {

// sum of values[k] * x[col_idx[k]] for k = k0, k0 + stride, ... < end. Four independent loads
// in flight; the matrix is read once, so its loads are streaming (__ldcs: evict first) and
// leave the caches to x (__ldg).
template <class V>
__device__ __forceinline__ V strided_dot(const index_t* __restrict__ col_idx,
                                         const V* __restrict__ values, const V* __restrict__ x,
                                         std::int64_t k, std::int64_t end, std::int64_t stride) {
  V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; k + 3 * stride < end; k += 4 * stride) {
    const index_t c0 = __ldcs(col_idx + k), c1 = __ldcs(col_idx + k + stride),
                  c2 = __ldcs(col_idx + k + 2 * stride), c3 = __ldcs(col_idx + k + 3 * stride);
    s0 += __ldcs(values + k) * __ldg(x + c0);
    s1 += __ldcs(values + k + stride) * __ldg(x + c1);
    s2 += __ldcs(values + k + 2 * stride) * __ldg(x + c2);
    s3 += __ldcs(values + k + 3 * stride) * __ldg(x + c3);
  }
  for (; k < end; k += stride) s0 += __ldcs(values + k) * __ldg(x + __ldcs(col_idx + k));
  return (s0 + s1) + (s2 + s3);
}

using cuda::last_at_most;

// Task b of the static G1 (long rows): row r owns tasks [partial_ptr[r], partial_ptr[r+1]),
// decided at setup, and its nonzeros are split evenly over them in whole warps' worth; the
// task sums entries [lo, hi).
struct LongRowSlice {
  index_t row;
  index_t first_task;
  std::int64_t tasks;
  std::int64_t lo;
  std::int64_t hi;
};

__device__ __forceinline__ LongRowSlice long_row_slice(const index_t* __restrict__ row_ptr,
                                                       const index_t* __restrict__ partial_ptr,
                                                       index_t g1_rows, index_t b) {
  LongRowSlice s;
  s.row = last_at_most(partial_ptr, 0, g1_rows - 1, b);
  const std::int64_t begin = row_ptr[s.row], end = row_ptr[s.row + 1];
  s.first_task = partial_ptr[s.row];
  s.tasks = partial_ptr[s.row + 1] - s.first_task;
  std::int64_t chunk = (end - begin + s.tasks - 1) / s.tasks;
  chunk = (chunk + 31) / 32 * 32;
  s.lo = min(end, begin + (b - s.first_task) * chunk);
  s.hi = min(end, s.lo + chunk);
  return s;
}


// ============================ apply kernels (Section 4.2) ===================================

// G2 and G3 (Algorithm 6, the vector kernel, TPR a multiple of 32; Algorithm 5, the scalar
// kernel, TPR == 1; and sub-warps of 2..16 lanes in between). Mapping: TPR consecutive
// threads a sorted row, BLOCK/TPR rows a block; each group reduces with shuffles (and, for
// TPR > 32, through one shared value per warp, as the paper's shared_mem) and writes
// z[perm[row]]. Sorted rows make the rows of one warp equally long: no lane idles behind a
// longer neighbour. Bytes: per row row_ptr (2 reads, cached), perm, z (and y); per nonzero
// col_idx + value + x.
template <class V, int TPR, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    suraa_rows_kernel(index_t row_begin, index_t row_end, const index_t* __restrict__ row_ptr,
                      const index_t* __restrict__ col_idx, const V* __restrict__ values,
                      const index_t* __restrict__ perm, const V* __restrict__ x, const V* y, V* z,
                      V alpha, V beta) {
  static_assert(BLOCK % TPR == 0 && (TPR <= 32 || TPR % 32 == 0), "bad threads per row");
  constexpr int ROWS_PER_BLOCK = BLOCK / TPR;
  const int lane = static_cast<int>(threadIdx.x % TPR);
  const std::int64_t row =
      row_begin + static_cast<std::int64_t>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.x / TPR;
  const bool active = row < row_end;
  V sum = 0;
  // Inactive lanes take part in the shuffles (full mask) with an empty range.
  if (active) sum = strided_dot(col_idx, values, x, row_ptr[row] + lane, row_ptr[row + 1], TPR);
  if constexpr (TPR > 1) {
    constexpr int WIDTH = TPR < 32 ? TPR : 32;
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset, WIDTH);
  }
  if constexpr (TPR > 32) {
    __shared__ V warp_sums[BLOCK / 32];
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (threadIdx.x % 32 == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (lane == 0) {
      sum = 0;
#pragma unroll
      for (int w = 0; w < TPR / 32; ++w) sum += warp_sums[warp + w];
    }
  }
  if (active && lane == 0) {
    const index_t out = perm[row];
    z[out] = cuda::finish(sum, y, out, alpha, beta);
  }
}

// Sum over a block of any multiple of 32 threads (<= 1024): warp shuffles, then one shared
// value per warp reduced by the first warp (Algorithm 4 lines 11-17). Valid in thread 0.
template <class V>
__device__ __forceinline__ V block_sum(V v) {
  __shared__ V warp_sums[32];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : V(0);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

// G1 child grid (Algorithm 4): one row, gridDim blocks of blockDim threads (a multiple of 32,
// sized by the parent from npr); grid-stride over the row's nonzeros, block sum, block j writes
// partials[j]. Bytes: per nonzero col_idx + value + x; one partial a block.
template <class V>
__global__ void suraa_child_kernel(index_t begin, index_t end, const index_t* __restrict__ col_idx,
                                   const V* __restrict__ values, const V* __restrict__ x,
                                   V* __restrict__ partials) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  V sum = strided_dot(col_idx, values, x,
                      begin + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, end,
                      stride);
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

#if !defined(SPMVKIT_NO_CUDA_DP)

// G1 parent (Algorithm 3): a thread a G1 row launches that row's child grid into the
// fire-and-forget stream (CUDA 12+: no device-side synchronisation; see the file comment for
// how completion is known). A launch the device runtime refuses (pending-launch buffer full)
// is not lost: the thread computes the row itself, into the same partial sums.
template <class V>
__global__ void suraa_parent_kernel(index_t g1_rows, const index_t* __restrict__ row_ptr,
                                    const index_t* __restrict__ partial_ptr,
                                    const index_t* __restrict__ col_idx,
                                    const V* __restrict__ values, const V* __restrict__ x,
                                    V* __restrict__ partials, int nnz_per_thread) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= g1_rows) return;
  const index_t begin = row_ptr[r], end = row_ptr[r + 1];
  const index_t p = partial_ptr[r];
  const index_t blocks = partial_ptr[r + 1] - p;
  if (end > begin) {
    suraa_child_kernel<V>
        <<<static_cast<unsigned>(blocks),
           static_cast<unsigned>(suraa_child_threads(end - begin, nnz_per_thread)), 0,
           cudaStreamFireAndForget>>>(begin, end, col_idx, values, x, partials + p);
    if (cudaGetLastError() == cudaSuccess) return;
  }
  V sum = 0;
  for (index_t k = begin; k < end; ++k) sum += values[k] * __ldg(x + col_idx[k]);
  partials[p] = sum;
  for (index_t j = 1; j < blocks; ++j) partials[p + j] = V(0);
}
#endif  // SPMVKIT_NO_CUDA_DP


// suraa_static's G1: a block a task (long_row_slice); block sum into partials[b]. Bytes as
// the child grid's.
template <class V, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    suraa_long_rows_kernel(index_t g1_rows, const index_t* __restrict__ row_ptr,
                           const index_t* __restrict__ partial_ptr,
                           const index_t* __restrict__ col_idx, const V* __restrict__ values,
                           const V* __restrict__ x, V* __restrict__ partials) {
  using Reduce = cub::BlockReduce<V, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  const index_t b = static_cast<index_t>(blockIdx.x);
  const LongRowSlice t = long_row_slice(row_ptr, partial_ptr, g1_rows, b);
  V sum = strided_dot(col_idx, values, x, t.lo + threadIdx.x, t.hi, BLOCK);
  sum = Reduce(storage).Sum(sum);
  if (threadIdx.x == 0) partials[b] = sum;
}

// G1 finish: a thread a G1 row adds its partial sums and writes z[perm[row]]. The next grid on
// the context stream after the parent, so it starts after every child grid has completed.
template <class V>
__global__ void suraa_g1_finish_kernel(index_t g1_rows, const index_t* __restrict__ partial_ptr,
                                       const V* __restrict__ partials,
                                       const index_t* __restrict__ perm, const V* y, V* z, V alpha,
                                       V beta) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= g1_rows) return;
  V sum = 0;
  for (index_t p = partial_ptr[r]; p < partial_ptr[r + 1]; ++p) sum += partials[p];
  const index_t out = perm[r];
  z[out] = cuda::finish(sum, y, out, alpha, beta);
}

// One run of blocks of the segment-table kernel: blocks [block_begin, next entry's block_begin)
// serve sorted rows [row_begin, row_end) with threads_per_row lanes a row, or, with
// threads_per_row == 0, G1's long-row tasks (block_begin + j is partial sum j, as in
// suraa_long_rows_kernel).
struct SuraaTableEntry {
  index_t block_begin = 0;
  index_t row_begin = 0;
  index_t row_end = 0;
  int threads_per_row = 0;
};

// launch=table: every block looks up its run in the table (a binary search over block_begin,
// the same for all threads of the block, so every branch below is uniform over the block and
// the barriers in it are reached by all threads).
//
// Row runs: as suraa_rows_kernel with TPR (a power of two <= BLOCK) read from the table;
// shuffles with that width, and for TPR > 32 one shared value a warp.
//
// G1 tasks (suraa_static only): a task is a slice of one long row summed by the block. A row of
// one task writes z itself. Otherwise each task stores its partial sum, makes it visible
// device-wide (__threadfence) and counts itself in counters[row] (atomicAdd); the task that
// counts last reads all the row's partial sums from L2 (__ldcg: not through a possibly stale L1)
// in task order, so the sum does not depend on the schedule, writes z and sets the counter back
// to 0 for the next apply (every task of the row has counted by then). This is the CUDA
// sample's threadFenceReduction pattern; it replaces the finish kernel, so no second launch.
// Only thread 0 touches partials and counters. Long-row tasks come first in the table: the
// longest work starts first.
//
// Bytes: as the row kernels and the static G1 kernel; plus the table (a few entries, cached).
template <class V, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    suraa_table_kernel(const SuraaTableEntry* __restrict__ table, index_t entries, index_t g1_rows,
                       const index_t* __restrict__ partial_ptr, V* __restrict__ partials,
                       unsigned int* __restrict__ counters, const index_t* __restrict__ row_ptr,
                       const index_t* __restrict__ col_idx, const V* __restrict__ values,
                       const index_t* __restrict__ perm, const V* __restrict__ x, const V* y, V* z,
                       V alpha, V beta) {
  using Reduce = cub::BlockReduce<V, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ V warp_sums[BLOCK / 32];
  const index_t b = static_cast<index_t>(blockIdx.x);
  index_t lo = 0, hi = entries - 1;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (table[mid].block_begin <= b)
      lo = mid;
    else
      hi = mid - 1;
  }
  const SuraaTableEntry e = table[lo];
  const index_t local = b - e.block_begin;

  if (e.threads_per_row == 0) {  // a G1 task
    const LongRowSlice t = long_row_slice(row_ptr, partial_ptr, g1_rows, local);
    const index_t r = t.row, p0 = t.first_task;
    const std::int64_t tasks = t.tasks;
    V sum = strided_dot(col_idx, values, x, t.lo + threadIdx.x, t.hi, BLOCK);
    sum = Reduce(storage).Sum(sum);
    if (threadIdx.x != 0) return;
    const index_t out = perm[r];
    if (tasks == 1) {
      z[out] = cuda::finish(sum, y, out, alpha, beta);
      return;
    }
    partials[local] = sum;
    __threadfence();
    const unsigned int counted = atomicAdd(counters + r, 1u);
    if (counted != static_cast<unsigned int>(tasks - 1)) return;
    __threadfence();
    V total = 0;
    for (std::int64_t t = 0; t < tasks; ++t) total += __ldcg(partials + p0 + t);
    z[out] = cuda::finish(total, y, out, alpha, beta);
    atomicExch(counters + r, 0u);
    return;
  }

  const int tpr = e.threads_per_row;
  const int lane = static_cast<int>(threadIdx.x) & (tpr - 1);
  const std::int64_t row = e.row_begin + static_cast<std::int64_t>(local) * (BLOCK / tpr) +
                           static_cast<std::int64_t>(threadIdx.x) / tpr;
  const bool active = row < e.row_end;
  V sum = 0;
  // Inactive lanes take part in the shuffles (full mask) with an empty range.
  if (active) sum = strided_dot(col_idx, values, x, row_ptr[row] + lane, row_ptr[row + 1], tpr);
  const int width = tpr < 32 ? tpr : 32;
  for (int offset = width / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset, width);
  if (tpr > 32) {
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (threadIdx.x % 32 == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (lane == 0) {
      sum = 0;
      for (int w = 0; w < tpr / 32; ++w) sum += warp_sums[warp + w];
    }
  }
  if (active && lane == 0) {
    const index_t out = perm[row];
    z[out] = cuda::finish(sum, y, out, alpha, beta);
  }
}
}  // namespace

}  // namespace spmvkit::suraa_gpu
