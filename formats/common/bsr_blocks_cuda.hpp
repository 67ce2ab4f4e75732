// Block detection and the CSR -> BSR conversion on the device, from a CSR already there
// (bsr_blocks_cuda.cu): what detect_block_size and csr_to_bsr (column-major) compute on the
// host, with the same results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/common/bsr_blocks.hpp"
#include "spmvkit/device_csr.hpp"

namespace spmvkit {

// detect_block_size on the device: the largest bs in 2..64 dividing rows, cols and every row
// length such that the matrix is made of full aligned bs x bs blocks; 1 when none. A matrix is
// made of full blocks exactly when every row of a block row has the columns of the block row's
// first row, and those come in aligned runs of bs (checked for every candidate at once: one
// pass over the rows, one over the entries for the candidates left).
template <class V>
int detect_block_size_device(const DeviceCsrView<V>& a);

// A BSR matrix (column-major blocks) made on the device.
template <class V>
struct DeviceBsrBlocks {
  index_t rows = 0;
  index_t cols = 0;
  int block_size = 1;
  index_t block_rows = 0;
  index_t block_cols = 0;
  std::int64_t nnz = 0;                  // entries of the original matrix
  index_t blocks = 0;                    // nnzb (the block row pointer stays on the device)
  cuda::DeviceBuffer<index_t> row_ptr;   // block_rows + 1 (+ slack)
  cuda::DeviceBuffer<index_t> col_idx;   // nnzb (+ slack)
  cuda::DeviceBuffer<V> values;          // nnzb * bs * bs (+ slack)

  index_t nnzb() const { return blocks; }
  double fill_ratio() const {
    return nnz == 0 ? 1.0
                    : static_cast<double>(nnzb()) * block_size * block_size /
                          static_cast<double>(nnz);
  }
};

// csr_to_bsr(a, block_size, column_major) on the device, with its checks and messages, the
// same arrays bit for bit. bs = 1: the CSR is the BSR. A matrix made of full bs x bs blocks
// (bs <= 64; the check of detect_block_size_device, a last block row of fewer rows allowed):
// the block row pointer from the row pointer, each entry scattered straight into its block
// (block j / bs of its block row at position j of its row), no sort. Otherwise the distinct
// block columns of each block row by a segmented sort of its entries' block columns, a scan
// of the run heads for the block row pointers, the values scattered into zeroed blocks. Each
// device array gets `slack_bytes` zeroed bytes past its end (for readers that copy in
// aligned pieces). `full_blocks`: the caller knows a is made of full block_size blocks
// (detect_block_size_device found block_size), so the check is not made again.
template <class V>
DeviceBsrBlocks<V> csr_to_bsr_device(const DeviceCsrView<V>& a, int block_size,
                                     std::size_t slack_bytes, bool full_blocks = false);

}  // namespace spmvkit
