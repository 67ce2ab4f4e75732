// OpenMP HEC (Algorithm 1 on the CPU): the ELL pass writes z, then each row's CSR part is
// added (rows are independent; dynamic schedule because CSR-part rows vary widely).
#include "backend/cpu/host_operator.hpp"
#include "formats/hec/hec.hpp"

namespace spmvkit {

template <class V>
void hec_spmv_cpu(const HecData<V>& h, const V* x, const V* y, V* z, V alpha, V beta) {
  ell_spmv_cpu(h.ell, x, y, z, alpha, beta);
  if (h.csr_nnz() == 0) return;
  const index_t* rp = h.csr_row_ptr.data();
  const index_t* ci = h.csr_col_idx.data();
  const V* va = h.csr_values.data();
#pragma omp parallel for schedule(dynamic, 256)
  for (index_t r = 0; r < h.ell.rows; ++r) {
    if (rp[r] == rp[r + 1]) continue;
    V sum = 0;
    for (index_t k = rp[r]; k < rp[r + 1]; ++k) sum += va[k] * x[ci[k]];
    z[r] += alpha * sum;
  }
}

template <class V>
std::unique_ptr<Operator<V>> make_hec_cpu(HecData<V> h, OperatorInfo info) {
  return std::make_unique<HostOperator<V, HecData<V>, &hec_spmv_cpu<V>>>(std::move(h),
                                                                      std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                 \
  template void hec_spmv_cpu(const HecData<V>&, const V*, const V*, V*, V, V); \
  template std::unique_ptr<Operator<V>> make_hec_cpu(HecData<V>, OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
