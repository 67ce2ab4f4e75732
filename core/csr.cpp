#include "spmvkit/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/fail.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

using detail::fail;

template <class V, class I>
void Csr<V, I>::validate(const std::string& what) const {
  if (rows < 0 || cols < 0) fail(what, "negative size ", rows, " x ", cols);
  if (row_ptr.size() != static_cast<std::size_t>(rows) + 1)
    fail(what, "row pointer has ", row_ptr.size(), " entries, expected ", rows + 1);
  if (row_ptr[0] != 0) fail(what, "row pointer starts at ", row_ptr[0], ", expected 0");
  for (I r = 0; r < rows; ++r)
    if (row_ptr[r + 1] < row_ptr[r]) fail(what, "row pointer decreases at row ", r);
  const auto n = static_cast<std::size_t>(row_ptr.back());
  if (col_idx.size() != n || values.size() != n)
    fail(what, "row pointer ends at ", n, " but there are ", col_idx.size(), " column indices and ",
         values.size(), " values");
  for (I r = 0; r < rows; ++r) {
    for (I k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      const I c = col_idx[k];
      if (c < 0 || c >= cols)
        fail(what, "column index ", c, " out of range [0, ", cols, ") in row ", r);
      if (k > row_ptr[r] && c <= col_idx[k - 1])
        fail(what, "columns not sorted or duplicated in row ", r, " (", col_idx[k - 1], " then ",
             c, ")");
      if (!std::isfinite(static_cast<double>(values[k])))
        fail(what, "non-finite value at (", r, ", ", c, ")");
    }
  }
}

template <class V, class I>
Csr<V, I> to_csr(const Coo<V, I>& coo, const std::string& what) {
  if (coo.rows < 0 || coo.cols < 0) fail(what, "negative size ", coo.rows, " x ", coo.cols);
  const std::size_t n = coo.values.size();
  if (coo.row_idx.size() != n || coo.col_idx.size() != n)
    fail(what, "COO arrays differ in length (", coo.row_idx.size(), " rows, ", coo.col_idx.size(),
         " columns, ", n, " values)");
  if (n > static_cast<std::size_t>(std::numeric_limits<I>::max()))
    fail(what, n, " entries exceed the 32-bit index range (2^31 - 1); split the matrix");
  for (std::size_t k = 0; k < n; ++k) {
    const I r = coo.row_idx[k], c = coo.col_idx[k];
    if (r < 0 || r >= coo.rows)
      fail(what, "row index ", r, " out of range [0, ", coo.rows, ") in entry ", k);
    if (c < 0 || c >= coo.cols)
      fail(what, "column index ", c, " out of range [0, ", coo.cols, ") in entry ", k);
    if (!std::isfinite(static_cast<double>(coo.values[k])))
      fail(what, "non-finite value at (", r, ", ", c, ")");
  }
  // Counting sort by row, then sort each row by column and merge duplicates.
  std::vector<I> count(static_cast<std::size_t>(coo.rows) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) ++count[coo.row_idx[k] + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<std::pair<I, V>> entries(n);
  {
    std::vector<I> next(count.begin(), count.end() - 1);
    for (std::size_t k = 0; k < n; ++k)
      entries[next[coo.row_idx[k]]++] = {coo.col_idx[k], coo.values[k]};
  }
  Csr<V, I> out;
  out.rows = coo.rows;
  out.cols = coo.cols;
  out.row_ptr.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  out.col_idx.reserve(n);
  out.values.reserve(n);
  for (I r = 0; r < coo.rows; ++r) {
    auto first = entries.begin() + count[r], last = entries.begin() + count[r + 1];
    std::stable_sort(first, last, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = first; it != last; ++it) {
      if (static_cast<I>(out.col_idx.size()) > out.row_ptr[r] && out.col_idx.back() == it->first)
        out.values.back() += it->second;
      else {
        out.col_idx.push_back(it->first);
        out.values.push_back(it->second);
      }
    }
    out.row_ptr[r + 1] = static_cast<I>(out.col_idx.size());
  }
  return out;
}

template <class V, class I>
Csr<V, I> transpose(const Csr<V, I>& a) {
  Csr<V, I> t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_ptr.assign(static_cast<std::size_t>(a.cols) + 1, 0);
  for (I k = 0; k < a.nnz(); ++k) ++t.row_ptr[a.col_idx[k] + 1];
  std::partial_sum(t.row_ptr.begin(), t.row_ptr.end(), t.row_ptr.begin());
  t.col_idx.resize(a.nnz());
  t.values.resize(a.nnz());
  std::vector<I> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (I r = 0; r < a.rows; ++r)
    for (I k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const I dst = next[a.col_idx[k]]++;
      t.col_idx[dst] = r;
      t.values[dst] = a.values[k];
    }
  return t;
}

template <class V, class I>
Csr<V, I> make_csr(I rows, I cols, std::vector<I> row_ptr, std::vector<I> col_idx,
                   std::vector<V> values, const std::string& what) {
  Csr<V, I> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = std::move(row_ptr);
  a.col_idx = std::move(col_idx);
  a.values = std::move(values);
  if (a.row_ptr.empty()) fail(what, "empty row pointer");
  a.validate(what);
  return a;
}

#define SPMVKIT_INSTANTIATE(V)                                                                 \
  template struct Csr<V, index_t>;                                                            \
  template Csr<V, index_t> to_csr(const Coo<V, index_t>&, const std::string&);                \
  template Csr<V, index_t> transpose(const Csr<V, index_t>&);                                 \
  template Csr<V, index_t> make_csr(index_t, index_t, std::vector<index_t>,                   \
                                    std::vector<index_t>, std::vector<V>, const std::string&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
