// The balanced CSR tiling on the device (issue 24): balanced_tiling's greedy walk (csr_tiles.hpp)
// without its sequential dependence.
//
// The walk goes from tile start to tile start: next(r) = r + 1 for a long row, else the end of
// the whole-row tile that starts at r (balanced_tile_end). next(r) depends on r alone, so it is
// computed for every row at once (one binary search of at most log2(max_tile_rows) probes a
// row); the tile starts are then the orbit row_begin, next(row_begin), next(next(row_begin)),
// ... up to row_end, found by pointer doubling: round k marks jump(i) for every marked i, with
// jump = next^(2^k), and squares jump. After round k every start reached in fewer than 2^(k+1)
// steps is marked, and only starts are (a mark made and read in the same round still marks a
// point of the orbit), so ceil(log2(tiles)) rounds mark them all; a round after the orbit's end
// returns at once. The starts are then compacted (CUB select), each gets its number of tiles
// (1, or a long row's slices), two CUB scans number the tiles and the long rows, and a thread a
// tile writes it. Host tiling: 12.6 ms for 7.2M rows (reservoir_bs2_153) on one core, after the
// row pointer's download (4-7 ms); here about 13 bytes a row a round (below).
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <limits>

#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/search.cuh"
#include "formats/common/csr_tiles_cuda.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

constexpr int kTilingBlock = 256;  // threads a block of every tiling kernel (memory-bound)

// The row before which the tile starting at r must end: the first cut after r, or row_end
// (balanced_tiling's `limit`).
__device__ __forceinline__ index_t tile_limit(const index_t* __restrict__ cuts, index_t n_cuts,
                                              index_t r, index_t row_end) {
  index_t lo = 0, hi = n_cuts;  // first cut > r: upper bound
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (cuts[mid] <= r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n_cuts ? min(cuts[lo], row_end) : row_end;
}

// next(r) - row_begin for local row i = r - row_begin in [0, m), m (the end) for i = m: r + 1
// after a long row, else the end of the whole-row tile that starts at r.
__device__ __forceinline__ index_t tile_next(const index_t* __restrict__ row_ptr, index_t row_begin,
                                             index_t m, index_t i, index_t tile_nnz,
                                             index_t max_rows, const index_t* __restrict__ cuts,
                                             index_t n_cuts) {
  if (i >= m) return m;
  const index_t r = row_begin + i;
  return (balanced_long_row(row_ptr, r, tile_nnz)
              ? r + 1
              : balanced_tile_end(row_ptr, r, tile_limit(cuts, n_cuts, r, row_begin + m), tile_nnz,
                                  max_rows)) -
         row_begin;
}

// next(r) - row_begin for local row i = r - row_begin in [0, m), m (the end) for i = m; the
// start row_begin marked. Thread i: row i. Bytes: the row pointer once (4 a row, the probes of
// the binary search hit the same lines in L1/L2), 4 + 1 written a row.
__global__ void tile_next_kernel(const index_t* __restrict__ row_ptr, index_t row_begin, index_t m,
                                 index_t tile_nnz, index_t max_rows,
                                 const index_t* __restrict__ cuts, index_t n_cuts,
                                 index_t* __restrict__ jump, unsigned char* __restrict__ mark,
                                 int* __restrict__ done) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > m) return;
  const index_t next =
      tile_next(row_ptr, row_begin, m, static_cast<index_t>(i), tile_nnz, max_rows, cuts, n_cuts);
  jump[i] = next;
  mark[i] = i == 0;
  if (i == 0) done[0] = next == m;  // one tile: nothing left to mark
}

// Doubling round k: jump_in = next^(2^k). Every marked i marks jump_in[i]; jump_out =
// jump_in o jump_in. done[k] set: the orbit was marked by an earlier round (this one only
// passes that on). Thread i: local row i (and the end, i = m). Bytes a row: jump_in read (4),
// jump_in[jump_in[i]] gathered (4: jump_in is non-decreasing, so a warp's gathers are near each
// other), mark read (1), jump_out written (4).
__global__ void tile_starts_round_kernel(index_t m, const index_t* __restrict__ jump_in,
                                         index_t* __restrict__ jump_out, unsigned char* mark,
                                         int* done, int k) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (done[k]) {
    if (i == 0) done[k + 1] = 1;
    return;
  }
  if (i > m) return;
  const index_t j = jump_in[i];
  if (mark[i]) mark[j] = 1;
  const index_t jj = jump_in[j];
  jump_out[i] = jj;
  if (i == 0 && jj == m) done[k + 1] = 1;  // next^(2^(k+1))(row_begin) is the end
}

// Up to kSmallTilingRows rows the whole tiling's analysis runs in one block, in shared memory:
// next(r) for every row, the doubling rounds, the compaction, each start's tiles and long rows
// and their scans (one launch and one download where the doubling path takes ceil(log2(rows))
// rounds, a CUB select, a count kernel, two CUB scans and two downloads: a small matrix's
// tiling was mostly launches and waits, ~0.15 ms on the H100 at 2K-7K rows).
constexpr index_t kSmallTilingRows = 8191;  // m + 1 <= 8192 jumps: 32 KB, 8 KB of marks
constexpr int kSmallTilingBlock = 1024;
constexpr int kSmallTilingItems = (kSmallTilingRows + 1) / kSmallTilingBlock;  // rows a thread

// For m <= kSmallTilingRows: starts[0, count) and starts[count] = row_begin + m (as
// greedy_tile_starts_device), tile_offset and long_offset over [0, count] (tile_counts_kernel's,
// scanned: the totals last), totals = {count, tiles, long rows}. Thread x owns local rows
// [x * items, x * items + items) and the starts among them. In-place rounds: every thread reads
// its rows' jump[jump[i]] before any writes. Bytes: the row pointer (4 a row and the probes of
// the searches), the starts and offsets written.
__global__ void __launch_bounds__(kSmallTilingBlock)
    tiling_small_kernel(const index_t* __restrict__ row_ptr, index_t row_begin, index_t m,
                        index_t tile_nnz, index_t max_rows, const index_t* __restrict__ cuts,
                        index_t n_cuts, index_t* __restrict__ starts,
                        index_t* __restrict__ tile_offset, index_t* __restrict__ long_offset,
                        index_t* __restrict__ totals) {
  using Scan = cub::BlockScan<int, kSmallTilingBlock>;
  __shared__ index_t jump[kSmallTilingRows + 1];
  __shared__ unsigned char mark[kSmallTilingRows + 1];
  __shared__ typename Scan::TempStorage scan;
  const index_t end = row_begin + m;
  for (int i = threadIdx.x; i <= m; i += kSmallTilingBlock) {
    jump[i] = tile_next(row_ptr, row_begin, m, i, tile_nnz, max_rows, cuts, n_cuts);
    mark[i] = i == 0;
  }
  __syncthreads();
  const int first = threadIdx.x * kSmallTilingItems;
  while (jump[0] != m) {  // uniform: read after a barrier, written before the next
    index_t out[kSmallTilingItems];
    for (int q = 0; q < kSmallTilingItems; ++q) {
      const int i = first + q;
      if (i > m) break;
      const index_t j = jump[i];
      if (mark[i]) mark[j] = 1;
      out[q] = jump[j];
    }
    __syncthreads();
    for (int q = 0; q < kSmallTilingItems; ++q) {
      const int i = first + q;
      if (i > m) break;
      jump[i] = out[q];
    }
    __syncthreads();
  }
  // This thread's starts, their tiles (1, or a long row's slices) and long rows.
  int mine = 0, my_tiles = 0, my_long = 0;
  for (int q = 0; q < kSmallTilingItems; ++q) {
    const int i = first + q;
    if (i >= m || !mark[i]) continue;
    const index_t r = row_begin + i;
    const bool is_long = balanced_long_row(row_ptr, r, tile_nnz);
    ++mine;
    my_tiles += is_long ? balanced_slices(row_ptr, r, tile_nnz) : 1;
    my_long += is_long;
  }
  int at = 0, count = 0, tile_at = 0, tiles = 0, long_at = 0, longs = 0;
  Scan(scan).ExclusiveSum(mine, at, count);
  __syncthreads();
  Scan(scan).ExclusiveSum(my_tiles, tile_at, tiles);
  __syncthreads();
  Scan(scan).ExclusiveSum(my_long, long_at, longs);
  for (int q = 0; q < kSmallTilingItems; ++q) {
    const int i = first + q;
    if (i >= m || !mark[i]) continue;
    const index_t r = row_begin + i;
    const bool is_long = balanced_long_row(row_ptr, r, tile_nnz);
    starts[at] = r;
    tile_offset[at] = tile_at;
    long_offset[at] = long_at;
    ++at;
    tile_at += is_long ? balanced_slices(row_ptr, r, tile_nnz) : 1;
    long_at += is_long;
  }
  if (threadIdx.x == 0) {
    starts[count] = end;  // the end after the starts (DeviceTileStarts)
    tile_offset[count] = tiles;
    long_offset[count] = longs;
    totals[0] = count;
    totals[1] = tiles;
    totals[2] = longs;
  }
}

// starts[*count] = end, after the compaction of the doubling path.
__global__ void tile_end_kernel(index_t* starts, const index_t* count, index_t end) {
  starts[*count] = end;
}

// For start s in [0, starts) (and 0 for s = starts, the scans' total): its tiles (1, or a long
// row's slices) and whether it is a long row. Bytes: 4 read, 2 row pointer entries, 8 written.
__global__ void tile_counts_kernel(const index_t* __restrict__ row_ptr,
                                   const index_t* __restrict__ start_rows, index_t starts,
                                   index_t tile_nnz, index_t* __restrict__ tile_offset,
                                   index_t* __restrict__ long_offset) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s > starts) return;
  index_t tiles = 0, is_long = 0;
  if (s < starts) {
    const index_t r = start_rows[s];
    is_long = balanced_long_row(row_ptr, r, tile_nnz);
    tiles = is_long ? balanced_slices(row_ptr, r, tile_nnz) : 1;
  }
  tile_offset[s] = tiles;
  long_offset[s] = is_long;
}

// Tile t, as balanced_tiling appends it: a thread a tile finds its start by a binary search of
// the tile offsets. A long row's slices take partial-sum slots in row order: the slots before
// start s are its tiles before it less its whole-row tiles before it (s - long_offset[s]).
// Bytes: 28 written a tile (+ 12 a long row), a few reads of the starts and the row pointer.
__global__ void tile_emit_kernel(const index_t* __restrict__ row_ptr, index_t row_end,
                                 index_t tile_nnz, index_t max_rows,
                                 const index_t* __restrict__ cuts, index_t n_cuts,
                                 const index_t* __restrict__ start_rows, index_t starts,
                                 const index_t* __restrict__ tile_offset,
                                 const index_t* __restrict__ long_offset, index_t n_tiles,
                                 BalancedTile* __restrict__ tiles,
                                 BalancedLongRow* __restrict__ long_rows) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n_tiles) return;
  const index_t s = cuda::last_at_most(tile_offset, 0, starts - 1, t);
  const index_t r = start_rows[s];
  if (balanced_long_row(row_ptr, r, tile_nnz)) {
    const index_t k = static_cast<index_t>(t) - tile_offset[s];
    const index_t id = long_offset[s];
    const index_t partial_begin = tile_offset[s] - (s - id);
    const index_t begin = row_ptr[r] + k * tile_nnz;
    tiles[t] = BalancedTile{
        r, r + 1, begin, min(begin + tile_nnz, row_ptr[r + 1]), 0, partial_begin + k, id};
    if (k == 0)
      long_rows[id] =
          BalancedLongRow{r, partial_begin, partial_begin + balanced_slices(row_ptr, r, tile_nnz)};
    return;
  }
  const index_t end =
      balanced_tile_end(row_ptr, r, tile_limit(cuts, n_cuts, r, row_end), tile_nnz, max_rows);
  tiles[t] =
      BalancedTile{r, end, row_ptr[r], row_ptr[end], balanced_tile_threads(row_ptr, r, end), 0, 0};
}

}  // namespace

DeviceTileStarts greedy_tile_starts_device(const index_t* row_ptr, index_t row_begin,
                                           index_t row_end, index_t tile_nnz, index_t max_rows,
                                           const index_t* cuts, index_t n_cuts) {
  DeviceTileStarts out;
  if (row_end <= row_begin) return out;
  const index_t m = row_end - row_begin;
  const auto n = static_cast<std::size_t>(m) + 1;  // the rows and the end
  // A small matrix's row pointer the host holds (host_mirror.hpp): the walk made there.
  if (const index_t* host =
          n_cuts == 0 ? cuda::host_row_ptr(row_ptr, std::size_t(row_end) + 1) : nullptr) {
    std::vector<index_t> starts;
    for (index_t r = row_begin; r < row_end;) {
      starts.push_back(r);
      r = balanced_long_row(host, r, tile_nnz)
              ? r + 1
              : balanced_tile_end(host, r, row_end, tile_nnz, max_rows);
    }
    out.count = static_cast<index_t>(starts.size());
    starts.push_back(row_end);
    out.rows = cuda::DeviceBuffer<index_t>(n);
    cuda::copy_to_device_async(out.rows.data(), starts.data(), starts.size() * sizeof(index_t));
    return out;
  }
  cudaStream_t stream = cuda::Context::get().stream();
  const unsigned grid = cuda::grid_for(n, kTilingBlock);

  if (m <= kSmallTilingRows) {                                // one block, one download
    cuda::DeviceBuffer<index_t> rows(n), scratch(2 * n + 3);  // offsets, then the totals
    tiling_small_kernel<<<1, kSmallTilingBlock, 0, stream>>>(
        row_ptr, row_begin, m, tile_nnz, max_rows, cuts, n_cuts, rows.data(), scratch.data(),
        scratch.data() + n, scratch.data() + 2 * n);
    SPMVKIT_LAUNCH_CHECK();
    cuda::copy_to_host(&out.count, scratch.data() + 2 * n, sizeof out.count);
    out.rows = std::move(rows);
    return out;
  }

  // 9 bytes a row of scratch: the jumps (two buffers; the first then holds the starts) and the
  // marks.
  cuda::DeviceBuffer<index_t> jump_a(n), jump_b(n);
  cuda::DeviceBuffer<unsigned char> mark(n);
  const int rounds = cuda::bits_for(static_cast<std::uint64_t>(m));  // 2^rounds > m >= tiles
  cuda::DeviceBuffer<int> done(static_cast<std::size_t>(rounds) + 1);
  cuda::fill_bytes(done.data(), 0, done.bytes());
  tile_next_kernel<<<grid, kTilingBlock, 0, stream>>>(row_ptr, row_begin, m, tile_nnz, max_rows,
                                                      cuts, n_cuts, jump_a.data(), mark.data(),
                                                      done.data());
  SPMVKIT_LAUNCH_CHECK();
  index_t* jump_in = jump_a.data();
  index_t* jump_out = jump_b.data();
  for (int k = 0; k < rounds; ++k) {
    tile_starts_round_kernel<<<grid, kTilingBlock, 0, stream>>>(m, jump_in, jump_out, mark.data(),
                                                                done.data(), k);
    SPMVKIT_LAUNCH_CHECK();
    std::swap(jump_in, jump_out);
  }

  // The marked rows, in order, into jump_a (free now); their count to the host.
  index_t* selected = jump_b.data();  // one index_t; jump_b is free too
  cuda::cub_call(
      [&](void* temp, std::size_t& bytes, cudaStream_t st) {
        return cub::DeviceSelect::Flagged(temp, bytes,
                                          thrust::counting_iterator<index_t>(row_begin),
                                          mark.data(), jump_a.data(), selected, m, st);
      },
      stream);
  tile_end_kernel<<<1, 1, 0, stream>>>(jump_a.data(), selected, row_end);
  SPMVKIT_LAUNCH_CHECK();
  cuda::copy_to_host(&out.count, selected, sizeof out.count);
  out.rows = std::move(jump_a);
  return out;
}

DeviceBalancedTiling balanced_tiling_device(const index_t* row_ptr, index_t row_begin,
                                            index_t row_end, const BalancedPolicy& policy,
                                            const index_t* cuts, index_t n_cuts,
                                            const index_t* host_cuts) {
  DeviceBalancedTiling out;
  const index_t tile_nnz = policy.tile_nnz();
  const index_t max_rows = policy.max_tile_rows();
  if (row_end <= row_begin) return out;
  // A small matrix the registry uploaded from the host: its tiling made there, from the host's
  // row pointer, and queued up (no kernel, no download).
  if (const index_t* host = n_cuts == 0 || host_cuts
                                ? cuda::host_row_ptr(row_ptr, std::size_t(row_end) + 1)
                                : nullptr) {
    BalancedTiling t;
    const std::vector<index_t> cut_list =
        n_cuts > 0 ? std::vector<index_t>(host_cuts, host_cuts + n_cuts) : std::vector<index_t>{};
    balanced_tiling(host, row_begin, row_end, policy, cut_list, t);
    out.tiles = cuda::queued_upload(t.tiles);
    out.long_rows = cuda::queued_upload(t.long_rows);
    out.partials = t.partials;
    return out;
  }
  cudaStream_t stream = cuda::Context::get().stream();
  const index_t m = row_end - row_begin;

  // The starts, their tile and long-row offsets (starts + 1 each, the totals last), then one
  // download of the totals {starts (where the host has not got it), tiles, long rows}.
  cuda::DeviceBuffer<index_t> starts_rows, tile_offset, long_offset;
  index_t count = 0, n_tiles = 0, n_long = 0;
  if (m <= kSmallTilingRows) {  // all in one block
    const auto n = static_cast<std::size_t>(m) + 1;
    starts_rows = cuda::DeviceBuffer<index_t>(n);
    tile_offset = cuda::DeviceBuffer<index_t>(n);
    long_offset = cuda::DeviceBuffer<index_t>(n);
    cuda::DeviceBuffer<index_t> totals(3);
    tiling_small_kernel<<<1, kSmallTilingBlock, 0, stream>>>(
        row_ptr, row_begin, m, tile_nnz, max_rows, cuts, n_cuts, starts_rows.data(),
        tile_offset.data(), long_offset.data(), totals.data());
    SPMVKIT_LAUNCH_CHECK();
    const std::vector<index_t> t = totals.download();
    count = t[0];
    n_tiles = t[1];
    n_long = t[2];
  } else {
    DeviceTileStarts starts =
        greedy_tile_starts_device(row_ptr, row_begin, row_end, tile_nnz, max_rows, cuts, n_cuts);
    count = starts.count;
    starts_rows = std::move(starts.rows);
    const auto n = static_cast<std::size_t>(count) + 1;
    tile_offset = cuda::DeviceBuffer<index_t>(n);
    long_offset = cuda::DeviceBuffer<index_t>(n);
    tile_counts_kernel<<<cuda::grid_for(n, kTilingBlock), kTilingBlock, 0, stream>>>(
        row_ptr, starts_rows.data(), count, tile_nnz, tile_offset.data(), long_offset.data());
    SPMVKIT_LAUNCH_CHECK();
    for (index_t* offsets : {tile_offset.data(), long_offset.data()})
      cuda::cub_call(
          [&](void* temp, std::size_t& bytes, cudaStream_t st) {
            return cub::DeviceScan::ExclusiveSum(temp, bytes, offsets, offsets, count + 1, st);
          },
          stream);
    const std::vector<index_t> t =
        cuda::download_each({tile_offset.data() + count, long_offset.data() + count});
    n_tiles = t[0];
    n_long = t[1];
  }
  if (count == 0) return out;

  out.tiles = cuda::DeviceBuffer<BalancedTile>(static_cast<std::size_t>(n_tiles));
  out.long_rows = cuda::DeviceBuffer<BalancedLongRow>(static_cast<std::size_t>(n_long));
  out.partials = n_tiles - (count - n_long);  // the long rows' slices
  tile_emit_kernel<<<cuda::grid_for(static_cast<std::size_t>(n_tiles), kTilingBlock), kTilingBlock,
                     0, stream>>>(row_ptr, row_end, tile_nnz, max_rows, cuts, n_cuts,
                                  starts_rows.data(), count, tile_offset.data(), long_offset.data(),
                                  n_tiles, out.tiles.data(), out.long_rows.data());
  SPMVKIT_LAUNCH_CHECK();
  return out;
}

BalancedTiling download_tiling(const DeviceBalancedTiling& t) {
  BalancedTiling h;
  h.tiles = t.tiles.download();
  h.long_rows = t.long_rows.download();
  h.partials = t.partials;
  return h;
}

}  // namespace spmvkit
