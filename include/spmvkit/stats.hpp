// Matrix statistics: the facts the selector, `spmvkit info` and the papers' rules use.
#pragma once

#include <cstdint>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

struct MatrixStats {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  index_t row_min = 0;          // shortest row length
  index_t row_max = 0;          // longest row length
  double row_mean = 0;          // nnz / rows
  double row_variance = 0;      // population variance of row lengths
  index_t empty_rows = 0;
  index_t bandwidth = 0;        // max |i - j| over stored entries
  std::int64_t profile = 0;     // sum over rows of max(0, i - min column in row i), 0 for
                                // empty rows (the lower envelope)
  bool pattern_symmetric = false;  // square and the pattern equals its transpose
  int block_size = 1;           // largest bs in 2..64 such that the matrix is made of dense
                                // aligned bs x bs blocks (1 when none)
  // Row-length histogram: bucket k counts rows with length in [2^(k-1), 2^k), bucket 0 the
  // empty rows (so bucket 1 = length 1, bucket 2 = 2..3, bucket 3 = 4..7, ...).
  std::vector<std::int64_t> row_histogram;
};

template <class V>
MatrixStats compute_stats(const Csr<V>& a);

// The longest row length (0 for no rows): one pass over the row pointer, threaded past 64K
// rows. ELL's width, and format=auto's longest serial walk (a sample of rows misses a few long
// rows among many short ones).
template <class V>
index_t longest_row(const Csr<V>& a);

// The largest bs in 2..64 such that rows and cols are multiples of bs and every aligned
// bs x bs block that holds an entry is full (the matrix is exactly a BSR matrix); 1 if none.
template <class V>
int detect_block_size(const Csr<V>& a);
// The same from the structure alone: row_ptr (rows + 1 entries) and its col_idx.
int detect_block_size(index_t rows, index_t cols, const index_t* row_ptr, const index_t* col_idx);

}  // namespace spmvkit
