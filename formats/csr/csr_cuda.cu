// CUDA CSR kernels: scalar, vector (sub-warp per row) and balanced (nnz-split row tiles).
//
// Bytes one apply must move (all three): row_ptr (rows+1 indices), col_idx + values (nnz each),
// x at least once (cols values), y when beta != 0, z written (rows values).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/finish.cuh"
#include "formats/csr/csr.hpp"
#include "formats/common/csr_balanced.cuh"
#include "formats/common/csr_split.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

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
  z[row] = cuda::finish(sum, y, static_cast<index_t>(row), alpha, beta);
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
  if (active && lane == 0) z[row] = cuda::finish(sum, y, static_cast<index_t>(row), alpha, beta);
}

// One column panel of the balanced kernel (the whole matrix when there is one panel): its
// CSR arrays (its own, or the registry's upload kept) and tiles.
template <class V>
struct BalancedPart {
  DeviceCsr<V> matrix;               // empty where kept
  std::shared_ptr<const void> kept;  // the upload whose arrays `arrays` are, if kept
  DeviceCsrView<V> arrays;           // what the kernel reads
  BalancedTiles<V> tiles;
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
      matrix_ = DeviceCsr<V>(a);
      arrays_ = matrix_.view();
    }
    if (kernel == CsrKernel::vector) {
      choose_threads_per_row(a.rows, a.nnz(), p);
    } else if (kernel == CsrKernel::balanced) {
      const int n_panels = read_balanced_params(p);
      // Near/far split (csr_split_near_far): far entries in COO panels after the CSR pass.
      // Default band: 1M columns either side of the diagonal for double (8 MB of x each way).
      const FarSplitChoice far = far_choice(
          csr_far_split_choice(a, p, "csr_balanced",
                               static_cast<double>(cuda::Context::get().props().l2CacheSize)),
          n_panels);
      if (far.panels > 0) {
        add_near_far(a.rows, csr_split_near_far(DeviceCsr<V>(a), far.band, far.panels));
      } else if (n_panels == 1) {
        add_part(a.row_ptr.data(), DeviceCsr<V>(a));
      } else {
        for (const Csr<V>& part : csr_column_panels(a, n_panels))
          add_part(part.row_ptr.data(), DeviceCsr<V>(part));
      }
      describe_balanced(a.rows, far);
    }
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const index_t rows = this->info_.rows;
    if (rows == 0) return;
    cudaStream_t stream = cuda::Context::get().stream();
    const index_t* rp = arrays_.row_ptr;
    const index_t* ci = arrays_.col_idx;
    const V* va = arrays_.values;
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
        far_.add_to(x, z, alpha, stream);
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
      kernel<<<grid, block, 0, stream>>>(rows, arrays_.row_ptr, arrays_.col_idx, arrays_.values, x,
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

 public:
  // From a CSR on the device. Scalar and vector: the arrays copied there (no host round trip),
  // or, with `keep` (the registry's upload, held by the operator), read where they are.
  // Balanced: the far count, the near/far split and the tiling on the device (the tiling reads
  // the row pointer there: balanced_tiling_device), the matrix (or its near part) copied there;
  // nothing a row comes to the host. Column panels (panels > 1) are cut on the host from a
  // downloaded copy, as the host builder cuts them.
  CsrCudaOperator(const DeviceCsrView<V>& a, CsrKernel kernel, const Params& p,
                  const std::shared_ptr<const void>& keep = nullptr)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz, csr_matrix_bytes<V>(a.rows, a.nnz),
                                 Backend::cuda,
                                 kernel == CsrKernel::scalar   ? "csr_scalar"
                                 : kernel == CsrKernel::vector ? "csr_vector"
                                                               : "csr_balanced",
                                 ""}),
        kernel_(kernel),
        matrix_(kernel == CsrKernel::balanced || keep ? DeviceCsr<V>() : DeviceCsr<V>(a)),
        kept_(kernel == CsrKernel::balanced ? nullptr : keep),
        arrays_(kept_ ? a : matrix_.view()) {
    if (kernel == CsrKernel::vector) choose_threads_per_row(a.rows, a.nnz, p);
    if (kernel != CsrKernel::balanced) return;
    const int n_panels = read_balanced_params(p);
    cuda::build_phase("far_choice");
    const FarSplitChoice far = far_choice(
        csr_far_split_choice(a.cols, a.nnz, sizeof(V), p, "csr_balanced",
                             static_cast<double>(cuda::Context::get().props().l2CacheSize),
                             [&a](index_t band) { return csr_count_far(a, band); }),
        n_panels);
    if (far.panels > 0) {
      cuda::build_phase("near_far_split");
      DeviceNearFar<V> split = csr_split_near_far(a, far.band, far.panels);
      cuda::build_phase("tiling");
      add_near_far(a.rows, std::move(split));
    } else if (n_panels == 1 && keep) {
      cuda::build_phase("tiling");
      add_kept_part(a, keep);
    } else if (n_panels == 1) {
      cuda::build_phase("copy");
      DeviceCsr<V> copy(a);
      cuda::build_phase("tiling");
      add_part(std::move(copy));
    } else {
      cuda::build_phase("column_panels_on_host");
      const Csr<V> host = cuda::download_csr(a);
      for (const Csr<V>& part : csr_column_panels(host, n_panels))
        add_part(part.row_ptr.data(), DeviceCsr<V>(part));
    }
    describe_balanced(a.rows, far);
  }

 private:
  // csr_balanced's kernel parameters (policy_, long_row_finish_); returns the column panels.
  int read_balanced_params(const Params& p) {
    policy_.items_per_thread = static_cast<int>(p.get_int("items_per_thread", 8));
    policy_.block_threads = static_cast<int>(p.get_int("block_threads", policy_.block_threads));
    if (policy_.items_per_thread != 4 && policy_.items_per_thread != 8 &&
        policy_.items_per_thread != 16)
      throw InputError("csr_balanced: items_per_thread must be 4, 8 or 16");
    if (policy_.block_threads != 128 && policy_.block_threads != 256)
      throw InputError("csr_balanced: block_threads must be 128 or 256");
    const std::string row_sum = p.get_string("row_sum", "groups");
    if (row_sum != "groups" && row_sum != "scan")
      throw InputError("csr_balanced: row_sum must be groups or scan, got " + row_sum);
    policy_.row_sum =
        row_sum == "scan" ? BalancedPolicy::RowSum::scan : BalancedPolicy::RowSum::groups;
    const std::string finish = p.get_string("long_row_finish", "fixup");
    if (finish != "fixup" && finish != "last_slice")
      throw InputError("csr_balanced: long_row_finish must be fixup or last_slice, got " + finish);
    long_row_finish_ = finish == "fixup" ? LongRowFinish::fixup : LongRowFinish::last_slice;
    // Column panels (cache blocking of x, csr_panels.cpp): an option, off by default: on
    // powerlaw_8000000 (x 64 MB > L2) 2 panels gave 0.99x the time of 1, 3-8 panels
    // 1.06-1.65x, and on stencil27_150 every split was slower
    // (bench/results/2026-11-22-h100-tma).
    const long long n_panels = p.get_int("panels", 1);
    if (n_panels < 1 || n_panels > 64)
      throw InputError("csr_balanced: panels must be an integer in 1..64, got " +
                       p.get_string("panels", ""));
    return static_cast<int>(n_panels);
  }

  // Column panels and far panels exclude each other; an automatic far split yields to panels.
  static FarSplitChoice far_choice(FarSplitChoice far, int n_panels) {
    if (n_panels > 1) {
      if (far.automatic) far.panels = 0;
      if (far.panels > 0) throw InputError("csr_balanced: panels and far_panels exclude each other");
    }
    return far;
  }

  // The near part as the one tiled part (tiled on the device, where the split made its row
  // pointer), the far entries on top; the byte model counts the near part's CSR instead of the
  // matrix's.
  void add_near_far(index_t rows, DeviceNearFar<V>&& split) {
    const std::int64_t near_nnz = split.near.nnz();
    add_part(std::move(split.near));
    far_ = FarEntries<V>(std::move(split));
    this->info_.matrix_bytes = csr_matrix_bytes<V>(rows, near_nnz) + far_.bytes();
  }

  // The tiles' bytes in the byte model, and the details.
  void describe_balanced(index_t rows, const FarSplitChoice& far) {
    std::size_t tiles = 0, long_rows = 0;
    for (const auto& part : parts_) {
      tiles += part.tiles.tiles();
      long_rows += part.tiles.long_rows();
      // Tile descriptors are read once per apply too.
      this->info_.matrix_bytes += part.tiles.descriptor_bytes();
    }
    // Each extra panel reads its own row pointer and reads + writes z once more.
    this->info_.matrix_bytes +=
        (parts_.size() - 1) * ((static_cast<std::size_t>(rows) + 1) * sizeof(index_t) +
                               2 * static_cast<std::size_t>(rows) * sizeof(V));
    this->info_.details =
        "block_threads=" + std::to_string(policy_.block_threads) +
        ",items_per_thread=" + std::to_string(policy_.items_per_thread) +
        ",row_sum=" + (policy_.row_sum == BalancedPolicy::RowSum::scan ? "scan" : "groups") +
        ",panels=" + std::to_string(parts_.size()) + ",far_panels=" + std::to_string(far.panels) +
        ",near_band=" + std::to_string(far.band) + ",far_nnz=" + std::to_string(far_.size()) +
        ",tiles=" + std::to_string(tiles) + ",long_rows=" + std::to_string(long_rows);
  }

  void launch_balanced(const BalancedPart<V>& part, const V* x, const V* y, V* z, V alpha, V beta,
                       cudaStream_t stream) const {
    part.tiles.launch(part.arrays.row_ptr, part.arrays.col_idx, part.arrays.values, nullptr, x, y,
                      z, alpha, beta, stream);
  }

  // csr_vector's sub-warp: the mean row length rounded up to a power of two, or as given.
  void choose_threads_per_row(index_t rows, std::int64_t nnz, const Params& p) {
    const double mean = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
    threads_per_row_ = static_cast<int>(p.get_int("threads_per_row", pow2_at_least(mean, 2, 32)));
    if (threads_per_row_ < 1 || threads_per_row_ > 32 ||
        (threads_per_row_ & (threads_per_row_ - 1)) != 0)
      throw InputError("csr_vector: threads_per_row must be a power of two in 1..32, got " +
                       std::to_string(threads_per_row_));
    this->info_.details = "threads_per_row=" + std::to_string(threads_per_row_);
  }

  // A part on the device, tiled from its row pointer on the host (the host builder's)...
  void add_part(const index_t* row_ptr, DeviceCsr<V>&& matrix) {
    BalancedTiling tiling;
    balanced_tiling(row_ptr, 0, matrix.rows, policy_, {}, tiling);
    add_part(BalancedTiles<V>(tiling, policy_, long_row_finish_), std::move(matrix));
  }
  // ... or on the device, the same tiles.
  void add_part(DeviceCsr<V>&& matrix) {
    DeviceBalancedTiling tiling =
        balanced_tiling_device(matrix.row_ptr.data(), 0, matrix.rows, policy_);
    add_part(BalancedTiles<V>(std::move(tiling), policy_, long_row_finish_), std::move(matrix));
  }
  void add_part(BalancedTiles<V>&& tiles, DeviceCsr<V>&& matrix) {
    BalancedPart<V> part;
    part.matrix = std::move(matrix);
    part.arrays = part.matrix.view();  // device pointers: unchanged by the moves below
    part.tiles = std::move(tiles);
    parts_.push_back(std::move(part));
  }
  // ... or the registry's upload kept, tiled on the device.
  void add_kept_part(const DeviceCsrView<V>& a, const std::shared_ptr<const void>& keep) {
    BalancedPart<V> part;
    part.kept = keep;
    part.arrays = a;
    part.tiles = BalancedTiles<V>(balanced_tiling_device(a.row_ptr, 0, a.rows, policy_), policy_,
                                  long_row_finish_);
    parts_.push_back(std::move(part));
  }

  CsrKernel kernel_;
  int threads_per_row_ = 32;
  BalancedPolicy policy_;
  LongRowFinish long_row_finish_ = LongRowFinish::fixup;
  DeviceCsr<V> matrix_;                 // scalar and vector (empty where kept)
  std::shared_ptr<const void> kept_;    // scalar and vector: the registry's upload, kept
  DeviceCsrView<V> arrays_;             // scalar and vector: what the kernels read
  std::vector<BalancedPart<V>> parts_;  // balanced: one per column panel
  FarEntries<V> far_;                   // balanced with far_panels
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const Csr<V>& a, CsrKernel kernel, const Params& p) {
  return std::make_unique<CsrCudaOperator<V>>(a, kernel, p);
}

template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const DeviceCsrView<V>& a, CsrKernel kernel,
                                           const Params& p) {
  return std::make_unique<CsrCudaOperator<V>>(a, kernel, p);  // the registry waits
}

template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const DeviceCsrView<V>& a,
                                           const std::shared_ptr<const void>& keep,
                                           CsrKernel kernel, const Params& p) {
  return std::make_unique<CsrCudaOperator<V>>(a, kernel, p, keep);
}

template std::unique_ptr<Operator<float>> make_csr_cuda(const DeviceCsrView<float>&, CsrKernel,
                                                        const Params&);
template std::unique_ptr<Operator<double>> make_csr_cuda(const DeviceCsrView<double>&, CsrKernel,
                                                         const Params&);
template std::unique_ptr<Operator<float>> make_csr_cuda(const DeviceCsrView<float>&,
                                                        const std::shared_ptr<const void>&,
                                                        CsrKernel, const Params&);
template std::unique_ptr<Operator<double>> make_csr_cuda(const DeviceCsrView<double>&,
                                                         const std::shared_ptr<const void>&,
                                                         CsrKernel, const Params&);
template std::unique_ptr<Operator<float>> make_csr_cuda(const Csr<float>&, CsrKernel,
                                                        const Params&);
template std::unique_ptr<Operator<double>> make_csr_cuda(const Csr<double>&, CsrKernel,
                                                         const Params&);

}  // namespace spmvkit
