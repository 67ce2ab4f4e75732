// CUDA CSR kernels: scalar, vector (sub-warp per row) and balanced (nnz-split row tiles).
//
// Bytes one apply must move (all three): row_ptr (rows+1 indices), col_idx + values (nnz each),
// x at least once (cols values), y when beta != 0, z written (rows values).
#include <algorithm>
#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <limits>
#include <string>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/csr/csr.hpp"
#include "formats/hyb/coo_add.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

template <class V>
__device__ __forceinline__ V finish(V sum, const V* y, index_t row, V alpha, V beta) {
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

// --- scalar: a thread a row (HEC paper, "CSR scalar") ---------------------------------------
template <class V>
__global__ void csr_scalar_kernel(index_t rows, const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx, const V* __restrict__ values,
                                  const V* __restrict__ x, const V* y, V* z, V alpha, V beta) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  V sum = 0;
  for (index_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
    sum += values[k] * __ldg(x + col_idx[k]);
  z[row] = finish(sum, y, static_cast<index_t>(row), alpha, beta);
}

// --- vector: THREADS_PER_ROW consecutive lanes a row, shuffle reduction ------------------
// (HEC paper "CSR vector", with the sub-warp width chosen from the mean row length.)
template <class V, int THREADS_PER_ROW>
__global__ void csr_vector_kernel(index_t rows, const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx, const V* __restrict__ values,
                                  const V* __restrict__ x, const V* y, V* z, V alpha, V beta) {
  const std::int64_t gid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = gid / THREADS_PER_ROW;
  const int lane = static_cast<int>(gid % THREADS_PER_ROW);
  const bool active = row < rows;
  // Inactive lanes still take part in the shuffles (full mask), with an empty range.
  const index_t begin = active ? row_ptr[row] : 0;
  const index_t end = active ? row_ptr[row + 1] : 0;
  V sum = 0;
  for (index_t k = begin + lane; k < end; k += THREADS_PER_ROW)
    sum += values[k] * __ldg(x + col_idx[k]);
#pragma unroll
  for (int offset = THREADS_PER_ROW / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset, THREADS_PER_ROW);
  if (active && lane == 0) z[row] = finish(sum, y, static_cast<index_t>(row), alpha, beta);
}

// --- balanced: nnz-split tiles ---------------------------------------------------------------
// Setup cuts the rows into tiles of at most `tile_nnz` nonzeros (and at most `max_tile_rows`
// rows). A tile of whole rows is processed by one thread block: all threads first compute the
// products values[k] * x[col_idx[k]] of the tile into shared memory with coalesced loads
// (`items_per_thread` independent loads in flight per thread), then groups of
// `threads_per_row` threads (chosen per tile from its mean row length) reduce each row from
// shared memory. A row longer than `tile_nnz` is split over several blocks, each reducing
// its slice into a partial sum; a fix-up kernel adds a long row's partials and writes z. Every
// block thus does the same bounded work whatever the row lengths.
struct BalancedPolicy {
  int block_threads = 128;  // measured on H100: 128 x 8 best on stencil27_150 (bench/results)
  int items_per_thread = 8;
  int tile_nnz() const { return block_threads * items_per_thread; }
  static constexpr int max_tile_rows(int block_threads) { return block_threads * 2; }
  int max_tile_rows() const { return max_tile_rows(block_threads); }
};

struct Tile {
  index_t row_begin;
  index_t row_end;  // == row_begin + 1 for a slice of a long row
  index_t nnz_begin;
  index_t nnz_end;
  int threads_per_row;  // 0 marks a long-row slice
  index_t partial;      // slice: index into the partial sums
};

struct LongRow {
  index_t row;
  index_t partial_begin;
  index_t partial_end;
};

// Up to 8 items a thread: 1536 threads an SM (40 registers). On H100 this took stencil27_150
// from 0.448 to 0.434 ms (10 blocks of 128 at 48 registers before).
template <class V, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK, ITEMS <= 8 ? 1536 / BLOCK : 1)
    csr_balanced_kernel(const Tile* __restrict__ tiles, const index_t* __restrict__ row_ptr,
                        const index_t* __restrict__ col_idx, const V* __restrict__ values,
                        const V* __restrict__ x, const V* y, V* z, V* partials, V alpha, V beta) {
  __shared__ V products[BLOCK * ITEMS];
  __shared__ index_t offsets[BalancedPolicy::max_tile_rows(BLOCK) + 1];
  using BlockReduce = cub::BlockReduce<V, BLOCK>;
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  const Tile tile = tiles[blockIdx.x];
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
    if (tid == 0) partials[tile.partial] = sum;
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
  for (int i = 0; i < ITEMS; ++i) products[i * BLOCK + tid] = prod[i];
  __syncthreads();

  // Phase 2: groups of threads_per_row lanes reduce rows from shared memory.
  const int group = tile.threads_per_row;
  const int lane = tid % group;
  const int groups = BLOCK / group;
  const index_t rounds = (rows + groups - 1) / groups;  // the same for every thread
  for (index_t round = 0; round < rounds; ++round) {
    const index_t local = round * groups + tid / group;
    const bool active = local < rows;
    const index_t row = tile.row_begin + local;
    const index_t begin = active ? offsets[local] : 0;
    const index_t end = active ? offsets[local + 1] : 0;
    V sum = 0;
    for (index_t k = begin + lane; k < end; k += group) sum += products[k];
    for (int offset = group / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset, group);
    if (active && lane == 0) z[row] = finish(sum, y, row, alpha, beta);
  }
}

template <class V>
__global__ void csr_long_row_fixup_kernel(const LongRow* __restrict__ long_rows, index_t count,
                                          const V* __restrict__ partials, const V* y, V* z, V alpha,
                                          V beta) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const LongRow lr = long_rows[i];
  V sum = 0;
  for (index_t p = lr.partial_begin; p < lr.partial_end; ++p) sum += partials[p];
  z[lr.row] = finish(sum, y, lr.row, alpha, beta);
}

int pow2_at_least(double v, int lo, int hi) {
  int p = lo;
  while (p < hi && p < v) p *= 2;
  return p;
}

// One column panel of the balanced kernel (the whole matrix when there is one panel): its
// CSR arrays, tiles, long rows and the long rows' partial sums.
template <class V>
struct BalancedPart {
  cuda::DeviceBuffer<index_t> row_ptr;
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<V> values;
  cuda::DeviceBuffer<Tile> tiles;
  cuda::DeviceBuffer<LongRow> long_rows;
  mutable cuda::DeviceBuffer<V> partials;  // scratch written by every apply
};

template <class V>
class CsrCudaOperator final : public Operator<V> {
 public:
  CsrCudaOperator(const Csr<V>& a, CsrKernel kernel, const Params& p)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz(), csr_matrix_bytes(a), Backend::cuda,
                                 kernel == CsrKernel::scalar   ? "csr_scalar"
                                 : kernel == CsrKernel::vector ? "csr_vector"
                                                               : "csr_balanced",
                                 ""}),
        kernel_(kernel) {
    if (kernel != CsrKernel::balanced) {
      row_ptr_ = cuda::DeviceBuffer<index_t>(a.row_ptr);
      col_idx_ = cuda::DeviceBuffer<index_t>(a.col_idx);
      values_ = cuda::DeviceBuffer<V>(a.values);
    }
    if (kernel == CsrKernel::vector) {
      const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0.0;
      threads_per_row_ = static_cast<int>(p.get_int("threads_per_row", pow2_at_least(mean, 2, 32)));
      if (threads_per_row_ < 1 || threads_per_row_ > 32 ||
          (threads_per_row_ & (threads_per_row_ - 1)) != 0)
        throw InputError("csr_vector: threads_per_row must be a power of two in 1..32, got " +
                         std::to_string(threads_per_row_));
      this->info_.details = "threads_per_row=" + std::to_string(threads_per_row_);
    } else if (kernel == CsrKernel::balanced) {
      policy_.items_per_thread = static_cast<int>(p.get_int("items_per_thread", 8));
      policy_.block_threads = static_cast<int>(p.get_int("block_threads", policy_.block_threads));
      if (policy_.items_per_thread != 4 && policy_.items_per_thread != 8 &&
          policy_.items_per_thread != 16)
        throw InputError("csr_balanced: items_per_thread must be 4, 8 or 16");
      if (policy_.block_threads != 128 && policy_.block_threads != 256)
        throw InputError("csr_balanced: block_threads must be 128 or 256");
      // Column panels (cache blocking of x, csr_panels.cpp): an option, off by default: on
      // powerlaw_8000000 (x 64 MB > L2) 2 panels gave 0.99x the time of 1, 3-8 panels
      // 1.06-1.65x, and on stencil27_150 every split was slower
      // (bench/results/2026-11-22-h100-tma).
      const long long n_panels = p.get_int("panels", 1);
      if (n_panels < 1 || n_panels > 64)
        throw InputError("csr_balanced: panels must be an integer in 1..64, got " +
                         p.get_string("panels", ""));
      // Near/far split (csr_split_near_far): far entries in COO panels after the CSR pass.
      // Default band: 1M columns either side of the diagonal for double (8 MB of x each way).
      const long long band =
          p.get_int("near_band", static_cast<long long>((std::size_t{8} << 20) / sizeof(V)));
      if (band < 0 || band > std::numeric_limits<index_t>::max())
        throw InputError("csr_balanced: near_band must be in 0..2^31-1, got " +
                         p.get_string("near_band", ""));
      long long far_panels = 0;
      if (p.get_string("far_panels", "auto") == "auto") {
        if (n_panels == 1) far_panels = auto_far_panels(a, static_cast<index_t>(band));
      } else {
        far_panels = p.get_int("far_panels", 0);
        if (far_panels < 0 || far_panels > 64)
          throw InputError("csr_balanced: far_panels must be auto or an integer in 0..64, got " +
                           p.get_string("far_panels", ""));
        if (far_panels > 0 && n_panels > 1)
          throw InputError("csr_balanced: panels and far_panels exclude each other");
      }
      std::size_t tiles = 0, long_rows = 0;
      if (far_panels > 0) {
        NearFarSplit<V> split =
            csr_split_near_far(a, static_cast<index_t>(band), static_cast<int>(far_panels));
        add_part(split.near);
        far_row_ = cuda::DeviceBuffer<index_t>(split.far_row);
        far_col_ = cuda::DeviceBuffer<index_t>(split.far_col);
        far_val_ = cuda::DeviceBuffer<V>(split.far_val);
        // The near part's CSR replaces the matrix's; far entries carry their row index, and
        // each (panel, row) pair with far entries reads and writes its z entry once more.
        this->info_.matrix_bytes = csr_matrix_bytes(split.near) + far_row_.bytes() +
                                   far_col_.bytes() + far_val_.bytes() +
                                   static_cast<std::size_t>(split.far_row_segments) * 2 * sizeof(V);
      } else if (n_panels == 1) {
        add_part(a);
      } else {
        for (const Csr<V>& part : csr_column_panels(a, static_cast<int>(n_panels))) add_part(part);
      }
      for (const auto& part : parts_) {
        tiles += part.tiles.size();
        long_rows += part.long_rows.size();
        // Tile descriptors are read once per apply too.
        this->info_.matrix_bytes += part.tiles.bytes() + part.long_rows.bytes();
      }
      // Each extra panel reads its own row pointer and reads + writes z once more.
      this->info_.matrix_bytes +=
          (parts_.size() - 1) * ((static_cast<std::size_t>(a.rows) + 1) * sizeof(index_t) +
                                 2 * static_cast<std::size_t>(a.rows) * sizeof(V));
      this->info_.details =
          "block_threads=" + std::to_string(policy_.block_threads) +
          ",items_per_thread=" + std::to_string(policy_.items_per_thread) +
          ",panels=" + std::to_string(parts_.size()) + ",far_panels=" + std::to_string(far_panels) +
          ",near_band=" + std::to_string(band) + ",far_nnz=" + std::to_string(far_row_.size()) +
          ",tiles=" + std::to_string(tiles) + ",long_rows=" + std::to_string(long_rows);
    }
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const index_t rows = this->info_.rows;
    if (rows == 0) return;
    cudaStream_t stream = cuda::Context::get().stream();
    const index_t* rp = row_ptr_.data();
    const index_t* ci = col_idx_.data();
    const V* va = values_.data();
    constexpr int block = 256;
    switch (kernel_) {
      case CsrKernel::scalar:
        csr_scalar_kernel<V><<<cuda::grid_for(rows, block), block, 0, stream>>>(rows, rp, ci, va, x,
                                                                                y, z, alpha, beta);
        break;
      case CsrKernel::vector:
        launch_vector(x, y, z, alpha, beta, stream);
        break;
      case CsrKernel::balanced:
        // Panel 0 applies beta to y; every later panel adds its products to z (y := z).
        for (std::size_t i = 0; i < parts_.size(); ++i) {
          if (i == 0)
            launch_balanced(parts_[i], x, y, z, alpha, beta, stream);
          else
            launch_balanced(parts_[i], x, z, z, alpha, V(1), stream);
        }
        // Far entries: every column panel in one launch (each panel sorted by row, one after
        // the other, so that one panel's slice of x is in L2 at a time).
        launch_coo_add(static_cast<index_t>(far_row_.size()), far_row_.data(), far_col_.data(),
                       far_val_.data(), x, z, alpha, stream);
        return;
    }
    SPMVKIT_LAUNCH_CHECK();
  }

 private:
  void launch_vector(const V* x, const V* y, V* z, V alpha, V beta, cudaStream_t stream) const {
    const index_t rows = this->info_.rows;
    constexpr int block = 256;
    const unsigned grid = cuda::grid_for(static_cast<std::size_t>(rows) * threads_per_row_, block);
    auto args = [&](auto kernel) {
      kernel<<<grid, block, 0, stream>>>(rows, row_ptr_.data(), col_idx_.data(), values_.data(), x,
                                         y, z, alpha, beta);
    };
    switch (threads_per_row_) {
      case 1:
        args(csr_vector_kernel<V, 1>);
        break;
      case 2:
        args(csr_vector_kernel<V, 2>);
        break;
      case 4:
        args(csr_vector_kernel<V, 4>);
        break;
      case 8:
        args(csr_vector_kernel<V, 8>);
        break;
      case 16:
        args(csr_vector_kernel<V, 16>);
        break;
      default:
        args(csr_vector_kernel<V, 32>);
        break;
    }
  }

  template <int BLOCK, int ITEMS>
  void launch_balanced_tiles(const BalancedPart<V>& part, const V* x, const V* y, V* z, V alpha,
                             V beta, cudaStream_t stream) const {
    csr_balanced_kernel<V, BLOCK, ITEMS>
        <<<static_cast<unsigned>(part.tiles.size()), BLOCK, 0, stream>>>(
            part.tiles.data(), part.row_ptr.data(), part.col_idx.data(), part.values.data(), x, y,
            z, part.partials.data(), alpha, beta);
  }

  template <int BLOCK>
  void launch_balanced_block(const BalancedPart<V>& part, const V* x, const V* y, V* z, V alpha,
                             V beta, cudaStream_t stream) const {
    switch (policy_.items_per_thread) {
      case 4:
        launch_balanced_tiles<BLOCK, 4>(part, x, y, z, alpha, beta, stream);
        break;
      case 16:
        launch_balanced_tiles<BLOCK, 16>(part, x, y, z, alpha, beta, stream);
        break;
      default:
        launch_balanced_tiles<BLOCK, 8>(part, x, y, z, alpha, beta, stream);
        break;
    }
  }

  void launch_balanced(const BalancedPart<V>& part, const V* x, const V* y, V* z, V alpha, V beta,
                       cudaStream_t stream) const {
    if (part.tiles.size() > 0) {
      if (policy_.block_threads == 128)
        launch_balanced_block<128>(part, x, y, z, alpha, beta, stream);
      else
        launch_balanced_block<256>(part, x, y, z, alpha, beta, stream);
      SPMVKIT_LAUNCH_CHECK();
    }
    if (part.long_rows.size() > 0) {
      const auto count = static_cast<index_t>(part.long_rows.size());
      csr_long_row_fixup_kernel<V><<<cuda::grid_for(count, 128), 128, 0, stream>>>(
          part.long_rows.data(), count, part.partials.data(), y, z, alpha, beta);
      SPMVKIT_LAUNCH_CHECK();
    }
  }

  // far_panels=auto: when x is larger than half the L2 and at least 1/20 of the entries lie
  // outside the band, as many panels as it takes for a panel's slice of x to fit in half the
  // L2. Measured on H100 (bench/results/2026-11-22-h100-far): powerlaw_8000000 (x 64 MB, 23%
  // far) 0.86 ms with 3 panels against 1.00 ms without; 2 and 4 panels 0.87 and 0.88 ms.
  static int auto_far_panels(const Csr<V>& a, index_t band) {
    const double x_bytes = static_cast<double>(a.cols) * sizeof(V);
    const double half_l2 = cuda::Context::get().props().l2CacheSize / 2.0;
    if (half_l2 <= 0 || x_bytes <= half_l2) return 0;
    if (csr_count_far(a, band) * 20 < a.nnz()) return 0;
    return static_cast<int>(std::min(64.0, std::ceil(x_bytes / half_l2)));
  }

  // Greedy tiling: whole rows while they fit in tile_nnz; a longer row becomes slices.
  void add_part(const Csr<V>& a) {
    const index_t tile_nnz = policy_.tile_nnz();
    const index_t max_rows = policy_.max_tile_rows();
    std::vector<Tile> tiles;
    std::vector<LongRow> long_rows;
    index_t partials = 0;
    index_t r = 0;
    while (r < a.rows) {
      const index_t len = a.row_length(r);
      if (len > tile_nnz) {
        LongRow lr{r, partials, partials};
        for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k += tile_nnz)
          tiles.push_back(
              Tile{r, r + 1, k, std::min(k + tile_nnz, a.row_ptr[r + 1]), 0, partials++});
        lr.partial_end = partials;
        long_rows.push_back(lr);
        ++r;
        continue;
      }
      const index_t begin = r;
      while (r < a.rows && r - begin < max_rows && a.row_length(r) <= tile_nnz &&
             a.row_ptr[r + 1] - a.row_ptr[begin] <= tile_nnz)
        ++r;
      const index_t nnz = a.row_ptr[r] - a.row_ptr[begin];
      const double mean = static_cast<double>(nnz) / (r - begin);
      tiles.push_back(
          Tile{begin, r, a.row_ptr[begin], a.row_ptr[r], pow2_at_least(mean / 2.0, 1, 32), 0});
    }
    BalancedPart<V> part;
    part.row_ptr = cuda::DeviceBuffer<index_t>(a.row_ptr);
    part.col_idx = cuda::DeviceBuffer<index_t>(a.col_idx);
    part.values = cuda::DeviceBuffer<V>(a.values);
    part.tiles = cuda::DeviceBuffer<Tile>(tiles);
    part.long_rows = cuda::DeviceBuffer<LongRow>(long_rows);
    part.partials = cuda::DeviceBuffer<V>(static_cast<std::size_t>(partials));
    parts_.push_back(std::move(part));
  }

  CsrKernel kernel_;
  int threads_per_row_ = 32;
  BalancedPolicy policy_;
  cuda::DeviceBuffer<index_t> row_ptr_;  // scalar and vector
  cuda::DeviceBuffer<index_t> col_idx_;
  cuda::DeviceBuffer<V> values_;
  std::vector<BalancedPart<V>> parts_;  // balanced: one per column panel
  cuda::DeviceBuffer<index_t> far_row_;
  cuda::DeviceBuffer<index_t> far_col_;
  cuda::DeviceBuffer<V> far_val_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const Csr<V>& a, CsrKernel kernel, const Params& p) {
  return std::make_unique<CsrCudaOperator<V>>(a, kernel, p);
}

template std::unique_ptr<Operator<float>> make_csr_cuda(const Csr<float>&, CsrKernel,
                                                        const Params&);
template std::unique_ptr<Operator<double>> make_csr_cuda(const Csr<double>&, CsrKernel,
                                                         const Params&);

}  // namespace spmvkit
