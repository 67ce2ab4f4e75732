// OpenMP ELL pass. Rows are processed in blocks; within a block the loop runs slot by slot so
// the column-major arrays are read contiguously.
#include <algorithm>

#include "formats/common/ell_pass.hpp"

namespace spmvkit {

template <class V>
void ell_spmv_cpu(const EllData<V>& e, const V* x, const V* y, V* z, V alpha, V beta) {
  constexpr index_t block = 256;
  const index_t rows = e.rows;
  const index_t blocks = rows / block + (rows % block != 0);
#pragma omp parallel for schedule(dynamic, 4)
  for (index_t b = 0; b < blocks; ++b) {
    const index_t r0 = b * block;
    const index_t n = std::min<index_t>(block, rows - r0);
    V sum[block] = {};
    index_t longest = 0;
    for (index_t i = 0; i < n; ++i) longest = std::max(longest, e.row_length[r0 + i]);
    for (index_t k = 0; k < longest; ++k) {
      const index_t* col = e.col_idx.data() + e.slot(k, r0);
      const V* val = e.values.data() + e.slot(k, r0);
      for (index_t i = 0; i < n; ++i)
        if (col[i] >= 0) sum[i] += val[i] * x[col[i]];
    }
    for (index_t i = 0; i < n; ++i)
      z[r0 + i] = beta == V(0) ? alpha * sum[i] : alpha * sum[i] + beta * y[r0 + i];
  }
}

#define SPMVKIT_INSTANTIATE(V)                                                 \
  template void ell_spmv_cpu(const EllData<V>&, const V*, const V*, V*, V, V);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
