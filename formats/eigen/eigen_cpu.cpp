// The Eigen peer: an Eigen::SparseMatrix<V, RowMajor> (Eigen's CSR) built from the input
// (setup: the copy a user holding our Csr would make), applied as an Eigen user writes it.
// Bytes per apply, as for CSR: row pointer, column indices and values once, x at best once,
// z written (y read when beta != 0).
#include "formats/eigen/eigen.hpp"

#if SPMVKIT_HAVE_EIGEN
#include <Eigen/SparseCore>
#endif

#include "spmvkit/error.hpp"

namespace spmvkit {

#if SPMVKIT_HAVE_EIGEN
namespace {

template <class V>
class EigenCsrOperator final : public Operator<V> {
 public:
  using Matrix = Eigen::SparseMatrix<V, Eigen::RowMajor, index_t>;
  using Vec = Eigen::Matrix<V, Eigen::Dynamic, 1>;

  explicit EigenCsrOperator(const Csr<V>& a)
      : Operator<V>(OperatorInfo{
            a.rows, a.cols, a.nnz(),
            (static_cast<std::size_t>(a.rows) + 1) * sizeof(index_t) +
                static_cast<std::size_t>(a.nnz()) * (sizeof(index_t) + sizeof(V)),
            Backend::cpu, "eigen_csr",
            "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
                ", " + std::to_string(Eigen::nbThreads()) + " threads"}),
        a_(Eigen::Map<const Matrix>(a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                                    a.values.data())) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const Eigen::Map<const Vec> xv(x, this->cols());
    Eigen::Map<Vec> zv(z, this->rows());
    if (beta == V(0)) {
      zv.noalias() = alpha * (a_ * xv);
      return;
    }
    if (y != z) zv = Eigen::Map<const Vec>(y, this->rows());
    zv *= beta;
    zv.noalias() += alpha * (a_ * xv);
  }

 private:
  Matrix a_;
};

template <class V>
std::unique_ptr<Operator<V>> build_eigen(const Csr<V>& a) {
  return std::make_unique<EigenCsrOperator<V>>(a);
}

}  // namespace

FormatEntry eigen_csr_format() {
  return make_format(
      "eigen_csr", "Eigen SparseMatrix<RowMajor> * vector, OpenMP (the CPU peer)", {},
      [](const auto& a, const Params&, Backend) { return build_eigen(a); },
      /*cpu=*/true, /*cuda=*/false, /*peer=*/true);
}
#endif

}  // namespace spmvkit
