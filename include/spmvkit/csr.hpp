// Host-side sparse matrices: Coo (what files and generators produce) and Csr (the canonical
// input every format is built from: sorted columns, no duplicates, validated).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spmvkit {

// 32-bit row/column indices and row offsets. A matrix with nnz >= 2^31 is refused with an
// InputError at the boundary (to_csr, the Matrix Market reader, the generators).
using index_t = std::int32_t;

template <class V, class I = index_t>
struct Coo {
  I rows = 0;
  I cols = 0;
  std::vector<I> row_idx;
  std::vector<I> col_idx;
  std::vector<V> values;

  std::size_t entries() const { return values.size(); }
};

template <class V, class I = index_t>
struct Csr {
  I rows = 0;
  I cols = 0;
  std::vector<I> row_ptr{0};  // rows + 1 entries, row_ptr[0] == 0
  std::vector<I> col_idx;     // sorted within each row, no duplicates
  std::vector<V> values;

  I nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
  I row_length(I r) const { return row_ptr[r + 1] - row_ptr[r]; }

  // The same matrix with values converted to W.
  template <class W>
  Csr<W, I> cast() const {
    Csr<W, I> out;
    out.rows = rows;
    out.cols = cols;
    out.row_ptr = row_ptr;
    out.col_idx = col_idx;
    out.values.assign(values.begin(), values.end());
    return out;
  }

  // Throws InputError naming `what` and the first problem: sizes, a non-monotone row
  // pointer, a column index out of range or unsorted/duplicated, a non-finite value.
  void validate(const std::string& what = "matrix") const;
};

// Sorts entries by (row, column) and sums duplicates. Validates sizes and index ranges and
// rejects non-finite values (InputError naming `what`). Entries whose sum is zero are kept
// (explicit zeros are part of the structure).
template <class V, class I = index_t>
Csr<V, I> to_csr(const Coo<V, I>& coo, const std::string& what = "matrix");

// The transpose (used for symmetry checks and by tests).
template <class V, class I = index_t>
Csr<V, I> transpose(const Csr<V, I>& a);

// Builds CSR from raw arrays that are already sorted and free of duplicates, validating them.
template <class V, class I = index_t>
Csr<V, I> make_csr(I rows, I cols, std::vector<I> row_ptr, std::vector<I> col_idx,
                   std::vector<V> values, const std::string& what = "matrix");

}  // namespace spmvkit
