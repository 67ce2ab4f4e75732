// Host <-> device CSR for the builds, and the check of a device CSR (device_csr.hpp); the
// staged upload is in staging.cpp (OpenMP host copies).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/pinned.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::cuda {

template <class V>
OwnedDeviceCsr<V> device_csr_like(const Csr<V>& a) {
  OwnedDeviceCsr<V> d;
  d.rows = a.rows;
  d.cols = a.cols;
  d.row_ptr = DeviceBuffer<index_t>(a.row_ptr.size());
  d.col_idx = DeviceBuffer<index_t>(a.col_idx.size());
  d.values = DeviceBuffer<V>(a.values.size());
  return d;
}

template <class V>
OwnedDeviceCsr<V> upload_csr(const Csr<V>& a) {
  OwnedDeviceCsr<V> d = device_csr_like(a);
  // One wait for the three (a small matrix's upload was three ~12 us round trips).
  upload_staged(d.row_ptr.data(), a.row_ptr.data(), d.row_ptr.bytes(), false);
  upload_staged(d.col_idx.data(), a.col_idx.data(), d.col_idx.bytes(), false);
  upload_staged(d.values.data(), a.values.data(), d.values.bytes(), false);
  Context::get().synchronize();
  return d;
}

template <class V>
Csr<V> download_csr(const DeviceCsrView<V>& a) {
  Csr<V> h;
  h.rows = a.rows;
  h.cols = a.cols;
  h.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  h.col_idx.resize(static_cast<std::size_t>(a.nnz));
  h.values.resize(static_cast<std::size_t>(a.nnz));
  copy_to_host(h.row_ptr.data(), a.row_ptr, h.row_ptr.size() * sizeof(index_t));
  if (a.nnz > 0) {
    copy_to_host(h.col_idx.data(), a.col_idx, h.col_idx.size() * sizeof(index_t));
    copy_to_host(h.values.data(), a.values, h.values.size() * sizeof(V));
  }
  return h;
}

namespace {

// Flags of check_csr_kernel: the first broken invariant it saw (any one, if several).
enum CsrFault : int {
  kRowPtrDecreasing = 1,
  kColumnOutOfRange = 2,
  kColumnsNotIncreasing = 4,
};

// A thread a row: row_ptr nondecreasing, its columns in [0, cols) and strictly increasing.
__global__ void check_csr_kernel(index_t rows, index_t cols, const index_t* __restrict__ row_ptr,
                                 const index_t* __restrict__ col_idx, int* fault) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const index_t begin = row_ptr[r], end = row_ptr[r + 1];
  if (end < begin) {
    atomicOr(fault, kRowPtrDecreasing);
    return;
  }
  int f = 0;
  for (index_t k = begin; k < end; ++k) {
    const index_t c = col_idx[k];
    if (c < 0 || c >= cols) f |= kColumnOutOfRange;
    if (k > begin && c <= col_idx[k - 1]) f |= kColumnsNotIncreasing;
  }
  if (f) atomicOr(fault, f);
}

// The longest row into *longest (zeroed): a grid-stride loop of a few blocks an SM, each
// block's maximum (warp, then shared memory) by one atomicMax. Bytes: 4 a row. One atomic a
// warp (250K on one address for 8M rows) had serialised in L2.
constexpr int kLongestBlock = 256;
__global__ void __launch_bounds__(kLongestBlock)
    longest_row_kernel(index_t rows, const index_t* __restrict__ row_ptr, index_t* longest) {
  __shared__ index_t warp_max[kLongestBlock / 32];
  index_t m = 0;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    m = max(m, row_ptr[r + 1] - row_ptr[r]);
  m = __reduce_max_sync(0xffffffffu, m);
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < kLongestBlock / 32 ? warp_max[threadIdx.x] : 0;
    m = __reduce_max_sync(0xffffffffu, m);
    if (threadIdx.x == 0 && m > 0) atomicMax(longest, m);
  }
}

// out[t] = src[begin[i] + t - offset[i]] for the range i with offset[i] <= t < offset[i + 1]
// (offset: n + 1 prefix sums of the lengths). A thread an element.
__global__ void gather_ranges_kernel(std::int64_t total, int n,
                                     const std::int64_t* __restrict__ offset,
                                     const std::int64_t* __restrict__ begin,
                                     const index_t* __restrict__ src, index_t* out) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int lo = 0, hi = n - 1;  // the last range with offset <= t
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (offset[mid] <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  out[t] = src[begin[lo] + (t - offset[lo])];
}

// out[j] = col_idx[k0 + (k1 - k0) / 2] for the rows [r0, r1) = (rows[2j], rows[2j + 1]), k =
// row_ptr: the middle entry's column (0 for rows without entries). A thread a range.
__global__ void middle_columns_kernel(int m, const std::int64_t* __restrict__ rows,
                                      const index_t* __restrict__ row_ptr,
                                      const index_t* __restrict__ col_idx, index_t* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const index_t k0 = row_ptr[rows[2 * j]], k1 = row_ptr[rows[2 * j + 1]];
  out[j] = k1 > k0 ? col_idx[k0 + (k1 - k0) / 2] : 0;
}

// The longest of `rows` rows into device *longest (zeroed first), on `stream`.
void launch_longest_row(index_t rows, const index_t* row_ptr, index_t* longest,
                        cudaStream_t stream) {
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(longest, 0, sizeof(index_t), stream));
  if (rows == 0) return;
  const unsigned grid = std::min<unsigned>(grid_for(static_cast<std::size_t>(rows), kLongestBlock),
                                           static_cast<unsigned>(Context::get().sm_count()) * 8);
  longest_row_kernel<<<grid, kLongestBlock, 0, stream>>>(rows, row_ptr, longest);
  SPMVKIT_LAUNCH_CHECK();
}

// Device bytes for the small transfers of format=auto's features and of longest_row, kept for
// the process (64 KB at first, doubled as needed) and given back when an allocation runs out
// of memory (a release hook); the host side through page-locked bytes of the same size made
// once by prepare_sampling() (a larger transfer by a pageable copy up and download_staged).
// Each transfer is then a copy, a launch and a copy: with a cudaMalloc and a cudaFree each,
// gathering 16K row pointers took 0.6 ms beside a build's large buffers, and a pinned buffer
// of its own 1.7 ms to allocate (H100); through pageable memory auto's first round trip at
// 1e8 nonzeros spent 0.08 ms queuing its ranges' upload and kernels and 0.07 ms on the
// download (H200). Outside the allocation ledger: at most twice the largest gather's bytes.
class Scratch {
 public:
  // What prepare_sampling() allocates: the block test's largest column gather
  // (kMaxBlockSampleEntries, select/features.cpp, 512 KB) with its ranges, so that no selection
  // of the process allocates.
  static constexpr std::size_t kPreparedBytes = std::size_t{1} << 20;
  std::mutex m;
  void* device(std::size_t bytes) {
    if (bytes > dev_bytes_) {
      // Doubled when a larger gather comes; after a release, only what is asked (doubling
      // then had grown it to 16 MB over the out-of-memory test's releases).
      const std::size_t want = std::max({bytes, 2 * dev_bytes_, std::size_t{64} << 10});
      release();
      SPMVKIT_CUDA_CHECK(cudaMalloc(&dev_, want));
      dev_bytes_ = want;
    }
    return dev_;
  }
  bool release() {
    if (dev_ == nullptr) return false;
    cudaFree(dev_);
    dev_ = nullptr;
    dev_bytes_ = 0;
    return true;
  }
  // Page-locked host bytes for a transfer of `bytes`, null where it is larger than what
  // prepare_host() made (or before it).
  unsigned char* host(std::size_t bytes) { return bytes <= host_.size() ? host_.data() : nullptr; }
  void prepare_host() {
    if (host_.size() == 0) host_ = PinnedBuffer<unsigned char>(kPreparedBytes);
  }

 private:
  void* dev_ = nullptr;
  std::size_t dev_bytes_ = 0;
  PinnedBuffer<unsigned char> host_;  // kept (host memory) through an out-of-memory release
};
// The current device's scratch (a kernel reads its own device's memory), made on first use and
// never destroyed (used until the process ends); an out-of-memory release gives back the
// current device's.
Scratch& scratch() {
  static std::mutex m;
  static auto* by_device = new std::map<int, Scratch*>;
  int device = 0;
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(m);
  static const bool hooked = [] {
    add_release_hook([] {
      Scratch& sc = scratch();
      std::unique_lock<std::mutex> held(sc.m, std::try_to_lock);  // held: in use, keep it
      return held.owns_lock() && sc.release();
    });
    return true;
  }();
  (void)hooked;
  Scratch*& s = (*by_device)[device];
  if (s == nullptr) s = new Scratch;
  return *s;
}

// `bytes` rounded up to 16 (the next array's alignment in a scratch buffer).
std::size_t aligned16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

// The one round trip of gather_ranges, sample_rows and longest_row: src over `ranges` into
// out[0, total); with row_ptr given, then the middle column of each of `mid_rows`
// (out[total, total + m)) and the longest of `rows` rows (out[total + m], also returned; 0
// without row_ptr). The ranges go up by one pageable copy without a wait (the launches behind
// it on the stream read them), the results come down by one download.
index_t gather_to_host(const index_t* src, const EntryRanges& ranges, const index_t* row_ptr,
                       const index_t* col_idx, index_t rows, const EntryRanges& mid_rows,
                       index_t* out) {
  const int n = static_cast<int>(ranges.size());
  const int m = row_ptr != nullptr ? static_cast<int>(mid_rows.size()) : 0;
  // offsets (n + 1), begins (n), then the mid rows' (r0, r1) pairs; the thread's, reused (a
  // fresh list a call had cost a selection fresh pages after a large build's frees)
  static thread_local std::vector<std::int64_t> meta;
  meta.assign(2 * static_cast<std::size_t>(n) + 1 + 2 * m, 0);
  for (int i = 0; i < n; ++i) {
    meta[i + 1] = meta[i] + std::max<std::int64_t>(0, ranges[i].second - ranges[i].first);
    meta[static_cast<std::size_t>(n) + 1 + i] = ranges[i].first;
  }
  for (int j = 0; j < m; ++j) {
    meta[2 * static_cast<std::size_t>(n) + 1 + 2 * j] = mid_rows[j].first;
    meta[2 * static_cast<std::size_t>(n) + 2 + 2 * j] = mid_rows[j].second;
  }
  const std::int64_t total = meta[n];
  const std::size_t count = static_cast<std::size_t>(total) + m + (row_ptr != nullptr ? 1 : 0);
  if (count == 0) return 0;
  const std::size_t meta_bytes = aligned16(meta.size() * sizeof(std::int64_t));
  const std::size_t bytes = meta_bytes + count * sizeof(index_t);
  Scratch& sc = scratch();
  std::lock_guard<std::mutex> lock(sc.m);
  auto* dev = static_cast<char*>(sc.device(bytes));
  unsigned char* pinned = sc.host(bytes);  // the meta up, the values down; null: pageable
  cudaStream_t stream = Context::get().stream();
  build_phase("gather_launch");
  if (total > 0 || m > 0) {  // longest_row alone reads none
    const void* from = meta.data();
    if (pinned) from = std::memcpy(pinned, meta.data(), meta.size() * sizeof(std::int64_t));
    SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(dev, from, meta.size() * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream));
  }
  const auto* meta_d = reinterpret_cast<const std::int64_t*>(dev);
  auto* out_d = reinterpret_cast<index_t*>(dev + meta_bytes);
  constexpr int block = 256;
  if (total > 0) {
    gather_ranges_kernel<<<grid_for(static_cast<std::size_t>(total), block), block, 0, stream>>>(
        total, n, meta_d, meta_d + n + 1, src, out_d);
    SPMVKIT_LAUNCH_CHECK();
  }
  if (row_ptr != nullptr) {
    if (m > 0) {
      middle_columns_kernel<<<grid_for(static_cast<std::size_t>(m), block), block, 0, stream>>>(
          m, meta_d + 2 * n + 1, row_ptr, col_idx, out_d + total);
      SPMVKIT_LAUNCH_CHECK();
    }
    launch_longest_row(rows, row_ptr, out_d + total + m, stream);
  }
  // Through the page-locked bytes where they hold it, else pageable below 4 MB (one copy and a
  // wait) and through download_staged's pinned buffers above: the block test's columns can
  // reach 16 MB when its first window's rows are long.
  build_phase("gather_download");
  if (pinned) {
    copy_to_host(pinned + meta_bytes, out_d, count * sizeof(index_t));
    std::memcpy(out, pinned + meta_bytes, count * sizeof(index_t));
  } else {
    download_staged(out, out_d, count * sizeof(index_t));
  }
  return row_ptr != nullptr ? out[count - 1] : 0;
}

}  // namespace

void gather_ranges(const index_t* src, const EntryRanges& ranges, index_t* out) {
  // A small matrix uploaded from the host (`src` its row pointer or its columns): no download.
  std::int64_t end = 0;
  for (const auto& [b, e] : ranges) end = std::max(end, e);
  const index_t* h = host_col_idx(src);
  if (!h) h = host_row_ptr(src, static_cast<std::size_t>(end));
  if (h) {
    for (const auto& [b, e] : ranges)
      if (e > b) out = std::copy(h + b, h + e, out);
    return;
  }
  gather_to_host(src, ranges, nullptr, nullptr, 0, {}, out);
}

template <class V>
index_t sample_rows(const DeviceCsrView<V>& a, const EntryRanges& ptr_ranges,
                    const EntryRanges& mid_rows, index_t* out) {
  const index_t* h = host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
  const index_t* hc = host_col_idx(a.col_idx);
  if (h && (hc || a.nnz == 0)) {  // a small matrix uploaded from the host: no download
    for (const auto& [b, e] : ptr_ranges)
      if (e > b) out = std::copy(h + b, h + e, out);
    for (const auto& [r0, r1] : mid_rows) {
      const index_t k0 = h[r0], k1 = h[r1];
      *out++ = k1 > k0 ? hc[k0 + (k1 - k0) / 2] : 0;
    }
    *out = host_longest_row(h, a.rows);
    return *out;
  }
  return gather_to_host(a.row_ptr, ptr_ranges, a.row_ptr, a.col_idx, a.rows, mid_rows, out);
}

std::vector<index_t> download_each(std::initializer_list<const index_t*> at) {
  DeviceBuffer<index_t> gathered(at.size());
  index_t* to = gathered.data();
  for (const index_t* from : at) copy_on_device(to++, from, sizeof(index_t));
  return gathered.download();
}

void queue_longest_row(index_t rows, const index_t* row_ptr, index_t* longest) {
  launch_longest_row(rows, row_ptr, longest, Context::get().stream());
}

template <class V>
index_t longest_row(const DeviceCsrView<V>& a) {
  if (a.rows == 0) return 0;
  index_t longest = 0;
  // A small matrix uploaded from the host: no download (host_mirror.hpp).
  if (const index_t* h = host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1))
    return host_longest_row(h, a.rows);
  return gather_to_host(nullptr, {}, a.row_ptr, a.col_idx, a.rows, {}, &longest);
}

void prepare_sampling() {
  // cudaFuncGetAttributes loads a kernel (lazy loading loads it at its first launch otherwise).
  cudaFuncAttributes attr{};
  SPMVKIT_CUDA_CHECK(cudaFuncGetAttributes(&attr, gather_ranges_kernel));
  SPMVKIT_CUDA_CHECK(cudaFuncGetAttributes(&attr, middle_columns_kernel));
  SPMVKIT_CUDA_CHECK(cudaFuncGetAttributes(&attr, longest_row_kernel));
  Scratch& sc = scratch();
  std::lock_guard<std::mutex> lock(sc.m);
  sc.device(Scratch::kPreparedBytes);
  sc.prepare_host();
}

template <class V>
void check_device_csr(const DeviceCsrView<V>& a) {
  const std::string what = "device CSR (" + std::to_string(a.rows) + " x " +
                           std::to_string(a.cols) + ", " + std::to_string(a.nnz) + " nonzeros): ";
  if (a.rows < 0 || a.cols < 0 || a.nnz < 0)
    throw InputError(what + "rows, cols and nnz must be >= 0");
  if (a.nnz > std::int64_t{std::numeric_limits<index_t>::max()})
    throw InputError(what + "nnz over the 32-bit index range");
  if (!a.row_ptr) throw InputError(what + "row_ptr is null");
  if (a.nnz > 0 && (!a.col_idx || !a.values))
    throw InputError(what + "col_idx and values must not be null when nnz > 0");
  index_t ends[2] = {0, 0};
  copy_to_host(&ends[0], a.row_ptr, sizeof(index_t));
  copy_to_host(&ends[1], a.row_ptr + a.rows, sizeof(index_t));
  if (ends[0] != 0) throw InputError(what + "row_ptr[0] must be 0, got " + std::to_string(ends[0]));
  if (ends[1] != a.nnz)
    throw InputError(what + "row_ptr[rows] must equal nnz, got " + std::to_string(ends[1]));
  if (a.rows == 0) return;
  DeviceBuffer<int> fault(1);
  fill_bytes(fault.data(), 0, sizeof(int));
  constexpr int block = 256;
  const unsigned grid =
      static_cast<unsigned>((static_cast<std::int64_t>(a.rows) + block - 1) / block);
  check_csr_kernel<<<grid, block, 0, Context::get().stream()>>>(a.rows, a.cols, a.row_ptr,
                                                                a.col_idx, fault.data());
  SPMVKIT_CUDA_CHECK(cudaGetLastError());
  const int f = fault.download()[0];
  if (f & kRowPtrDecreasing) throw InputError(what + "row_ptr decreases");
  if (f & kColumnOutOfRange) throw InputError(what + "a column index is outside [0, cols)");
  if (f & kColumnsNotIncreasing)
    throw InputError(what + "a row's columns are not strictly increasing (unsorted or duplicate)");
}

#define SPMVKIT_INSTANTIATE(V)                                                                  \
  template OwnedDeviceCsr<V> device_csr_like(const Csr<V>&);                                    \
  template OwnedDeviceCsr<V> upload_csr(const Csr<V>&);                                         \
  template Csr<V> download_csr(const DeviceCsrView<V>&);                                        \
  template void check_device_csr(const DeviceCsrView<V>&);                                      \
  template index_t longest_row(const DeviceCsrView<V>&);                                        \
  template index_t sample_rows(const DeviceCsrView<V>&, const EntryRanges&, const EntryRanges&, \
                               index_t*);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::cuda
