// Block detection and CSR -> BSR on the device (bsr_blocks_cuda.hpp).
#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/util_type.cuh>
#include <string>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/search.cuh"
#include "backend/cuda/store.cuh"
#include "formats/common/bsr_blocks_cuda.hpp"

namespace spmvkit {

namespace {

// Launch shapes: a thread a row, block row or entry.
struct BsrBlocksPolicy {
  static constexpr int block_threads = 256;
};

// Candidate block sizes 2..64 as bits bs - 1 of a 64-bit mask.
using Candidates = unsigned long long;
constexpr int kDetectMax = 64;

__device__ __forceinline__ std::int64_t thread_id() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Element (i, j) of a column-major bs x bs block (csr_to_bsr's column_major layout).
__device__ __forceinline__ std::size_t in_block(index_t i, index_t j, int bs) {
  return static_cast<std::size_t>(j) * bs + i;
}

// Clears the failed candidates in `alive` (one atomic a warp, only when it clears something).
__device__ __forceinline__ void drop_candidates(Candidates failed, Candidates* alive) {
  const unsigned lo = __reduce_or_sync(0xffffffffu, static_cast<unsigned>(failed));
  const unsigned hi = __reduce_or_sync(0xffffffffu, static_cast<unsigned>(failed >> 32));
  const Candidates warp_failed = (Candidates{hi} << 32) | lo;
  if (threadIdx.x % 32 == 0 && (warp_failed & *alive) != 0) atomicAnd(alive, ~warp_failed);
}

// Per row, for every candidate bs: its length divisible by bs and equal to the length of its
// block row's first row. A thread a row; every lane reaches the warp reduction.
__global__ void detect_rows_kernel(index_t rows, const index_t* __restrict__ row_ptr,
                                   Candidates candidates, Candidates* alive) {
  const std::int64_t r = thread_id();
  Candidates failed = 0;
  if (r < rows) {
    const index_t len = row_ptr[r + 1] - row_ptr[r];
    for (Candidates m = candidates; m != 0; m &= m - 1) {
      const int bs = __ffsll(static_cast<long long>(m));  // bit bs - 1
      const std::int64_t r0 = r - r % bs;
      if (len % bs != 0 || (r0 != r && row_ptr[r0 + 1] - row_ptr[r0] != len))
        failed |= Candidates{1} << (bs - 1);
    }
  }
  drop_candidates(failed, alive);
}

// Entry k (position j of row r, column c) as a full bs x bs block structure has it: c at offset
// j % bs of an aligned run (c % bs == j % bs, and c follows the previous column inside a run),
// and the block row's first row has c at position j too.
__device__ __forceinline__ bool in_full_block(const index_t* __restrict__ row_ptr,
                                              const index_t* __restrict__ col_idx, std::int64_t k,
                                              index_t r, index_t j, index_t c, int bs) {
  const index_t in_run = j % bs;
  const index_t r0 = r - r % bs;
  return c % bs == in_run && (in_run == 0 || col_idx[k - 1] == c - 1) &&
         (r0 == r || col_idx[row_ptr[r0] + j] == c);
}

// Per entry, for every candidate bs left by the row pass in *alive: in_full_block. kSpanItems
// entries a thread (block_items_span).
__global__ void detect_entries_kernel(std::int64_t nnz, index_t rows,
                                      const index_t* __restrict__ row_ptr,
                                      const index_t* __restrict__ col_idx, Candidates* alive) {
  // What the row pass left (queued before, not waited for); bits other blocks drop meanwhile
  // are dead anyway.
  const Candidates candidates = *static_cast<volatile Candidates*>(alive);
  if (candidates == 0) return;
  const cuda::ItemsSpan span = cuda::block_items_span(row_ptr, 0, rows - 1, nnz);
  Candidates failed = 0;
  for (int it = 0; it < cuda::kSpanItems; ++it) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(it) * blockDim.x + threadIdx.x;
    if (k >= span.end) break;
    const index_t r = cuda::last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
    const index_t j = static_cast<index_t>(k - row_ptr[r]);
    const index_t c = col_idx[k];
    for (Candidates m = candidates; m != 0; m &= m - 1) {
      const int bs = __ffsll(static_cast<long long>(m));
      if (!in_full_block(row_ptr, col_idx, k, r, j, c, bs)) failed |= Candidates{1} << (bs - 1);
    }
  }
  drop_candidates(failed, alive);
}

// seg[br] = the first entry of block row br (block_rows + 1 offsets). A thread a block row.
__global__ void block_row_start_kernel(index_t rows, index_t block_rows, int bs,
                                       const index_t* __restrict__ row_ptr, index_t* seg) {
  const std::int64_t br = thread_id();
  if (br <= block_rows) seg[br] = row_ptr[min(br * bs, std::int64_t{rows})];
}

// key[k] = entry k's block column.
__global__ void block_col_kernel(std::int64_t nnz, int bs, const index_t* __restrict__ col_idx,
                                 index_t* key) {
  const std::int64_t k = thread_id();
  if (k < nnz) key[k] = col_idx[k] / bs;
}

// head[k] = 1 where sorted entry k starts a run of equal block columns within its block row
// (head[nnz] = 0, for the exclusive scan's total). A thread an entry.
__global__ void block_head_kernel(std::int64_t nnz, index_t block_rows,
                                  const index_t* __restrict__ seg,
                                  const index_t* __restrict__ sorted, index_t* head) {
  const std::int64_t k = thread_id();
  const index_t br = cuda::block_last_at_most(seg, 0, block_rows - 1, nnz, k);
  if (k > nnz) return;
  if (k == nnz) {
    head[k] = 0;
    return;
  }
  head[k] = k == seg[br] || sorted[k] != sorted[k - 1] ? 1 : 0;
}

// The block row pointers (block_row_ptr[br] = blocks before block row br's first entry) and
// the block columns (each run head's). `index`: the exclusive scan of the heads. A thread a
// block row and an entry.
__global__ void block_arrays_kernel(std::int64_t nnz, index_t block_rows,
                                    const index_t* __restrict__ seg,
                                    const index_t* __restrict__ sorted,
                                    const index_t* __restrict__ index, index_t* block_row_ptr,
                                    index_t* block_col_idx) {
  const std::int64_t k = thread_id();
  if (k <= block_rows) block_row_ptr[k] = index[seg[k]];
  if (k < nnz && index[k + 1] != index[k]) block_col_idx[index[k]] = sorted[k];
}

// Entry k into its block, column-major (csr_to_bsr's pass 2): its block found by a binary
// search of its block row's sorted block columns. kSpanItems entries a thread. Bytes: per
// entry its column and value read, the value written (scattered within the block row's
// blocks).
template <class V>
__global__ void block_values_kernel(std::int64_t nnz, index_t rows, int bs,
                                    const index_t* __restrict__ row_ptr,
                                    const index_t* __restrict__ col_idx,
                                    const V* __restrict__ values,
                                    const index_t* __restrict__ block_row_ptr,
                                    const index_t* __restrict__ block_col_idx, V* out) {
  const cuda::ItemsSpan span = cuda::block_items_span(row_ptr, 0, rows - 1, nnz);
  for (int it = 0; it < cuda::kSpanItems; ++it) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(it) * blockDim.x + threadIdx.x;
    if (k >= span.end) break;
    const index_t r = cuda::last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
    const index_t c = col_idx[k];
    const index_t br = r / bs, bc = c / bs;
    index_t lo = block_row_ptr[br], hi = block_row_ptr[br + 1] - 1;
    while (lo < hi) {  // the first block column >= bc (it is there)
      const index_t mid = lo + (hi - lo) / 2;
      if (block_col_idx[mid] < bc)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::size_t block = static_cast<std::size_t>(bs) * bs;
    out[lo * block + in_block(r % bs, c % bs, bs)] = values[k];
  }
}

// Full blocks (every row of a block row has the first row's columns, in aligned runs of bs; the
// check of detect_block_size_device): all block rows before br are full, so block row br starts
// at block row_ptr[br * bs] / bs^2, and the last one (maybe fewer than bs rows) holds as many
// blocks as its first row has runs. A thread a block row.
__global__ void full_block_row_ptr_kernel(index_t block_rows, int bs,
                                          const index_t* __restrict__ row_ptr,
                                          index_t* block_row_ptr) {
  const std::int64_t br = thread_id();
  if (br > block_rows) return;
  const index_t bs2 = bs * bs;
  if (br < block_rows) {
    block_row_ptr[br] = row_ptr[br * bs] / bs2;
    return;
  }
  const std::int64_t r0 = (br - 1) * bs;  // the last block row's first row (rows > 0)
  block_row_ptr[br] = row_ptr[r0] / bs2 + (row_ptr[r0 + 1] - row_ptr[r0]) / bs;
}

// Full blocks: stored element k is entry k of the CSR, permuted within its block row. Block row
// br holds entries [s, s + bs L) (s = row_ptr[br bs], L its rows' common length, nb = L / bs
// blocks) and, column-major, the same range of stored elements (blocks before it hold s / bs^2
// of them), so stored element s + q (q = p bs^2 + jj bs + ii: block p, element (ii, jj)) is
// entry s + ii L + p bs + jj. A thread a stored element: the writes are coalesced and each
// warp's reads, one a row of its block, meet their neighbours' in L1 and L2 (the entry-ordered
// scatter before, writes strided by bs, ran at 0.6 TB/s on reservoir_bs32_24: 3.1 ms of a
// 4 ms build; this one 1.3 ms, H100, 2026-11-27). A last block row of fewer than bs rows keeps
// the entry-ordered scatter into its zeroed padding. No sort, no search: csr_to_bsr's pass 2 for
// full blocks. The first row's run heads also write the block columns. Bytes: per entry its
// value read and written, 4/bs bytes of column read.
// CHECK: in_full_block for bs alone (entry k's own position), made here (the row test passed:
// every row of a block row has length L, so every read and write stays inside its block row),
// *broken set where an entry breaks the structure; the output then means nothing and the caller
// builds the sorted blocks instead. A pass of its own had cost about 1 ms of modulos on 1e8
// entries (H100, reservoir_bs12_46).
template <class V, bool CHECK>
__global__ void full_block_values_kernel(std::int64_t nnz, index_t rows, int bs,
                                         const index_t* __restrict__ row_ptr,
                                         const index_t* __restrict__ col_idx,
                                         const V* __restrict__ values, index_t* block_col_idx,
                                         V* out, int* broken) {
  const cuda::ItemsSpan span = cuda::block_items_span(row_ptr, 0, rows - 1, nnz);
  const std::size_t bs2 = static_cast<std::size_t>(bs) * bs;
  for (int it = 0; it < cuda::kSpanItems; ++it) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(it) * blockDim.x + threadIdx.x;
    if (k >= span.end) break;
    const index_t r = cuda::last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
    const index_t i = r % bs;
    const index_t j = static_cast<index_t>(k - row_ptr[r]);
    const index_t s = row_ptr[r - i];
    const std::size_t b = static_cast<std::size_t>(s) / bs2 + j / bs;
    if (r - i + bs <= rows) {  // a full block row: stored element k from its entry
      const index_t len = row_ptr[r + 1] - row_ptr[r];
      const index_t q = static_cast<index_t>(k - s);
      const index_t p = static_cast<index_t>(q / bs2), e = static_cast<index_t>(q % bs2);
      const index_t jj = e / bs, ii = e % bs;
      out[k] = values[static_cast<std::int64_t>(s) + static_cast<std::int64_t>(ii) * len +
                      static_cast<std::int64_t>(p) * bs + jj];
    } else {
      out[b * bs2 + in_block(i, j % bs, bs)] = values[k];
    }
    if (CHECK && !in_full_block(row_ptr, col_idx, k, r, j, col_idx[k], bs)) *broken = 1;
    if (i == 0 && j % bs == 0) block_col_idx[b] = col_idx[k] / bs;
  }
}

// Blocks of kSpanItems entries a thread (block_items_span's kernels).
unsigned item_grid(std::int64_t items) {
  return cuda::grid_for(static_cast<std::size_t>(items),
                        BsrBlocksPolicy::block_threads * cuda::kSpanItems);
}

unsigned grid(std::int64_t threads) {
  return cuda::grid_for(static_cast<std::size_t>(threads), BsrBlocksPolicy::block_threads);
}

// n elements and `slack_bytes` more, the slack zeroed (unless `fill` is false: the caller
// writes it).
template <class T>
cuda::DeviceBuffer<T> with_slack(std::size_t n, std::size_t slack_bytes, bool fill = true) {
  const std::size_t slack = (slack_bytes + sizeof(T) - 1) / sizeof(T);
  cuda::DeviceBuffer<T> b(n + slack);
  if (slack > 0 && fill) cuda::fill_bytes(b.data() + n, 0, slack * sizeof(T));
  return b;
}

// Block size 1: the CSR's three arrays into the BSR's, their slack zeroed, by one kernel
// (three copies and three fills had been six calls, ~20 us of a small build's host time on the
// H100 machine). Element i of each array a thread, grid-stride; `*_all`: with the slack.
template <class V>
__global__ void csr_as_bsr_kernel(std::int64_t ptr_n, std::int64_t ptr_all,
                                  const index_t* __restrict__ ptr_in, index_t* ptr_out,
                                  std::int64_t nnz, std::int64_t col_all,
                                  const index_t* __restrict__ col_in, index_t* col_out,
                                  std::int64_t val_all, const V* __restrict__ val_in, V* val_out) {
  const std::int64_t n = max(ptr_all, max(col_all, val_all));
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (i < ptr_all) ptr_out[i] = i < ptr_n ? ptr_in[i] : 0;
    if (i < col_all) col_out[i] = i < nnz ? col_in[i] : 0;
    if (i < val_all) val_out[i] = i < nnz ? val_in[i] : V(0);
  }
}

// The candidates (bit bs - 1, bs in 2..kDetectMax) for which `a` is made of full aligned
// bs x bs blocks: every row of a block row has the columns of the block row's first row, in
// aligned runs of bs (a last block row of fewer than bs rows is checked alike; a partial last
// block column never has a full run). One pass over the rows, then, for the candidates left,
// one over the entries (per entry its column, its predecessor's and the first row's: ~4-8
// bytes, the first rows' columns mostly from L2).
// The row pass alone: the candidates whose every row length is a multiple of bs and that of
// its block row's first row, returned and left in `alive` (one element).
template <class V>
void queue_row_pass(const DeviceCsrView<V>& a, Candidates candidates, Candidates* alive) {
  cuda::store_async(alive, candidates);
  detect_rows_kernel<<<grid(a.rows), BsrBlocksPolicy::block_threads, 0,
                       cuda::Context::get().stream()>>>(a.rows, a.row_ptr, candidates, alive);
  SPMVKIT_LAUNCH_CHECK();
}

template <class V>
Candidates even_row_candidates(const DeviceCsrView<V>& a, Candidates candidates,
                               cuda::DeviceBuffer<Candidates>& alive) {
  queue_row_pass(a, candidates, alive.data());
  cuda::copy_to_host(&candidates, alive.data(), sizeof candidates);
  return candidates;
}

// Both passes queued, one download (the entry pass returns at once where the rows left none).
template <class V>
Candidates full_block_candidates(const DeviceCsrView<V>& a, Candidates candidates) {
  if (candidates == 0 || a.rows == 0) return 0;
  cuda::DeviceBuffer<Candidates> alive(1);
  queue_row_pass(a, candidates, alive.data());
  if (a.nnz > 0) {
    detect_entries_kernel<<<item_grid(a.nnz), BsrBlocksPolicy::block_threads, 0,
                            cuda::Context::get().stream()>>>(a.nnz, a.rows, a.row_ptr, a.col_idx,
                                                             alive.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  cuda::copy_to_host(&candidates, alive.data(), sizeof candidates);
  return candidates;
}

// Whether every row's length is a multiple of bs and that of its block row's first row.
template <class V>
bool block_rows_even(const DeviceCsrView<V>& a, int bs) {
  cuda::DeviceBuffer<Candidates> alive(1);
  return even_row_candidates(a, Candidates{1} << (bs - 1), alive) != 0;
}

// m's block row pointer, block columns and values where `a` is made of full bs x bs blocks
// (full_block_candidates): no sort, each entry scattered straight into its block (only a
// last block row of fewer than bs rows has padding, zeroed). Passes: the block row pointer
// (a thread a block row), the scatter (read 8 + 4/bs, write 8 bytes an entry for doubles).
// `check`: the rows are known even (block_rows_even) but the columns not checked: the scatter
// checks them and false is returned where they are not full blocks (m then holds nothing
// useful). True otherwise.
template <class V>
bool fill_full_blocks(const DeviceCsrView<V>& a, DeviceBsrBlocks<V>& m, std::size_t slack_bytes,
                      bool check) {
  const int bs = m.block_size;
  cudaStream_t stream = cuda::Context::get().stream();
  constexpr int block = BsrBlocksPolicy::block_threads;
  cuda::build_phase("blocks_row_ptr");
  full_block_row_ptr_kernel<<<grid(std::int64_t{m.block_rows} + 1), block, 0, stream>>>(
      m.block_rows, bs, a.row_ptr, m.row_ptr.data());
  SPMVKIT_LAUNCH_CHECK();
  index_t last[2] = {0, 0};  // block_row_ptr[block_rows - 1], block_row_ptr[block_rows]
  cuda::copy_to_host(last, m.row_ptr.data() + m.block_rows - 1, sizeof last);
  const std::int64_t nnzb = last[1];
  bsr_check_fill(nnzb, bs, a.nnz);
  const std::size_t bs2 = static_cast<std::size_t>(bs) * bs;
  const std::size_t stored = static_cast<std::size_t>(nnzb) * bs2;
  cuda::build_phase("blocks_alloc");
  m.col_idx = with_slack<index_t>(static_cast<std::size_t>(nnzb), slack_bytes);
  m.values = with_slack<V>(stored, slack_bytes);
  cuda::build_phase("blocks_scatter");
  if (m.rows % bs != 0) {  // the padded rows of the last block row's blocks
    const std::size_t tail = static_cast<std::size_t>(last[0]) * bs2;
    cuda::fill_bytes(m.values.data() + tail, 0, (stored - tail) * sizeof(V));
  }
  m.blocks = static_cast<index_t>(nnzb);
  if (!check) {
    full_block_values_kernel<V, false>
        <<<item_grid(a.nnz), block, 0, stream>>>(a.nnz, a.rows, bs, a.row_ptr, a.col_idx, a.values,
                                                 m.col_idx.data(), m.values.data(), nullptr);
    SPMVKIT_LAUNCH_CHECK();
    return true;
  }
  cuda::DeviceBuffer<int> broken(1);
  cuda::fill_bytes(broken.data(), 0, sizeof(int));
  full_block_values_kernel<V, true>
      <<<item_grid(a.nnz), block, 0, stream>>>(a.nnz, a.rows, bs, a.row_ptr, a.col_idx, a.values,
                                               m.col_idx.data(), m.values.data(), broken.data());
  SPMVKIT_LAUNCH_CHECK();
  int h = 0;
  cuda::copy_to_host(&h, broken.data(), sizeof h);
  return h == 0;
}

// m's arrays for any pattern: the distinct block columns of each block row by a segmented sort
// of its entries' block columns, a scan of the run heads for the block row pointers, the
// values scattered into zeroed blocks by a search of their block row's block columns. Passes
// (entries): block columns (r 4, w 4), the segmented sort (several passes of 8 bytes), heads
// (r 4, w 4), their scan (r 4, w 4), block columns (r 8), zeroing (w 8 bs^2 a block), the
// scatter (r 12 and the search, w 8).
template <class V>
void fill_sorted_blocks(const DeviceCsrView<V>& a, DeviceBsrBlocks<V>& m, std::size_t slack_bytes) {
  const int bs = m.block_size;
  cudaStream_t stream = cuda::Context::get().stream();
  constexpr int block = BsrBlocksPolicy::block_threads;
  const auto brows = static_cast<std::size_t>(m.block_rows);
  const std::size_t bs2 = static_cast<std::size_t>(bs) * bs;
  const auto n = static_cast<std::size_t>(a.nnz);
  std::int64_t nnzb = 0;
  {
    // Block columns sorted within each block row (its entries are contiguous), in a double
    // buffer: the other half then holds the heads and their scan.
    cuda::DeviceBuffer<index_t> seg(brows + 1), keys(n + 1), other(n + 1);
    block_row_start_kernel<<<grid(std::int64_t{m.block_rows} + 1), block, 0, stream>>>(
        a.rows, m.block_rows, bs, a.row_ptr, seg.data());
    SPMVKIT_LAUNCH_CHECK();
    index_t* sorted = keys.data();
    index_t* index = other.data();
    if (n > 0) {
      block_col_kernel<<<grid(a.nnz), block, 0, stream>>>(a.nnz, bs, a.col_idx, keys.data());
      SPMVKIT_LAUNCH_CHECK();
      cub::DoubleBuffer<index_t> buffers(keys.data(), other.data());
      cuda::cub_call(
          [&](void* t, std::size_t& bytes, cudaStream_t s) {
            return cub::DeviceSegmentedSort::SortKeys(t, bytes, buffers, a.nnz, m.block_rows,
                                                      seg.data(), seg.data() + 1, s);
          },
          stream);
      sorted = buffers.Current();
      index = buffers.Alternate();
      block_head_kernel<<<grid(a.nnz + 1), block, 0, stream>>>(a.nnz, m.block_rows, seg.data(),
                                                               sorted, index);
      SPMVKIT_LAUNCH_CHECK();
    } else {
      cuda::fill_bytes(index, 0, sizeof(index_t));
    }
    cuda::cub_call(
        [&](void* t, std::size_t& bytes, cudaStream_t s) {
          return cub::DeviceScan::ExclusiveSum(t, bytes, index, index, a.nnz + 1, s);
        },
        stream);
    index_t total = 0;
    cuda::copy_to_host(&total, index + n, sizeof total);
    nnzb = total;
    bsr_check_fill(nnzb, bs, a.nnz);
    m.col_idx = with_slack<index_t>(static_cast<std::size_t>(nnzb), slack_bytes);
    block_arrays_kernel<<<grid(std::max<std::int64_t>(a.nnz, std::int64_t{m.block_rows} + 1)),
                          block, 0, stream>>>(a.nnz, m.block_rows, seg.data(), sorted, index,
                                              m.row_ptr.data(), m.col_idx.data());
    SPMVKIT_LAUNCH_CHECK();
  }  // the temporaries freed in stream order
  const std::size_t stored = static_cast<std::size_t>(nnzb) * bs2;
  m.values = with_slack<V>(stored, slack_bytes);
  cuda::fill_bytes(m.values.data(), 0, stored * sizeof(V));
  if (n > 0) {
    block_values_kernel<V><<<item_grid(a.nnz), block, 0, stream>>>(
        a.nnz, a.rows, bs, a.row_ptr, a.col_idx, a.values, m.row_ptr.data(), m.col_idx.data(),
        m.values.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  m.blocks = static_cast<index_t>(nnzb);
}

}  // namespace

template <class V>
int detect_block_size_device(const DeviceCsrView<V>& a) {
  if (a.nnz == 0) return 1;
  Candidates candidates = 0;
  for (int bs = 2; bs <= kDetectMax; ++bs)
    if (a.rows % bs == 0 && a.cols % bs == 0) candidates |= Candidates{1} << (bs - 1);
  candidates = full_block_candidates(a, candidates);
  for (int bs = kDetectMax; bs >= 2; --bs)
    if (candidates & (Candidates{1} << (bs - 1))) return bs;
  return 1;
}

template <class V>
DeviceBsrBlocks<V> csr_to_bsr_device(const DeviceCsrView<V>& a, int block_size,
                                     std::size_t slack_bytes, bool full_blocks) {
  bsr_check_shape(a.rows, a.cols, block_size);
  const int bs = block_size;
  DeviceBsrBlocks<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.block_size = bs;
  m.block_rows = static_cast<index_t>((std::int64_t{a.rows} + bs - 1) / bs);
  m.block_cols = static_cast<index_t>((std::int64_t{a.cols} + bs - 1) / bs);
  m.nnz = a.nnz;
  const auto brows = static_cast<std::size_t>(m.block_rows);
  m.row_ptr = with_slack<index_t>(brows + 1, slack_bytes, bs != 1);

  if (bs == 1) {  // 1 x 1 blocks: the CSR itself
    const auto nnz = static_cast<std::size_t>(a.nnz);
    m.col_idx = with_slack<index_t>(nnz, slack_bytes, false);
    m.values = with_slack<V>(nnz, slack_bytes, false);
    const auto all = [](const auto& b) { return static_cast<std::int64_t>(b.size()); };
    const std::int64_t most = std::max({all(m.row_ptr), all(m.col_idx), all(m.values)});
    constexpr int block = BsrBlocksPolicy::block_threads;
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(
        (most + block - 1) / block, std::int64_t{cuda::Context::get().sm_count()} * 16));
    csr_as_bsr_kernel<V><<<blocks, block, 0, cuda::Context::get().stream()>>>(
        static_cast<std::int64_t>(brows) + 1, all(m.row_ptr), a.row_ptr, m.row_ptr.data(),
        a.nnz, all(m.col_idx), a.col_idx, m.col_idx.data(), all(m.values), a.values,
        m.values.data());
    SPMVKIT_LAUNCH_CHECK();
    m.blocks = static_cast<index_t>(a.nnz);
    return m;
  }
  // Full blocks (a detected block size, or one given that fits): no sort. The check costs a
  // pass over the entries; the sort it saves, several (reservoir bs 2, 1e8 entries on an H100:
  // 11.9 ms with the sort).
  // A block size not detected here: the rows checked first, the columns by the scatter itself.
  cuda::build_phase("blocks_check");
  if (a.nnz > 0 && bs <= kDetectMax && (full_blocks || block_rows_even(a, bs)) &&
      fill_full_blocks(a, m, slack_bytes, !full_blocks))
    return m;
  cuda::build_phase("blocks_sorted");
  m.col_idx = {};  // a failed full-block scatter's arrays, freed before the sorted ones
  m.values = {};
  fill_sorted_blocks(a, m, slack_bytes);
  return m;
}

#define SPMVKIT_INSTANTIATE(V)                                    \
  template int detect_block_size_device(const DeviceCsrView<V>&); \
  template DeviceBsrBlocks<V> csr_to_bsr_device(const DeviceCsrView<V>&, int, std::size_t, bool);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
