// ELL packing on the device, from a CSR already there (ell_pass.hpp, ell_pass_cuda.hpp): the
// same arrays as the host's ell_pack and ell_column_deltas, made by simple kernels and a CUB
// reduction instead of host loops.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/search.cuh"
#include "formats/common/ell_pass_cuda.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

// Launch shapes of the packing kernels.
struct EllBuildPolicy {
  static constexpr int block_threads = 256;   // row lengths: a thread a row
  static constexpr int group_warps = 8;       // fit and pack: a warp a group of 32 rows
  static constexpr int maxima_threads = 256;  // group maxima: a block the largest model group
};
static_assert(ell_delta_group == 32, "a warp a delta group");

// Row r's length, at most `width`, for r < pitch (0 past the rows). A thread a row.
__global__ void ell_row_length_kernel(index_t rows, std::int64_t pitch, index_t width,
                                      const index_t* __restrict__ row_ptr, index_t* row_length) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= pitch) return;
  row_length[r] = r < rows ? min(width, row_ptr[r + 1] - row_ptr[r]) : 0;
}

// ell_group_maxima's sums for the row lengths min(length, width): a block of 256 threads a
// group of 256 rows (the largest of ell_model_groups; the others divide it), lane i row
// 256 * block + 32 * warp + i. The maxima of 4, 8 and 16 rows by shuffles within the warp, of
// 256 by a block reduction; the block's four sums added into sums[0..3]. Bytes: the row
// pointer (4 a row).
struct GroupSums {
  long long s[4];  // groups of 4, 8, 16 rows: sums of maxima; s[3]: the longest row
};
// The block reduction's operator: sums of the three small groups, max of the longest.
struct GroupSumsCombine {
  __device__ GroupSums operator()(const GroupSums& a, const GroupSums& b) const {
    return {{a.s[0] + b.s[0], a.s[1] + b.s[1], a.s[2] + b.s[2], max(a.s[3], b.s[3])}};
  }
};
static_assert(ell_model_groups.size() == 4 && ell_model_groups[0] == 4 &&
                  ell_model_groups[1] == 8 && ell_model_groups[2] == 16 &&
                  ell_model_groups[3] == 256,
              "ell_group_maxima_kernel reduces groups of 4, 8, 16 (in a warp) and 256 (a block)");
constexpr int group_maxima_threads = EllBuildPolicy::maxima_threads;
static_assert(group_maxima_threads == 256, "a block a group of 256 rows");

__global__ void __launch_bounds__(group_maxima_threads)
    ell_group_maxima_kernel(index_t rows, index_t width, const index_t* __restrict__ row_ptr,
                            unsigned long long* sums) {
  using Reduce = cub::BlockReduce<GroupSums, group_maxima_threads>;
  __shared__ typename Reduce::TempStorage temp;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * group_maxima_threads + threadIdx.x;
  const index_t len = r < rows ? min(width, row_ptr[r + 1] - row_ptr[r]) : 0;
  const int lane = threadIdx.x % warpSize;
  GroupSums mine{};
  index_t m = max(len, __shfl_xor_sync(0xffffffffu, len, 1));
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 2));
  if (lane % 4 == 0) mine.s[0] = m;
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 4));
  if (lane % 8 == 0) mine.s[1] = m;
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 8));
  if (lane % 16 == 0) mine.s[2] = m;
  mine.s[3] = len;
  const GroupSums block = Reduce(temp).Reduce(mine, GroupSumsCombine{});
  if (threadIdx.x == 0) {
    for (int i = 0; i < 4; ++i)
      if (block.s[i] != 0) atomicAdd(sums + i, static_cast<unsigned long long>(block.s[i]));
    // s[3] is the block's longest row (at most width): the matrix's longest into sums[4].
    if (block.s[3] != 0) atomicMax(sums + 4, static_cast<unsigned long long>(block.s[3]));
  }
}

// Whether the columns each warp reads together (slot k of a group of 32 rows) span at most
// delta_max_span (ColumnDeltas). A warp a group; *misfit is set by every group that does not.
// Bytes: the group's row pointers and its column indices up to its longest row.
__global__ void ell_delta_fit_kernel(index_t rows, std::int64_t groups,
                                     const index_t* __restrict__ row_ptr,
                                     const index_t* __restrict__ col_idx, index_t width,
                                     unsigned long long* misfit) {
  const std::int64_t g =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / warpSize;
  if (g >= groups) return;
  const int lane = threadIdx.x % warpSize;
  const std::int64_t r = g * ell_delta_group + lane;
  const index_t start = r < rows ? row_ptr[r] : 0;
  const index_t len = r < rows ? min(width, row_ptr[r + 1] - start) : 0;
  const index_t longest = __reduce_max_sync(0xffffffffu, len);
  for (index_t k = 0; k < longest; ++k) {
    const bool used = k < len;
    const index_t c = used ? col_idx[start + k] : 0;
    const index_t lo =
        __reduce_min_sync(0xffffffffu, used ? c : std::numeric_limits<index_t>::max());
    const index_t hi = __reduce_max_sync(0xffffffffu, used ? c : -1);
    if (hi >= 0 && static_cast<std::int64_t>(hi) - lo > delta_max_span) {
      if (lane == 0) *misfit = 1;
      return;
    }
  }
}

// The ELL arrays (ell_pack), with 16-bit deltas and their bases when DELTAS (ell_column_deltas):
// a warp a group of 32 rows, lane i row 32g + i; slot k of every row written at k * pitch + r
// (coalesced), padding as the host writes it (column -1 or delta_padding, value 0, base 0 for
// a slot no row of the group uses). Bytes: per stored entry its column and value read; per slot
// value + index written. Warp (g, blockIdx.y) writes slots blockIdx.y + n gridDim.y. With DELTAS,
// `out_col` (when given) receives the 32-bit columns too and `misfit` (when given) is set where a
// group's slot spans more than delta_max_span: a pending fit's pack (both encodings and the fit in
// one pass).
template <class V, bool DELTAS>
__global__ void ell_pack_kernel(index_t rows, std::int64_t groups, std::int64_t pitch,
                                index_t width, const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ col_idx, const V* __restrict__ values,
                                index_t* out_col, std::uint16_t* out_delta, index_t* out_base,
                                V* out_val, unsigned long long* misfit) {
  const std::int64_t g =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / warpSize;
  if (g >= groups) return;
  const int lane = threadIdx.x % warpSize;
  const std::int64_t r = g * ell_delta_group + lane;
  const index_t start = r < rows ? row_ptr[r] : 0;
  const index_t len = r < rows ? min(width, row_ptr[r + 1] - start) : 0;
  bool fits = true;
  const auto pack_slot = [&](index_t k) {
    const bool used = k < len;
    const index_t c = used ? col_idx[start + k] : -1;
    const std::int64_t slot = k * pitch + r;
    out_val[slot] = used ? values[start + k] : V(0);
    if constexpr (DELTAS) {
      const index_t lo =
          __reduce_min_sync(0xffffffffu, used ? c : std::numeric_limits<index_t>::max());
      const index_t base = lo == std::numeric_limits<index_t>::max() ? 0 : lo;
      out_delta[slot] = used ? static_cast<std::uint16_t>(c - base) : delta_padding;
      if (lane == 0) out_base[k * groups + g] = base;
      if (out_col) out_col[slot] = c;  // both encodings (a pending fit)
      if (misfit) {                    // ell_delta_fit_kernel's test, on the same columns
        const index_t hi = __reduce_max_sync(0xffffffffu, used ? c : -1);
        fits = fits && (hi < 0 || static_cast<std::int64_t>(hi) - lo <= delta_max_span);
      }
    } else {
      out_col[slot] = c;
    }
  };
  // A unit stride where the grid does not split the slots (every large matrix): with the strided
  // loop alone reservoir_bs12_46's ELL build took 7.0 ms, with this 4.7; stencil27_150's 4.9 and
  // 2.8 (H100, R7). Most likely the loop with a runtime stride is not unrolled, with fewer loads
  // in flight (not checked in the SASS).
  if (gridDim.y == 1) {
    for (index_t k = 0; k < width; ++k) pack_slot(k);
  } else {
    for (index_t k = static_cast<index_t>(blockIdx.y); k < width;
         k += static_cast<index_t>(gridDim.y))
      pack_slot(k);
  }
  if (!fits && lane == 0) *misfit = 1;
}

// Entries past `width` of each row, in COO (hyb_pack's tail; without rows when coo_row is
// null: HEC's CSR part): tail entry t lies in offset's row j (offset[j] <= t < offset[j + 1];
// `rows` + 1 entries, an exclusive scan of the tail lengths of every matrix row, or of the
// listed rows row_id) and is entry row_ptr[r] + width + t - offset[j] of matrix row r = j (or
// row_id[j]). kSpanItems tail entries a thread, each row found by a search of offset
// (block_items_span); entries stay sorted by (row, column). Bytes: per tail entry column + value
// read, row + column + value written, coalesced. (A thread a row walked a power-law matrix's long
// rows alone: powerlaw_8000000's HYB tail took 18.3 ms, H100.)
template <class V>
__global__ void csr_tail_kernel(std::int64_t tail_nnz, index_t rows, index_t width,
                                const index_t* __restrict__ row_ptr,
                                const index_t* __restrict__ col_idx, const V* __restrict__ values,
                                const index_t* __restrict__ offset,
                                const index_t* __restrict__ row_id, index_t* coo_row,
                                index_t* coo_col, V* coo_val) {
  const cuda::ItemsSpan span = cuda::block_items_span(offset, 0, rows - 1, tail_nnz);
  for (int it = 0; it < cuda::kSpanItems; ++it) {
    const std::int64_t t = span.begin + static_cast<std::int64_t>(it) * blockDim.x + threadIdx.x;
    if (t >= span.end) break;
    const index_t j = cuda::last_at_most(offset, span.rows.lo, span.rows.hi, t);
    const index_t r = row_id != nullptr ? row_id[j] : j;
    const std::int64_t k = std::int64_t{row_ptr[r]} + width + (t - offset[j]);
    if (coo_row != nullptr) coo_row[t] = r;
    coo_col[t] = col_idx[k];
    coo_val[t] = values[k];
  }
}

// Row r's tail length max(0, length - width), as the scan's input (index_t: nnz fits, checked
// at the boundary).
__global__ void csr_tail_length_kernel(index_t rows, index_t width,
                                       const index_t* __restrict__ row_ptr, index_t* tail) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  tail[r] = r < rows ? max(0, row_ptr[r + 1] - row_ptr[r] - width) : 0;
}

// The rows with a tail (offset[r + 1] > offset[r]), listed: listed row j = row_id[j] starts
// at row_ptr[j] = offset[row_id[j]]; index[r] is r's place in the list (an exclusive scan of
// the flags). A thread a row.
__global__ void csr_tail_list_kernel(index_t rows, const index_t* __restrict__ offset,
                                     const index_t* __restrict__ index, index_t* row_id,
                                     index_t* row_ptr) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  if (offset[r + 1] > offset[r]) {
    row_id[index[r]] = static_cast<index_t>(r);
    row_ptr[index[r]] = offset[r];
  }
  if (r == rows - 1) row_ptr[index[r] + (offset[r + 1] > offset[r])] = offset[rows];
}

// 1 where row r has a tail, for the listing's scan.
__global__ void csr_tail_flag_kernel(index_t rows, const index_t* __restrict__ offset,
                                     index_t* flag) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r < rows) flag[r] = offset[r + 1] > offset[r] ? 1 : 0;
}

// The row-length histogram over `bins` bins (lengths past the last counted in it): a block's
// counts in shared memory, then added into out[1 .. bins]; the longest row into out[0]. A
// thread a row (a grid-stride loop). Bytes: 4 a row.
constexpr int kHistogramBins = 8192;
constexpr int kHistogramBlock = 256;
__global__ void __launch_bounds__(kHistogramBlock)
    length_histogram_kernel(index_t rows, int bins, const index_t* __restrict__ row_ptr,
                            unsigned long long* out) {
  __shared__ unsigned int local[kHistogramBins];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  index_t longest = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const index_t len = row_ptr[r + 1] - row_ptr[r];
    longest = max(longest, len);
    atomicAdd(&local[min(len, bins - 1)], 1u);
  }
  longest = __reduce_max_sync(0xffffffffu, longest);
  if (threadIdx.x % warpSize == 0 && longest > 0)
    atomicMax(out, static_cast<unsigned long long>(longest));
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(out + 1 + b, static_cast<unsigned long long>(local[b]));
}

// Up to this many entries ell_shape_device fits the deltas on the host from the host's copy:
// one pass over the columns, ~1.6 ns an entry on the H100 machine's host (bcsstk13's 83,883
// entries took ~0.14 ms, a round trip ~0.05), so only tiny matrices.
constexpr std::int64_t kHostFitEntries = std::int64_t{1} << 14;
// Up to this many ELL slots a pending fit packs both encodings (two extra bytes and four more
// a slot written, against a ~20 us round trip).
constexpr std::int64_t kSpeculativeEllSlots = std::int64_t{1} << 20;

// ell_delta_fit_kernel's answer on the host: `lengths` the rows' lengths, clipped at `width`.
bool host_deltas_fit(const index_t* row_ptr, const index_t* col_idx,
                     const std::vector<index_t>& lengths, index_t width, std::int64_t groups) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  std::vector<index_t> lo, hi;
  for (std::int64_t g = 0; g < groups && g * ell_delta_group < rows; ++g) {
    const std::int64_t r0 = g * ell_delta_group, r1 = std::min(rows, r0 + ell_delta_group);
    const index_t longest =
        std::min(width, *std::max_element(lengths.begin() + r0, lengths.begin() + r1));
    lo.assign(static_cast<std::size_t>(longest), std::numeric_limits<index_t>::max());
    hi.assign(static_cast<std::size_t>(longest), -1);
    for (std::int64_t r = r0; r < r1; ++r) {
      const index_t* c = col_idx + row_ptr[r];
      const index_t n = std::min(width, lengths[static_cast<std::size_t>(r)]);
      for (index_t k = 0; k < n; ++k) {
        lo[static_cast<std::size_t>(k)] = std::min(lo[static_cast<std::size_t>(k)], c[k]);
        hi[static_cast<std::size_t>(k)] = std::max(hi[static_cast<std::size_t>(k)], c[k]);
      }
    }
    for (index_t k = 0; k < longest; ++k)
      if (static_cast<std::int64_t>(hi[static_cast<std::size_t>(k)]) -
              lo[static_cast<std::size_t>(k)] >
          delta_max_span)
        return false;
  }
  return true;
}

unsigned group_grid(std::int64_t groups) {
  constexpr int per_block = EllBuildPolicy::group_warps;
  return static_cast<unsigned>((groups + per_block - 1) / per_block);
}

// The pack's grid: a warp a group of 32 rows, and gridDim.y splitting the slots among warps
// where there are few groups (a small matrix: Groebner_id2003_aug's 156 groups had each walked
// its ~60 slots one after another, ~0.1 ms of HEC's build), up to ~8,192 warps in all.
dim3 pack_grid(std::int64_t groups, index_t width) {
  constexpr std::int64_t kWarps = 8192;
  const std::int64_t splits = std::clamp<std::int64_t>(
      (kWarps + groups - 1) / std::max<std::int64_t>(groups, 1), 1, std::max<index_t>(width, 1));
  return dim3(group_grid(groups), static_cast<unsigned>(std::min<std::int64_t>(splits, 65535)));
}

}  // namespace

// Rows of at most kHistogramBins - 1 entries (nearly every matrix): the histogram counted
// straight into bins with the longest row beside it, and its first kFirstBins bins downloaded
// with it; the bins past those only when a row is longer. Longer rows: the lengths sorted and
// run-length encoded. Before the direct count every matrix took the sort (reservoir_bs2_153,
// H100: row_lengths 1.6-1.9 ms, its scratch allocations and syncs, of a 4.6 ms ELL build); before
// the single download, the longest row and the bins were two (two of a small build's ~12 us
// round trips).
template <class V>
std::vector<std::int64_t> length_histogram_device(const DeviceCsrView<V>& a) {
  if (a.rows == 0) return {};
  // A small matrix the registry uploaded from the host: counted there, no download.
  if (const std::vector<index_t>* lengths = cuda::host_lengths(a.row_ptr, a.rows))
    return length_histogram(*lengths);
  cudaStream_t stream = cuda::Context::get().stream();
  const std::size_t rows = static_cast<std::size_t>(a.rows);
  constexpr int block = kHistogramBlock;
  constexpr int kFirstBins = 512;
  // No row is longer than nnz: fewer bins to clear and to download on a small matrix.
  const int bins = static_cast<int>(std::min<std::int64_t>(kHistogramBins, a.nnz + 1));
  cuda::DeviceBuffer<unsigned long long> out(static_cast<std::size_t>(bins) + 1);
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(out.data(), 0, out.bytes(), stream));
  const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(
      (rows + block - 1) / block, static_cast<std::size_t>(cuda::Context::get().sm_count()) * 8));
  length_histogram_kernel<<<grid, block, 0, stream>>>(a.rows, bins, a.row_ptr, out.data());
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  const int first = std::min(bins, kFirstBins);
  std::vector<unsigned long long> h(static_cast<std::size_t>(bins) + 1);
  cuda::copy_to_host(h.data(), out.data(), (static_cast<std::size_t>(first) + 1) * sizeof h[0]);
  const auto longest = static_cast<index_t>(h[0]);
  if (longest < bins) {
    if (longest >= first)
      cuda::copy_to_host(h.data() + 1 + first, out.data() + 1 + first,
                         static_cast<std::size_t>(longest + 1 - first) * sizeof h[0]);
    return std::vector<std::int64_t>(h.begin() + 1, h.begin() + 2 + longest);
  }
  cuda::DeviceBuffer<index_t> len(rows);
  ell_row_length_kernel<<<static_cast<unsigned>((rows + block - 1) / block), block, 0, stream>>>(
      a.rows, a.rows, std::numeric_limits<index_t>::max(), a.row_ptr, len.data());
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  // The double-buffer sort: its scratch is small (no third copy of the keys), so the build's
  // peak stays 8 bytes a row here.
  cuda::DeviceBuffer<index_t> other(rows);
  cub::DoubleBuffer<index_t> keys(len.data(), other.data());
  const int end_bit = std::max(1, cuda::bits_for(static_cast<std::uint64_t>(longest)));
  cuda::cub_call(
      [&](void* t, std::size_t& b, cudaStream_t s) {
        return cub::DeviceRadixSort::SortKeys(t, b, keys, a.rows, 0, end_bit, s);
      },
      stream);
  // k distinct lengths hold at least 0 + 1 + ... + (k - 1) entries, so k <= (1 + sqrt(1 + 8 nnz))
  // / 2: the run buffers stay small (~15,500 for 1.2e8 entries).
  const double bound = (1.0 + std::sqrt(1.0 + 8.0 * static_cast<double>(a.nnz))) / 2.0 + 2.0;
  const std::size_t max_runs = std::min<std::size_t>(
      {rows, static_cast<std::size_t>(longest) + 1, static_cast<std::size_t>(bound)});
  cuda::DeviceBuffer<index_t> distinct(max_runs), count(max_runs), runs(1);
  cuda::cub_call(
      [&](void* t, std::size_t& b, cudaStream_t s) {
        return cub::DeviceRunLengthEncode::Encode(t, b, keys.Current(), distinct.data(),
                                                  count.data(), runs.data(), a.rows, s);
      },
      stream);
  index_t n = 0;
  cuda::copy_to_host(&n, runs.data(), sizeof n);
  assert(n >= 1 && static_cast<std::size_t>(n) <= max_runs);
  std::vector<index_t> host_distinct(static_cast<std::size_t>(n)), host_count(host_distinct.size());
  cuda::copy_to_host(host_distinct.data(), distinct.data(), host_distinct.size() * sizeof(index_t));
  cuda::copy_to_host(host_count.data(), count.data(), host_count.size() * sizeof(index_t));
  return length_histogram_from_runs(host_distinct, host_count);
}

namespace {

// ell_shape_device from the device's arrays: the group maxima, the longest row and the fit in
// one download.
template <class V>
EllShape ell_shape_on_device(const DeviceCsrView<V>& a, std::int64_t pitch, index_t width,
                             bool fit_deltas) {
  EllShape out;
  const index_t clip = width < 0 ? std::numeric_limits<index_t>::max() : width;
  out.g.rows = a.rows;
  out.g.width = width < 0 ? 0 : width;
  cudaStream_t stream = cuda::Context::get().stream();
  // sums[0..3]: the group maxima's sums; [4]: the longest row (at most clip); [5]: a delta group
  // that does not fit.
  constexpr std::size_t n = ell_model_groups.size() + 2;
  cuda::DeviceBuffer<unsigned long long> sums(n);
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, sums.bytes(), stream));
  const std::int64_t blocks =
      (std::int64_t{a.rows} + group_maxima_threads - 1) / group_maxima_threads;
  ell_group_maxima_kernel<<<static_cast<unsigned>(blocks), group_maxima_threads, 0, stream>>>(
      a.rows, clip, a.row_ptr, sums.data());
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  const std::int64_t groups = pitch / ell_delta_group;
  if (fit_deltas && groups > 0) {
    constexpr int threads = EllBuildPolicy::group_warps * 32;
    ell_delta_fit_kernel<<<group_grid(groups), threads, 0, stream>>>(
        a.rows, groups, a.row_ptr, a.col_idx, clip, sums.data() + n - 1);
    SPMVKIT_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long host[n];
  cuda::copy_to_host(host, sums.data(), sizeof host);
  for (std::size_t i = 0; i < ell_model_groups.size(); ++i)
    out.g.sum[i] = static_cast<std::int64_t>(host[i]);
  out.longest = static_cast<index_t>(host[4]);
  if (width < 0) out.g.width = out.longest;
  out.deltas_fit = fit_deltas && out.g.width > 0 && host[5] == 0;
  return out;
}

}  // namespace

template <class V>
EllShape ell_shape_device(const DeviceCsrView<V>& a, std::int64_t pitch, index_t width,
                          bool fit_deltas) {
  EllShape out;
  const index_t clip = width < 0 ? std::numeric_limits<index_t>::max() : width;
  out.g.rows = a.rows;
  out.g.width = width < 0 ? 0 : width;
  if (a.rows == 0 || width == 0) return out;
  const bool always_fit = fit_deltas && deltas_always_fit(a.cols);
  const std::vector<index_t>* lengths = cuda::host_lengths(a.row_ptr, a.rows);
  if (!lengths) {
    out = ell_shape_on_device(a, pitch, width, fit_deltas && !always_fit);
    if (always_fit) out.deltas_fit = out.g.width > 0;
    return out;
  }
  // A small matrix the registry uploaded from the host: the longest row and the group maxima
  // counted there, no download; the delta fit too up to kHostFitEntries entries, else left to
  // the pack (fit_pending) up to kSpeculativeEllSlots slots, else on the device.
  out.longest = std::min(clip, *std::max_element(lengths->begin(), lengths->end()));
  if (width < 0) out.g.width = out.longest;
  out.g = ell_group_maxima(*lengths, a.rows, out.g.width);
  const std::int64_t groups = pitch / ell_delta_group;
  if (!fit_deltas || out.g.width == 0) return out;
  if (always_fit) {  // no pass, no pending fit: one encoding packed, no download
    out.deltas_fit = true;
    return out;
  }
  const index_t* hc = cuda::host_col_idx(a.col_idx);
  const index_t* h = cuda::host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
  if (groups == 0 || (hc && a.nnz <= kHostFitEntries))
    out.deltas_fit = groups == 0 || host_deltas_fit(h, hc, *lengths, out.g.width, groups);
  else if (static_cast<std::int64_t>(out.g.width) * pitch <= kSpeculativeEllSlots)
    out.fit_pending = true;
  else
    return ell_shape_on_device(a, pitch, width, fit_deltas);
  return out;
}

namespace {

// ell_pack_device; with `misfit` (deltas) the 32-bit columns too, and the fit into *misfit.
template <class V>
EllDevice<V> ell_pack(const DeviceCsrView<V>& a, index_t width, std::int64_t pitch, EllSkip skip,
                      int rows_per_thread, bool deltas, unsigned long long* misfit) {
  cuda::build_phase("ell_pack");
  EllDevice<V> d;
  d.rows = a.rows;
  d.width = width;
  d.pitch = pitch;
  d.skip = skip;
  d.rows_per_thread = rows_per_thread;
  d.index_bits = deltas ? 16 : 32;
  const std::size_t slots = static_cast<std::size_t>(width) * static_cast<std::size_t>(pitch);
  const std::int64_t groups = pitch / ell_delta_group;
  d.values = cuda::DeviceBuffer<V>(slots);
  if (deltas) {
    d.col_delta = cuda::DeviceBuffer<std::uint16_t>(slots);
    d.col_base = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(width) * groups);
  }
  if (!deltas || misfit) d.col_idx = cuda::DeviceBuffer<index_t>(slots);
  cudaStream_t stream = cuda::Context::get().stream();
  if (skip == EllSkip::row_length) {
    // Made from the row pointer (a pass over 4 bytes a row): min(length, width), 0 past the
    // rows, as ell_pack writes it.
    d.row_length = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(pitch));
    if (pitch > 0) {
      constexpr int block = EllBuildPolicy::block_threads;
      ell_row_length_kernel<<<static_cast<unsigned>((pitch + block - 1) / block), block, 0,
                              stream>>>(a.rows, pitch, width, a.row_ptr, d.row_length.data());
      SPMVKIT_CUDA_CHECK(cudaGetLastError());
    }
  }
  if (slots == 0) return d;
  constexpr int threads = EllBuildPolicy::group_warps * 32;
  if (deltas)
    ell_pack_kernel<V, true><<<pack_grid(groups, width), threads, 0, stream>>>(
        a.rows, groups, pitch, width, a.row_ptr, a.col_idx, a.values,
        misfit ? d.col_idx.data() : nullptr, d.col_delta.data(), d.col_base.data(), d.values.data(),
        misfit);
  else
    ell_pack_kernel<V, false><<<pack_grid(groups, width), threads, 0, stream>>>(
        a.rows, groups, pitch, width, a.row_ptr, a.col_idx, a.values, d.col_idx.data(), nullptr,
        nullptr, d.values.data(), nullptr);
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  return d;
}

}  // namespace

template <class V>
EllDevice<V> ell_pack_device(const DeviceCsrView<V>& a, index_t width, std::int64_t pitch,
                             EllSkip skip, int rows_per_thread, bool deltas) {
  return ell_pack(a, width, pitch, skip, rows_per_thread, deltas, nullptr);
}

template <class V>
EllDevice<V> ell_pack_device(const DeviceCsrView<V>& a, EllShape& s, std::int64_t pitch,
                             int rows_per_thread, const EllDecisions& decide, OperatorInfo* info) {
  const index_t width = s.g.width;
  const std::size_t slots = static_cast<std::size_t>(width) * static_cast<std::size_t>(pitch);
  if (!s.fit_pending || slots == 0) {
    s.fit_pending = false;
    const EllSkip skip = decide.skip(s.deltas_fit);
    *info = decide.info(skip, s.deltas_fit);
    EllDevice<V> d = ell_pack_device(a, width, pitch, skip, rows_per_thread, s.deltas_fit);
    if (decide.meanwhile) decide.meanwhile();
    return d;
  }
  // Both encodings and the fit in one pass, one download.
  const EllSkip skip16 = decide.skip(true), skip32 = decide.skip(false);
  const bool lengths = skip16 == EllSkip::row_length || skip32 == EllSkip::row_length;
  cuda::DeviceBuffer<unsigned long long> misfit(1);
  SPMVKIT_CUDA_CHECK(
      cudaMemsetAsync(misfit.data(), 0, misfit.bytes(), cuda::Context::get().stream()));
  EllDevice<V> d = ell_pack(a, width, pitch, lengths ? EllSkip::row_length : EllSkip::sentinel,
                            rows_per_thread, true, misfit.data());
  if (decide.meanwhile) decide.meanwhile();
  unsigned long long host = 0;
  cuda::copy_to_host(&host, misfit.data(), sizeof host);
  s.fit_pending = false;
  s.deltas_fit = host == 0;
  d.skip = decide.skip(s.deltas_fit);
  *info = decide.info(d.skip, s.deltas_fit);
  if (s.deltas_fit) {
    d.col_idx = {};
  } else {
    d.index_bits = 32;
    d.col_delta = {};
    d.col_base = {};
  }
  if (d.skip != EllSkip::row_length) d.row_length = {};
  return d;
}

namespace {

// offset[r] = where row r's tail starts among all tails (rows + 1 entries, an exclusive scan
// of the tail lengths; offset[rows] = tail_nnz).
template <class V>
cuda::DeviceBuffer<index_t> csr_tail_offsets(const DeviceCsrView<V>& a, index_t width,
                                             const CsrTailPlan& plan) {
  constexpr int block = EllBuildPolicy::block_threads;
  const std::int64_t n = std::int64_t{a.rows} + 1;
  // A small matrix the registry uploaded from the host: scanned there and queued up.
  if (!plan.offset.empty()) return cuda::queued_upload(plan.offset);
  cudaStream_t stream = cuda::Context::get().stream();
  // One array, scanned in place: 4 bytes a row beside the format (the peak-memory bound).
  cuda::DeviceBuffer<index_t> offset(static_cast<std::size_t>(n));
  csr_tail_length_kernel<<<static_cast<unsigned>((n + block - 1) / block), block, 0, stream>>>(
      a.rows, width, a.row_ptr, offset.data());
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  cuda::cub_call(
      [&](void* tmp, std::size_t& b, cudaStream_t s) {
        return cub::DeviceScan::ExclusiveSum(tmp, b, offset.data(), offset.data(), n, s);
      },
      stream);
  return offset;
}

// The tails' entries gathered: row r's entries past `width` to where offset[r] (or, with
// row_id, offset[i] for the i-th listed row r = row_id[i], n of them) says; row_out (null: not
// kept) takes each entry's row.
template <class V>
void gather_csr_tails(const DeviceCsrView<V>& a, index_t width, std::int64_t tail_nnz, index_t n,
                      const index_t* offset, const index_t* row_id, index_t* row_out,
                      index_t* col_out, V* values_out) {
  constexpr int block = EllBuildPolicy::block_threads;
  csr_tail_kernel<V><<<cuda::grid_for(static_cast<std::size_t>(tail_nnz), block * cuda::kSpanItems),
                       block, 0, cuda::Context::get().stream()>>>(
      tail_nnz, n, width, a.row_ptr, a.col_idx, a.values, offset, row_id, row_out, col_out,
      values_out);
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

template <class V>
CsrTailPlan csr_tail_plan(const DeviceCsrView<V>& a, index_t width, bool list_rows) {
  CsrTailPlan p;
  const std::vector<index_t>* lengths = cuda::host_lengths(a.row_ptr, a.rows);
  if (!lengths || a.rows == 0) return p;
  p.on_host = true;
  const auto rows = static_cast<std::size_t>(a.rows);
  index_t sum = 0;
  if (list_rows) {  // the rows with a tail and their pointer
    p.row_ptr.push_back(0);
    for (std::size_t r = 0; r < rows; ++r)
      if (const index_t tail = (*lengths)[r] - width; tail > 0) {
        p.row_id.push_back(static_cast<index_t>(r));
        p.row_ptr.push_back(sum += tail);
      }
    return p;
  }
  p.offset.resize(rows + 1);  // csr_tail_offsets' exclusive scan of the tail lengths
  for (std::size_t r = 0; r < rows; ++r) {
    p.offset[r] = sum;
    sum += std::max<index_t>(0, (*lengths)[r] - width);
  }
  p.offset[rows] = sum;
  return p;
}

template <class V>
CooDeviceTail<V> csr_tail_coo_device(const DeviceCsrView<V>& a, index_t width,
                                     std::int64_t tail_nnz, const CsrTailPlan& plan) {
  cuda::build_phase("coo_tail");
  CooDeviceTail<V> t;
  t.row = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(tail_nnz));
  t.col = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(tail_nnz));
  t.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(tail_nnz));
  if (tail_nnz == 0 || a.rows == 0) return t;
  const cuda::DeviceBuffer<index_t> offset = csr_tail_offsets(a, width, plan);
  gather_csr_tails(a, width, tail_nnz, a.rows, offset.data(), nullptr, t.row.data(), t.col.data(),
                   t.values.data());
  return t;
}

template <class V>
CsrDeviceTail<V> csr_tail_rows_device(const DeviceCsrView<V>& a, index_t width,
                                      std::int64_t tail_nnz, index_t tail_rows,
                                      const CsrTailPlan& p) {
  cuda::build_phase("csr_tail");
  CsrDeviceTail<V> t;
  t.rows = tail_rows;
  t.row_id = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(tail_rows));
  t.row_ptr = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(tail_rows) + 1);
  t.col = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(tail_nnz));
  t.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(tail_nnz));
  if (tail_nnz == 0 || a.rows == 0) {
    SPMVKIT_CUDA_CHECK(
        cudaMemsetAsync(t.row_ptr.data(), 0, sizeof(index_t), cuda::Context::get().stream()));
    return t;
  }
  const auto gather = [&](const index_t* offset, const index_t* row_id, index_t n) {
    gather_csr_tails(a, width, tail_nnz, n, offset, row_id, nullptr, t.col.data(),
                     t.values.data());
  };
  if (p.on_host) {  // a small matrix from the host: the listed rows made there, queued up, and
                    // the tails gathered through them (no offset a row)
    if (p.row_id.size() != static_cast<std::size_t>(tail_rows))
      throw std::logic_error("csr_tail_rows_device: the host counts another number of tail rows");
    cuda::copy_to_device_async(t.row_id.data(), p.row_id.data(), t.row_id.bytes());
    cuda::copy_to_device_async(t.row_ptr.data(), p.row_ptr.data(), t.row_ptr.bytes());
    gather(t.row_ptr.data(), t.row_id.data(), tail_rows);
    return t;
  }
  const cuda::DeviceBuffer<index_t> offset = csr_tail_offsets(a, width, p);
  cudaStream_t stream = cuda::Context::get().stream();
  constexpr int block = EllBuildPolicy::block_threads;
  const unsigned grid = static_cast<unsigned>((a.rows + block - 1) / block);
  {
    cuda::DeviceBuffer<index_t> index(static_cast<std::size_t>(a.rows));
    csr_tail_flag_kernel<<<grid, block, 0, stream>>>(a.rows, offset.data(), index.data());
    SPMVKIT_CUDA_CHECK(cudaGetLastError());
    cuda::cub_call(
        [&](void* tmp, std::size_t& b, cudaStream_t s) {
          return cub::DeviceScan::ExclusiveSum(tmp, b, index.data(), index.data(), a.rows, s);
        },
        stream);
    csr_tail_list_kernel<<<grid, block, 0, stream>>>(a.rows, offset.data(), index.data(),
                                                     t.row_id.data(), t.row_ptr.data());
    SPMVKIT_CUDA_CHECK(cudaGetLastError());
  }  // `index` freed in stream order
  gather(offset.data(), nullptr, a.rows);
  return t;
}

#define SPMVKIT_INSTANTIATE(V)                                                                   \
  template std::vector<std::int64_t> length_histogram_device(const DeviceCsrView<V>&);           \
  template EllShape ell_shape_device(const DeviceCsrView<V>&, std::int64_t, index_t, bool);      \
  template EllDevice<V> ell_pack_device(const DeviceCsrView<V>&, index_t, std::int64_t, EllSkip, \
                                        int, bool);                                              \
  template EllDevice<V> ell_pack_device(const DeviceCsrView<V>&, EllShape&, std::int64_t, int,   \
                                        const EllDecisions&, OperatorInfo*);                     \
  template CsrTailPlan csr_tail_plan(const DeviceCsrView<V>&, index_t, bool);                    \
  template CooDeviceTail<V> csr_tail_coo_device(const DeviceCsrView<V>&, index_t, std::int64_t,  \
                                                const CsrTailPlan&);                             \
  template CsrDeviceTail<V> csr_tail_rows_device(const DeviceCsrView<V>&, index_t, std::int64_t, \
                                                 index_t, const CsrTailPlan&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
