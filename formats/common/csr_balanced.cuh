// The balanced CSR kernel (nnz-split row tiles), shared by csr_balanced and suraa's
// launch=tiles (included by .cu files only).
//
// Setup cuts the rows into tiles of at most `tile_nnz` nonzeros (and at most `max_tile_rows`
// rows; csr_tiles.hpp on the host, csr_tiles_cuda.hpp on the device). A tile of whole rows is
// processed by one thread block: all threads first compute the products
// values[k] * x[col_idx[k]] of the tile into shared memory with coalesced loads
// (`items_per_thread` independent loads in flight per thread), then groups of
// `threads_per_row` threads (chosen per tile from its mean row length) reduce each row from
// shared memory. A row longer than `tile_nnz` is split over several blocks (slices), each
// reducing its slice into a partial sum. The partial sums are added in slice order (the result
// does not depend on the schedule) either by a fix-up kernel after the tiles
// (LongRowFinish::fixup), or by the slice that finishes last, found with a counter per long row
// (LongRowFinish::last_slice: one launch in all, what suraa needs for its single launch).
// On powerlaw_8000000 (H100, 1701 long rows, 2026-11-23, both in one run, two orders)
// last_slice took 0.8354-0.8360 ms against 0.8337-0.8340 for the fix-up, so csr_balanced keeps the
// fix-up. Every block does the same bounded work whatever the row lengths.
//
// Output rows: row r of the tiled matrix is written to z[out_row[r]] when out_row is given
// (suraa's sorted rows), else to z[r].
#pragma once

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/finish.cuh"
#include "formats/common/coo_add.cuh"
#include "formats/common/csr_kernels.hpp"
#include "formats/common/csr_split.cuh"
#include "formats/common/csr_tiles.hpp"
#include "formats/common/csr_tiles_cuda.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

// The scan of RowSum::scan: a thread's open row segment (the sum of its products after its
// last row end) and whether it ended a row. Combined in thread order, a segment adds onto the
// ones before it until a thread that ended a row.
template <class V>
struct RowCarry {
  V value;
  int ended;
};
struct RowCarrySum {
  template <class V>
  __device__ __forceinline__ RowCarry<V> operator()(const RowCarry<V>& a,
                                                    const RowCarry<V>& b) const {
    return {b.ended ? b.value : a.value + b.value, a.ended | b.ended};
  }
};

// Up to 8 items a thread: 1536 threads an SM (40 registers). On H100 this took stencil27_150
// from 0.448 to 0.434 ms (10 blocks of 128 at 48 registers before).
// SCAN: RowSum::scan's phase 2 (below); its products are stored with one pad a thread
// (product k at k + k / ITEMS), so the threads' contiguous reads do not collide in banks.
template <class V, int BLOCK, int ITEMS, bool SCAN>
__global__ void __launch_bounds__(BLOCK, ITEMS <= 8 ? 1536 / BLOCK : 1)
    csr_balanced_kernel(const BalancedTile* __restrict__ tiles,
                        const BalancedLongRow* __restrict__ long_rows,
                        const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                        const V* __restrict__ values, const index_t* __restrict__ out_row,
                        const V* __restrict__ x, const V* y, V* z, V* partials,
                        unsigned int* counters, V alpha, V beta) {
  __shared__ V products[BLOCK * ITEMS + (SCAN ? BLOCK : 0)];
  __shared__ index_t offsets[BalancedPolicy::max_tile_rows(BLOCK) + 1];
  using BlockReduce = cub::BlockReduce<V, BLOCK>;
  using BlockScan = cub::BlockScan<RowCarry<V>, BLOCK>;
  __shared__ union {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } storage;
  auto& reduce_storage = storage.reduce;
  const auto slot = [](index_t k) { return SCAN ? k + k / ITEMS : k; };
  __shared__ bool last_slice;
  const BalancedTile tile = tiles[blockIdx.x];
  const int tid = threadIdx.x;
  const index_t n = tile.nnz_end - tile.nnz_begin;

  if (tile.threads_per_row == 0) {  // a slice of a long row: block reduction to a partial
    V sum = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const index_t k = i * BLOCK + tid;
      if (k < n)
        sum +=
            __ldcs(values + tile.nnz_begin + k) * __ldg(x + __ldcs(col_idx + tile.nnz_begin + k));
    }
    sum = BlockReduce(reduce_storage).Sum(sum);
    if (counters == nullptr) {  // LongRowFinish::fixup
      if (tid == 0) partials[tile.partial] = sum;
      return;
    }
    const BalancedLongRow lr = long_rows[tile.long_row];
    if (tid == 0) {
      // Publish the partial, then count the slice (threadFenceReduction): the slice that
      // counts last sees every other slice's partial.
      partials[tile.partial] = sum;
      __threadfence();
      const unsigned int slices = static_cast<unsigned int>(lr.partial_end - lr.partial_begin);
      last_slice = atomicAdd(counters + tile.long_row, 1u) == slices - 1;
    }
    __syncthreads();
    if (!last_slice) return;
    __threadfence();
    V total = 0;
    for (index_t p = lr.partial_begin + tid; p < lr.partial_end; p += BLOCK)
      total += __ldcg(partials + p);  // from L2: this block's L1 may hold none of them
    total = BlockReduce(reduce_storage).Sum(total);
    if (tid == 0) {
      const index_t out = out_row != nullptr ? out_row[lr.row] : lr.row;
      z[out] = cuda::finish(total, y, out, alpha, beta);
      counters[tile.long_row] = 0;  // every slice has counted: ready for the next apply
    }
    return;
  }

  // Phase 1: coalesced products into shared memory, and the tile's row offsets beside them
  // (so phase 2 makes no dependent global loads).
  const index_t rows = tile.row_end - tile.row_begin;
  for (index_t r = tid; r <= rows; r += BLOCK)
    offsets[r] = row_ptr[tile.row_begin + r] - tile.nnz_begin;
  V prod[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const index_t k = i * BLOCK + tid;
    // The matrix streams through once (evict-first loads), so L2 keeps x.
    prod[i] = k < n ? __ldcs(values + tile.nnz_begin + k) *
                          __ldg(x + __ldcs(col_idx + tile.nnz_begin + k))
                    : V(0);
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) products[slot(i * BLOCK + tid)] = prod[i];
  __syncthreads();

  const auto write = [&](index_t local, V sum) {
    const index_t row = tile.row_begin + local;
    const index_t out = out_row != nullptr ? out_row[row] : row;
    z[out] = cuda::finish(sum, y, out, alpha, beta);
  };
  if constexpr (SCAN) {
    // Phase 2, scan: thread t sums products [t ITEMS, (t + 1) ITEMS) in order. A row is written
    // by the thread holding its last product (an empty row by the thread whose range its end
    // falls at the end of; those ending at 0 by thread 0). Its first row that ends takes the
    // carry of the threads before (their open segments since the last row end, the block scan).
    const index_t k0 = static_cast<index_t>(tid) * ITEMS;
    const index_t kend = k0 + ITEMS < n ? k0 + ITEMS : n;
    index_t r = 0;  // the first row ending after k0 (rows if none)
    for (index_t hi = rows; r < hi;) {
      const index_t mid = (r + hi) / 2;
      if (offsets[mid + 1] > k0)
        hi = mid;
      else
        r = mid + 1;
    }
    if (tid == 0)
      for (index_t q = 0; q < r; ++q) write(q, V(0));
    const index_t first_row = r;
    V sum = 0, first_sum = 0;
    int ended = 0;
    index_t end = r < rows ? offsets[r + 1] : n + 1;
    for (index_t k = k0; k < kend; ++k) {
      sum += products[slot(k)];
      if (k + 1 == end) {
        if (ended)
          write(r, sum);
        else
          first_sum = sum;
        ended = 1;
        sum = 0;
        ++r;
        while (r < rows && offsets[r + 1] == k + 1) write(r++, V(0));  // empty rows ending here
        end = r < rows ? offsets[r + 1] : n + 1;
      }
    }
    RowCarry<V> carry;
    BlockScan(storage.scan).ExclusiveScan(RowCarry<V>{sum, ended}, carry, RowCarrySum());
    if (ended) write(first_row, (tid == 0 ? V(0) : carry.value) + first_sum);
    return;
  }

  // Phase 2: groups of threads_per_row lanes reduce rows from shared memory.
  const int group = tile.threads_per_row;
  const int lane = tid % group;
  const int groups = BLOCK / group;
  const index_t rounds = (rows + groups - 1) / groups;  // the same for every thread
  for (index_t round = 0; round < rounds; ++round) {
    const index_t local = round * groups + tid / group;
    const bool active = local < rows;
    const index_t begin = active ? offsets[local] : 0;
    const index_t end = active ? offsets[local + 1] : 0;
    V sum = 0;
    for (index_t k = begin + lane; k < end; k += group) sum += products[slot(k)];
    for (int offset = group / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset, group);
    if (active && lane == 0) write(local, sum);
  }
}

// LongRowFinish::fixup: a thread a long row adds its partial sums in slice order.
template <class V>
__global__ void csr_long_row_fixup_kernel(const BalancedLongRow* __restrict__ long_rows,
                                          index_t count, const V* __restrict__ partials,
                                          const index_t* __restrict__ out_row, const V* y, V* z,
                                          V alpha, V beta) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const BalancedLongRow lr = long_rows[i];
  V sum = 0;
  for (index_t p = lr.partial_begin; p < lr.partial_end; ++p) sum += partials[p];
  const index_t out = out_row != nullptr ? out_row[lr.row] : lr.row;
  z[out] = cuda::finish(sum, y, out, alpha, beta);
}

enum class LongRowFinish { fixup, last_slice };

// A tiling on the device, and its launch.
template <class V>
class BalancedTiles {
 public:
  BalancedTiles() = default;
  // From a host tiling (uploaded) or a device one (balanced_tiling_device).
  BalancedTiles(const BalancedTiling& t, const BalancedPolicy& policy, LongRowFinish finish)
      : BalancedTiles(
            DeviceBalancedTiling{cuda::DeviceBuffer<BalancedTile>(t.tiles),
                                 cuda::DeviceBuffer<BalancedLongRow>(t.long_rows), t.partials},
            policy, finish) {}
  BalancedTiles(DeviceBalancedTiling&& t, const BalancedPolicy& policy, LongRowFinish finish)
      : policy_(policy),
        finish_(finish),
        tiles_(std::move(t.tiles)),
        long_rows_(std::move(t.long_rows)),
        partials_(static_cast<std::size_t>(t.partials)),
        counters_(finish == LongRowFinish::last_slice ? long_rows_.size() : 0) {
    if (tiles_.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw UnsupportedError("balanced CSR: more than 2^31 - 1 tiles");
    if (counters_.size() > 0) cuda::fill_bytes(counters_.data(), 0, counters_.bytes());
  }

  std::size_t tiles() const { return tiles_.size(); }
  std::size_t long_rows() const { return long_rows_.size(); }
  // Read once per apply besides the matrix: the tile and long-row descriptors.
  std::size_t descriptor_bytes() const { return tiles_.bytes() + long_rows_.bytes(); }

  void launch(const index_t* row_ptr, const index_t* col_idx, const V* values,
              const index_t* out_row, const V* x, const V* y, V* z, V alpha, V beta,
              cudaStream_t stream) const {
    if (tiles_.size() == 0) return;
    if (policy_.block_threads == 128)
      launch_block<128>(row_ptr, col_idx, values, out_row, x, y, z, alpha, beta, stream);
    else
      launch_block<256>(row_ptr, col_idx, values, out_row, x, y, z, alpha, beta, stream);
    SPMVKIT_LAUNCH_CHECK();
    if (finish_ == LongRowFinish::fixup && long_rows_.size() > 0) {
      const auto count = static_cast<index_t>(long_rows_.size());
      csr_long_row_fixup_kernel<V><<<cuda::grid_for(count, 128), 128, 0, stream>>>(
          long_rows_.data(), count, partials_.data(), out_row, y, z, alpha, beta);
      SPMVKIT_LAUNCH_CHECK();
    }
  }

 private:
  template <int BLOCK>
  void launch_block(const index_t* row_ptr, const index_t* col_idx, const V* values,
                    const index_t* out_row, const V* x, const V* y, V* z, V alpha, V beta,
                    cudaStream_t stream) const {
    auto run = [&](auto kernel) {
      kernel<<<static_cast<unsigned>(tiles_.size()), BLOCK, 0, stream>>>(
          tiles_.data(), long_rows_.data(), row_ptr, col_idx, values, out_row, x, y, z,
          partials_.data(), finish_ == LongRowFinish::last_slice ? counters_.data() : nullptr,
          alpha, beta);
    };
    auto by_items = [&](auto scan) {
      constexpr bool kScan = decltype(scan)::value;
      switch (policy_.items_per_thread) {
        case 4:
          return run(csr_balanced_kernel<V, BLOCK, 4, kScan>);
        case 16:
          return run(csr_balanced_kernel<V, BLOCK, 16, kScan>);
        default:
          return run(csr_balanced_kernel<V, BLOCK, 8, kScan>);
      }
    };
    if (policy_.row_sum == BalancedPolicy::RowSum::scan)
      by_items(std::true_type{});
    else
      by_items(std::false_type{});
  }

  BalancedPolicy policy_;
  LongRowFinish finish_ = LongRowFinish::fixup;
  cuda::DeviceBuffer<BalancedTile> tiles_;
  cuda::DeviceBuffer<BalancedLongRow> long_rows_;
  mutable cuda::DeviceBuffer<V> partials_;             // scratch written by every apply
  mutable cuda::DeviceBuffer<unsigned int> counters_;  // slices counted; back to 0 after each
};

// The far entries of a near/far split (csr_split_near_far) on the device, added to z after the
// near part by the COO kernel (all column panels in one launch): csr_balanced's far part, and
// suraa's with launch=tiles.
template <class V>
class FarEntries {
 public:
  FarEntries() = default;
  explicit FarEntries(DeviceNearFar<V>&& s)
      : row_(std::move(s.far_row)),
        col_(std::move(s.far_col)),
        val_(std::move(s.far_val)),
        row_segments_(s.far_row_segments) {}

  std::size_t size() const { return row_.size(); }
  // Read once per apply: the entries with their rows, and z read and written once more per
  // (panel, row) pair with far entries.
  std::size_t bytes() const {
    return row_.bytes() + col_.bytes() + val_.bytes() +
           static_cast<std::size_t>(row_segments_) * 2 * sizeof(V);
  }
  // z += alpha * (far entries) * x.
  void add_to(const V* x, V* z, V alpha, cudaStream_t stream) const {
    launch_coo_add(static_cast<index_t>(row_.size()), row_.data(), col_.data(), val_.data(), x, z,
                   alpha, stream);
  }

 private:
  cuda::DeviceBuffer<index_t> row_;
  cuda::DeviceBuffer<index_t> col_;
  cuda::DeviceBuffer<V> val_;
  std::int64_t row_segments_ = 0;
};

}  // namespace spmvkit
