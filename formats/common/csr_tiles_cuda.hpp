// The balanced CSR tiling (csr_tiles.hpp's balanced_tiling) made on the device from a row
// pointer already there (csr_tiles_cuda.cu), so that the row pointer never goes to the host: the
// same tiles, long rows and partial-sum slots as the host tiling, bit for bit.
#pragma once

#include "backend/cuda/cuda.hpp"
#include "formats/common/csr_tiles.hpp"
#include "spmvkit/csr.hpp"

namespace spmvkit {

// A tiling in device memory: BalancedTiling's arrays.
struct DeviceBalancedTiling {
  cuda::DeviceBuffer<BalancedTile> tiles;
  cuda::DeviceBuffer<BalancedLongRow> long_rows;
  index_t partials = 0;
};

// The starts of the greedy tiling of rows [row_begin, row_end) (balanced_tiling's: a row longer
// than tile_nnz alone, else whole rows up to balanced_tile_end), in order: rows[0, count). Also
// the tma tiles of BSR (tiles of at most tile_nnz blocks and max_rows kernel rows, no row longer).
// `rows` has row_end - row_begin + 1 entries: the starts, then row_end at rows[count].
struct DeviceTileStarts {
  cuda::DeviceBuffer<index_t> rows;
  index_t count = 0;
};
DeviceTileStarts greedy_tile_starts_device(const index_t* row_ptr, index_t row_begin,
                                           index_t row_end, index_t tile_nnz, index_t max_rows,
                                           const index_t* cuts = nullptr, index_t n_cuts = 0);

// balanced_tiling(row_ptr, row_begin, row_end, policy, cuts) with `row_ptr` (the rows up to
// row_end + 1) and the n_cuts sorted `cuts` in device memory. Queued on the context stream; it
// waits for two small downloads (the number of tile starts, then the totals) on the way. Where
// the host holds the row pointer (host_mirror.hpp) the tiling is made there, without a wait:
// with cuts only when `host_cuts` (the same n_cuts values on the host) is given.
DeviceBalancedTiling balanced_tiling_device(const index_t* row_ptr, index_t row_begin,
                                            index_t row_end, const BalancedPolicy& policy,
                                            const index_t* cuts = nullptr, index_t n_cuts = 0,
                                            const index_t* host_cuts = nullptr);

// A device tiling on the host (for the tests that compare it with balanced_tiling).
BalancedTiling download_tiling(const DeviceBalancedTiling& t);

}  // namespace spmvkit
