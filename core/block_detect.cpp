#include <numeric>
#include <vector>

#include "spmvkit/stats.hpp"

namespace spmvkit {

namespace {
// True when every aligned bs x bs block holding an entry is full.
bool dense_blocks(index_t rows, index_t cols, const index_t* row_ptr, const index_t* col_idx,
                  index_t bs) {
  const index_t block_cols = cols / bs;
  std::vector<index_t> seen(static_cast<std::size_t>(block_cols), -1);
  std::int64_t blocks = 0;
  for (index_t br = 0; br < rows / bs; ++br)
    for (index_t r = br * bs; r < (br + 1) * bs; ++r)
      for (index_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
        const index_t bc = col_idx[k] / bs;
        if (seen[bc] != br) {
          seen[bc] = br;
          ++blocks;
        }
      }
  return blocks * bs * bs == std::int64_t{row_ptr[rows]} - row_ptr[0];
}
}  // namespace

int detect_block_size(index_t rows, index_t cols, const index_t* row_ptr,
                      const index_t* col_idx) {
  if (rows <= 0 || row_ptr[rows] == row_ptr[0]) return 1;
  // A dense-block matrix has every row length, rows and cols divisible by bs: only divisors
  // of their gcd are candidates.
  index_t g = std::gcd(rows, cols);
  for (index_t r = 0; r < rows && g > 1; ++r) g = std::gcd(g, row_ptr[r + 1] - row_ptr[r]);
  for (index_t bs = std::min<index_t>(g, 64); bs >= 2; --bs)
    if (g % bs == 0 && dense_blocks(rows, cols, row_ptr, col_idx, bs)) return static_cast<int>(bs);
  return 1;
}

template <class V>
int detect_block_size(const Csr<V>& a) {
  return detect_block_size(a.rows, a.cols, a.row_ptr.data(), a.col_idx.data());
}

template int detect_block_size(const Csr<float>&);
template int detect_block_size(const Csr<double>&);

}  // namespace spmvkit
