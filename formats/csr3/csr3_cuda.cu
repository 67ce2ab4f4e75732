// CSR-3 CUDA kernels (CSR-k GPU paper, "SpMV CSR-3 Serial Algorithm" and "SpMV CSR-3
// Parallel Algorithm"): a thread block per super-super-row, blockIdx.x = super-super-row.
//
// Bytes one apply must move: row_ptr (rows+1 indices), col_idx + values (nnz each), x at
// least once (cols values, through the read-only path), z written (rows values), y read when
// beta != 0; perm (a row) when reordered (z and y go through it); with permute_x a gather
// pass (perm + x read, x copy written, then read by the kernel). The super-row pointers are
// not read: the grouping is uniform (csr3.hpp) and computed. Long rows: chunk descriptors
// (28 B a chunk of at most kLongChunk entries) and one partial sum a chunk.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/finish.cuh"
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
// A row longer than the threshold is cut into chunks of at most kLongChunk entries; each
// chunk is one extra thread block of the same launch (blockIdx.x >= super-super-rows), so a
// row of 200k entries is spread over ~100 blocks instead of serialising one. The last block
// of a row to finish (arrival counter, __threadfence before the atomic: the CUDA
// threadFenceReduction pattern) adds the row's partial sums in chunk order (deterministic)
// and writes z; it then resets the counter for the next apply. A row of one chunk is
// written directly.
constexpr index_t kLongChunk = 2048;

struct LongChunk {
  index_t row;         // CSR-3 row
  index_t begin, end;  // this chunk's nonzeros
  index_t slot;        // its partial sum
  index_t first_slot;  // the row's first partial sum
  index_t slots;       // chunks of the row
  index_t counter;     // the row's arrival counter
};

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

// One device copy of a CSR-3 matrix; launches any configuration over it (the uniform
// grouping is a launch parameter, so the tuner times every candidate on one upload).
template <class V>
class Csr3Device {
 public:
  explicit Csr3Device(const Csr3<V>& h)
      : rows_(h.csr.rows),
        cols_(h.csr.cols),
        long_row_threshold_(h.params.long_row_threshold),
        permute_x_(h.params.permute_x && !h.perm.empty()),
        row_ptr_(h.csr.row_ptr),
        col_idx_(h.csr.col_idx),
        values_(h.csr.values),
        perm_(h.perm),
        x_perm_(permute_x_ ? static_cast<std::size_t>(h.csr.cols) : 0) {
    make_long_rows(h);
  }

  // `h` without column indices and values (its csr.row_ptr only); `m` holds the rows.
  Csr3Device(const Csr3<V>& h, DeviceCsr<V>&& m)
      : rows_(h.csr.rows),
        cols_(h.csr.cols),
        long_row_threshold_(h.params.long_row_threshold),
        permute_x_(h.params.permute_x && !h.perm.empty()),
        row_ptr_(std::move(m.row_ptr)),
        col_idx_(std::move(m.col_idx)),
        values_(std::move(m.values)),
        perm_(h.perm),
        x_perm_(permute_x_ ? static_cast<std::size_t>(h.csr.cols) : 0) {
    make_long_rows(h);
  }

  // Bytes of the long-row machinery one apply reads or writes.
  std::size_t long_row_bytes() const { return chunks_.bytes() + partials_.bytes(); }

 private:
  // The long rows' chunk descriptors (from the row pointer on the host), partials, counters.
  void make_long_rows(const Csr3<V>& h) {
    std::vector<LongChunk> chunks;
    index_t slots = 0;
    for (std::size_t i = 0; i < h.long_rows.size(); ++i) {
      const index_t row = h.long_rows[i];
      const index_t begin = h.csr.row_ptr[row], end = h.csr.row_ptr[row + 1];
      const index_t count = (end - begin + kLongChunk - 1) / kLongChunk;
      for (index_t c = 0; c < count; ++c)
        chunks.push_back(LongChunk{row, begin + c * kLongChunk,
                                   std::min(end, begin + (c + 1) * kLongChunk), slots + c, slots,
                                   count, static_cast<index_t>(i)});
      slots += count;
    }
    chunks_ = cuda::DeviceBuffer<LongChunk>(chunks);
    partials_ = cuda::DeviceBuffer<V>(static_cast<std::size_t>(slots));
    counters_ = cuda::DeviceBuffer<unsigned>(h.long_rows.size());
    if (counters_.size() > 0) cuda::fill_bytes(counters_.data(), 0, counters_.bytes());
  }

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
    shape.super_rows = (rows_ - 1) / c.super_row_size + 1;
    shape.super_super_rows = (shape.super_rows - 1) / c.super_super_row_size + 1;
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
      : Csr3CudaOperator(host, Csr3Device<V>(host)) {}
  Csr3CudaOperator(const Csr3<V>& host, Csr3Device<V>&& device)
      : Operator<V>(OperatorInfo{host.csr.rows, host.user_cols, host.csr.nnz(), host.matrix_bytes(),
                                 Backend::cuda, "csr3", host.details()}),
        params_(host.params),
        device_(std::move(device)) {
    // The host model counts 4 B a long row; the device reads chunk descriptors and partials.
    this->info_.matrix_bytes = this->info_.matrix_bytes - host.long_rows.size() * sizeof(index_t) +
                               device_.long_row_bytes();
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    device_.launch(params_, x, y, z, alpha, beta, cuda::Context::get().stream());
  }

 private:
  Csr3Params params_;
  Csr3Device<V> device_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(Csr3<V> host) {
  return std::make_unique<Csr3CudaOperator<V>>(host);
}

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(const DeviceCsrView<V>& a, Csr3<V> shape) {
  DeviceCsr<V> m = shape.perm.empty() ? DeviceCsr<V>(a)
                                      : csr_permute_rows(a, shape.perm, shape.csr.row_ptr);
  return std::make_unique<Csr3CudaOperator<V>>(shape, Csr3Device<V>(shape, std::move(m)));
}

template <class V>
std::vector<double> csr3_time_launches(const Csr3<V>& host, const std::vector<Csr3Params>& configs,
                                       int warmup, int reps) {
  const Csr3Device<V> device(host);
  cudaStream_t stream = cuda::Context::get().stream();
  const cuda::DeviceBuffer<V> x(std::vector<V>(static_cast<std::size_t>(host.csr.cols), V(1)));
  cuda::DeviceBuffer<V> z(static_cast<std::size_t>(host.csr.rows));
  // Batches of `launches`, timed by the backend's one timer (spmvkit/timing.hpp): ms a launch.
  auto timed_runs = [&](const Csr3Params& c, int launches, int runs) {
    std::vector<double> ms = time_runs(Backend::cuda, 0, runs, [&] {
      for (int i = 0; i < launches; ++i)
        device.launch(c, x.data(), nullptr, z.data(), V(1), V(0), stream);
    });
    for (double& t : ms) t /= launches;
    return ms;
  };
  std::vector<double> times;
  times.reserve(configs.size());
  for (const Csr3Params& c : configs) {
    double t = std::numeric_limits<double>::quiet_NaN();
    try {
      csr3_validate(c);
      for (int w = 0; w < warmup; ++w)
        device.launch(c, x.data(), nullptr, z.data(), V(1), V(0), stream);
      // Batches of launches long enough (>= ~50 us) for the event resolution.
      const double once = timed_runs(c, 1, 1).front();
      const int batch = once > 0 ? std::max(1, std::min(1000, static_cast<int>(0.05 / once))) : 100;
      t = median(timed_runs(c, batch, std::max(1, reps)));
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
  template std::unique_ptr<Operator<V>> make_csr3_cuda(const DeviceCsrView<V>&, Csr3<V>);       \
  template std::vector<double> csr3_time_launches(const Csr3<V>&, const std::vector<Csr3Params>&, \
                                                  int, int);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
