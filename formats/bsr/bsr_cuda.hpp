// BSR on the device: the uploaded arrays, the kernels' argument block, and the launch entry
// points shared by the operator (bsr_cuda.cu), the K2 instances (bsr_k2_cuda.cu) and the
// autotuner (bsr_autotune.cu).
#pragma once

#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/bsr/bsr.hpp"
#include "formats/common/bsr_blocks_cuda.hpp"

namespace spmvkit {

// Balanced BSR's segments made on the device: BsrSegments' arrays there (segment_block_ptr with
// slack_bytes of zeroed slack past its segments + 1 entries).
struct DeviceBsrSegments {
  index_t lambda = 0;
  index_t segments = 0;
  index_t n_split = 0;
  index_t max_split = 0;
  index_t partial_slots = 0;
  cuda::DeviceBuffer<index_t> segment_block_ptr;
  cuda::DeviceBuffer<index_t> segment_out;
  cuda::DeviceBuffer<index_t> split_rows;
  cuda::DeviceBuffer<index_t> segment_ptr;
  // segment_block_ptr's segments + 1 entries on the host, where they were made there (a block
  // row pointer the host holds): the tma tile walk reads them (host_mirror.hpp).
  std::vector<index_t> host_block_ptr;
};

// make_bsr_segments and bsr_row_stats from a block row pointer on the device
// (bsr_segments_cuda.cu): the same arrays and numbers.
DeviceBsrSegments make_bsr_segments_device(const index_t* block_row_ptr, index_t block_rows,
                                           index_t lambda, std::size_t slack_bytes);
BsrRowStats bsr_row_stats_device(const index_t* block_row_ptr, index_t block_rows);

}  // namespace spmvkit

namespace spmvkit::bsr {

// What every kernel reads. The kernels' "rows" are block rows, or the segments of balanced BSR.
template <class V>
struct KernelArgs {
  index_t nrows;           // kernel rows: block rows, or segments
  index_t rows;            // rows of the matrix: the last block row may be padded
  index_t cols;            // cols of the matrix: x has cols entries, the last block column
                           // may be padded
  int bs;                  // block size
  const index_t* row_ptr;  // nrows + 1 block offsets
  const index_t* col_idx;  // nnzb block columns
  const V* values;         // nnzb column-major bs x bs blocks
  const index_t* row_out;  // balanced: a segment's block row, or -(slot + 1); null otherwise
  V* partials;             // balanced: bs partial sums per slot (y_hat)
};

template <class V>
struct DeviceBsr {
  index_t rows = 0;
  index_t cols = 0;
  index_t nrows = 0;
  int bs = 1;
  cuda::DeviceBuffer<index_t> row_ptr;  // block-row pointer, or segment block pointer
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<V> values;
  cuda::DeviceBuffer<index_t> row_out;      // balanced only
  cuda::DeviceBuffer<index_t> split_rows;   // balanced only
  cuda::DeviceBuffer<index_t> segment_ptr;  // balanced only
  cuda::DeviceBuffer<V> partials;           // scratch written by every apply
  index_t n_split = 0;
  index_t max_split = 0;
  // tma kernel (bs <= kBsrTmaMaxBlockSize): tile boundaries over the kernel rows (empty when
  // a row does not fit a tile) and lanes per output row. row_ptr, col_idx and values are
  // allocated with 16 bytes of slack so that the tiles' 16-byte-aligned bulk copies stay
  // inside the allocations.
  cuda::DeviceBuffer<index_t> tma_tiles;
  index_t tma_n_tiles = 0;
  index_t tma_tile_blocks = 0;   // the capacity the tiles were cut for (0: none)
  double tma_rows_per_tile = 1;  // output rows (kernel rows x bs) per tile, on average
  bool tma_rotated = false;      // values in tma whole=1's rotated chunk order (bsr.hpp)

  KernelArgs<V> args() const {
    return KernelArgs<V>{nrows,
                         rows,
                         cols,
                         bs,
                         row_ptr.data(),
                         col_idx.data(),
                         values.data(),
                         row_out.size() ? row_out.data() : nullptr,
                         const_cast<V*>(partials.data())};
  }
};

// Uploads a column-major BSR, and its segments when balanced.
// With tma_tile_blocks > 0, also the tma kernel's tiles (set_tma_tiles); with tma_rotated, the
// values in tma whole=1's rotated chunk order (set_tma_rotated).
template <class V>
DeviceBsr<V> upload_bsr(const Bsr<V>& m, const BsrSegments* segments, index_t tma_tile_blocks = 0,
                        bool tma_rotated = false);
// The same from a BSR and its segments made on the device (csr_to_bsr_device and
// make_bsr_segments_device with kSlackBytes of slack): their arrays moved in, the tiles cut
// there, the values rotated in place. With the tma kernel every kernel row fits a tile.
inline constexpr std::size_t kSlackBytes = 16;
template <class V>
DeviceBsr<V> device_bsr(DeviceBsrBlocks<V>&& m, DeviceBsrSegments* segments,
                        index_t tma_tile_blocks = 0, bool tma_rotated = false);
// Uploads m's values again, in tma whole=1's rotated chunk order (bsr_tma_rotation_chunks) or
// plain; nothing when d already has that order or the block size has no rotation.
template <class V>
void set_tma_rotated(DeviceBsr<V>& d, const Bsr<V>& m, bool rotated);
// Cuts d's kernel rows (`kernel_rows`: the host copy of d.row_ptr) into tma tiles of at most
// tile_blocks blocks; none when a row is longer.
template <class V>
void set_tma_tiles(DeviceBsr<V>& d, const std::vector<index_t>& kernel_rows, index_t tile_blocks);

// Queues z = alpha*A*x + beta*y on the context stream (main kernel, then the balanced
// reduction when rows were split).
template <class V>
void launch_bsr(const DeviceBsr<V>& d, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
                V beta);

// The tma kernel (bsr_tma_cuda.cu). UnsupportedError when d has no tiles for p.tile_kb.
template <class V>
void launch_tma(const DeviceBsr<V>& d, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
                V beta, cudaStream_t stream);
// Dynamic shared memory of one tma thread block.
template <class V>
int tma_shared_bytes(int bs, int tile_kb, int stages);

// K2 lives in its own translation unit (it has the most instances).
template <class V>
int k2_max_threads_per_block(const BsrPolicy& p, int bs);
template <class V>
void launch_k2(const KernelArgs<V>& a, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
               V beta, cudaStream_t stream);

}  // namespace spmvkit::bsr
