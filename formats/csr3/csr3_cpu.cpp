// CSR-3 OpenMP kernel: the paper's three loops on the CPU, a task per super-super-row (the
// CPU form CSR-k was first written for: super-super-rows spread over cores, super-rows and
// rows walked in order inside one, for cache reuse of x). Long rows stay inline here: the
// dynamic schedule absorbs them. Bytes: the byte model of csr3.hpp plus the two pointer
// arrays, which this kernel reads.
#include <omp.h>

#include <vector>

#include "formats/csr3/csr3.hpp"

namespace spmvkit {

namespace {

template <class V>
class Csr3CpuOperator final : public Operator<V> {
 public:
  explicit Csr3CpuOperator(Csr3<V> host)
      : Operator<V>(OperatorInfo{
            host.csr.rows, host.user_cols, host.csr.nnz(),
            host.matrix_bytes() +
                (host.sup_row_ptr.size() + host.sup_sup_row_ptr.size()) * sizeof(index_t),
            Backend::cpu, "csr3", host.details()}),
        f_(std::move(host)) {
    if (f_.params.permute_x) x_perm_.resize(static_cast<std::size_t>(f_.csr.cols));
  }

  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    const Csr<V>& a = f_.csr;
    const index_t* perm = f_.perm.empty() ? nullptr : f_.perm.data();
    if (f_.params.permute_x) {  // x in the new column numbering
      const index_t n = a.cols;
#pragma omp parallel for schedule(static)
      for (index_t i = 0; i < n; ++i) x_perm_[i] = x[perm[i]];
      x = x_perm_.data();
    }
    const index_t* rp = a.row_ptr.data();
    const index_t* ci = a.col_idx.data();
    const V* va = a.values.data();
    const index_t* srp = f_.sup_row_ptr.data();
    const index_t* ssrp = f_.sup_sup_row_ptr.data();
    const index_t blocks = f_.super_super_rows();
#pragma omp parallel for schedule(dynamic, 4)
    for (index_t b = 0; b < blocks; ++b)
      for (index_t s = ssrp[b]; s < ssrp[b + 1]; ++s)
        for (index_t i = srp[s]; i < srp[s + 1]; ++i) {
          V sum = 0;
          for (index_t k = rp[i]; k < rp[i + 1]; ++k) sum += va[k] * x[ci[k]];
          const index_t out = perm ? perm[i] : i;
          z[out] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[out];
        }
  }

 private:
  Csr3<V> f_;
  mutable std::vector<V> x_perm_;  // scratch for permute_x, rewritten by every apply
};

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cpu(Csr3<V> host) {
  return std::make_unique<Csr3CpuOperator<V>>(std::move(host));
}

template std::unique_ptr<Operator<float>> make_csr3_cpu(Csr3<float>);
template std::unique_ptr<Operator<double>> make_csr3_cpu(Csr3<double>);

}  // namespace spmvkit
