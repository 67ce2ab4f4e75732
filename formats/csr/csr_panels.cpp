// Column panels for the balanced CSR kernel (cache blocking of x).
//
// The idea: when x is larger than the L2 and many entries sit far from the diagonal, each far
// entry's x gather may miss L2. Cutting the columns into P panels whose x slice fits in L2 and
// running the panels one after the other (z += A_p x_p) would turn those misses into hits, at
// the price of reading the row pointers and reading + writing z once more per extra panel.
// Measured on an H100 it did not pay on our power-law matrix (x misses are not what bounds it
// there), so csr_balanced keeps one panel unless asked (`panels=N`).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "formats/csr/csr.hpp"
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

template <class V>
NearFarSplit<V> csr_split_near_far(const Csr<V>& a, index_t band, int panels) {
  if (panels < 1)
    throw InputError("csr near/far split: panels must be >= 1, got " + std::to_string(panels));
  if (band < 0)
    throw InputError("csr near/far split: band must be >= 0, got " + std::to_string(band));
  NearFarSplit<V> s;
  s.near.rows = a.rows;
  s.near.cols = a.cols;
  s.near.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  s.near.col_idx.reserve(a.col_idx.size());
  s.near.values.reserve(a.values.size());
  const std::int64_t width =
      std::max<std::int64_t>((std::int64_t{a.cols} + panels - 1) / panels, 1);
  auto is_near = [&](index_t r, index_t c) {
    const std::int64_t diagonal = a.rows > 0 ? std::int64_t{r} * a.cols / a.rows : 0;
    return std::abs(std::int64_t{c} - diagonal) <= band;
  };
  // Far entries counted per panel, then placed panel by panel in row order (columns sorted).
  std::vector<std::int64_t> count(static_cast<std::size_t>(panels) + 1, 0);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t c = a.col_idx[k];
      if (is_near(r, c)) {
        s.near.col_idx.push_back(c);
        s.near.values.push_back(a.values[k]);
      } else {
        ++count[static_cast<std::size_t>(c / width) + 1];
      }
    }
    s.near.row_ptr[r + 1] = static_cast<index_t>(s.near.col_idx.size());
  }
  for (int p = 0; p < panels; ++p) count[p + 1] += count[p];
  s.far_ptr.assign(count.begin(), count.end());
  const std::size_t far = static_cast<std::size_t>(count[panels]);
  s.far_row.resize(far);
  s.far_col.resize(far);
  s.far_val.resize(far);
  std::vector<std::int64_t> next(count.begin(), count.end() - 1);
  std::vector<index_t> last_row(static_cast<std::size_t>(panels), -1);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t c = a.col_idx[k];
      if (is_near(r, c)) continue;
      const auto p = static_cast<std::size_t>(c / width);
      const auto at = static_cast<std::size_t>(next[p]++);
      s.far_row[at] = r;
      s.far_col[at] = c;
      s.far_val[at] = a.values[k];
      if (last_row[p] != r) {
        last_row[p] = r;
        ++s.far_row_segments;
      }
    }
  }
  return s;
}

template NearFarSplit<float> csr_split_near_far(const Csr<float>&, index_t, int);
template NearFarSplit<double> csr_split_near_far(const Csr<double>&, index_t, int);
template std::vector<Csr<float>> csr_column_panels(const Csr<float>&, int);
template std::vector<Csr<double>> csr_column_panels(const Csr<double>&, int);

}  // namespace spmvkit
