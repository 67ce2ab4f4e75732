// The near/far split on the device (csr_split.cuh).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/search.cuh"
#include "formats/common/csr_split.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

constexpr int kSplitBlock = 256;

// The row holding entry k (a search of the whole row pointer).
__device__ index_t row_of(const index_t* __restrict__ row_ptr, index_t rows, std::int64_t k) {
  return cuda::last_at_most(row_ptr, 0, rows - 1, k);
}

// Row r's diagonal column r * cols / rows: r itself for a square matrix, without the 64-bit
// division (emulated: tens of instructions an entry).
__device__ __forceinline__ std::int64_t diagonal_of(index_t r, index_t rows, index_t cols) {
  return rows == cols ? std::int64_t{r} : std::int64_t{r} * cols / rows;
}

// Entry k's key (0: within `band` columns of its row's diagonal r * cols / rows, else 1 + its
// column panel), its index for the sort, and the near entries counted per row (one atomic per
// row and warp). kSpanItems entries a thread (block_items_span).
__global__ void split_keys_kernel(std::int64_t nnz, index_t rows, index_t cols,
                                  const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx, index_t band,
                                  std::int64_t width, std::uint16_t* keys, index_t* order,
                                  index_t* near_count) {
  const cuda::ItemsSpan span = cuda::block_items_span(row_ptr, 0, rows - 1, nnz);
  for (int i = 0; i < cuda::kSpanItems; ++i) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(i) * blockDim.x + threadIdx.x;
    const bool in = k < span.end;
    bool near = false;
    index_t r = 0;
    if (in) {
      r = cuda::last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
      const std::int64_t diagonal = diagonal_of(r, rows, cols);
      const index_t c = col_idx[k];
      near = c >= diagonal - band && c <= diagonal + band;
      keys[k] = near ? std::uint16_t{0} : static_cast<std::uint16_t>(1 + c / width);
      order[k] = static_cast<index_t>(k);
    }
    const unsigned near_lanes = __ballot_sync(0xffffffffu, near);
    if (near) {
      const unsigned peers = __match_any_sync(near_lanes, r);
      if ((threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(near_count + r, __popc(peers));
    }
  }
}

// first[key] = the first sorted position holding `key` (left at -1 for absent keys).
__global__ void split_key_starts_kernel(std::int64_t nnz, const std::uint16_t* __restrict__ keys,
                                        index_t* first) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < nnz && (j == 0 || keys[j] != keys[j - 1])) first[keys[j]] = static_cast<index_t>(j);
}

// The entries in sorted order: positions below near_nnz to the near CSR, the rest to the far
// lists with their rows; the far (panel, row) runs counted. kSpanItems positions a thread, a
// tile of kSplitBlock * kSpanItems a block. A far position's row: the stable sort keeps the
// entries of one key in entry order, so where the tile's far positions hold one key their
// entries' rows lie between the rows of its first and last (block_row_span, then a short
// search a position); a tile across a key boundary (at most one a panel) searches the whole
// row pointer. The run starts compare each position's row with the one before it, through
// shared memory. One thread a position with two whole searches each took most of
// csr_balanced's 6.7 ms split of powerlaw_8000000 (H100, 3885559).
template <class V>
__global__ void __launch_bounds__(kSplitBlock)
    split_gather_kernel(std::int64_t nnz, index_t near_nnz, index_t rows,
                        const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                        const V* __restrict__ values, const std::uint16_t* __restrict__ keys,
                        const index_t* __restrict__ order, index_t* near_col, V* near_val,
                        index_t* far_row, index_t* far_col, V* far_val,
                        unsigned long long* segments) {
  constexpr int kTile = kSplitBlock * cuda::kSpanItems;
  __shared__ index_t tile_rows[kTile];
  __shared__ index_t row_before;  // the row of the position before the tile (a far one)
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const std::int64_t end = min(begin + kTile, nnz);
  const std::int64_t far_begin = max(begin, static_cast<std::int64_t>(near_nnz));
  const bool any_far = far_begin < end;
  // The tile's far positions hold one key: their rows are monotone (uniform over the block).
  const bool one_key = any_far && keys[far_begin] == keys[end - 1];
  cuda::RowSpan span{0, rows - 1};
  if (one_key) span = cuda::block_row_span(row_ptr, 0, rows - 1, order[far_begin], order[end - 1]);
  if (threadIdx.x == 64 && any_far && far_begin > near_nnz)
    row_before = row_of(row_ptr, rows, order[far_begin - 1]);
  for (int i = 0; i < cuda::kSpanItems; ++i) {
    const std::int64_t j = begin + static_cast<std::int64_t>(i) * kSplitBlock + threadIdx.x;
    if (j >= end) break;
    const index_t e = order[j];
    if (j < near_nnz) {
      near_col[j] = col_idx[e];
      near_val[j] = values[e];
      continue;
    }
    const std::int64_t f = j - near_nnz;
    const index_t r = cuda::last_at_most(row_ptr, span.lo, span.hi, e);
    tile_rows[j - begin] = r;
    far_row[f] = r;
    far_col[f] = col_idx[e];
    far_val[f] = values[e];
  }
  __syncthreads();
  int starts = 0;
  for (int i = 0; i < cuda::kSpanItems; ++i) {
    const std::int64_t j = begin + static_cast<std::int64_t>(i) * kSplitBlock + threadIdx.x;
    if (j >= end || j < near_nnz) continue;
    const index_t r = tile_rows[j - begin];
    if (j == near_nnz || keys[j] != keys[j - 1])
      ++starts;
    else
      starts += (j == far_begin ? row_before : tile_rows[j - 1 - begin]) != r;
  }
  using BlockReduce = cub::BlockReduce<int, kSplitBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int block_starts = BlockReduce(storage).Sum(starts);
  if (threadIdx.x == 0 && block_starts > 0)
    atomicAdd(segments, static_cast<unsigned long long>(block_starts));
}

// Entries outside the band of their row's diagonal (split_keys_kernel's near test, and
// csr_count_far's on the host), summed a block, one atomic a block. kSpanItems entries a
// thread.
__global__ void count_far_kernel(std::int64_t nnz, index_t rows, index_t cols,
                                 const index_t* __restrict__ row_ptr,
                                 const index_t* __restrict__ col_idx, index_t band,
                                 unsigned long long* far) {
  const cuda::ItemsSpan span = cuda::block_items_span(row_ptr, 0, rows - 1, nnz);
  int is_far = 0;
  for (int i = 0; i < cuda::kSpanItems; ++i) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(i) * blockDim.x + threadIdx.x;
    if (k >= span.end) break;
    const index_t r = cuda::last_at_most(row_ptr, span.rows.lo, span.rows.hi, k);
    const std::int64_t diagonal = diagonal_of(r, rows, cols);
    const index_t c = col_idx[k];
    is_far += c < diagonal - band || c > diagonal + band;
  }
  using BlockReduce = cub::BlockReduce<int, kSplitBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const int block_far = BlockReduce(storage).Sum(is_far);
  if (threadIdx.x == 0 && block_far > 0) atomicAdd(far, static_cast<unsigned long long>(block_far));
}

// Entry k of the permuted matrix (new row i, its new_row_ptr[i] + j) from entry
// row_ptr[perm[i]] + j of the original. kSpanItems entries a thread.
template <class V>
__global__ void permute_rows_kernel(std::int64_t nnz, index_t rows,
                                    const index_t* __restrict__ new_row_ptr,
                                    const index_t* __restrict__ perm,
                                    const index_t* __restrict__ row_ptr,
                                    const index_t* __restrict__ col_idx,
                                    const V* __restrict__ values, index_t* out_col, V* out_val) {
  const cuda::ItemsSpan span = cuda::block_items_span(new_row_ptr, 0, rows - 1, nnz);
  for (int it = 0; it < cuda::kSpanItems; ++it) {
    const std::int64_t k = span.begin + static_cast<std::int64_t>(it) * blockDim.x + threadIdx.x;
    if (k >= span.end) break;
    const index_t i = cuda::last_at_most(new_row_ptr, span.rows.lo, span.rows.hi, k);
    const std::int64_t src = std::int64_t{row_ptr[perm[i]]} + (k - new_row_ptr[i]);
    out_col[k] = col_idx[src];
    out_val[k] = values[src];
  }
}

}  // namespace

// Passes and bytes (reservoir_bs2_153: 7.2M rows, 1e8 entries, f64; 3 TB/s): the row pointer,
// ~20 B a row in the gather and ~8 B a row in the scan (~0.2 GB, ~0.07 ms); the entries,
// 12 B a nonzero read and 12 written plus ~8 B a row of pointers (~2.5 GB, ~0.8 ms). The
// output arrays are the format's own (the user's CSR stays theirs).
template <class V>
DeviceCsr<V> csr_permute_rows(const DeviceCsrView<V>& a, const index_t* perm,
                              const std::vector<index_t>* host_row_ptr) {
  cudaStream_t s = cuda::Context::get().stream();
  DeviceCsr<V> out;
  out.rows = a.rows;
  out.cols = a.cols;
  cuda::build_phase("permute_alloc");
  out.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(a.nnz));
  out.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(a.nnz));
  cuda::build_phase("permute_row_ptr");
  if (host_row_ptr) {
    if (host_row_ptr->size() != static_cast<std::size_t>(a.rows) + 1)
      throw std::logic_error("csr_permute_rows: the host row pointer has another row count");
    out.row_ptr = cuda::queued_upload(*host_row_ptr);
  } else {
    out.row_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(a.rows) + 1);
    gathered_offsets(a.rows, perm, a.row_ptr, out.row_ptr.data(), RowLength{}, s);
  }
  if (a.nnz == 0) return out;
  cuda::build_phase("permute_entries");
  permute_rows_kernel<V>
      <<<cuda::grid_for(static_cast<std::size_t>(a.nnz), kSplitBlock * cuda::kSpanItems),
         kSplitBlock, 0, s>>>(a.nnz, a.rows, out.row_ptr.data(), perm, a.row_ptr, a.col_idx,
                              a.values, out.col_idx.data(), out.values.data());
  SPMVKIT_LAUNCH_CHECK();
  return out;
}

template <class V>
std::int64_t csr_count_far(const DeviceCsrView<V>& a, index_t band) {
  if (a.nnz == 0) return 0;
  cuda::DeviceBuffer<unsigned long long> far(1);
  cuda::fill_bytes(far.data(), 0, far.bytes());
  count_far_kernel<<<cuda::grid_for(static_cast<std::size_t>(a.nnz),
                                    kSplitBlock * cuda::kSpanItems),
                     kSplitBlock, 0, cuda::Context::get().stream()>>>(
      a.nnz, a.rows, a.cols, a.row_ptr, a.col_idx, band, far.data());
  SPMVKIT_LAUNCH_CHECK();
  return static_cast<std::int64_t>(far.download()[0]);
}

template <class V>
DeviceNearFar<V> csr_split_near_far(const DeviceCsrView<V>& a, index_t band, int panels) {
  if (panels < 1 || panels > 65535)
    throw InputError("csr near/far split: panels must be in 1..65535, got " +
                     std::to_string(panels));
  if (band < 0)
    throw InputError("csr near/far split: band must be >= 0, got " + std::to_string(band));
  auto& ctx = cuda::Context::get();
  cudaStream_t s = ctx.stream();
  const std::int64_t nnz = a.nnz;
  const index_t rows = a.rows;
  const std::int64_t width =
      std::max<std::int64_t>((std::int64_t{a.cols} + panels - 1) / panels, 1);
  const unsigned grid = cuda::grid_for(static_cast<std::size_t>(nnz), kSplitBlock);
  const unsigned tile_grid =
      cuda::grid_for(static_cast<std::size_t>(nnz), kSplitBlock * cuda::kSpanItems);

  cuda::build_phase("split_alloc");
  DeviceNearFar<V> out;
  out.near.rows = rows;
  out.near.cols = a.cols;
  out.near.row_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(rows) + 1);
  cuda::fill_bytes(out.near.row_ptr.data(), 0, out.near.row_ptr.bytes());
  // Keys and entry indices, sorted stably by key (only the key bits the panels need).
  cuda::DeviceBuffer<std::uint16_t> keys(static_cast<std::size_t>(nnz)),
      sorted_keys(static_cast<std::size_t>(nnz));
  cuda::DeviceBuffer<index_t> order(static_cast<std::size_t>(nnz)),
      sorted_order(static_cast<std::size_t>(nnz));
  cuda::build_phase("split_keys_sort");
  if (nnz > 0) {
    // Near entries counted into row_ptr[1 ..], then summed in place.
    split_keys_kernel<<<tile_grid, kSplitBlock, 0, s>>>(nnz, rows, a.cols, a.row_ptr, a.col_idx,
                                                        band, width, keys.data(), order.data(),
                                                        out.near.row_ptr.data() + 1);
    SPMVKIT_LAUNCH_CHECK();
    index_t* counts = out.near.row_ptr.data() + 1;
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceScan::InclusiveSum(temp, bytes, counts, counts, rows, st);
        },
        s);
    const int end_bit = cuda::bits_for(static_cast<std::uint64_t>(panels));
    cuda::cub_call(
        [&](void* temp, std::size_t& bytes, cudaStream_t st) {
          return cub::DeviceRadixSort::SortPairs(temp, bytes, keys.data(), sorted_keys.data(),
                                                 order.data(), sorted_order.data(),
                                                 static_cast<int>(nnz), 0, end_bit, st);
        },
        s);
  }
  cuda::build_phase("split_key_starts");
  // Where each key starts: far_ptr, and the near count.
  std::vector<index_t> first(static_cast<std::size_t>(panels) + 1, -1);
  if (nnz > 0) {
    cuda::DeviceBuffer<index_t> first_d(first);
    split_key_starts_kernel<<<grid, kSplitBlock, 0, s>>>(nnz, sorted_keys.data(), first_d.data());
    SPMVKIT_LAUNCH_CHECK();
    first = first_d.download();
  }
  // An absent key starts where the next present one does (or at the end).
  index_t next = static_cast<index_t>(nnz);
  for (std::size_t key = first.size(); key-- > 0;)
    next = first[key] = first[key] >= 0 ? first[key] : next;
  const index_t near_nnz = first[1];
  const index_t far_nnz = static_cast<index_t>(nnz) - near_nnz;
  out.far_ptr.resize(static_cast<std::size_t>(panels) + 1);
  for (int p = 0; p < panels; ++p) out.far_ptr[p] = first[p + 1] - near_nnz;
  out.far_ptr[panels] = far_nnz;

  cuda::build_phase("split_out_alloc");
  out.near.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(near_nnz));
  out.near.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(near_nnz));
  out.far_row = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(far_nnz));
  out.far_col = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(far_nnz));
  out.far_val = cuda::DeviceBuffer<V>(static_cast<std::size_t>(far_nnz));
  cuda::DeviceBuffer<unsigned long long> segments(1);
  cuda::fill_bytes(segments.data(), 0, segments.bytes());
  cuda::build_phase("split_gather");
  if (nnz > 0) {
    split_gather_kernel<V><<<tile_grid, kSplitBlock, 0, s>>>(
        nnz, near_nnz, rows, a.row_ptr, a.col_idx, a.values, sorted_keys.data(),
        sorted_order.data(), out.near.col_idx.data(), out.near.values.data(), out.far_row.data(),
        out.far_col.data(), out.far_val.data(), segments.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  out.far_row_segments = static_cast<std::int64_t>(segments.download()[0]);
  cuda::build_phase("split_free");  // the keys and orders freed on return
  return out;
}

template <class V>
NearFarSplit<V> csr_split_near_far(const Csr<V>& a, index_t band, int panels) {
  const DeviceCsr<V> up(a);
  const DeviceNearFar<V> d = csr_split_near_far(up.view(), band, panels);
  NearFarSplit<V> s;
  s.near = d.near.download();
  s.far_ptr = d.far_ptr;
  s.far_row = d.far_row.download();
  s.far_col = d.far_col.download();
  s.far_val = d.far_val.download();
  s.far_row_segments = d.far_row_segments;
  return s;
}

#define SPMVKIT_INSTANTIATE(V)                                                         \
  template DeviceNearFar<V> csr_split_near_far(const DeviceCsrView<V>&, index_t, int); \
  template std::int64_t csr_count_far(const DeviceCsrView<V>&, index_t);               \
  template DeviceCsr<V> csr_permute_rows(const DeviceCsrView<V>&, const index_t*,     \
                                         const std::vector<index_t>*);                 \
  template NearFarSplit<V> csr_split_near_far(const Csr<V>&, index_t, int);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
