// Column panels for the balanced CSR kernel (cache blocking of x).
//
// Why: when x is larger than the L2 and many entries sit far from the diagonal (power-law and
// graph matrices), every far entry's x gather misses L2 and costs a 32-byte DRAM sector for 8
// useful bytes; on an H100 these gathers, not the matrix stream, bound the SpMV. Cutting the
// columns into P panels whose x slice fits in L2 and running the panels one after the other
// (y += A_p x_p) turns those misses into L2 hits, at the price of reading the row pointers and
// reading + writing y once more per extra panel. Stencils and other banded matrices have no
// far entries (neighbouring rows reuse the same x window), so the rule keeps them whole.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "formats/csr/csr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

template <class V>
double csr_far_fraction(const Csr<V>& a, std::int64_t window) {
  if (a.nnz() == 0 || a.rows == 0) return 0.0;
  std::int64_t far = 0;
  const double slope = static_cast<double>(a.cols) / a.rows;
#pragma omp parallel for reduction(+ : far) schedule(static)
  for (index_t r = 0; r < a.rows; ++r) {
    const auto centre = static_cast<std::int64_t>(slope * r);
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (std::llabs(static_cast<std::int64_t>(a.col_idx[k]) - centre) > window) ++far;
  }
  return static_cast<double>(far) / static_cast<double>(a.nnz());
}

template <class V>
int csr_choose_panels(const Csr<V>& a, std::size_t l2_bytes, const CsrPanelRule& rule) {
  const double x_bytes = static_cast<double>(a.cols) * sizeof(V);
  if (l2_bytes == 0 || x_bytes <= rule.min_x_fraction_of_l2 * static_cast<double>(l2_bytes))
    return 1;
  // "Far": outside an x window of l2 / window_divisor bytes centred on the row's diagonal.
  const auto window = static_cast<std::int64_t>(l2_bytes / sizeof(V) / rule.window_divisor);
  if (csr_far_fraction(a, window) < rule.min_far_fraction) return 1;
  const double panel_bytes = rule.panel_fraction_of_l2 * static_cast<double>(l2_bytes);
  return std::clamp(static_cast<int>(std::ceil(x_bytes / panel_bytes)), 1, rule.max_panels);
}

template <class V>
std::vector<Csr<V>> csr_column_panels(const Csr<V>& a, int panels) {
  if (panels < 1)
    throw InputError("csr column panels: panels must be >= 1, got " + std::to_string(panels));
  std::vector<Csr<V>> out(static_cast<std::size_t>(panels));
  const std::int64_t width = panels > 0 ? (std::int64_t{a.cols} + panels - 1) / panels : 0;
  auto panel_of = [width](index_t c) {
    return static_cast<int>(c / std::max<std::int64_t>(width, 1));
  };
  for (int p = 0; p < panels; ++p) {
    out[p].rows = a.rows;
    out[p].cols = a.cols;  // the panel keeps global column indices: x is not sliced
    out[p].row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  }
  // Counts per (panel, row), then prefix sums, then a stable scatter (columns stay sorted).
  for (index_t r = 0; r < a.rows; ++r)
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      ++out[panel_of(a.col_idx[k])].row_ptr[r + 1];
  for (auto& part : out) {
    for (index_t r = 0; r < a.rows; ++r) part.row_ptr[r + 1] += part.row_ptr[r];
    part.col_idx.resize(static_cast<std::size_t>(part.row_ptr[a.rows]));
    part.values.resize(part.col_idx.size());
  }
  std::vector<index_t> next(static_cast<std::size_t>(panels));
  for (index_t r = 0; r < a.rows; ++r) {
    for (int p = 0; p < panels; ++p) next[p] = out[p].row_ptr[r];
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const int p = panel_of(a.col_idx[k]);
      out[p].col_idx[next[p]] = a.col_idx[k];
      out[p].values[next[p]++] = a.values[k];
    }
  }
  return out;
}

template double csr_far_fraction(const Csr<float>&, std::int64_t);
template double csr_far_fraction(const Csr<double>&, std::int64_t);
template int csr_choose_panels(const Csr<float>&, std::size_t, const CsrPanelRule&);
template int csr_choose_panels(const Csr<double>&, std::size_t, const CsrPanelRule&);
template std::vector<Csr<float>> csr_column_panels(const Csr<float>&, int);
template std::vector<Csr<double>> csr_column_panels(const Csr<double>&, int);

}  // namespace spmvkit
