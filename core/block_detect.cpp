#include <numeric>
#include <vector>

#include "spmvkit/stats.hpp"

namespace spmvkit {

namespace {
// True when every aligned bs x bs block holding an entry is full.
template <class V>
bool dense_blocks(const Csr<V>& a, index_t bs) {
  const index_t block_cols = a.cols / bs;
  std::vector<index_t> seen(static_cast<std::size_t>(block_cols), -1);
  std::int64_t blocks = 0;
  for (index_t br = 0; br < a.rows / bs; ++br)
    for (index_t r = br * bs; r < (br + 1) * bs; ++r)
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        const index_t bc = a.col_idx[k] / bs;
        if (seen[bc] != br) {
          seen[bc] = br;
          ++blocks;
        }
      }
  return blocks * bs * bs == a.nnz();
}
}  // namespace

template <class V>
int detect_block_size(const Csr<V>& a) {
  if (a.nnz() == 0) return 1;
  // A dense-block matrix has every row length, rows and cols divisible by bs: only divisors
  // of their gcd are candidates.
  index_t g = std::gcd(a.rows, a.cols);
  for (index_t r = 0; r < a.rows && g > 1; ++r) g = std::gcd(g, a.row_length(r));
  for (index_t bs = std::min<index_t>(g, 64); bs >= 2; --bs)
    if (g % bs == 0 && dense_blocks(a, bs)) return static_cast<int>(bs);
  return 1;
}

template int detect_block_size(const Csr<float>&);
template int detect_block_size(const Csr<double>&);

}  // namespace spmvkit
