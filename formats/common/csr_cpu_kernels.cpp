// OpenMP CSR kernels. Bytes per apply: row_ptr (rows+1 indices), col_idx and values (nnz each),
// x (cols values, at best once), y read when beta != 0, z written.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "formats/common/csr_kernels.hpp"

namespace spmvkit {

namespace {

template <class V>
inline V finish(V sum, const V* y, index_t r, V alpha, V beta) {
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
}

// Merrill & Garland merge-path search: the (row, nonzero) coordinate where diagonal `diag`
// crosses the merge of row-end offsets with the nonzero indices.
inline std::pair<index_t, index_t> merge_path_search(std::int64_t diag, const index_t* row_end,
                                                     index_t rows, index_t nnz) {
  std::int64_t lo = std::max<std::int64_t>(diag - nnz, 0);
  std::int64_t hi = std::min<std::int64_t>(diag, rows);
  while (lo < hi) {
    const std::int64_t pivot = (lo + hi) / 2;
    if (row_end[pivot] <= diag - pivot - 1)
      lo = pivot + 1;
    else
      hi = pivot;
  }
  return {static_cast<index_t>(lo), static_cast<index_t>(diag - lo)};
}

}  // namespace

template <class V>
void csr_spmv_rows_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta) {
  const index_t* rp = a.row_ptr.data();
  const index_t* ci = a.col_idx.data();
  const V* va = a.values.data();
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < a.rows; ++r) {
    V sum = 0;
    for (index_t k = rp[r]; k < rp[r + 1]; ++k) sum += va[k] * x[ci[k]];
    z[r] = finish(sum, y, r, alpha, beta);
  }
}

template <class V>
void csr_spmv_merge_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta) {
  const index_t rows = a.rows, nnz = a.nnz();
  if (rows == 0) return;
  const index_t* row_end = a.row_ptr.data() + 1;
  const index_t* ci = a.col_idx.data();
  const V* va = a.values.data();
  const int threads = std::max(1, omp_get_max_threads());
  std::vector<index_t> carry_row(threads, rows);
  std::vector<V> carry_value(threads, V(0));
  const std::int64_t items = static_cast<std::int64_t>(rows) + nnz;
  const std::int64_t per_thread = (items + threads - 1) / threads;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const std::int64_t d0 = std::min<std::int64_t>(items, per_thread * t);
    const std::int64_t d1 = std::min<std::int64_t>(items, d0 + per_thread);
    auto [row, k] = merge_path_search(d0, row_end, rows, nnz);
    const auto [row_stop, k_stop] = merge_path_search(d1, row_end, rows, nnz);
    for (; row < row_stop; ++row) {  // rows this thread completes
      V sum = 0;
      for (; k < row_end[row]; ++k) sum += va[k] * x[ci[k]];
      z[row] = finish(sum, y, row, alpha, beta);
    }
    V sum = 0;  // the start of a row a later thread completes
    for (; k < k_stop; ++k) sum += va[k] * x[ci[k]];
    carry_row[t] = row_stop;
    carry_value[t] = sum;
  }
  for (int t = 0; t < threads; ++t)
    if (carry_row[t] < rows) z[carry_row[t]] += alpha * carry_value[t];
}

#define SPMVKIT_INSTANTIATE(V)                                                   \
  template void csr_spmv_rows_cpu(const Csr<V>&, const V*, const V*, V*, V, V);  \
  template void csr_spmv_merge_cpu(const Csr<V>&, const V*, const V*, V*, V, V);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
