// Matrix statistics (stats.hpp): one parallel O(rows) pass over the row pointer and each
// row's first and last column, an O(rows) variance pass, an O(nnz) symmetry check with O(rows)
// memory, and detect_block_size (block_detect.cpp).
#include "spmvkit/stats.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

namespace spmvkit {

namespace {

// Histogram bucket of a row length: 0 for empty rows, k for lengths in [2^(k-1), 2^k).
inline int length_bucket(index_t len) {
  return len == 0 ? 0 : 32 - __builtin_clz(static_cast<unsigned>(len));
}
constexpr int kBuckets = 33;

// Square, and the pattern equals its transpose. Scattering the transpose row by row (rows in
// increasing order) produces each transposed row already sorted, so instead of storing it we
// compare each scattered entry with the entry of `a` at the same position: O(nnz) time,
// O(rows) memory, and an early exit at the first mismatch.
template <class V>
bool pattern_symmetric(const Csr<V>& a) {
  if (a.rows != a.cols) return false;
  std::vector<index_t> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
  for (index_t r = 0; r < a.rows; ++r)
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t c = a.col_idx[k];
      // Column c holds more entries than row c, or (r, c) has no mirror (c, r).
      if (next[c] == a.row_ptr[c + 1] || a.col_idx[next[c]] != r) return false;
      ++next[c];
    }
  // Every entry found a slot and there are nnz slots: all rows of the transpose are full.
  return true;
}

}  // namespace

template <class V>
MatrixStats compute_stats(const Csr<V>& a) {
  MatrixStats s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nnz = a.nnz();
  s.pattern_symmetric = pattern_symmetric(a);
  s.block_size = detect_block_size(a);
  if (a.rows == 0) return s;

  const index_t* row_ptr = a.row_ptr.data();
  const index_t* col = a.col_idx.data();
  index_t row_min = std::numeric_limits<index_t>::max(), row_max = 0, empty = 0;
  std::int64_t bandwidth = 0, profile = 0;
  std::int64_t hist[kBuckets] = {};
#pragma omp parallel for schedule(static) reduction(min : row_min) \
    reduction(max : row_max, bandwidth) reduction(+ : empty, profile, hist[:kBuckets])
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t len = row_ptr[r + 1] - row_ptr[r];
    row_min = std::min(row_min, len);
    row_max = std::max(row_max, len);
    ++hist[length_bucket(len)];
    if (len == 0) {
      ++empty;
      continue;
    }
    // Columns are sorted: the first and last entries are the extremes of the row.
    const std::int64_t first = col[row_ptr[r]], last = col[row_ptr[r + 1] - 1];
    bandwidth = std::max({bandwidth, std::int64_t{r} - first, last - r});
    profile += std::max<std::int64_t>(0, r - first);
  }
  s.row_min = row_min;
  s.row_max = row_max;
  s.empty_rows = empty;
  s.bandwidth = static_cast<index_t>(bandwidth);
  s.profile = profile;
  s.row_mean = static_cast<double>(s.nnz) / a.rows;

  // Population variance, second pass about the mean (no cancellation of large sums).
  const double mean = s.row_mean;
  double squares = 0;
#pragma omp parallel for schedule(static) reduction(+ : squares)
  for (index_t r = 0; r < a.rows; ++r) {
    const double d = (row_ptr[r + 1] - row_ptr[r]) - mean;
    squares += d * d;
  }
  s.row_variance = squares / a.rows;

  s.row_histogram.assign(hist, hist + length_bucket(row_max) + 1);
  return s;
}

template <class V>
index_t longest_row(const Csr<V>& a) {
  index_t m = 0;
  const index_t* p = a.row_ptr.data();
#pragma omp parallel for reduction(max : m) schedule(static) if (a.rows > (index_t{1} << 16))
  for (index_t r = 0; r < a.rows; ++r) m = std::max(m, p[r + 1] - p[r]);
  return m;
}

template index_t longest_row(const Csr<float>&);
template index_t longest_row(const Csr<double>&);
template MatrixStats compute_stats(const Csr<float>&);
template MatrixStats compute_stats(const Csr<double>&);

}  // namespace spmvkit
