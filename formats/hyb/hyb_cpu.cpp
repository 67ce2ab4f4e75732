// OpenMP HYB: the ELL pass, then the COO part split into even chunks of entries.
#include <omp.h>

#include <algorithm>

#include "backend/cpu/host_operator.hpp"
#include "formats/hyb/hyb.hpp"

namespace spmvkit {

template <class V>
void hyb_spmv_cpu(const HybData<V>& h, const V* x, const V* y, V* z, V alpha, V beta) {
  ell_spmv_cpu(h.ell, x, y, z, alpha, beta);
  const std::int64_t nnz = h.coo_nnz();
  if (nnz == 0) return;
  const index_t* row = h.coo_row.data();
  const index_t* col = h.coo_col.data();
  const V* val = h.coo_values.data();
  const int chunks = std::max(1, omp_get_max_threads());
  const std::int64_t per_chunk = (nnz + chunks - 1) / chunks;
#pragma omp parallel for schedule(static)
  for (int c = 0; c < chunks; ++c) {
    const std::int64_t begin = std::min(nnz, c * per_chunk);
    const std::int64_t end = std::min(nnz, begin + per_chunk);
    if (begin >= end) continue;
    // Only the first and last rows of a chunk can be shared with a neighbouring chunk.
    const index_t first = row[begin], last = row[end - 1];
    auto add = [&](index_t r, V sum) {
      if (r == first || r == last) {
#pragma omp atomic
        z[r] += alpha * sum;
      } else {
        z[r] += alpha * sum;
      }
    };
    index_t current = row[begin];
    V sum = 0;
    for (std::int64_t k = begin; k < end; ++k) {
      if (row[k] != current) {
        add(current, sum);
        current = row[k];
        sum = 0;
      }
      sum += val[k] * x[col[k]];
    }
    add(current, sum);
  }
}

template <class V>
std::unique_ptr<Operator<V>> make_hyb_cpu(HybData<V> h, OperatorInfo info) {
  return std::make_unique<HostOperator<V, HybData<V>, &hyb_spmv_cpu<V>>>(std::move(h),
                                                                      std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                 \
  template void hyb_spmv_cpu(const HybData<V>&, const V*, const V*, V*, V, V); \
  template std::unique_ptr<Operator<V>> make_hyb_cpu(HybData<V>, OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
