// Block sparse row storage and the CSR -> BSR conversion: BSR's data (formats/bsr) and what the
// cuSPARSE BSR peers upload.
#pragma once

#include <cstdint>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

// Largest block size a BSR may have (K3 handles any; the CPU keeps one block row in a buffer).
inline constexpr int kBsrMaxBlockSize = 1024;

// Element order inside a block. Every kernel here uses column-major: on the GPU consecutive
// threads then take consecutive rows of a block column (coalesced loads, and a thread keeps its
// rows in every block); on the CPU a block column times one x value is a SIMD axpy. Row-major is
// kept for conversion and the CPU kernel (other libraries' BSR, e.g. cuSPARSE's default).
enum class BlockLayout { row_major, column_major };

template <class V>
struct Bsr {
  index_t rows = 0;  // of the original matrix
  index_t cols = 0;
  int block_size = 1;
  BlockLayout layout = BlockLayout::column_major;
  // ceil(rows / bs) and ceil(cols / bs): when rows or cols is not a multiple of bs the last
  // block row / column is padded with explicit zeros (its rows are never written, its x
  // entries never read).
  index_t block_rows = 0;
  index_t block_cols = 0;
  std::vector<index_t> block_row_ptr{0};  // block_rows + 1
  std::vector<index_t> block_col_idx;     // nnzb, sorted within each block row
  std::vector<V> values;                  // nnzb * bs * bs, block after block, in `layout`
  std::int64_t nnz = 0;                   // entries of the original matrix

  index_t nnzb() const { return block_row_ptr.back(); }
  // Stored values over original entries (1 for a true block matrix; explicit zeros fill the rest).
  double fill_ratio() const {
    return nnz == 0 ? 1.0 : static_cast<double>(values.size()) / static_cast<double>(nnz);
  }
};

// CSR to BSR with bs x bs blocks: a block exists where any of its entries does, missing entries
// of a block are explicit zeros. InputError for bs outside 1..kBsrMaxBlockSize;
// UnsupportedError when the blocks would store more than 64 x nnz + 2^20 values (the matrix has
// no such block structure) or overflow 32-bit indices.
template <class V>
Bsr<V> csr_to_bsr(const Csr<V>& a, int block_size, BlockLayout layout = BlockLayout::column_major);

// csr_to_bsr's checks, shared with the device conversion (bsr_blocks_cuda.hpp): the block
// size and the padded shape (before any work), the fill once the blocks are counted.
void bsr_check_shape(index_t rows, index_t cols, int block_size);
void bsr_check_fill(std::int64_t nnzb, int block_size, std::int64_t nnz);

}  // namespace spmvkit
