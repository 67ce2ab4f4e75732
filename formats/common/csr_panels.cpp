// Column panels and the near/far choice for the balanced CSR kernel (cache blocking of x); the
// near/far split itself is made on the GPU (csr_split.cu).
//
// When x is larger than the L2 and many entries sit far from the diagonal, their x gathers
// miss L2 (on powerlaw_8000000, H100: 2.39 GB read a call against the 1.36 GB of the byte
// model). Column panels of the whole matrix (`panels=N`) cut those misses but make every panel
// walk all the rows again, and did not pay. The near/far split (`far_panels`) keeps the near
// entries in one CSR pass and runs only the far ones in column panels, as row-sorted COO:
// 0.86 instead of 1.00 ms there (docs/results.md).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "formats/common/csr_kernels.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

template <class V>
std::vector<Csr<V>> csr_column_panels(const Csr<V>& a, int panels) {
  if (panels < 1)
    throw InputError("csr column panels: panels must be >= 1, got " + std::to_string(panels));
  std::vector<Csr<V>> out(static_cast<std::size_t>(panels));
  // Columns per panel (at least 1, so that a matrix without columns still divides).
  const std::int64_t width =
      std::max<std::int64_t>((std::int64_t{a.cols} + panels - 1) / panels, 1);
  auto panel_of = [width](index_t c) { return static_cast<int>(c / width); };
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

namespace {

// Row r's near columns: [lo, hi] around its diagonal column r * cols / rows.
template <class V>
std::pair<std::int64_t, std::int64_t> near_range(const Csr<V>& a, index_t band, index_t r) {
  const std::int64_t diagonal = std::int64_t{r} * a.cols / std::max<index_t>(a.rows, 1);
  return {diagonal - band, diagonal + band};
}

}  // namespace

template <class V>
std::int64_t csr_count_far(const Csr<V>& a, index_t band) {
  std::int64_t far = 0;
#pragma omp parallel for schedule(static) reduction(+ : far)
  for (index_t r = 0; r < a.rows; ++r) {
    const auto [lo, hi] = near_range(a, band, r);
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      far += a.col_idx[k] < lo || a.col_idx[k] > hi;
  }
  return far;
}

FarSplitChoice csr_far_split_choice(index_t cols, std::int64_t nnz, std::size_t value_bytes,
                                    const Params& p, const std::string& who, double l2_bytes,
                                    const std::function<std::int64_t(index_t band)>& count_far) {
  FarSplitChoice c;
  const long long band =
      p.get_int("near_band", static_cast<long long>((std::size_t{8} << 20) / value_bytes));
  if (band < 0 || band > std::numeric_limits<index_t>::max())
    throw InputError(who + ": near_band must be in 0..2^31-1, got " +
                     p.get_string("near_band", ""));
  c.band = static_cast<index_t>(band);
  if (p.get_string("far_panels", "auto") != "auto") {
    c.automatic = false;
    const long long n = p.get_int("far_panels", 0);
    if (n < 0 || n > 64)
      throw InputError(who + ": far_panels must be auto or an integer in 0..64, got " +
                       p.get_string("far_panels", ""));
    c.panels = static_cast<int>(n);
    return c;
  }
  const double x_bytes = static_cast<double>(cols) * static_cast<double>(value_bytes);
  const double half_l2 = l2_bytes / 2.0;
  if (half_l2 <= 0 || x_bytes <= half_l2) return c;
  if (count_far(c.band) * 20 < nnz) return c;
  c.panels = static_cast<int>(std::min(64.0, std::ceil(x_bytes / half_l2)));
  return c;
}

template <class V>
FarSplitChoice csr_far_split_choice(const Csr<V>& a, const Params& p, const std::string& who,
                                    double l2_bytes) {
  return csr_far_split_choice(a.cols, a.nnz(), sizeof(V), p, who, l2_bytes,
                              [&a](index_t band) { return csr_count_far(a, band); });
}

template FarSplitChoice csr_far_split_choice(const Csr<float>&, const Params&, const std::string&,
                                             double);
template FarSplitChoice csr_far_split_choice(const Csr<double>&, const Params&, const std::string&,
                                             double);
template std::int64_t csr_count_far(const Csr<float>&, index_t);
template std::int64_t csr_count_far(const Csr<double>&, index_t);
template std::vector<Csr<float>> csr_column_panels(const Csr<float>&, int);
template std::vector<Csr<double>> csr_column_panels(const Csr<double>&, int);

}  // namespace spmvkit
