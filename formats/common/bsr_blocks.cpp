// CSR -> BSR conversion (bsr_blocks.hpp).
#include "formats/common/bsr_blocks.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

// The distinct block columns of block row `br`, sorted, into `out`.
template <class V>
void gather_block_cols(const Csr<V>& a, index_t br, int bs, std::vector<index_t>& out) {
  out.clear();
  const index_t r0 = br * bs;
  const index_t r1 = std::min<std::int64_t>(static_cast<std::int64_t>(r0) + bs, a.rows);
  for (index_t r = r0; r < r1; ++r) {
    index_t last = -1;  // a row's columns are sorted: its block columns come in runs
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t bc = a.col_idx[k] / bs;
      if (bc != last) out.push_back(last = bc);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace

void bsr_check_shape(index_t rows, index_t cols, int block_size) {
  if (block_size < 1 || block_size > kBsrMaxBlockSize)
    throw InputError("bsr: block_size must be in 1.." + std::to_string(kBsrMaxBlockSize) +
                     ", got " + std::to_string(block_size));
  const int bs = block_size;
  const std::int64_t block_rows = (static_cast<std::int64_t>(rows) + bs - 1) / bs;
  const std::int64_t block_cols = (static_cast<std::int64_t>(cols) + bs - 1) / bs;
  constexpr std::int64_t index_max = std::numeric_limits<index_t>::max();
  if (block_rows * bs > index_max || block_cols * bs > index_max)
    throw UnsupportedError("bsr: padding " + std::to_string(rows) + "x" + std::to_string(cols) +
                           " to a multiple of bs=" + std::to_string(bs) +
                           " overflows 32-bit indices");
}

void bsr_check_fill(std::int64_t nnzb, int bs, std::int64_t nnz) {
  const std::int64_t stored = nnzb * bs * bs;
  const std::int64_t limit = 64 * nnz + (std::int64_t{1} << 20);
  if (stored > limit)
    throw UnsupportedError("bsr: bs=" + std::to_string(bs) + " blocks would store " +
                           std::to_string(stored) + " values for " + std::to_string(nnz) +
                           " entries (fill over 64x): the matrix has no such block structure");
}

template <class V>
Bsr<V> csr_to_bsr(const Csr<V>& a, int block_size, BlockLayout layout) {
  bsr_check_shape(a.rows, a.cols, block_size);
  const int bs = block_size;
  const std::int64_t block_rows = (static_cast<std::int64_t>(a.rows) + bs - 1) / bs;
  const std::int64_t block_cols = (static_cast<std::int64_t>(a.cols) + bs - 1) / bs;
  Bsr<V> m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.block_size = bs;
  m.layout = layout;
  m.block_rows = static_cast<index_t>(block_rows);
  m.block_cols = static_cast<index_t>(block_cols);
  m.nnz = a.nnz();
  m.block_row_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);

  // Pass 1: distinct block columns per block row.
#pragma omp parallel
  {
    std::vector<index_t> cols;
#pragma omp for schedule(dynamic, 256)
    for (index_t br = 0; br < m.block_rows; ++br) {
      gather_block_cols(a, br, bs, cols);
      m.block_row_ptr[br + 1] = static_cast<index_t>(cols.size());
    }
  }
  for (index_t br = 0; br < m.block_rows; ++br) m.block_row_ptr[br + 1] += m.block_row_ptr[br];
  const std::int64_t nnzb = m.block_row_ptr.back();  // <= nnz, fits index_t
  bsr_check_fill(nnzb, bs, a.nnz());
  const std::int64_t stored = nnzb * bs * bs;
  m.block_col_idx.resize(static_cast<std::size_t>(nnzb));
  m.values.assign(static_cast<std::size_t>(stored), V(0));

  // Pass 2: column indices and values (missing entries stay explicit zeros).
  const std::size_t bs2 = static_cast<std::size_t>(bs) * bs;
#pragma omp parallel
  {
    std::vector<index_t> cols;
#pragma omp for schedule(dynamic, 256)
    for (index_t br = 0; br < m.block_rows; ++br) {
      gather_block_cols(a, br, bs, cols);
      const index_t first = m.block_row_ptr[br];
      std::copy(cols.begin(), cols.end(), m.block_col_idx.begin() + first);
      const index_t r0 = br * bs;
      const index_t r1 = std::min<std::int64_t>(static_cast<std::int64_t>(r0) + bs, a.rows);
      for (index_t r = r0; r < r1; ++r) {
        std::size_t pos = 0;  // block columns of a row only grow: walk `cols` once
        for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
          const index_t c = a.col_idx[k];
          while (cols[pos] != c / bs) ++pos;
          const std::size_t i = static_cast<std::size_t>(r - r0);
          const std::size_t j = static_cast<std::size_t>(c % bs);
          const std::size_t in_block =
              layout == BlockLayout::column_major ? j * bs + i : i * bs + j;
          m.values[(static_cast<std::size_t>(first) + pos) * bs2 + in_block] = a.values[k];
        }
      }
    }
  }
  return m;
}

template Bsr<float> csr_to_bsr(const Csr<float>&, int, BlockLayout);
template Bsr<double> csr_to_bsr(const Csr<double>&, int, BlockLayout);

}  // namespace spmvkit
