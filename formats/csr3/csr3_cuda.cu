// CSR-3 CUDA kernels (CSR-k GPU paper, "SpMV CSR-3 Serial Algorithm" and "SpMV CSR-3
// Parallel Algorithm"): a thread block per super-super-row, blockIdx.x = super-super-row.
//
// Bytes one apply must move: row_ptr (rows+1 indices), col_idx + values (nnz each), x at
// least once (cols values, through the read-only path), z written (rows values), y read when
// beta != 0; perm (a row) when reordered (z and y go through it); with permute_x a gather
// pass (perm + x read, x copy written, then read by the kernel). The super-row pointers are
// not read: the grouping is uniform (csr3.hpp) and computed. Long rows: chunk descriptors
// (28 B a chunk of at most kCsr3LongChunk entries) and one partial sum a chunk.
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_select.cuh>
#include <limits>
#include <string>
#include <vector>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cub_call.cuh"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/finish.cuh"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/search.cuh"
#include "formats/common/csr_split.cuh"
#include "formats/csr3/csr3.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/timing.hpp"

namespace spmvkit {

namespace {

// The uniform grouping of one launch.
struct Csr3Shape {
  index_t rows;
  index_t super_rows;        // ceil(rows / super_row_size)
  index_t super_super_rows;  // ceil(super_rows / super_super_row_size) = thread blocks
  index_t super_row_size;
  index_t super_super_row_size;
  index_t long_row_threshold;  // rows longer than this belong to the long-row blocks
};

__device__ __forceinline__ int linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// --- long rows (our addition) -------------------------------------------------------------
// A row longer than the threshold is cut into chunks of at most kCsr3LongChunk entries
// (csr3.hpp's rules); each chunk is one extra thread block of the same launch (blockIdx.x >=
// super-super-rows), so a row of 200k entries is spread over ~100 blocks instead of
// serialising one. The last block of a row to finish (arrival counter, __threadfence before
// the atomic: the CUDA threadFenceReduction pattern) adds the row's partial sums in chunk order
// (deterministic) and writes z; it then resets the counter for the next apply. A row of one
// chunk is written directly.
using LongChunk = Csr3LongChunk;

template <class V>
struct LongRows {
  const LongChunk* __restrict__ chunks;
  V* partials;
  unsigned* counters;
};

// Thread mapping: the block's threads in linear order stride over the chunk (coalesced),
// four predicated entries a step so four loads are in flight, warp shuffles, then one warp
// over the warp sums. Block sizes are multiples of 32 (csr3_validate): every warp is full.
// Bytes: the chunk's col_idx + values, its x entries, a descriptor, a partial sum.
template <class V>
__device__ void long_row_chunk(const LongChunk c, const index_t* __restrict__ col_idx,
                               const V* __restrict__ values, const V* __restrict__ x,
                               const index_t* __restrict__ perm, LongRows<V> lr, const V* y, V* z,
                               V alpha, V beta, V* warp_sums) {
  const int tid = linear_thread();
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  V sum = 0;
#pragma unroll 1
  for (index_t k = c.begin + tid; k < c.end; k += 4 * threads) {
    index_t cols[4];
    V vals[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const bool ok = k + u * threads < c.end;
      cols[u] = ok ? col_idx[k + u * threads] : 0;
      vals[u] = ok ? values[k + u * threads] : V(0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (k + u * threads < c.end) sum += vals[u] * __ldg(x + cols[u]);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  const int warp = tid / 32, lane = tid % 32;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp != 0) return;
  sum = lane < threads / 32 ? warp_sums[lane] : V(0);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane != 0) return;
  const index_t out = perm ? perm[c.row] : c.row;
  if (c.slots == 1) {
    z[out] = cuda::finish(sum, y, out, alpha, beta);
    return;
  }
  lr.partials[c.slot] = sum;
  __threadfence();  // the partial is visible device-wide before the arrival is counted
  const unsigned arrived = atomicAdd(lr.counters + c.counter, 1u);
  if (arrived != static_cast<unsigned>(c.slots - 1)) return;
  __threadfence();
  V total = 0;
  for (index_t s = c.first_slot; s < c.first_slot + c.slots; ++s)
    total += __ldcg(lr.partials + s);  // L2, not a possibly stale L1 line
  z[out] = cuda::finish(total, y, out, alpha, beta);
  lr.counters[c.counter] = 0;  // ready for the next apply (stream order)
}

// One row summed by one thread. Steps of four entries with predicated loads: the four
// column indices and values are requested together, then the four x entries, so a short row
// costs two dependent memory round trips instead of two per entry. (The compiler is kept
// from unrolling further: registers are worth more as occupancy, rows here are short.)
template <class V>
__device__ __forceinline__ V serial_row_sum(index_t begin, index_t end,
                                            const index_t* __restrict__ col_idx,
                                            const V* __restrict__ values, const V* __restrict__ x) {
  V sum = 0;
#pragma unroll 1
  for (index_t k = begin; k < end; k += 4) {
    index_t c[4];
    V v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      c[u] = k + u < end ? col_idx[k + u] : 0;
      v[u] = k + u < end ? values[k + u] : V(0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (k + u < end) sum += v[u] * __ldg(x + c[u]);
  }
  return sum;
}

// --- kernel 1: inner loop serial (paper's first cuSpMV_3) ----------------------------------
// Thread mapping: block = one super-super-row; the super-rows of it are spread over
// threadIdx.y (and threadIdx.z, folded into y: the paper's block is 2D here), the rows of a
// super-row over threadIdx.x (consecutive rows on consecutive lanes of a warp, the paper's
// locality rule), each row's nonzeros summed serially by its thread. Blocks beyond the
// super-super-rows each take one long-row chunk. Bytes per nonzero: index + value + x entry.
template <class V>
__global__ void __launch_bounds__(1024, 2)  // <= 32 registers: full occupancy
    csr3_serial_kernel(Csr3Shape shape, const index_t* __restrict__ row_ptr,
                       const index_t* __restrict__ col_idx, const V* __restrict__ values,
                       const V* __restrict__ x, const index_t* __restrict__ perm,
                       LongRows<V> long_rows, const V* y, V* z, V alpha, V beta) {
  __shared__ V warp_sums[32];
  const index_t block = blockIdx.x;
  if (block >= shape.super_super_rows) {
    long_row_chunk(long_rows.chunks[block - shape.super_super_rows], col_idx, values, x, perm,
                   long_rows, y, z, alpha, beta, warp_sums);
    return;
  }
  // 32-bit index arithmetic: the host checks rows + one block's rows < 2^31.
  const index_t sr_begin = block * shape.super_super_row_size;
  const index_t sr_end = min(sr_begin + shape.super_super_row_size, shape.super_rows);
  const int y_id = threadIdx.y + blockDim.y * threadIdx.z;
  const int y_count = blockDim.y * blockDim.z;
  for (index_t s = sr_begin + y_id; s < sr_end; s += y_count) {
    const index_t row_begin = s * shape.super_row_size;
    const index_t row_end = min(row_begin + shape.super_row_size, shape.rows);
    for (index_t row = row_begin + threadIdx.x; row < row_end; row += blockDim.x) {
      const index_t begin = row_ptr[row], end = row_ptr[row + 1];
      if (end - begin > shape.long_row_threshold) continue;  // a long-row block's
      const V sum = serial_row_sum(begin, end, col_idx, values, x);
      const index_t out = perm ? perm[row] : row;
      z[out] = cuda::finish(sum, y, out, alpha, beta);
    }
  }
}

// --- kernel 2: inner loop parallel (paper's second cuSpMV_3) -------------------------------
// Thread mapping: block = one super-super-row; super-rows over threadIdx.z, rows of a
// super-row over threadIdx.y, the nonzeros of a row over the BX = blockDim.x lanes of
// threadIdx.x (BX a power of two <= 32: a row's lanes are consecutive lanes of one warp, so
// the paper's shared-memory reduction becomes a shuffle reduction over those lanes, masked
// to the group because neighbouring groups may run different loop trip counts). A warp
// reads 32/BX consecutive rows: contiguous nonzeros, coalesced. Bytes per nonzero: index +
// value + x entry.
template <class V, int BX>
__global__ void __launch_bounds__(1024, 2)  // <= 32 registers: full occupancy
    csr3_parallel_kernel(Csr3Shape shape, const index_t* __restrict__ row_ptr,
                         const index_t* __restrict__ col_idx, const V* __restrict__ values,
                         const V* __restrict__ x, const index_t* __restrict__ perm,
                         LongRows<V> long_rows, const V* y, V* z, V alpha, V beta) {
  __shared__ V warp_sums[32];
  const index_t block = blockIdx.x;
  if (block >= shape.super_super_rows) {
    long_row_chunk(long_rows.chunks[block - shape.super_super_rows], col_idx, values, x, perm,
                   long_rows, y, z, alpha, beta, warp_sums);
    return;
  }
  const int lane = threadIdx.x;
  const int warp_lane = linear_thread() % 32;
  const unsigned group_mask = BX == 32 ? 0xffffffffu : ((1u << BX) - 1u) << (warp_lane & ~(BX - 1));
  // 32-bit index arithmetic: the host checks rows + one block's rows < 2^31.
  const index_t sr_begin = block * shape.super_super_row_size;
  const index_t sr_end = min(sr_begin + shape.super_super_row_size, shape.super_rows);
  for (index_t s = sr_begin + threadIdx.z; s < sr_end; s += blockDim.z) {
    const index_t row_begin = s * shape.super_row_size;
    const index_t row_end = min(row_begin + shape.super_row_size, shape.rows);
    for (index_t row = row_begin + threadIdx.y; row < row_end; row += blockDim.y) {
      const index_t begin = row_ptr[row], end = row_ptr[row + 1];
      if (end - begin > shape.long_row_threshold) continue;  // same for the whole group
      // Two entries a lane a step, loads predicated and issued together (as serial_row_sum).
      V sum = 0;
#pragma unroll 1
      for (index_t k = begin + lane; k < end; k += 2 * BX) {
        const bool second = k + BX < end;
        const index_t c0 = col_idx[k];
        const index_t c1 = second ? col_idx[k + BX] : 0;
        const V v0 = values[k];
        const V v1 = second ? values[k + BX] : V(0);
        sum += v0 * __ldg(x + c0);
        if (second) sum += v1 * __ldg(x + c1);
      }
#pragma unroll
      for (int offset = BX / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(group_mask, sum, offset, BX);
      if (lane == 0) {
        const index_t out = perm ? perm[row] : row;
        z[out] = cuda::finish(sum, y, out, alpha, beta);
      }
    }
  }
}

// permute_x: x in the new column numbering, xp[i] = x[perm[i]] (8+4 B read, 8 B written).
template <class V>
__global__ void csr3_gather_x_kernel(index_t n, const index_t* __restrict__ perm,
                                     const V* __restrict__ x, V* __restrict__ xp) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) xp[i] = __ldg(x + perm[i]);
}

// The arrays one CSR-3 operator holds on the device: the rows in CSR-3 order, perm, the long
// rows and their chunks. Made by uploading a host-built Csr3 (host_layout) or on the device
// from a CSR there (device_layout), the same arrays either way (the Csr3Arrays tests).
template <class V>
struct Csr3DeviceLayout {
  DeviceCsr<V> csr;
  cuda::DeviceBuffer<index_t> perm;       // empty (null) when not reordered
  cuda::DeviceBuffer<index_t> long_rows;  // CSR-3 rows, in order
  cuda::DeviceBuffer<LongChunk> chunks;
  index_t slots = 0;  // partial sums (chunks of all long rows)
};

template <class V>
Csr3DeviceLayout<V> host_layout(const Csr3<V>& h) {
  Csr3DeviceLayout<V> l;
  l.csr = DeviceCsr<V>(h.csr);
  l.perm = cuda::DeviceBuffer<index_t>(h.perm);
  l.long_rows = cuda::DeviceBuffer<index_t>(h.long_rows);
  const std::vector<LongChunk> chunks = csr3_long_chunks(h.csr.row_ptr, h.long_rows);
  l.chunks = cuda::DeviceBuffer<LongChunk>(chunks);
  l.slots = static_cast<index_t>(chunks.size());
  return l;
}

// --- the layout on the device (issue 24) ----------------------------------------------------
// From the user's CSR on the device and the ordering computed on the host: perm uploaded, the
// rows permuted there (csr_permute_rows), then the long rows and their chunks. Only two counts
// come back to the host (long rows, chunks). The super-row pointers are not made: the kernels
// compute the uniform grouping, and the host reports its counts (Csr3Summary).

constexpr int kLayoutBlock = 256;

// Is CSR-3 row i long (csr3_is_long_row)? For cub::DeviceSelect::If over the row numbers.
struct IsLongRow {
  const index_t* __restrict__ row_ptr;
  index_t threshold;
  __device__ bool operator()(index_t i) const {
    return csr3_is_long_row(row_ptr[i + 1] - row_ptr[i], threshold);
  }
};

// A long row's chunk count from its length (gathered_offsets' f).
struct LongRowChunks {
  __device__ index_t operator()(index_t length) const { return csr3_long_row_chunks(length); }
};

// Chunk k (a thread a chunk): its long row j by a binary search of first_slot (every long row
// has a chunk: strictly increasing), then csr3_long_chunk, as the host's csr3_long_chunks.
// 28 B written a chunk.
__global__ void long_row_chunks_kernel(index_t n_chunks, index_t n_long,
                                       const index_t* __restrict__ long_rows,
                                       const index_t* __restrict__ row_ptr,
                                       const index_t* __restrict__ first_slot, LongChunk* chunks) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n_chunks) return;
  const index_t j = cuda::last_at_most(first_slot, 0, n_long - 1, k);
  const index_t row = long_rows[j];
  chunks[k] = csr3_long_chunk(row, row_ptr[row], row_ptr[row + 1], j, first_slot[j],
                              static_cast<index_t>(k) - first_slot[j]);
}

// Phases (SPMVKIT_BUILD_PROFILE) and the bytes each must move, from bytes (not yet measured),
// for reservoir_bs2_153 (7.2M rows, 1e8 entries, f64: 1.2 GB of CSR; H100 ~3 TB/s, the host
// link ~25 GB/s pinned; its SpMV ~0.57 ms):
// - perm_upload: perm, 4 B a row from the host through pinned staging (29 MB, ~1.2 ms).
// - device_layout: the rows permuted (csr_permute_rows: ~2.5 GB, ~0.9 ms), or copied when not
//   reordered (2.4 GB, ~0.8 ms).
// - groups: the long rows selected (a CUB select over the row numbers, 8 B a row of row
//   pointer: 58 MB, ~0.03 ms), their count downloaded; then per long row its chunk count and
//   a scan, the total downloaded, and the chunks (28 B each): launch and sync bound (~0.05 ms).
// About 2-3 ms in all, 4-5 SpMV-equivalents. Before (5cc7483, H100) the device build found
// the long rows and made the super-row pointers on the host (groups: 10.3 ms), then uploaded
// the row pointer (made on the host in the reordering's phase) and perm (twice, pageable),
// permuted the rows and made the chunks on the host (device_layout: 28.5 ms).
template <class V>
Csr3DeviceLayout<V> device_layout(const DeviceCsrView<V>& a, const Csr3<V>& shape) {
  cudaStream_t stream = cuda::Context::get().stream();
  Csr3DeviceLayout<V> l;
  // A small matrix the host holds (host_mirror.hpp): the (permuted) row pointer made there too,
  // for the groups below (they then need no download).
  std::vector<index_t> host_ptr;
  if (const index_t* h = cuda::host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1)) {
    if (shape.perm.empty()) {
      host_ptr.assign(h, h + a.rows + 1);
    } else {
      host_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
      for (index_t i = 0; i < a.rows; ++i) {
        const index_t r = shape.perm[static_cast<std::size_t>(i)];
        host_ptr[static_cast<std::size_t>(i) + 1] =
            host_ptr[static_cast<std::size_t>(i)] + h[r + 1] - h[r];
      }
    }
  }
  if (!shape.perm.empty()) {
    cuda::build_phase("perm_upload");
    l.perm = cuda::DeviceBuffer<index_t>(shape.perm.size());
    // Not waited for: shape.perm's buffer lives on in the operator (make_csr3_cuda).
    cuda::upload_staged(l.perm.data(), shape.perm.data(), l.perm.bytes(), false);
    cuda::build_phase("device_layout");
    l.csr = csr_permute_rows(a, l.perm.data(), host_ptr.empty() ? nullptr : &host_ptr);
  } else {
    cuda::build_phase("device_layout");
    l.csr = DeviceCsr<V>(a);
  }
  cuda::build_phase("groups");
  const index_t rows = a.rows;
  if (rows == 0) return l;
  const index_t* row_ptr = l.csr.row_ptr.data();
  if (!host_ptr.empty()) {  // the long rows and their chunks from the host's copy, queued up
    std::vector<index_t> long_rows;
    for (index_t i = 0; i < rows; ++i)
      if (csr3_is_long_row(host_ptr[i + 1] - host_ptr[i], shape.params.long_row_threshold))
        long_rows.push_back(i);
    const std::vector<LongChunk> chunks = csr3_long_chunks(host_ptr, long_rows);
    l.long_rows = cuda::queued_upload(long_rows);
    l.chunks = cuda::queued_upload(chunks);
    l.slots = static_cast<index_t>(chunks.size());
    return l;
  }
  // The long rows, in order, and their count.
  cuda::DeviceBuffer<index_t> selected(static_cast<std::size_t>(rows));
  cuda::DeviceBuffer<index_t> n_selected(1);
  cuda::cub_call(
      [&](void* temp, std::size_t& bytes, cudaStream_t st) {
        return cub::DeviceSelect::If(temp, bytes, thrust::counting_iterator<index_t>(0),
                                     selected.data(), n_selected.data(), rows,
                                     IsLongRow{row_ptr, shape.params.long_row_threshold}, st);
      },
      stream);
  index_t n_long = 0;
  cuda::copy_to_host(&n_long, n_selected.data(), sizeof n_long);
  cuda::build_phase("groups_chunks");
  l.long_rows = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(n_long));
  if (n_long == 0) return l;
  cuda::copy_on_device(l.long_rows.data(), selected.data(), l.long_rows.bytes());
  // Their chunks: counts, scanned into first slots (the total last), then the descriptors.
  cuda::DeviceBuffer<index_t> first_slot(static_cast<std::size_t>(n_long) + 1);
  gathered_offsets(n_long, l.long_rows.data(), row_ptr, first_slot.data(), LongRowChunks{}, stream);
  cuda::copy_to_host(&l.slots, first_slot.data() + n_long, sizeof l.slots);
  l.chunks = cuda::DeviceBuffer<LongChunk>(static_cast<std::size_t>(l.slots));
  long_row_chunks_kernel<<<cuda::grid_for(static_cast<std::size_t>(l.slots), kLayoutBlock),
                           kLayoutBlock, 0, stream>>>(l.slots, n_long, l.long_rows.data(), row_ptr,
                                                      first_slot.data(), l.chunks.data());
  SPMVKIT_LAUNCH_CHECK();
  return l;  // first_slot and selected freed in stream order
}

template <class V>
Csr3Arrays<V> download_layout(const Csr3DeviceLayout<V>& l) {
  Csr3Arrays<V> out;
  out.csr = l.csr.download();
  out.perm = l.perm.download();
  out.long_rows = l.long_rows.download();
  out.chunks = l.chunks.download();
  out.slots = l.slots;
  return out;
}

// One device copy of a CSR-3 matrix; launches any configuration over it (the uniform
// grouping is a launch parameter, so the tuner times every candidate on one upload).
template <class V>
class Csr3Device {
 public:
  explicit Csr3Device(const Csr3<V>& h)
      : Csr3Device(host_layout(h), h.params.long_row_threshold, h.params.permute_x) {}

  Csr3Device(Csr3DeviceLayout<V>&& l, index_t long_row_threshold, bool permute_x)
      : rows_(l.csr.rows),
        cols_(l.csr.cols),
        long_row_threshold_(long_row_threshold),
        permute_x_(permute_x && l.perm.size() > 0),
        row_ptr_(std::move(l.csr.row_ptr)),
        col_idx_(std::move(l.csr.col_idx)),
        values_(std::move(l.csr.values)),
        perm_(std::move(l.perm)),
        x_perm_(permute_x_ ? static_cast<std::size_t>(l.csr.cols) : 0),
        chunks_(std::move(l.chunks)),
        partials_(static_cast<std::size_t>(l.slots)),
        counters_(l.long_rows.size()) {
    if (counters_.size() > 0) cuda::fill_bytes(counters_.data(), 0, counters_.bytes());
  }

  // Bytes of the long-row machinery one apply reads or writes.
  std::size_t long_row_bytes() const { return chunks_.bytes() + partials_.bytes(); }

 public:
  void launch(const Csr3Params& c, const V* x, const V* y, V* z, V alpha, V beta,
              cudaStream_t stream) const {
    if (rows_ == 0) return;
    if (permute_x_ && cols_ > 0) {
      constexpr int block = 256;
      csr3_gather_x_kernel<V><<<cuda::grid_for(cols_, block), block, 0, stream>>>(
          cols_, perm_.data(), x, x_perm_.data());
      SPMVKIT_LAUNCH_CHECK();
      x = x_perm_.data();
    }
    Csr3Shape shape;
    shape.rows = rows_;
    shape.super_row_size = c.super_row_size;
    shape.super_super_row_size = c.super_super_row_size;
    shape.super_rows = csr3_groups(rows_, c.super_row_size);
    shape.super_super_rows = csr3_groups(shape.super_rows, c.super_super_row_size);
    shape.long_row_threshold = long_row_threshold_;
    const std::size_t grid = static_cast<std::size_t>(shape.super_super_rows) + chunks_.size();
    const std::int64_t block_rows =
        static_cast<std::int64_t>(c.super_row_size) * c.super_super_row_size;
    if (static_cast<std::int64_t>(rows_) + block_rows >= std::numeric_limits<index_t>::max() ||
        grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw UnsupportedError("csr3: rows + one super-super-row must stay below 2^31");
    const dim3 block(c.block_x, c.block_y, c.block_z);
    const auto g = static_cast<unsigned>(grid);
    const LongRows<V> long_rows{chunks_.data(), partials_.data(), counters_.data()};
    auto run = [&](auto kernel) {
      kernel<<<g, block, 0, stream>>>(shape, row_ptr_.data(), col_idx_.data(), values_.data(), x,
                                      perm_.data(), long_rows, y, z, alpha, beta);
    };
    if (c.kernel == Csr3Kernel::serial) {
      run(csr3_serial_kernel<V>);
    } else {
      switch (c.block_x) {
        case 1:
          run(csr3_parallel_kernel<V, 1>);
          break;
        case 2:
          run(csr3_parallel_kernel<V, 2>);
          break;
        case 4:
          run(csr3_parallel_kernel<V, 4>);
          break;
        case 8:
          run(csr3_parallel_kernel<V, 8>);
          break;
        case 16:
          run(csr3_parallel_kernel<V, 16>);
          break;
        case 32:
          run(csr3_parallel_kernel<V, 32>);
          break;
        default:
          throw InputError("csr3: parallel kernel block_x must be a power of two <= 32");
      }
    }
    SPMVKIT_LAUNCH_CHECK();
  }

  index_t rows() const { return rows_; }
  index_t cols() const { return cols_; }

 private:
  index_t rows_;
  index_t cols_;
  index_t long_row_threshold_;
  bool permute_x_;
  cuda::DeviceBuffer<index_t> row_ptr_;
  cuda::DeviceBuffer<index_t> col_idx_;
  cuda::DeviceBuffer<V> values_;
  cuda::DeviceBuffer<index_t> perm_;      // empty (null) when not reordered
  mutable cuda::DeviceBuffer<V> x_perm_;  // permute_x scratch, rewritten by every apply
  cuda::DeviceBuffer<LongChunk> chunks_;
  mutable cuda::DeviceBuffer<V> partials_;         // a partial sum a long-row chunk
  mutable cuda::DeviceBuffer<unsigned> counters_;  // arrivals a long row, back to 0 after
};

template <class V>
class Csr3CudaOperator final : public Operator<V> {
 public:
  explicit Csr3CudaOperator(const Csr3<V>& host)
      : Csr3CudaOperator(host.summary(), Csr3Device<V>(host)) {}
  // host_perm: the host's ordering, kept for the operator's life rather than freed during the
  // build (freeing 29 MB there took 4-5 ms, 10 SpMV-equivalents, reservoir_bs2_153 on the
  // H100 host).
  Csr3CudaOperator(const Csr3Summary& s, Csr3Device<V>&& device,
                   std::vector<index_t> host_perm = {})
      : Operator<V>(OperatorInfo{s.rows, s.user_cols, s.nnz, s.template matrix_bytes<V>(),
                                 Backend::cuda, "csr3", s.details()}),
        params_(s.params),
        device_(std::move(device)),
        host_perm_(std::move(host_perm)) {
    // The host model counts 4 B a long row; the device reads chunk descriptors and partials.
    this->info_.matrix_bytes =
        this->info_.matrix_bytes - s.long_rows * sizeof(index_t) + device_.long_row_bytes();
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    device_.launch(params_, x, y, z, alpha, beta, cuda::Context::get().stream());
  }

 private:
  Csr3Params params_;
  Csr3Device<V> device_;
  std::vector<index_t> host_perm_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(Csr3<V> host) {
  return std::make_unique<Csr3CudaOperator<V>>(host);
}

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(const DeviceCsrView<V>& a, Csr3<V>&& shape) {
  Csr3DeviceLayout<V> l = device_layout(a, shape);
  Csr3Summary s = shape.summary();
  s.nnz = a.nnz;
  s.long_rows = l.long_rows.size();
  cuda::build_phase("operator");
  return std::make_unique<Csr3CudaOperator<V>>(
      s, Csr3Device<V>(std::move(l), shape.params.long_row_threshold, shape.params.permute_x),
      std::move(shape.perm));
}

template <class V>
Csr3Arrays<V> csr3_device_arrays(const DeviceCsrView<V>& a, const Csr3<V>& shape) {
  return download_layout(device_layout(a, shape));
}

template <class V>
Csr3Arrays<V> csr3_host_arrays(const Csr3<V>& host) {
  return download_layout(host_layout(host));
}

template <class V>
std::vector<double> csr3_time_launches(const Csr3<V>& host, const std::vector<Csr3Params>& configs,
                                       int warmup, int reps) {
  const Csr3Device<V> device(host);
  cudaStream_t stream = cuda::Context::get().stream();
  const cuda::DeviceBuffer<V> x(std::vector<V>(static_cast<std::size_t>(host.csr.cols), V(1)));
  cuda::DeviceBuffer<V> z(static_cast<std::size_t>(host.csr.rows));
  std::vector<double> times;
  times.reserve(configs.size());
  for (const Csr3Params& c : configs) {
    double t = std::numeric_limits<double>::quiet_NaN();
    try {
      csr3_validate(c);
      // Batches of launches long enough (>= 50 us) for the event resolution (time_applies).
      t = median(time_applies(Backend::cuda, warmup, std::max(1, reps), [&] {
        device.launch(c, x.data(), nullptr, z.data(), V(1), V(0), stream);
      }));
    } catch (const InputError&) {
    } catch (const UnsupportedError&) {
    } catch (const CudaError&) {
      cudaGetLastError();  // a launch-configuration error is not sticky: go on
    }
    times.push_back(t);
  }
  return times;
}

#define SPMVKIT_INSTANTIATE(V)                                                                    \
  template std::unique_ptr<Operator<V>> make_csr3_cuda(Csr3<V>);                                  \
  template std::unique_ptr<Operator<V>> make_csr3_cuda(const DeviceCsrView<V>&, Csr3<V>&&);       \
  template Csr3Arrays<V> csr3_device_arrays(const DeviceCsrView<V>&, const Csr3<V>&);             \
  template Csr3Arrays<V> csr3_host_arrays(const Csr3<V>&);                                        \
  template std::vector<double> csr3_time_launches(const Csr3<V>&, const std::vector<Csr3Params>&, \
                                                  int, int);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
