// SURAA on the GPU: the setup of Section 4.1 (Algorithm 2) on the device, and the kernels of
// Section 4.2 (Algorithms 3-6) on the context stream and side streams.
//
// Setup, all on the context stream: npr moments (the low-variance fallback, the npr range, the
// rows with npr > 32, the rows of each power-of-two class); sort keys (npr, or its power-of-two
// class with order=pow2|bucketed, or its group class with order=groups, descending; first
// column ascending, except bucketed and groups) and a CUB radix sort of (key, row) pairs, stable,
// so that remaining ties keep the row order, giving perm; the sorted row pointer by a CUB scan;
// col_idx and values gathered into sorted order ("Rearrange A_csr using perm"); the order
// statistics the Freedman-Diaconis rule needs, read from the sorted npr in O(1); the nonzeros
// of each segment. The host then applies the rules (suraa_finish_plan) to those few numbers
// and lays out G1's partial sums on the device.
//
// Apply, launch=segment|merged: G1 on the context stream (parent kernel + child grids, or the
// static kernel, then a finish kernel), G2/G3 launches on side streams forked from and joined
// back to the context stream, so the whole apply is ordered after earlier and before later work
// on that stream. launch=table: G2/G3 in one segment-table kernel; in suraa_static G1 is in it
// too (one launch in all), with suraa G1 stays parent + finish and the table kernel runs on one
// side stream beside it. launch=tiles: the balanced CSR kernel over tiles of the sorted rows
// (G1 included in suraa_static; in suraa G1 stays parent + finish, the tiles beside it).
//
// When are the child grids done? A child grid launched into cudaStreamFireAndForget runs
// unordered with its parent's other work, but "no other grid launches can depend on the
// completion of a fire-and-forget launch, except through the implicit synchronization at the
// end of the parent grid. So a tail launch or the next grid in parent grid's stream won't
// launch before a parent grid's fire-and-forget work has completed" (CUDA Programming Guide,
// CUDA Dynamic Parallelism, "The Fire-and-Forget Stream"). Children write partial sums only;
// the finish kernel, the next grid on the context stream after the parent, reads them and
// writes z. So every z value exists only once all children are done, and anything queued on
// the stream after apply (a copy, an event, a kernel) follows the finish kernel.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/finish.cuh"
#include "backend/cuda/search.cuh"
#include "formats/common/csr_kernels.hpp"
#include "formats/common/csr_balanced.cuh"
#include "formats/common/csr_split.cuh"
#include "formats/suraa/suraa.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit {

namespace {

// Launch shapes, chosen here and nowhere else.
struct SuraaPolicy {
  static constexpr int setup_block = 256;   // moments, keys, npr and segment kernels
  static constexpr int gather_block = 256;  // rearranging col_idx/values
  static constexpr int gather_items = 8;    // nonzeros a gather thread moves
#if !defined(SPMVKIT_NO_CUDA_DP)
  static constexpr int parent_block = 128;  // G1 parent: a thread a row (Algorithm 3)
#endif
  static constexpr int finish_block = 256;  // G1 finish: a thread a row
  static constexpr int rows_block = 256;    // G2/G3 (a block of threads_per_row when larger)
  static constexpr std::size_t max_pending_launches = 1 << 16;  // cap on the limit we request
};

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

template <class T>
struct MaxOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct MinOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

// ============================ setup kernels (Section 4.1) ===================================

// Power-of-two classes of npr (suraa_sort_class): 0..32.
inline constexpr int kSuraaClasses = 33;

// npr moments: stats[0] += sum npr^2, stats[1] = max npr, stats[2] = min npr, stats[3] +=
// rows with npr > 32, stats[4 + c] += rows of power-of-two class c (bucketed order's class
// runs). Grid-stride, a thread a row.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    suraa_npr_stats_kernel(index_t m, const index_t* __restrict__ row_ptr,
                           unsigned long long* __restrict__ stats) {
  using Reduce = cub::BlockReduce<unsigned long long, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ unsigned int class_count[kSuraaClasses];
  static_assert(BLOCK >= kSuraaClasses, "one thread a class");
  if (threadIdx.x < kSuraaClasses) class_count[threadIdx.x] = 0;
  __syncthreads();
  unsigned long long sq = 0, mx = 0, mn = ~0ull, over = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BLOCK + threadIdx.x; i < m;
       i += static_cast<std::int64_t>(gridDim.x) * BLOCK) {
    const index_t len = row_ptr[i + 1] - row_ptr[i];
    const auto n = static_cast<unsigned long long>(len);
    sq += n * n;
    mx = n > mx ? n : mx;
    mn = n < mn ? n : mn;
    over += n > static_cast<unsigned long long>(kSuraaWarp) ? 1 : 0;
    atomicAdd(&class_count[suraa_sort_class(len, true)], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kSuraaClasses && class_count[threadIdx.x] != 0)
    atomicAdd(stats + 4 + threadIdx.x, static_cast<unsigned long long>(class_count[threadIdx.x]));
  const unsigned long long block_sq = Reduce(storage).Sum(sq);
  __syncthreads();
  const unsigned long long block_mx = Reduce(storage).Reduce(mx, MaxOp<unsigned long long>{});
  __syncthreads();
  const unsigned long long block_mn = Reduce(storage).Reduce(mn, MinOp<unsigned long long>{});
  __syncthreads();
  const unsigned long long block_over = Reduce(storage).Sum(over);
  if (threadIdx.x == 0) {
    atomicAdd(stats, block_sq);
    atomicMax(stats + 1, block_mx);
    atomicMin(stats + 2, block_mn);
    atomicAdd(stats + 3, block_over);
  }
}

// Sort keys of Section 4.1: (max_class - class(npr)) in the high bits (class = npr, or its
// power-of-two class with class_sort), the first column (cols for an empty row) in the low
// `col_bits` bits; an ascending sort gives npr descending, ties by first column ascending.
// col_bits == 0 (bucketed, groups): the class alone, the stable sort keeps the row order within it.
// A thread a row.
__global__ void suraa_sort_keys_kernel(index_t m, index_t cols, index_t max_class, SuraaOrder order,
                                       int col_bits, const index_t* __restrict__ row_ptr,
                                       const index_t* __restrict__ col_idx,
                                       std::uint64_t* __restrict__ keys,
                                       index_t* __restrict__ rows) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const index_t b = row_ptr[i], e = row_ptr[i + 1];
  const auto first = col_bits == 0 ? 0 : static_cast<std::uint64_t>(e > b ? col_idx[b] : cols);
  const index_t cls = suraa_order_class(e - b, order);
  keys[i] = (static_cast<std::uint64_t>(max_class - cls) << col_bits) | first;
  rows[i] = static_cast<index_t>(i);
}

// npr in sorted order (nprSort of Algorithm 2). A thread a row.
__global__ void suraa_sorted_npr_kernel(index_t m, const index_t* __restrict__ perm,
                                        const index_t* __restrict__ row_ptr_in,
                                        index_t* __restrict__ npr) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const index_t r = perm[i];
  npr[i] = row_ptr_in[r + 1] - row_ptr_in[r];
}

// "Rearrange A_csr using perm": a block a tile of BLOCK*ITEMS sorted nonzeros; thread 0 finds
// the tile's row range, each thread its nonzero's row within it (binary search), then copies
// from that row's place in the input. Writes coalesced; reads contiguous along each row.
// Bytes: nnz * (index + value) read and written.
template <class V, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    suraa_gather_kernel(index_t m, std::int64_t nnz, const index_t* __restrict__ row_ptr,
                        const index_t* __restrict__ perm, const index_t* __restrict__ row_ptr_in,
                        const index_t* __restrict__ col_in, const V* __restrict__ val_in,
                        index_t* __restrict__ col_out, V* __restrict__ val_out) {
  __shared__ index_t tile_rows[2];
  const std::int64_t tile_begin = static_cast<std::int64_t>(blockIdx.x) * BLOCK * ITEMS;
  const std::int64_t tile_end = min(nnz, tile_begin + static_cast<std::int64_t>(BLOCK) * ITEMS);
  if (threadIdx.x == 0) {
    tile_rows[0] = last_at_most(row_ptr, 0, m - 1, tile_begin);
    tile_rows[1] = last_at_most(row_ptr, tile_rows[0], m - 1, tile_end - 1);
  }
  __syncthreads();
  const index_t lo = tile_rows[0], hi = tile_rows[1];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t k = tile_begin + static_cast<std::int64_t>(i) * BLOCK + threadIdx.x;
    if (k < tile_end) {
      const index_t r = last_at_most(row_ptr, lo, hi, k);
      const std::int64_t src = row_ptr_in[perm[r]] + (k - row_ptr[r]);
      col_out[k] = col_in[src];
      val_out[k] = val_in[src];
    }
  }
}

// The order statistics of Algorithm 2 lines 6-7: O(1) reads of the sorted npr. One thread.
__global__ void suraa_probe_kernel(index_t m, const index_t* __restrict__ row_ptr,
                                   index_t* __restrict__ out) {
  auto npr = [&](std::int64_t i) { return row_ptr[i + 1] - row_ptr[i]; };
  out[0] = npr(m / 4);
  out[1] = npr(3 * static_cast<std::int64_t>(m) / 4);
}

// Nonzeros of each segment, sorted rows [bounds[s], bounds[s+1]). A thread a segment.
__global__ void suraa_segment_nnz_kernel(index_t segments, const index_t* __restrict__ bounds,
                                         const index_t* __restrict__ row_ptr,
                                         index_t* __restrict__ segment_nnz) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= segments) return;
  segment_nnz[s] = row_ptr[bounds[s + 1]] - row_ptr[bounds[s]];
}

// Blocks (= partial sums) of each G1 row: the child grid's (dynamic) or the static kernel's.
__global__ void suraa_g1_blocks_kernel(index_t g1_rows, const index_t* __restrict__ row_ptr,
                                       bool dynamic, int nnz_per_thread,
                                       index_t* __restrict__ blocks) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= g1_rows) return;
  const index_t npr = row_ptr[r + 1] - row_ptr[r];
  blocks[r] = dynamic ? suraa_child_blocks(npr, nnz_per_thread) : suraa_static_blocks(npr);
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

// Built with SPMVKIT_CUDA_DYNAMIC_PARALLELISM=OFF (SPMVKIT_NO_CUDA_DP), the library holds no
// device-side launch, and suraa's G1 runs the static kernel: compute-sanitizer's racecheck
// checks nothing in a program that contains one (it warns "CUDA Dynamic Parallelism is not
// supported by the selected tool" and then misses a plain shared-memory race; H100,
// 2026-11-23), so that build is the one racecheck runs on.
#if defined(SPMVKIT_NO_CUDA_DP)
constexpr bool kDynamicParallelism = false;
#else
constexpr bool kDynamicParallelism = true;

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

// G1 by child grids: suraa, in a build with dynamic parallelism.
bool g1_dynamic(const SuraaOptions& o) { return o.dynamic && kDynamicParallelism; }
// G1 by its own kernels, into its own partial sums: all but launch=tiles with a static G1,
// whose long rows are tiles like the others.
bool g1_own_kernels(const SuraaOptions& o) {
  return o.launch != SuraaLaunchMode::tiles || g1_dynamic(o);
}

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

// ============================ host side =====================================================

struct NprMoments {
  double sum_squared = 0;
  index_t max = 0;
  index_t min = 0;
  index_t over_warp = 0;                  // rows with npr > 32
  std::vector<std::int64_t> class_count;  // rows of each power-of-two class 0..32
};

NprMoments npr_moments(index_t m, const index_t* row_ptr) {
  auto& ctx = cuda::Context::get();
  cuda::DeviceBuffer<unsigned long long> stats(4 + kSuraaClasses);
  cuda::fill_bytes(stats.data(), 0, stats.bytes());
  cuda::fill_bytes(stats.data() + 2, 0xff, sizeof(unsigned long long));  // min starts at ~0
  constexpr int block = SuraaPolicy::setup_block;
  const unsigned grid =
      std::min<unsigned>(cuda::grid_for(m, block), static_cast<unsigned>(ctx.sm_count()) * 8);
  suraa_npr_stats_kernel<block><<<grid, block, 0, ctx.stream()>>>(m, row_ptr, stats.data());
  SPMVKIT_LAUNCH_CHECK();
  const std::vector<unsigned long long> h = stats.download();
  return NprMoments{static_cast<double>(h[0]), static_cast<index_t>(h[1]),
                    static_cast<index_t>(h[2]), static_cast<index_t>(h[3]),
                    std::vector<std::int64_t>(h.begin() + 4, h.end())};
}

// Rows of each class of `order` from the rows of each power-of-two class.
std::vector<std::int64_t> order_class_count(const std::vector<std::int64_t>& pow2_count,
                                            SuraaOrder order) {
  if (order != SuraaOrder::groups) return pow2_count;
  std::vector<std::int64_t> count(pow2_count.size(), 0);
  for (std::size_t c = 0; c < pow2_count.size(); ++c)
    count[static_cast<std::size_t>(suraa_group_class(static_cast<index_t>(c)))] += pow2_count[c];
  return count;
}

// What the GPU setup leaves: the sorted matrix, perm, G1's partial-sum layout and the plan.
template <class V>
struct SuraaDeviceData {
  cuda::DeviceBuffer<index_t> row_ptr;      // sorted
  cuda::DeviceBuffer<index_t> col_idx;      // sorted rows
  cuda::DeviceBuffer<V> values;             // sorted rows
  cuda::DeviceBuffer<index_t> perm;         // sorted position -> original row
  cuda::DeviceBuffer<index_t> partial_ptr;  // G1 row r's partial sums: [partial_ptr[r], [r+1])
  index_t partials = 0;
  SuraaPlan plan;           // perm not downloaded
  double gpu_setup_ms = 0;  // sort .. plan, after the upload
};

// Algorithm 2 on the device, from the uploaded matrix.
template <class V>
SuraaDeviceData<V> suraa_setup_device(const DeviceCsr<V>& a, const NprMoments& mom,
                                      const SuraaOptions& o) {
  auto& ctx = cuda::Context::get();
  cudaStream_t s = ctx.stream();
  const index_t m = a.rows, n = a.cols;
  const std::int64_t nnz = a.nnz();
  constexpr int block = SuraaPolicy::setup_block;
  SuraaDeviceData<V> d;
  const cuda::DeviceBuffer<index_t>& row_ptr_in = a.row_ptr;
  const cuda::DeviceBuffer<index_t>& col_in = a.col_idx;
  const cuda::DeviceBuffer<V>& val_in = a.values;
  const auto t0 = std::chrono::steady_clock::now();

  // Sort (Algorithm 2 line 4): keys with only the bits they need, so the radix sort makes
  // as few passes as the matrix allows.
  {
    const int col_bits = o.row_order_ties() ? 0 : cuda::bits_for(static_cast<std::uint64_t>(n));
    const index_t max_class = suraa_order_class(mom.max, o.order);
    const int end_bit =
        std::max(1, col_bits + cuda::bits_for(static_cast<std::uint64_t>(max_class)));
    cuda::DeviceBuffer<std::uint64_t> keys_in(m), keys_out(m);
    cuda::DeviceBuffer<index_t> rows_in(m);
    d.perm = cuda::DeviceBuffer<index_t>(m);
    suraa_sort_keys_kernel<<<cuda::grid_for(m, block), block, 0, s>>>(
        m, n, max_class, o.order, col_bits, row_ptr_in.data(), col_in.data(), keys_in.data(),
        rows_in.data());
    SPMVKIT_LAUNCH_CHECK();
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in.data(), keys_out.data(),
                                                 rows_in.data(), d.perm.data(), m, 0, end_bit, st);
        },
        s);
  }

  // Sorted row pointer, and the matrix rearranged (line 5).
  {
    cuda::DeviceBuffer<index_t> npr(m);
    suraa_sorted_npr_kernel<<<cuda::grid_for(m, block), block, 0, s>>>(
        m, d.perm.data(), row_ptr_in.data(), npr.data());
    SPMVKIT_LAUNCH_CHECK();
    d.row_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(m) + 1);
    cuda::fill_bytes(d.row_ptr.data(), 0, sizeof(index_t));
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceScan::InclusiveSum(temp, bytes, npr.data(), d.row_ptr.data() + 1, m,
                                               st);
        },
        s);
  }
  d.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(nnz));
  d.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(nnz));
  if (nnz > 0) {
    constexpr int gb = SuraaPolicy::gather_block, gi = SuraaPolicy::gather_items;
    suraa_gather_kernel<V, gb, gi>
        <<<cuda::grid_for(static_cast<std::size_t>(nnz), gb * gi), gb, 0, s>>>(
            m, nnz, d.row_ptr.data(), d.perm.data(), row_ptr_in.data(), col_in.data(),
            val_in.data(), d.col_idx.data(), d.values.data());
    SPMVKIT_LAUNCH_CHECK();
  }

  // Freedman-Diaconis segment size from O(1) probes of the sorted npr (lines 6-8); range and
  // the count of rows with npr > 32 from the moments pass.
  SuraaProbes probes;
  {
    cuda::DeviceBuffer<index_t> out(2);
    suraa_probe_kernel<<<1, 1, 0, s>>>(m, d.row_ptr.data(), out.data());
    SPMVKIT_LAUNCH_CHECK();
    const std::vector<index_t> h = out.download();
    probes.rows = m;
    probes.npr_max = mom.max;
    probes.npr_min = mom.min;
    probes.npr_quarter = h[0];
    probes.npr_three_quarter = h[1];
    probes.rows_over_warp = mom.over_warp;
  }
  const SuraaSegmentation seg = fd_segmentation(probes, o.segment_size);

  // Segment bounds (cut per class run for bucketed and groups), their nonzeros, then grouping and
  // launches on the host (lines 9-17).
  const std::vector<index_t> bounds = suraa_segment_bounds(
      m, seg.segment_size,
      o.row_order_ties() ? suraa_class_runs(order_class_count(mom.class_count, o.order))
                         : std::vector<index_t>{});
  const auto segments = static_cast<index_t>(bounds.size() - 1);
  std::vector<std::int64_t> segment_nnz;
  {
    const cuda::DeviceBuffer<index_t> bounds_d(bounds);
    cuda::DeviceBuffer<index_t> out(static_cast<std::size_t>(segments));
    suraa_segment_nnz_kernel<<<cuda::grid_for(segments, block), block, 0, s>>>(
        segments, bounds_d.data(), d.row_ptr.data(), out.data());
    SPMVKIT_LAUNCH_CHECK();
    const std::vector<index_t> h = out.download();
    segment_nnz.assign(h.begin(), h.end());
  }
  d.plan = suraa_finish_plan(m, n, probes, seg, bounds, segment_nnz, o);

  // G1's partial sums: one a block of each G1 row.
  const index_t g1 = d.plan.g1_end;
  if (g1 > 0 && g1_own_kernels(o)) {
    cuda::DeviceBuffer<index_t> blocks(static_cast<std::size_t>(g1));
    suraa_g1_blocks_kernel<<<cuda::grid_for(g1, block), block, 0, s>>>(
        g1, d.row_ptr.data(), g1_dynamic(o), o.nnz_per_thread, blocks.data());
    SPMVKIT_LAUNCH_CHECK();
    d.partial_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(g1) + 1);
    cuda::fill_bytes(d.partial_ptr.data(), 0, sizeof(index_t));
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceScan::InclusiveSum(temp, bytes, blocks.data(), d.partial_ptr.data() + 1,
                                               g1, st);
        },
        s);
    cuda::copy_to_host(&d.partials, d.partial_ptr.data() + g1, sizeof(index_t));
  }
  ctx.synchronize();
  d.gpu_setup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

template <class V>
class SuraaCudaOperator final : public Operator<V> {
 public:
  SuraaCudaOperator(const DeviceCsr<V>& a, const SuraaOptions& o, SuraaDeviceData<V> d)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz(), 0, Backend::cuda,
                                 o.dynamic ? "suraa" : "suraa_static", ""}),
        d_(std::move(d)),
        dynamic_(g1_dynamic(o)),
        table_mode_(o.launch == SuraaLaunchMode::table),
        tiles_mode_(o.launch == SuraaLaunchMode::tiles),
        nnz_per_thread_(o.nnz_per_thread) {
    const SuraaPlan& plan = d_.plan;
    const index_t g1 = plan.g1_end;
    partial_sums_ = cuda::DeviceBuffer<V>(static_cast<std::size_t>(d_.partials));  // 0: G1 tiles
    this->info_.matrix_bytes =
        suraa_matrix_bytes(a.rows, a.nnz(), sizeof(V), g1_own_kernels(o) ? g1 : 0, d_.partials);
    this->info_.paper_bytes = suraa_paper_bytes(a.rows, a.cols, a.nnz(), sizeof(V));
    if (table_mode_) build_table();
    if (tiles_mode_ && a.rows > 0) build_tiles();

    // Streams: G1 on the context stream; the G2/G3 launches beside it, round robin over at
    // most `streams` side streams (the first launch stays on the context stream when G1 is
    // empty). launch=table: the table kernel is one launch; it needs a side stream only beside
    // suraa's dynamic G1.
    const bool fused = table_mode_ || tiles_mode_;
    const int nlaunch = table_mode_   ? (table_blocks_ > 0 ? 1 : 0)
                        : tiles_mode_ ? (tiles_.tiles() > 0 ? 1 : 0)
                                      : static_cast<int>(plan.launches.size());
    const int first_side = g1 > 0 && (dynamic_ || !fused) ? 0 : 1;
    const int nside = std::max(0, std::min(o.streams, nlaunch - first_side));
    launch_stream_.assign(static_cast<std::size_t>(nlaunch), -1);
    for (int i = first_side; i < nlaunch && nside > 0; ++i)
      launch_stream_[static_cast<std::size_t>(i)] = (i - first_side) % nside;
    if (nside > 0) side_ = std::make_unique<cuda::SideStreams>(nside);

    // Every G1 row may have a child grid pending at once.
    if (dynamic_ && g1 > 0) {
      std::size_t limit = 0;
      SPMVKIT_CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
      const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(g1) + 64,
                                                     SuraaPolicy::max_pending_launches);
      if (limit < want &&
          cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, want) != cudaSuccess)
        cudaGetLastError();  // not fatal: a refused child launch is computed by its parent
    }

    std::ostringstream det;
    det << "path=suraa,g1="
        << (dynamic_    ? "dynamic"
            : o.dynamic ? "static(built without dynamic parallelism)"
                        : "static")
        << ",order=" << to_string(o.order) << ",launch=" << to_string(o.launch)
        << ",short_kernel=" << (o.scalar_short_rows ? "scalar" : "subwarp")
        << ",segment_size=" << plan.segmentation.segment_size
        << ",segments=" << plan.segments.size() << ",fd_bin_width=" << plan.segmentation.bin_width
        << ",max_child_threads=" << plan.max_child_threads << ",g1_rows=" << g1
        << ",g2_rows=" << plan.g2_end - g1 << ",g3_rows=" << plan.rows - plan.g2_end
        << ",g1_blocks=" << d_.partials << ",launches=" << nlaunch
        << (table_mode_ ? ",table_entries=" + std::to_string(table_entries_) : std::string())
        << (tiles_mode_ ? ",tiles=" + std::to_string(tiles_.tiles()) +
                              ",long_rows=" + std::to_string(tiles_.long_rows())
                        : std::string())
        << ",streams=" << nside << ",gpu_setup_ms=" << d_.gpu_setup_ms;
    this->info_.details = det.str();
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (this->info_.rows == 0) return;
    cudaStream_t main = cuda::Context::get().stream();
    if (table_mode_) {
      // suraa_static: one launch (G1 inside the table). suraa: dynamic G1 on the context
      // stream, the table kernel beside it.
      const bool g1_apart = dynamic_ && d_.plan.g1_end > 0;
      if (side_) side_->fork(main);
      if (g1_apart) launch_g1(x, y, z, alpha, beta, main);
      if (table_blocks_ > 0) launch_table(side_ ? (*side_)[0] : main, x, y, z, alpha, beta);
      if (side_) side_->join(main);
      return;
    }
    if (tiles_mode_) {  // as table: suraa_static one launch, suraa's dynamic G1 beside it
      const bool g1_apart = dynamic_ && d_.plan.g1_end > 0;
      if (side_) side_->fork(main);
      if (g1_apart) launch_g1(x, y, z, alpha, beta, main);
      tiles_.launch(d_.row_ptr.data(), d_.col_idx.data(), d_.values.data(), d_.perm.data(), x, y, z,
                    alpha, beta, side_ ? (*side_)[0] : main);
      if (side_) side_->join(main);
      return;
    }
    if (side_) side_->fork(main);
    if (d_.plan.g1_end > 0) launch_g1(x, y, z, alpha, beta, main);
    for (std::size_t i = 0; i < d_.plan.launches.size(); ++i) {
      const int si = launch_stream_[i];
      launch_rows(d_.plan.launches[i], si < 0 ? main : (*side_)[si], x, y, z, alpha, beta);
    }
    if (side_) side_->join(main);
  }

 private:
  // The segment table (launch=table): suraa_static's G1 tasks first, then one entry a run of
  // G2/G3 segments with one threads-per-row (plan.launches, merged); block_begin of the entry
  // after the last is the grid size. G1 counters start at 0 (the kernel leaves them at 0).
  void build_table() {
    std::vector<SuraaTableEntry> t;
    index_t blocks = 0;
    const index_t g1 = d_.plan.g1_end;
    if (!dynamic_ && g1 > 0 && d_.partials > 0) {
      t.push_back(SuraaTableEntry{blocks, 0, g1, 0});
      blocks += d_.partials;
      counters_ = cuda::DeviceBuffer<unsigned int>(static_cast<std::size_t>(g1));
      cuda::fill_bytes(counters_.data(), 0, counters_.bytes());
    }
    for (const SuraaLaunch& l : d_.plan.launches) {
      const std::int64_t rows = l.row_end - l.row_begin;
      if (rows <= 0) continue;
      const int tpr = l.threads_per_row;
      if (tpr < 1 || tpr > kSuraaTableBlock || (tpr & (tpr - 1)) != 0)
        throw InputError("suraa: table threads per row " + std::to_string(tpr));
      const std::int64_t rows_per_block = kSuraaTableBlock / tpr;
      const std::int64_t nb = (rows + rows_per_block - 1) / rows_per_block;
      if (static_cast<std::int64_t>(blocks) + nb > std::numeric_limits<index_t>::max())
        throw UnsupportedError("suraa: segment table grid exceeds 2^31 blocks");
      t.push_back(SuraaTableEntry{blocks, l.row_begin, l.row_end, tpr});
      blocks += static_cast<index_t>(nb);
    }
    table_entries_ = static_cast<index_t>(t.size());
    table_blocks_ = blocks;
    if (!t.empty()) table_ = cuda::DeviceBuffer<SuraaTableEntry>(t);
  }

  // launch=tiles: balanced tiles of the sorted rows from G1 on (suraa_static) or after it
  // (suraa), never across a group boundary, so a tile's rows are of one group. The tiling needs
  // the sorted row pointer on the host (one download at setup).
  void build_tiles() {
    const std::vector<index_t> row_ptr = d_.row_ptr.download();
    const BalancedPolicy policy;
    BalancedTiling t;
    balanced_tiling(row_ptr.data(), dynamic_ ? d_.plan.g1_end : 0, d_.plan.rows, policy,
                    {d_.plan.g1_end, d_.plan.g2_end}, t);
    tiles_ = BalancedTiles<V>(t, policy, LongRowFinish::last_slice);  // one launch
    this->info_.matrix_bytes +=
        tiles_.descriptor_bytes() + 2 * static_cast<std::size_t>(t.partials) * sizeof(V);
  }

  void launch_table(cudaStream_t s, const V* x, const V* y, V* z, V alpha, V beta) const {
    suraa_table_kernel<V, kSuraaTableBlock>
        <<<static_cast<unsigned>(table_blocks_), kSuraaTableBlock, 0, s>>>(
            table_.data(), table_entries_, d_.plan.g1_end, d_.partial_ptr.data(),
            partial_sums_.data(), counters_.data(), d_.row_ptr.data(), d_.col_idx.data(),
            d_.values.data(), d_.perm.data(), x, y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  void launch_g1(const V* x, const V* y, V* z, V alpha, V beta, cudaStream_t s) const {
    const index_t g1 = d_.plan.g1_end;
    if (dynamic_) {
#if !defined(SPMVKIT_NO_CUDA_DP)
      constexpr int pb = SuraaPolicy::parent_block;
      suraa_parent_kernel<V><<<cuda::grid_for(g1, pb), pb, 0, s>>>(
          g1, d_.row_ptr.data(), d_.partial_ptr.data(), d_.col_idx.data(), d_.values.data(), x,
          partial_sums_.data(), nnz_per_thread_);
#endif
    } else {
      suraa_long_rows_kernel<V, kSuraaLongBlock>
          <<<static_cast<unsigned>(d_.partials), kSuraaLongBlock, 0, s>>>(
              g1, d_.row_ptr.data(), d_.partial_ptr.data(), d_.col_idx.data(), d_.values.data(), x,
              partial_sums_.data());
    }
    SPMVKIT_LAUNCH_CHECK();
    constexpr int fb = SuraaPolicy::finish_block;
    suraa_g1_finish_kernel<V><<<cuda::grid_for(g1, fb), fb, 0, s>>>(
        g1, d_.partial_ptr.data(), partial_sums_.data(), d_.perm.data(), y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  template <int TPR>
  void launch_rows_tpr(const SuraaLaunch& l, cudaStream_t s, const V* x, const V* y, V* z, V alpha,
                       V beta) const {
    constexpr int block = TPR > SuraaPolicy::rows_block ? TPR : SuraaPolicy::rows_block;
    const auto rows = static_cast<std::size_t>(l.row_end - l.row_begin);
    suraa_rows_kernel<V, TPR, block><<<cuda::grid_for(rows, block / TPR), block, 0, s>>>(
        l.row_begin, l.row_end, d_.row_ptr.data(), d_.col_idx.data(), d_.values.data(),
        d_.perm.data(), x, y, z, alpha, beta);
    SPMVKIT_LAUNCH_CHECK();
  }

  void launch_rows(const SuraaLaunch& l, cudaStream_t s, const V* x, const V* y, V* z, V alpha,
                   V beta) const {
    switch (l.threads_per_row) {
      case 1:
        return launch_rows_tpr<1>(l, s, x, y, z, alpha, beta);
      case 2:
        return launch_rows_tpr<2>(l, s, x, y, z, alpha, beta);
      case 4:
        return launch_rows_tpr<4>(l, s, x, y, z, alpha, beta);
      case 8:
        return launch_rows_tpr<8>(l, s, x, y, z, alpha, beta);
      case 16:
        return launch_rows_tpr<16>(l, s, x, y, z, alpha, beta);
      case 32:
        return launch_rows_tpr<32>(l, s, x, y, z, alpha, beta);
      case 64:
        return launch_rows_tpr<64>(l, s, x, y, z, alpha, beta);
      case 128:
        return launch_rows_tpr<128>(l, s, x, y, z, alpha, beta);
      case 256:
        return launch_rows_tpr<256>(l, s, x, y, z, alpha, beta);
      case 512:
        return launch_rows_tpr<512>(l, s, x, y, z, alpha, beta);
      case 1024:
        return launch_rows_tpr<1024>(l, s, x, y, z, alpha, beta);
      default:
        throw InputError("suraa: unsupported threads per row " + std::to_string(l.threads_per_row));
    }
  }

  SuraaDeviceData<V> d_;
  bool dynamic_;
  bool table_mode_;
  bool tiles_mode_;
  int nnz_per_thread_;
  BalancedTiles<V> tiles_;  // launch=tiles
  cuda::DeviceBuffer<SuraaTableEntry> table_;
  index_t table_entries_ = 0;
  index_t table_blocks_ = 0;
  mutable cuda::DeviceBuffer<unsigned int>
      counters_;                    // G1 rows' task counts, back to 0 after each apply
  std::vector<int> launch_stream_;  // per launch: side stream index, -1 for the context stream
  std::unique_ptr<cuda::SideStreams> side_;
  mutable cuda::DeviceBuffer<V> partial_sums_;  // G1 scratch written by every apply
};

// launch=tiles with a near/far split: SURAA over the near entries, then the far entries in COO
// column panels (csr_balanced's far part: coo_add.cuh, one launch for all panels) added to z.
template <class V>
class SuraaNearFarOperator final : public Operator<V> {
 public:
  SuraaNearFarOperator(const Csr<V>& a, std::unique_ptr<Operator<V>> near, DeviceNearFar<V>&& split,
                       int panels, index_t band)
      : Operator<V>(near->info()), near_(std::move(near)), far_(std::move(split)) {
    this->info_.nnz = a.nnz();
    this->info_.cols = a.cols;
    this->info_.matrix_bytes += far_.bytes();
    this->info_.paper_bytes = suraa_paper_bytes(a.rows, a.cols, a.nnz(), sizeof(V));
    this->info_.details += ",far_panels=" + std::to_string(panels) +
                           ",near_band=" + std::to_string(band) +
                           ",far_nnz=" + std::to_string(far_.size());
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    near_->apply(x, y, z, alpha, beta);
    far_.add_to(x, z, alpha, cuda::Context::get().stream());
  }

 private:
  std::unique_ptr<Operator<V>> near_;
  FarEntries<V> far_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_suraa_cuda(const Csr<V>& a, const SuraaOptions& o) {
  if (a.rows == 0)
    return std::make_unique<SuraaCudaOperator<V>>(DeviceCsr<V>(a), o, SuraaDeviceData<V>{});
  cuda::DeviceBuffer<index_t> row_ptr_in(a.row_ptr);
  const NprMoments mom = npr_moments(a.rows, row_ptr_in.data());
  const std::string name = o.dynamic ? "suraa" : "suraa_static";
  if (suraa_use_csr_fallback(a.rows, a.nnz(), mom.sum_squared, o)) {
    std::ostringstream why;
    why << "npr_cv=" << suraa_npr_cv(a.rows, a.nnz(), mom.sum_squared);
    // csr_balanced as registered (a peer format, reached through the registry), with the
    // near/far options given to SURAA.
    return std::make_unique<SuraaFallbackOperator<V>>(
        build_operator<V>("csr_balanced", a, o.far, Backend::cuda), name, why.str());
  }
  const DeviceCsr<V> dev(a, std::move(row_ptr_in));
  if (o.launch == SuraaLaunchMode::tiles) {
    const FarSplitChoice far = csr_far_split_choice(
        a, o.far, name, static_cast<double>(cuda::Context::get().props().l2CacheSize));
    if (far.panels > 0) {
      DeviceNearFar<V> split = csr_split_near_far(dev, far.band, far.panels);
      const NprMoments near_mom = npr_moments(a.rows, split.near.row_ptr.data());
      auto near = std::make_unique<SuraaCudaOperator<V>>(
          split.near, o, suraa_setup_device(split.near, near_mom, o));
      return std::make_unique<SuraaNearFarOperator<V>>(a, std::move(near), std::move(split),
                                                       far.panels, far.band);
    }
  }
  return std::make_unique<SuraaCudaOperator<V>>(dev, o, suraa_setup_device(dev, mom, o));
}

template <class V>
SuraaPlan suraa_plan_cuda(const Csr<V>& a, const SuraaOptions& o) {
  if (a.rows == 0) return suraa_plan_host(a, o);
  const DeviceCsr<V> dev(a);
  const NprMoments mom = npr_moments(a.rows, dev.row_ptr.data());
  SuraaDeviceData<V> d = suraa_setup_device(dev, mom, o);
  d.plan.perm = d.perm.download();
  return d.plan;
}

#define SPMVKIT_INSTANTIATE(V)                                                               \
  template std::unique_ptr<Operator<V>> make_suraa_cuda(const Csr<V>&, const SuraaOptions&); \
  template SuraaPlan suraa_plan_cuda(const Csr<V>&, const SuraaOptions&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
