// The block matrices of the BSR tests (bsr_test.cpp, bsr_kernels_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>

#include "spmvkit/csr.hpp"

namespace spmvkit::bsr_testing {

// A block matrix for block size bs, made here by expanding a random block pattern:
// - a rectangular grid of block_rows x (block_rows + 3) blocks, block_rows = max(4, 192 / bs);
// - every 5th block row empty; block row 1 holds every block column (a long row, which
//   balanced BSR splits); the others 1..4 random distinct block columns;
// - `full`: dense blocks, rows and cols exact multiples of bs. Otherwise about a third of each
//   block's entries are dropped (the first always kept) and rows / cols are cut to
//   non-multiples of bs, so the last block row and column are padded.
inline Csr<double> block_matrix(int bs, bool full, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const index_t block_rows = std::max(4, 192 / bs);
  const index_t block_cols = block_rows + 3;
  const index_t cut_rows = full || bs == 1 ? 0 : 1 + static_cast<index_t>(rng() % (bs - 1));
  const index_t cut_cols = full || bs == 1 ? 0 : 1 + static_cast<index_t>(rng() % (bs - 1));
  Coo<double> coo;
  coo.rows = block_rows * bs - cut_rows;
  coo.cols = block_cols * bs - cut_cols;
  for (index_t br = 0; br < block_rows; ++br) {
    std::set<index_t> cols;
    if (br == 1) {
      for (index_t bc = 0; bc < block_cols; ++bc) cols.insert(bc);
    } else if (br % 5 != 0) {
      const int n = 1 + static_cast<int>(rng() % 4);
      while (static_cast<int>(cols.size()) < n)
        cols.insert(static_cast<index_t>(rng() % block_cols));
    }
    for (index_t bc : cols)
      for (int i = 0; i < bs; ++i)
        for (int j = 0; j < bs; ++j) {
          const index_t r = br * bs + i, c = bc * bs + j;
          if (r >= coo.rows || c >= coo.cols) continue;
          if (!full && (i + j) > 0 && rng() % 3 == 0) continue;
          coo.row_idx.push_back(r);
          coo.col_idx.push_back(c);
          coo.values.push_back(value(rng));
        }
  }
  return to_csr(coo, "bsr test matrix");
}

}  // namespace spmvkit::bsr_testing
