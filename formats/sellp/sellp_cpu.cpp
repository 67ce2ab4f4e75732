// OpenMP SELL-P: slices in parallel; each row walks its chunks (b*t slots apart), reading only
// its stored entries, and writes its result to the user's row.
#include <algorithm>

#include "backend/cpu/host_operator.hpp"
#include "formats/sellp/sellp.hpp"

namespace spmvkit {

template <class V>
void sellp_spmv_cpu(const SellpData<V>& s, const V* x, const V* y, V* z, V alpha, V beta) {
  const std::int64_t b = s.config.slice_size, t = s.config.threads_per_row;
  const index_t* col = s.col_idx.data();
  const V* val = s.values.data();
#pragma omp parallel for schedule(dynamic, 16)
  for (index_t sl = 0; sl < s.slices; ++sl) {
    for (std::int64_t i = 0; i < b; ++i) {
      const std::int64_t p = sl * b + i;
      if (p >= s.rows) break;
      const index_t len = s.row_length[p];
      const std::int64_t row_base = s.slice_ptr[sl] + i * t;
      V sum = 0;
      for (std::int64_t c = 0; c * t < len; ++c) {
        const std::int64_t base = row_base + c * b * t;
        const std::int64_t n = std::min<std::int64_t>(t, len - c * t);
        for (std::int64_t j = 0; j < n; ++j) sum += val[base + j] * x[col[base + j]];
      }
      const index_t r = s.user_row(static_cast<index_t>(p));
      z[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
    }
  }
}

template <class V>
std::unique_ptr<Operator<V>> make_sellp_cpu(SellpData<V> s, OperatorInfo info) {
  return std::make_unique<HostOperator<V, SellpData<V>, &sellp_spmv_cpu<V>>>(std::move(s),
                                                                      std::move(info));
}

#define SPMVKIT_INSTANTIATE(V)                                                     \
  template void sellp_spmv_cpu(const SellpData<V>&, const V*, const V*, V*, V, V); \
  template std::unique_ptr<Operator<V>> make_sellp_cpu(SellpData<V>, OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
