// SURAA's setup on the GPU (Section 4.1, Algorithm 2): npr moments, the sort of the rows, the
// rearranged matrix, the order statistics of the Freedman-Diaconis rule and G1's partial-sum
// layout; see suraa_cuda.cu's file comment for the whole.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/search.cuh"
#include "formats/suraa/suraa_cuda.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit::suraa_gpu {

namespace {

using cuda::last_at_most;

template <class T>
struct MaxOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct MinOp {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

// ============================ setup kernels (Section 4.1) ===================================

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

// The sort key of row i (below), on the device and in a small matrix's plan on the host.
__host__ __device__ __forceinline__ std::uint64_t suraa_sort_key(
    index_t i, index_t cols, index_t max_class, SuraaOrder order, int col_bits,
    const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx) {
  const index_t b = row_ptr[i], e = row_ptr[i + 1];
  const auto first = col_bits == 0 ? 0 : static_cast<std::uint64_t>(e > b ? col_idx[b] : cols);
  return (static_cast<std::uint64_t>(max_class - suraa_order_class(e - b, order)) << col_bits) |
         first;
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
  keys[i] = suraa_sort_key(static_cast<index_t>(i), cols, max_class, order, col_bits, row_ptr,
                           col_idx);
  rows[i] = static_cast<index_t>(i);
}

// The sort of a matrix of at most kSmallSortRows rows in one block and one launch: the keys
// made, sorted (a stable block radix sort: the order cub::DeviceRadixSort::SortPairs gives the
// same keys), the permutation written. The device sort's keys kernel, size query, scratch and
// passes had cost a small build ~50 us of the host's time on the H100 machine (~3.6 us a
// launch there). Rows past m get all-ones keys and sit past the real ones (stable sort, last in
// the blocked order).
constexpr int kSmallSortThreads = 512, kSmallSortItems = 16;
constexpr index_t kSmallSortRows = kSmallSortThreads * kSmallSortItems;
using SmallSort = cub::BlockRadixSort<std::uint64_t, kSmallSortThreads, kSmallSortItems, index_t>;
__global__ void __launch_bounds__(kSmallSortThreads)
    suraa_small_sort_kernel(index_t m, index_t cols, index_t max_class, SuraaOrder order,
                            int col_bits, int end_bit, const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ col_idx, index_t* __restrict__ perm) {
  extern __shared__ unsigned char smem[];
  auto& temp = *reinterpret_cast<SmallSort::TempStorage*>(smem);
  std::uint64_t keys[kSmallSortItems];
  index_t rows[kSmallSortItems];
#pragma unroll
  for (int k = 0; k < kSmallSortItems; ++k) {
    const index_t i = static_cast<index_t>(threadIdx.x) * kSmallSortItems + k;
    rows[k] = i;
    keys[k] = i < m ? suraa_sort_key(i, cols, max_class, order, col_bits, row_ptr, col_idx)
                    : ~std::uint64_t{0};
  }
  SmallSort(temp).Sort(keys, rows, 0, end_bit);
#pragma unroll
  for (int k = 0; k < kSmallSortItems; ++k) {
    const index_t at = static_cast<index_t>(threadIdx.x) * kSmallSortItems + k;
    if (at < m) perm[at] = rows[k];
  }
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

// "Rearrange A_csr using perm": a block a tile of BLOCK*ITEMS sorted nonzeros; two warps find
// the tile's row range (block_row_span; thread 0 alone took 46 dependent probes a tile), each
// thread its nonzero's row within it (binary search), then copies from that row's place in the
// input. Writes coalesced; reads contiguous along each row. Bytes: nnz * (index + value) read
// and written.
template <class V, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    suraa_gather_kernel(index_t m, std::int64_t nnz, const index_t* __restrict__ row_ptr,
                        const index_t* __restrict__ perm, const index_t* __restrict__ row_ptr_in,
                        const index_t* __restrict__ col_in, const V* __restrict__ val_in,
                        index_t* __restrict__ col_out, V* __restrict__ val_out) {
  const std::int64_t tile_begin = static_cast<std::int64_t>(blockIdx.x) * BLOCK * ITEMS;
  const std::int64_t tile_end = min(nnz, tile_begin + static_cast<std::int64_t>(BLOCK) * ITEMS);
  const cuda::RowSpan span = cuda::block_row_span(row_ptr, 0, m - 1, tile_begin, tile_end - 1);
  const index_t lo = span.lo, hi = span.hi;
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

// Sorted rows [begin, stop) of segment sg of the cut into runs (run r: sorted rows
// [run_row[r], run_row[r + 1]) as segments [run_seg[r], run_seg[r + 1]) of `size` rows, the last
// one shorter): suraa_segment_bounds' cut, one segment at a time.
struct SegmentRows {
  index_t begin, stop;
};
__host__ __device__ inline SegmentRows segment_rows(std::int64_t sg, int runs,
                                                    const std::int64_t* run_seg,
                                                    const index_t* run_row, index_t size) {
  int r = 0;
  while (r + 1 < runs && run_seg[r + 1] <= sg) ++r;  // at most 33 runs
  const index_t begin =
      run_row[r] + static_cast<index_t>((sg - run_seg[r]) * static_cast<std::int64_t>(size));
  return {begin, begin + size < run_row[r + 1] ? begin + size : run_row[r + 1]};
}

// Segment sg (segment_rows): *g2_end raised to its end when its mean npr is at least a warp (G2
// or G1), and the nonzeros of the first `head` segments to head_nnz (G1 is a prefix of at most
// max_child_threads rows: decided on the host from them). A thread a segment.
__global__ void suraa_segment_groups_kernel(std::int64_t segments, int runs,
                                            const std::int64_t* __restrict__ run_seg,
                                            const index_t* __restrict__ run_row, index_t size,
                                            const index_t* __restrict__ row_ptr, std::int64_t head,
                                            std::int64_t* head_nnz, index_t* g2_end) {
  const std::int64_t sg = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  index_t end = 0;
  if (sg < segments) {
    const auto [begin, stop] = segment_rows(sg, runs, run_seg, run_row, size);
    const std::int64_t nnz = std::int64_t{row_ptr[stop]} - row_ptr[begin];
    if (sg < head) head_nnz[sg] = nnz;
    if (nnz >= static_cast<std::int64_t>(kSuraaWarp) * (stop - begin)) end = stop;
  }
  end = __reduce_max_sync(0xffffffffu, end);
  if (threadIdx.x % 32 == 0 && end > 0) atomicMax(g2_end, end);
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

// The probes of the Freedman-Diaconis rule from the moments and the sorted npr at m/4 and 3m/4.
SuraaProbes probes_of(index_t m, const NprMoments& mom, index_t quarter, index_t three_quarter) {
  SuraaProbes p;
  p.rows = m;
  p.npr_max = mom.max;
  p.npr_min = mom.min;
  p.npr_quarter = quarter;
  p.npr_three_quarter = three_quarter;
  p.rows_over_warp = mom.over_warp;
  return p;
}

// The class runs the segments are cut at (orders that keep the row order within a class).
std::vector<index_t> class_runs_of(const NprMoments& mom, const SuraaOptions& o) {
  if (!o.row_order_ties()) return {};
  return suraa_class_runs(suraa_order_class_count(mom.class_count, o.order));
}

}  // namespace

NprMoments npr_moments(index_t m, const index_t* row_ptr) {
  // A small matrix the host holds (host_mirror.hpp): the same sums there, no download.
  if (const index_t* h = cuda::host_row_ptr(row_ptr, static_cast<std::size_t>(m) + 1))
    return npr_moments_host(m, h);
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
                    std::vector<std::int64_t>(h.begin() + 4, h.end()), {}};
}

// suraa_finish_plan's groups without its list of segments (suraa_setup_device with
// list_segments = false): the same cut (class_runs as suraa_segment_bounds takes them),
// max_child_threads, G1 prefix and g2_end (a small matrix's plan made on the host:
// suraa_plan_from_sorted).
static SuraaPlan suraa_groups_on_device(index_t m, index_t n, std::int64_t nnz,
                                        const SuraaProbes& probes, const SuraaSegmentation& seg,
                                        std::vector<index_t> runs, const SuraaOptions& o,
                                        const index_t* sorted_row_ptr) {
  SuraaPlan plan = suraa_plan_head(m, n, probes, seg, o);
  plan.nnz = nnz;
  const index_t size = std::max<index_t>(seg.segment_size, 1);
  if (runs.empty()) runs.push_back(m);
  runs.erase(std::remove_if(runs.begin(), runs.end(), [](index_t r) { return r <= 0; }),
             runs.end());
  std::vector<std::int64_t> run_seg{0};
  std::vector<index_t> run_row{0};
  for (index_t r : runs) {
    run_seg.push_back(run_seg.back() + (r + size - 1) / size);
    run_row.push_back(run_row.back() + r);
  }
  if (run_row.back() != m) throw InputError("suraa: class runs do not add up to the rows");
  const std::int64_t segments = run_seg.back();
  plan.segment_count = segments;
  if (segments == 0) return plan;
  const std::int64_t head = std::min<std::int64_t>(segments, plan.max_child_threads);
  // The runs up without a wait (run_seg and run_row live past the download below), and the
  // head's nonzeros and g2_end down in one download: the last slot of head_nnz holds g2_end
  // (an index_t in its zeroed low bytes).
  cuda::DeviceBuffer<std::int64_t> run_seg_d(run_seg.size());
  cuda::DeviceBuffer<index_t> run_row_d(run_row.size());
  cuda::copy_to_device_async(run_seg_d.data(), run_seg.data(), run_seg_d.bytes());
  cuda::copy_to_device_async(run_row_d.data(), run_row.data(), run_row_d.bytes());
  cuda::DeviceBuffer<std::int64_t> head_nnz(static_cast<std::size_t>(head) + 1);
  cuda::fill_bytes(head_nnz.data() + head, 0, sizeof(std::int64_t));
  auto* g2_end = reinterpret_cast<index_t*>(head_nnz.data() + head);
  constexpr int block = SuraaPolicy::setup_block;
  suraa_segment_groups_kernel<<<cuda::grid_for(static_cast<std::size_t>(segments), block), block,
                                0, cuda::Context::get().stream()>>>(
      segments, static_cast<int>(runs.size()), run_seg_d.data(), run_row_d.data(), size,
      sorted_row_ptr, head, head_nnz.data(), g2_end);
  SPMVKIT_LAUNCH_CHECK();
  std::vector<std::int64_t> head_host = head_nnz.download();
  const index_t g2_end_host = static_cast<index_t>(head_host.back() & 0xffffffffLL);
  head_host.pop_back();
  // G1: suraa_group_segments over the first segments (G1 is a prefix of them).
  std::vector<index_t> bounds;
  for (std::int64_t sg = 0; sg < head; ++sg) {
    const SegmentRows rows =
        segment_rows(sg, static_cast<int>(runs.size()), run_seg.data(), run_row.data(), size);
    if (sg == 0) bounds.push_back(rows.begin);
    bounds.push_back(rows.stop);
  }
  for (const SuraaSegment& g : suraa_group_segments(head_host, bounds, plan.max_child_threads))
    if (g.group == SuraaGroup::dynamic) plan.g1_end = g.row_end;
  plan.g2_end = std::max(g2_end_host, plan.g1_end);
  return plan;
}

namespace {

// Sort (Algorithm 2 line 4) on the device, queued: keys with only the bits they need, so the
// radix sort makes as few passes as the matrix allows. The permutation (sorted position ->
// row).
template <class V>
cuda::DeviceBuffer<index_t> sorted_rows(const DeviceCsrView<V>& a, const NprMoments& mom,
                                        const SuraaOptions& o) {
  const index_t m = a.rows, n = a.cols;
  constexpr int block = SuraaPolicy::setup_block;
  cudaStream_t s = cuda::Context::get().stream();
  const int col_bits = o.row_order_ties() ? 0 : cuda::bits_for(static_cast<std::uint64_t>(n));
  const index_t max_class = suraa_order_class(mom.max, o.order);
  const int end_bit = std::max(1, col_bits + cuda::bits_for(static_cast<std::uint64_t>(max_class)));
  if (m <= kSmallSortRows) {  // one block, one launch
    cuda::DeviceBuffer<index_t> perm(m);
    if (m == 0) return perm;
    constexpr int smem = static_cast<int>(sizeof(SmallSort::TempStorage));
    static std::atomic<unsigned long long> sized{0};  // devices whose limit was raised
    const int device = cuda::Context::get().device();
    const unsigned long long bit = 1ull << (device % 64);
    if ((sized.load() & bit) == 0) {
      SPMVKIT_CUDA_CHECK(cudaFuncSetAttribute(
          suraa_small_sort_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      sized.fetch_or(bit);
    }
    suraa_small_sort_kernel<<<1, kSmallSortThreads, smem, s>>>(
        m, n, max_class, o.order, col_bits, end_bit, a.row_ptr, a.col_idx, perm.data());
    SPMVKIT_LAUNCH_CHECK();
    return perm;
  }
  cuda::DeviceBuffer<std::uint64_t> keys_in(m), keys_out(m);
  cuda::DeviceBuffer<index_t> rows_in(m), perm(m);
  suraa_sort_keys_kernel<<<cuda::grid_for(m, block), block, 0, s>>>(
      m, n, max_class, o.order, col_bits, a.row_ptr, a.col_idx, keys_in.data(), rows_in.data());
  SPMVKIT_LAUNCH_CHECK();
  cuda::cub_call(
      [&](void* temp, std::size_t& bytes, cudaStream_t st) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in.data(), keys_out.data(),
                                               rows_in.data(), perm.data(), m, 0, end_bit, st);
      },
      s);
  return perm;  // the keys freed in stream order
}

// The rows in ascending order of `keys` (end_bit bits), ties in row order: a stable LSD radix
// sort of 11-bit digits, the order cub::DeviceRadixSort::SortPairs gives the same keys.
std::vector<index_t> stable_key_order(const std::vector<std::uint64_t>& keys, int end_bit) {
  const std::size_t m = keys.size();
  std::vector<index_t> order(m), other(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = static_cast<index_t>(i);
  constexpr int kDigit = 11;
  std::vector<std::size_t> count(std::size_t{1} << kDigit);
  for (int shift = 0; shift < end_bit; shift += kDigit) {
    const std::uint64_t mask = (std::uint64_t{1} << kDigit) - 1;
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = 0; i < m; ++i) ++count[(keys[i] >> shift) & mask];
    std::size_t sum = 0;
    for (std::size_t& c : count) sum += std::exchange(c, sum);
    for (std::size_t i = 0; i < m; ++i) {
      const index_t r = order[i];
      other[count[(keys[static_cast<std::size_t>(r)] >> shift) & mask]++] = r;
    }
    order.swap(other);
  }
  return order;
}

}  // namespace

// suraa_setup_device for a small matrix the registry uploaded from the host (host_mirror.hpp):
// the sort (the same keys, stable_key_order; for the paper's order the device's sort, whose
// sorted lengths the host knows from their counts), the sorted row pointer, the probes, the
// segments' nonzeros and G1's partial-sum pointer made there from its row pointer and first
// columns, and queued up; the device gathers the entries. No wait (the device path waits five
// times, ~18 us each on the H100 machine, for a small matrix's numbers).
template <class V>
SuraaDeviceData<V> suraa_setup_from_host(const DeviceCsrView<V>& a, const NprMoments& mom,
                                         const SuraaOptions& o, bool list_segments,
                                         const index_t* h_ptr, const index_t* h_col) {
  const auto t0 = std::chrono::steady_clock::now();
  const index_t m = a.rows, n = a.cols;
  const std::int64_t nnz = a.nnz;
  SuraaDeviceData<V> d;
  cuda::build_phase("host_plan");
  std::vector<index_t> perm, row_ptr(static_cast<std::size_t>(m) + 1, 0);
  // The paper's order sorts by npr (descending) first: the sorted row pointer follows from the
  // row lengths' counts alone (npr_moments_host's), and the permutation is left to the device's
  // sort (queued below, no wait). Other orders sort by a class first: the lengths within it
  // follow the ties, so the permutation is made here (and for the paper's order where there are
  // no counts: a row longer than 4m + 64).
  const bool npr_first = o.order == SuraaOrder::paper && !mom.length_count.empty();
  if (npr_first) {
    suraa_sorted_row_ptr(mom.length_count, row_ptr.data());
  } else {
    const index_t max_class = suraa_order_class(mom.max, o.order);
    if (o.row_order_ties()) {
      perm = suraa_class_order(h_ptr, m, o.order, max_class, mom.class_count, row_ptr.data());
    } else {
      const int col_bits = cuda::bits_for(static_cast<std::uint64_t>(n));
      const int end_bit =
          std::max(1, col_bits + cuda::bits_for(static_cast<std::uint64_t>(max_class)));
      std::vector<std::uint64_t> keys(static_cast<std::size_t>(m));
      for (index_t i = 0; i < m; ++i)
        keys[static_cast<std::size_t>(i)] =
            suraa_sort_key(i, n, max_class, o.order, col_bits, h_ptr, h_col);
      perm = stable_key_order(keys, end_bit);
      for (index_t i = 0; i < m; ++i) {
        const index_t r = perm[static_cast<std::size_t>(i)];
        row_ptr[static_cast<std::size_t>(i) + 1] =
            row_ptr[static_cast<std::size_t>(i)] + h_ptr[r + 1] - h_ptr[r];
      }
    }
  }
  cuda::build_phase("host_groups");
  const std::int64_t q3 = 3 * static_cast<std::int64_t>(m) / 4;  // suraa_probe_kernel's reads
  const SuraaProbes probes =
      probes_of(m, mom, row_ptr[m / 4 + 1] - row_ptr[m / 4], row_ptr[q3 + 1] - row_ptr[q3]);
  d.plan = suraa_plan_from_sorted(m, n, probes, fd_segmentation(probes, o.segment_size),
                                  class_runs_of(mom, o), row_ptr.data(), o, list_segments);
  cuda::build_phase("host_partials");
  const index_t g1 = d.plan.g1_end;
  std::vector<index_t> partial_ptr;
  if (g1 > 0 && g1_own_kernels(o)) {  // suraa_g1_blocks_kernel's blocks, scanned
    partial_ptr.assign(static_cast<std::size_t>(g1) + 1, 0);
    for (index_t r = 0; r < g1; ++r) {
      const index_t npr =
          row_ptr[static_cast<std::size_t>(r) + 1] - row_ptr[static_cast<std::size_t>(r)];
      partial_ptr[static_cast<std::size_t>(r) + 1] =
          partial_ptr[static_cast<std::size_t>(r)] +
          (g1_dynamic(o) ? suraa_child_blocks(npr, o.nnz_per_thread) : suraa_static_blocks(npr));
    }
    d.partials = partial_ptr.back();
  }
  // Queued once all is made (the stream's first use waits for an upload left to the worker,
  // upload_beside.hpp, which the host work above ran beside); then the gather.
  cuda::build_phase("plan_uploads");
  d.perm = npr_first ? sorted_rows(a, mom, o) : cuda::queued_upload(perm);
  d.row_ptr = cuda::queued_upload(row_ptr);
  if (!partial_ptr.empty()) d.partial_ptr = cuda::queued_upload(partial_ptr);
  cuda::build_phase("gather");
  d.col_idx = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(nnz));
  d.values = cuda::DeviceBuffer<V>(static_cast<std::size_t>(nnz));
  if (nnz > 0) {
    constexpr int gb = SuraaPolicy::gather_block, gi = SuraaPolicy::gather_items;
    suraa_gather_kernel<V, gb, gi>
        <<<cuda::grid_for(static_cast<std::size_t>(nnz), gb * gi), gb, 0,
           cuda::Context::get().stream()>>>(m, nnz, d.row_ptr.data(), d.perm.data(), a.row_ptr,
                                            a.col_idx, a.values, d.col_idx.data(), d.values.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  d.host_row_ptr = std::move(row_ptr);  // its upload is staged: the vector may move
  d.gpu_setup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

template <class V>
SuraaDeviceData<V> suraa_setup_device(const DeviceCsrView<V>& a, const NprMoments& mom,
                                      const SuraaOptions& o, bool list_segments) {
  if (a.rows > 0) {
    const index_t* h_ptr = cuda::host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
    const index_t* h_col = cuda::host_col_idx(a.col_idx);
    if (h_ptr && (h_col || o.row_order_ties() || a.nnz == 0))
      return suraa_setup_from_host(a, mom, o, list_segments, h_ptr, h_col);
  }
  auto& ctx = cuda::Context::get();
  cudaStream_t s = ctx.stream();
  const index_t m = a.rows, n = a.cols;
  const std::int64_t nnz = a.nnz;
  constexpr int block = SuraaPolicy::setup_block;
  SuraaDeviceData<V> d;
  const index_t* row_ptr_in = a.row_ptr;
  const index_t* col_in = a.col_idx;
  const V* val_in = a.values;
  const auto t0 = std::chrono::steady_clock::now();

  cuda::build_phase("sort");
  d.perm = sorted_rows(a, mom, o);

  // Sorted row pointer, and the matrix rearranged (line 5).
  cuda::build_phase("gather");
  {
    cuda::DeviceBuffer<index_t> npr(m);
    suraa_sorted_npr_kernel<<<cuda::grid_for(m, block), block, 0, s>>>(m, d.perm.data(), row_ptr_in,
                                                                       npr.data());
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
            m, nnz, d.row_ptr.data(), d.perm.data(), row_ptr_in, col_in, val_in, d.col_idx.data(),
            d.values.data());
    SPMVKIT_LAUNCH_CHECK();
  }

  // Freedman-Diaconis segment size from O(1) probes of the sorted npr (lines 6-8); range and
  // the count of rows with npr > 32 from the moments pass.
  cuda::build_phase("probes_segments_plan");
  SuraaProbes probes;
  {
    cuda::DeviceBuffer<index_t> out(2);
    suraa_probe_kernel<<<1, 1, 0, s>>>(m, d.row_ptr.data(), out.data());
    SPMVKIT_LAUNCH_CHECK();
    const std::vector<index_t> h = out.download();
    probes = probes_of(m, mom, h[0], h[1]);
  }
  const SuraaSegmentation seg = fd_segmentation(probes, o.segment_size);

  // Segment bounds (cut per class run for bucketed and groups), their nonzeros, then grouping and
  // launches on the host (lines 9-17).
  std::vector<index_t> class_runs = class_runs_of(mom, o);
  if (!list_segments) {
    cuda::build_phase("segment_groups");
    d.plan =
        suraa_groups_on_device(m, n, nnz, probes, seg, std::move(class_runs), o, d.row_ptr.data());
  } else {
    cuda::build_phase("segment_bounds");
    const std::vector<index_t> bounds = suraa_segment_bounds(m, seg.segment_size, class_runs);
    const auto segments = static_cast<index_t>(bounds.size() - 1);
    std::vector<std::int64_t> segment_nnz;
    cuda::build_phase("segment_nnz");
    {
      // Millions of segments on a power-law matrix (powerlaw_8000000): through the pinned
      // staging buffers, not pageable copies.
      cuda::DeviceBuffer<index_t> bounds_d(bounds.size());
      cuda::upload_staged(bounds_d.data(), bounds.data(), bounds_d.bytes());
      cuda::DeviceBuffer<index_t> out(static_cast<std::size_t>(segments));
      suraa_segment_nnz_kernel<<<cuda::grid_for(segments, block), block, 0, s>>>(
          segments, bounds_d.data(), d.row_ptr.data(), out.data());
      SPMVKIT_LAUNCH_CHECK();
      const std::unique_ptr<index_t[]> h = cuda::download_staged(out);
      segment_nnz.assign(h.get(), h.get() + segments);
    }
    cuda::build_phase("plan");
    d.plan = suraa_finish_plan(m, n, probes, seg, bounds, segment_nnz, o);
  }

  // G1's partial sums: one a block of each G1 row.
  const index_t g1 = d.plan.g1_end;
  cuda::build_phase("g1_layout");
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
template SuraaDeviceData<float> suraa_setup_device(const DeviceCsrView<float>&, const NprMoments&,
                                                   const SuraaOptions&, bool);
template SuraaDeviceData<double> suraa_setup_device(const DeviceCsrView<double>&, const NprMoments&,
                                                    const SuraaOptions&, bool);

}  // namespace spmvkit::suraa_gpu
