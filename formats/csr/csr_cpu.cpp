// CSR on the CPU: the shared OpenMP kernels (formats/common/csr_cpu_kernels.cpp), row-parallel
// for scalar and vector, merge-path for balanced.
#include "formats/csr/csr.hpp"

namespace spmvkit {

namespace {

template <class V>
class CsrCpuOperator final : public Operator<V> {
 public:
  CsrCpuOperator(const Csr<V>& a, CsrKernel kernel)
      : Operator<V>(OperatorInfo{a.rows, a.cols, a.nnz(), csr_matrix_bytes(a), Backend::cpu,
                                 kernel == CsrKernel::scalar   ? "csr_scalar"
                                 : kernel == CsrKernel::vector ? "csr_vector"
                                                               : "csr_balanced",
                                 kernel == CsrKernel::balanced ? "merge-path" : "row-parallel"}),
        a_(a),
        kernel_(kernel) {}

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    if (kernel_ == CsrKernel::balanced)
      csr_spmv_merge_cpu(a_, x, y, z, alpha, beta);
    else
      csr_spmv_rows_cpu(a_, x, y, z, alpha, beta);
  }

 private:
  Csr<V> a_;
  CsrKernel kernel_;
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr_cpu(const Csr<V>& a, CsrKernel kernel) {
  return std::make_unique<CsrCpuOperator<V>>(a, kernel);
}

#define SPMVKIT_INSTANTIATE(V) \
  template std::unique_ptr<Operator<V>> make_csr_cpu(const Csr<V>&, CsrKernel);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
