// Column panels and the near/far split for the balanced CSR kernel (cache blocking of x).
//
// When x is larger than the L2 and many entries sit far from the diagonal, their x gathers
// miss L2 (on powerlaw_8000000, H100: 2.39 GB read a call against the 1.36 GB of the byte
// model). Column panels of the whole matrix (`panels=N`) cut those misses but make every panel
// walk all the rows again, and did not pay. The near/far split (`far_panels`) keeps the near
// entries in one CSR pass and runs only the far ones in column panels, as row-sorted COO:
// 0.86 instead of 1.00 ms there (docs/results.md).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

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

template <class V>
NearFarSplit<V> csr_split_near_far(const Csr<V>& a, index_t band, int panels) {
  if (panels < 1)
    throw InputError("csr near/far split: panels must be >= 1, got " + std::to_string(panels));
  if (band < 0)
    throw InputError("csr near/far split: band must be >= 0, got " + std::to_string(band));
  const std::int64_t width =
      std::max<std::int64_t>((std::int64_t{a.cols} + panels - 1) / panels, 1);
  // Rows in `chunks` contiguous ranges, each counted then filled by one thread: near entries
  // per row, far entries per (chunk, panel), so that every panel stays in row order.
  const int chunks = std::max(1, std::min(omp_get_max_threads() * 4, static_cast<int>(a.rows)));
  auto chunk_begin = [&](int t) { return static_cast<index_t>(std::int64_t{a.rows} * t / chunks); };
  const auto P = static_cast<std::size_t>(panels);
  std::vector<std::int64_t> far_count(static_cast<std::size_t>(chunks) * P + 1, 0);
  NearFarSplit<V> s;
  s.near.rows = a.rows;
  s.near.cols = a.cols;
  s.near.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
#pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < chunks; ++t) {
    // Counted in a local array: neighbouring chunks' counters share cache lines.
    std::vector<std::int64_t> counts(P, 0);
    for (index_t r = chunk_begin(t); r < chunk_begin(t + 1); ++r) {
      const auto [lo, hi] = near_range(a, band, r);
      index_t near = 0;
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        const index_t c = a.col_idx[k];
        if (c >= lo && c <= hi)
          ++near;
        else
          ++counts[static_cast<std::size_t>(c / width)];
      }
      s.near.row_ptr[r + 1] = near;
    }
    for (std::size_t p = 0; p < P; ++p) far_count[p * chunks + t + 1] = counts[p];  // panel-major
  }
  for (index_t r = 0; r < a.rows; ++r) s.near.row_ptr[r + 1] += s.near.row_ptr[r];
  for (std::size_t i = 1; i < far_count.size(); ++i) far_count[i] += far_count[i - 1];
  s.near.col_idx.resize(static_cast<std::size_t>(s.near.row_ptr[a.rows]));
  s.near.values.resize(s.near.col_idx.size());
  const auto far = static_cast<std::size_t>(far_count.back());
  s.far_row.resize(far);
  s.far_col.resize(far);
  s.far_val.resize(far);
  s.far_ptr.resize(P + 1);
  for (std::size_t p = 0; p <= P; ++p) s.far_ptr[p] = static_cast<index_t>(far_count[p * chunks]);
  std::int64_t segments = 0;
#pragma omp parallel for schedule(static, 1) reduction(+ : segments)
  for (int t = 0; t < chunks; ++t) {
    std::vector<std::int64_t> next(P);
    for (std::size_t p = 0; p < P; ++p) next[p] = far_count[p * chunks + t];
    std::vector<index_t> last_row(P, -1);
    for (index_t r = chunk_begin(t); r < chunk_begin(t + 1); ++r) {
      const auto [lo, hi] = near_range(a, band, r);
      index_t at_near = s.near.row_ptr[r];
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        const index_t c = a.col_idx[k];
        if (c >= lo && c <= hi) {
          s.near.col_idx[at_near] = c;
          s.near.values[at_near++] = a.values[k];
          continue;
        }
        const auto p = static_cast<std::size_t>(c / width);
        const auto at = static_cast<std::size_t>(next[p]++);
        s.far_row[at] = r;
        s.far_col[at] = c;
        s.far_val[at] = a.values[k];
        if (last_row[p] != r) {
          last_row[p] = r;
          ++segments;
        }
      }
    }
  }
  s.far_row_segments = segments;
  return s;
}

template <class V>
FarSplitChoice csr_far_split_choice(const Csr<V>& a, const Params& p, const std::string& who,
                                    double l2_bytes) {
  FarSplitChoice c;
  const long long band =
      p.get_int("near_band", static_cast<long long>((std::size_t{8} << 20) / sizeof(V)));
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
  const double x_bytes = static_cast<double>(a.cols) * sizeof(V);
  const double half_l2 = l2_bytes / 2.0;
  if (half_l2 <= 0 || x_bytes <= half_l2) return c;
  if (csr_count_far(a, c.band) * 20 < a.nnz()) return c;
  c.panels = static_cast<int>(std::min(64.0, std::ceil(x_bytes / half_l2)));
  return c;
}

template FarSplitChoice csr_far_split_choice(const Csr<float>&, const Params&, const std::string&,
                                             double);
template FarSplitChoice csr_far_split_choice(const Csr<double>&, const Params&, const std::string&,
                                             double);
template std::int64_t csr_count_far(const Csr<float>&, index_t);
template std::int64_t csr_count_far(const Csr<double>&, index_t);
template NearFarSplit<float> csr_split_near_far(const Csr<float>&, index_t, int);
template NearFarSplit<double> csr_split_near_far(const Csr<double>&, index_t, int);
template std::vector<Csr<float>> csr_column_panels(const Csr<float>&, int);
template std::vector<Csr<double>> csr_column_panels(const Csr<double>&, int);

}  // namespace spmvkit
