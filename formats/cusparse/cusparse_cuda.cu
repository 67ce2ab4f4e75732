// cuSPARSE peers. Setup does what a careful cuSPARSE user would: descriptors, workspace and
// cusparseSpMV_preprocess once; each apply only updates the dense-vector pointers.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/cuda/cublas_api.hpp"
#include "backend/cuda/cuda.hpp"
#include "formats/common/bsr_blocks.hpp"
#include "formats/common/csr_kernels.hpp"
#include "formats/cusparse/cusparse.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"

namespace spmvkit {

namespace {

template <class V>
constexpr cudaDataType value_type() {
  return std::is_same_v<V, float> ? CUDA_R_32F : CUDA_R_64F;
}

const char* peer_name(CusparsePeer p) {
  switch (p) {
    case CusparsePeer::csr_alg1: return "cusparse_csr_alg1";
    case CusparsePeer::csr_alg2: return "cusparse_csr_alg2";
    case CusparsePeer::coo: return "cusparse_coo";
    case CusparsePeer::sell: return "cusparse_sell";
    case CusparsePeer::bsr: return "cusparse_bsr";
    case CusparsePeer::bsrmv: return "cusparse_bsrmv";
  }
  return "cusparse";
}

template <class V>
class CusparseOperator final : public Operator<V> {
 public:
  CusparseOperator(const Csr<V>& a, CusparsePeer peer, const Params& p)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz(), 0, Backend::cuda, peer_name(peer), ""}),
        peer_(peer) {
    auto& ctx = cuda::Context::get();
    const std::int64_t rows = a.rows, cols = a.cols, nnz = a.nnz();
    switch (peer) {
      case CusparsePeer::csr_alg1:
      case CusparsePeer::csr_alg2: {
        ptr_ = cuda::DeviceBuffer<index_t>(a.row_ptr);
        idx_ = cuda::DeviceBuffer<index_t>(a.col_idx);
        val_ = cuda::DeviceBuffer<V>(a.values);
        create_csr(a.rows, a.cols, nnz);
        break;
      }
      case CusparsePeer::coo: {
        std::vector<index_t> row_idx(static_cast<std::size_t>(nnz));
        for (index_t r = 0; r < a.rows; ++r)
          std::fill(row_idx.begin() + a.row_ptr[r], row_idx.begin() + a.row_ptr[r + 1], r);
        rows_ = cuda::DeviceBuffer<index_t>(row_idx);
        idx_ = cuda::DeviceBuffer<index_t>(a.col_idx);
        val_ = cuda::DeviceBuffer<V>(a.values);
        create_coo(a.rows, a.cols, nnz, idx_.data(), val_.data());
        break;
      }
      case CusparsePeer::sell: {
        const index_t slice = static_cast<index_t>(p.get_int("slice_size", 32));
        if (slice < 1 || slice > 1024) throw InputError("cusparse_sell: slice_size must be 1..1024");
        build_sell(a, slice);
        alg_ = CUSPARSE_SPMV_SELL_ALG1;
        this->info_.details = "slice_size=" + std::to_string(slice) +
                              ",stored=" + std::to_string(val_.size());
        break;
      }
      case CusparsePeer::bsr:
      case CusparsePeer::bsrmv:
        build_bsr(a, p, peer);
        break;
    }
    if (peer == CusparsePeer::bsrmv) {
      ctx.synchronize();
      return;  // the legacy API needs no workspace
    }
    prepare(rows, cols, nnz);
  }

  // CSR (ALG1, ALG2) and COO from a CSR already in device memory: its arrays copied on the
  // device, as our own formats' device builders copy them (the operator owns what it reads),
  // or, with `keep` (the registry's upload, held by the operator: format=auto's pick), read in
  // place; COO's row indices expanded from the row pointer there (cusparseXcsr2coo).
  CusparseOperator(const DeviceCsrView<V>& a, CusparsePeer peer,
                   const std::shared_ptr<const void>& keep)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz, 0, Backend::cuda, peer_name(peer), ""}),
        peer_(peer),
        kept_(keep) {
    if (peer != CusparsePeer::csr_alg1 && peer != CusparsePeer::csr_alg2 &&
        peer != CusparsePeer::coo)
      throw UnsupportedError(std::string(peer_name(peer)) + ": no device builder");
    const index_t* col_idx = a.col_idx;
    const V* values = a.values;
    if (!keep) {
      idx_ = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(a.nnz));
      val_ = cuda::DeviceBuffer<V>(static_cast<std::size_t>(a.nnz));
      cuda::copy_on_device(idx_.data(), a.col_idx, idx_.bytes());
      cuda::copy_on_device(val_.data(), a.values, val_.bytes());
      col_idx = idx_.data();
      values = val_.data();
    }
    if (peer == CusparsePeer::coo) {
      rows_ = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(a.nnz));
      if (a.nnz > 0 && a.rows > 0)
        SPMVKIT_CUSPARSE_CHECK(cusparseXcsr2coo(cuda::Context::get().cusparse(), a.row_ptr,
                                                static_cast<int>(a.nnz), a.rows, rows_.data(),
                                                CUSPARSE_INDEX_BASE_ZERO));
      create_coo(a.rows, a.cols, a.nnz, col_idx, values);
    } else if (keep) {
      create_csr(a.rows, a.cols, a.nnz, a.row_ptr, col_idx, values);
    } else {
      ptr_ = cuda::DeviceBuffer<index_t>(static_cast<std::size_t>(a.rows) + 1);
      cuda::copy_on_device(ptr_.data(), a.row_ptr, ptr_.bytes());
      create_csr(a.rows, a.cols, a.nnz, ptr_.data(), col_idx, values);
    }
    prepare(a.rows, a.cols, a.nnz);
  }

 private:
  // The CSR descriptor over ptr_, idx_, val_ (filled), or over kept arrays, and ALG1 or ALG2 by
  // peer_. cuSPARSE's SpMV reads the matrix only (the descriptor's pointers are not const).
  void create_csr(index_t rows, index_t cols, std::int64_t nnz) {
    create_csr(rows, cols, nnz, ptr_.data(), idx_.data(), val_.data());
  }
  void create_csr(index_t rows, index_t cols, std::int64_t nnz, const index_t* row_ptr,
                  const index_t* col_idx, const V* values) {
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateCsr(
        &mat_, rows, cols, nnz, const_cast<index_t*>(row_ptr), const_cast<index_t*>(col_idx),
        const_cast<V*>(values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
        value_type<V>()));
    alg_ = peer_ == CusparsePeer::csr_alg1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_CSR_ALG2;
    this->info_.matrix_bytes = csr_matrix_bytes<V>(rows, nnz);
  }

  // The COO descriptor over rows_ (the row indices) and `col_idx`, `values`.
  void create_coo(index_t rows, index_t cols, std::int64_t nnz, const index_t* col_idx,
                  const V* values) {
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateCoo(&mat_, rows, cols, nnz, rows_.data(),
                                             const_cast<index_t*>(col_idx), const_cast<V*>(values),
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                             value_type<V>()));
    alg_ = CUSPARSE_SPMV_COO_ALG1;
    this->info_.matrix_bytes = static_cast<std::size_t>(nnz) * (2 * sizeof(index_t) + sizeof(V));
  }

  // Workspace and preprocessing with placeholder vectors.
  void prepare(std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
    auto& ctx = cuda::Context::get();
    x_tmp_ = cuda::DeviceBuffer<V>(std::max<std::size_t>(static_cast<std::size_t>(cols), 1));
    y_tmp_ = cuda::DeviceBuffer<V>(std::max<std::size_t>(static_cast<std::size_t>(rows), 1));
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateDnVec(&vx_, cols, x_tmp_.data(), value_type<V>()));
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateDnVec(&vy_, rows, y_tmp_.data(), value_type<V>()));
    const V one = 1, zero = 0;
    std::size_t bytes = 0;
    SPMVKIT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(ctx.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                   &one, mat_, vx_, &zero, vy_, value_type<V>(),
                                                   alg_, &bytes));
    buffer_ = cuda::DeviceBuffer<char>(std::max<std::size_t>(bytes, 1));
    if (nnz > 0)
      SPMVKIT_CUSPARSE_CHECK(cusparseSpMV_preprocess(ctx.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                     &one, mat_, vx_, &zero, vy_, value_type<V>(),
                                                     alg_, buffer_.data()));
    ctx.synchronize();
  }

 public:
  ~CusparseOperator() override {
    if (descr_) cusparseDestroyMatDescr(descr_);
    if (vx_) cusparseDestroyDnVec(vx_);
    if (vy_) cusparseDestroyDnVec(vy_);
    if (mat_) cusparseDestroySpMat(mat_);
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const index_t rows = this->info_.rows;
    if (rows == 0) return;
    if (beta != V(0) && y != z) cuda::copy_on_device(z, y, rows * sizeof(V));
    if (this->info_.nnz == 0 || this->info_.cols == 0) {
      // cuSPARSE with an empty matrix: z = beta*y, computed here.
      scale(z, beta);
      return;
    }
    auto& ctx = cuda::Context::get();
    if (peer_ == CusparsePeer::bsrmv) {
      const index_t bs = block_size_;
      const index_t mb = this->info_.rows / bs, nb = this->info_.cols / bs;
      const auto nnzb = static_cast<index_t>(idx_.size());
      if constexpr (std::is_same_v<V, float>)
        SPMVKIT_CUSPARSE_CHECK(cusparseSbsrmv(ctx.cusparse(), CUSPARSE_DIRECTION_COLUMN,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, &alpha,
                                              descr_, val_.data(), ptr_.data(), idx_.data(), bs, x,
                                              &beta, z));
      else
        SPMVKIT_CUSPARSE_CHECK(cusparseDbsrmv(ctx.cusparse(), CUSPARSE_DIRECTION_COLUMN,
                                              CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb, nnzb, &alpha,
                                              descr_, val_.data(), ptr_.data(), idx_.data(), bs, x,
                                              &beta, z));
      return;
    }
    SPMVKIT_CUSPARSE_CHECK(cusparseDnVecSetValues(vx_, const_cast<V*>(x)));
    SPMVKIT_CUSPARSE_CHECK(cusparseDnVecSetValues(vy_, z));
    SPMVKIT_CUSPARSE_CHECK(cusparseSpMV(ctx.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                        mat_, vx_, &beta, vy_, value_type<V>(), alg_,
                                        buffer_.data()));
  }

 private:
  void scale(V* z, V beta) const {
    auto& ctx = cuda::Context::get();
    const int n = this->info_.rows;
    if (beta == V(0)) {
      cuda::fill_bytes(z, 0, n * sizeof(V));
      return;
    }
    if constexpr (std::is_same_v<V, float>)
      SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().sscal(ctx.cublas(), n, &beta, z, 1));
    else
      SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().dscal(ctx.cublas(), n, &beta, z, 1));
  }

  // Sliced ELL as cuSPARSE expects it: slices of `slice` rows, each padded to its longest row,
  // column-major inside the slice, padding column -1.
  void build_sell(const Csr<V>& a, index_t slice) {
    const index_t slices = (a.rows + slice - 1) / slice;
    std::vector<index_t> offsets(static_cast<std::size_t>(slices) + 1, 0);
    for (index_t s = 0; s < slices; ++s) {
      index_t width = 0;
      for (index_t r = s * slice; r < std::min(a.rows, (s + 1) * slice); ++r)
        width = std::max(width, a.row_length(r));
      const std::int64_t next = static_cast<std::int64_t>(offsets[s]) + std::int64_t{width} * slice;
      if (next > std::numeric_limits<index_t>::max())
        throw UnsupportedError("cusparse_sell: padded size exceeds 32-bit offsets");
      offsets[s + 1] = static_cast<index_t>(next);
    }
    std::vector<index_t> cols(offsets.back(), -1);
    std::vector<V> vals(offsets.back(), V(0));
    for (index_t r = 0; r < a.rows; ++r) {
      const index_t s = r / slice, lane = r % slice;
      for (index_t k = a.row_ptr[r], j = 0; k < a.row_ptr[r + 1]; ++k, ++j) {
        const std::size_t pos = offsets[s] + static_cast<std::size_t>(j) * slice + lane;
        cols[pos] = a.col_idx[k];
        vals[pos] = a.values[k];
      }
    }
    ptr_ = cuda::DeviceBuffer<index_t>(offsets);
    idx_ = cuda::DeviceBuffer<index_t>(cols);
    val_ = cuda::DeviceBuffer<V>(vals);
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateSlicedEll(
        &mat_, a.rows, a.cols, a.nnz(), static_cast<std::int64_t>(vals.size()), slice, ptr_.data(),
        idx_.data(), val_.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
        value_type<V>()));
    this->info_.matrix_bytes = ptr_.bytes() + idx_.bytes() + val_.bytes();
  }

  // BSR with column-major blocks (our conversion, formats/bsr), for the generic SpMV and the
  // legacy bsrmv. The block size is the `block_size` parameter or the detected one; the
  // matrix must be made of whole blocks (rows and cols multiples of it).
  void build_bsr(const Csr<V>& a, const Params& p, CusparsePeer peer) {
    block_size_ = static_cast<int>(p.get_int("block_size", detect_block_size(a)));
    if (block_size_ < 2)
      throw UnsupportedError(std::string(peer_name(peer)) +
                             ": no dense block structure (block size 1); pass block_size=");
    if (a.rows % block_size_ != 0 || a.cols % block_size_ != 0)
      throw UnsupportedError(std::string(peer_name(peer)) + ": rows and cols must be multiples of " +
                             std::to_string(block_size_));
    const Bsr<V> b = csr_to_bsr(a, block_size_, BlockLayout::column_major);
    ptr_ = cuda::DeviceBuffer<index_t>(b.block_row_ptr);
    idx_ = cuda::DeviceBuffer<index_t>(b.block_col_idx);
    val_ = cuda::DeviceBuffer<V>(b.values);
    this->info_.matrix_bytes = ptr_.bytes() + idx_.bytes() + val_.bytes();
    this->info_.details = "block_size=" + std::to_string(block_size_) +
                          ",fill=" + std::to_string(b.fill_ratio());
    if (peer == CusparsePeer::bsrmv) {
      SPMVKIT_CUSPARSE_CHECK(cusparseCreateMatDescr(&descr_));
      return;
    }
    SPMVKIT_CUSPARSE_CHECK(cusparseCreateBsr(
        &mat_, b.block_rows, b.block_cols, b.nnzb(), block_size_, block_size_, ptr_.data(),
        idx_.data(), val_.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
        value_type<V>(), CUSPARSE_ORDER_COL));
    alg_ = CUSPARSE_SPMV_BSR_ALG1;
  }

  CusparsePeer peer_;
  int block_size_ = 1;
  cusparseMatDescr_t descr_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t vx_ = nullptr;
  cusparseDnVecDescr_t vy_ = nullptr;
  cusparseSpMVAlg_t alg_ = CUSPARSE_SPMV_ALG_DEFAULT;
  std::shared_ptr<const void> kept_;  // the registry's upload the CSR descriptor reads, or null
  cuda::DeviceBuffer<index_t> ptr_;
  cuda::DeviceBuffer<index_t> rows_;  // COO's row indices
  cuda::DeviceBuffer<index_t> idx_;
  cuda::DeviceBuffer<V> val_;
  cuda::DeviceBuffer<V> x_tmp_;
  cuda::DeviceBuffer<V> y_tmp_;
  mutable cuda::DeviceBuffer<char> buffer_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_cusparse(const Csr<V>& a, CusparsePeer peer, const Params& p) {
  return std::make_unique<CusparseOperator<V>>(a, peer, p);
}

template <class V>
std::unique_ptr<Operator<V>> make_cusparse_from_device(const DeviceCsrView<V>& a,
                                                       CusparsePeer peer,
                                                       const std::shared_ptr<const void>& keep) {
  return std::make_unique<CusparseOperator<V>>(a, peer, keep);
}

template std::unique_ptr<Operator<float>> make_cusparse(const Csr<float>&, CusparsePeer,
                                                        const Params&);
template std::unique_ptr<Operator<double>> make_cusparse(const Csr<double>&, CusparsePeer,
                                                         const Params&);
template std::unique_ptr<Operator<float>> make_cusparse_from_device(
    const DeviceCsrView<float>&, CusparsePeer, const std::shared_ptr<const void>&);
template std::unique_ptr<Operator<double>> make_cusparse_from_device(
    const DeviceCsrView<double>&, CusparsePeer, const std::shared_ptr<const void>&);

}  // namespace spmvkit
