// CUDA BSR setup: the format's arrays onto the device (upload_bsr), the tma kernel's tiles
// (set_tma_tiles) and its rotated value order (set_tma_rotated). The kernels and their launch
// logic are in bsr_cuda.cu, bsr_k2_cuda.cu and bsr_tma_cuda.cu.
#include <type_traits>
#include <vector>

#include "formats/bsr/bsr_cuda.hpp"
#include "formats/common/csr_tiles_cuda.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::bsr {

template <class V>
void set_tma_tiles(DeviceBsr<V>& d, const std::vector<index_t>& kernel_rows, index_t tile_blocks) {
  d.tma_tiles = cuda::DeviceBuffer<index_t>();
  d.tma_n_tiles = 0;
  d.tma_tile_blocks = 0;
  if (d.bs > kBsrTmaMaxBlockSize) return;
  const std::vector<index_t> tiles =
      bsr_tma_tiles(kernel_rows, tile_blocks, bsr_tma_tile_rows(tile_blocks));
  if (tiles.size() < 2) return;
  d.tma_tiles = cuda::DeviceBuffer<index_t>(tiles);
  d.tma_n_tiles = static_cast<index_t>(tiles.size()) - 1;
  d.tma_tile_blocks = tile_blocks;
  d.tma_rows_per_tile = static_cast<double>(d.nrows) * d.bs / d.tma_n_tiles;
}

namespace {

// set_tma_tiles from d's kernel rows on the device (greedy_tile_starts_device: the same tiles),
// when every kernel row fits a tile (build_bsr_device's choices make sure of it with the tma
// kernel: longer block rows become segments of at most that many blocks). Bytes: about 13 a
// kernel row a doubling round (csr_tiles_cuda.cu), against a walk of the row pointer on the
// host after its download.
template <class V>
void set_tma_tiles_device(DeviceBsr<V>& d, index_t tile_blocks) {
  if (d.bs > kBsrTmaMaxBlockSize || d.nrows == 0) return;
  DeviceTileStarts starts = greedy_tile_starts_device(d.row_ptr.data(), 0, d.nrows, tile_blocks,
                                                      bsr_tma_tile_rows(tile_blocks));
  d.tma_tiles = std::move(starts.rows);  // the starts, then the end
  d.tma_n_tiles = starts.count;
  d.tma_tile_blocks = tile_blocks;
  d.tma_rows_per_tile = static_cast<double>(d.nrows) * d.bs / d.tma_n_tiles;
}

// m's values into d.values (already sized), plain or, when `rotated` and bs has a rotation, in
// tma whole=1's rotated chunk order.
template <class V>
void upload_values(DeviceBsr<V>& d, const Bsr<V>& m, bool rotated) {
  d.tma_rotated = rotated && bsr_tma_rotation_chunks(m.block_size, static_cast<int>(sizeof(V))) > 1;
  if (d.tma_rotated) {
    const std::vector<V> rot = bsr_tma_rotated_values(m);
    d.values.upload(rot.data(), rot.size());
  } else {
    d.values.upload(m.values.data(), m.values.size());
  }
}

}  // namespace

template <class V>
void set_tma_rotated(DeviceBsr<V>& d, const Bsr<V>& m, bool rotated) {
  if (d.tma_rotated == rotated ||
      bsr_tma_rotation_chunks(m.block_size, static_cast<int>(sizeof(V))) == 1)
    return;
  upload_values(d, m, rotated);
}

template <class V>
DeviceBsr<V> upload_bsr(const Bsr<V>& m, const BsrSegments* segments, index_t tma_tile_blocks,
                        bool tma_rotated) {
  if (m.layout != BlockLayout::column_major)
    throw UnsupportedError("bsr: the CUDA kernels read column-major blocks");
  DeviceBsr<V> d;
  d.rows = m.rows;
  d.cols = m.cols;
  d.bs = m.block_size;
  // 16 bytes of slack after each array the tma kernel copies in 16-byte-aligned pieces, zeroed:
  // the copies read it (compute-sanitizer's initcheck flagged it when it was left unwritten).
  const auto with_slack = [](auto& buffer, std::size_t n) {
    const std::size_t slack = 16 / sizeof(*buffer.data());
    buffer = std::decay_t<decltype(buffer)>(n + slack);
    cuda::fill_bytes(buffer.data() + n, 0, slack * sizeof(*buffer.data()));
  };
  const auto padded = [&](const auto& host, auto& buffer) {
    with_slack(buffer, host.size());
    buffer.upload(host.data(), host.size());
  };
  padded(m.block_col_idx, d.col_idx);
  // Values once, in the order the kernel reads them.
  with_slack(d.values, m.values.size());
  upload_values(d, m, tma_rotated);
  if (segments) {
    d.nrows = segments->segments();
    padded(segments->segment_block_ptr, d.row_ptr);
    d.row_out = cuda::DeviceBuffer<index_t>(segments->segment_out);
    d.split_rows = cuda::DeviceBuffer<index_t>(segments->split_rows);
    d.segment_ptr = cuda::DeviceBuffer<index_t>(segments->segment_ptr);
    d.partials = cuda::DeviceBuffer<V>(static_cast<std::size_t>(segments->partial_slots()) *
                                       static_cast<std::size_t>(m.block_size));
    d.n_split = static_cast<index_t>(segments->split_rows.size());
    d.max_split = segments->max_split;
  } else {
    d.nrows = m.block_rows;
    padded(m.block_row_ptr, d.row_ptr);
  }
  if (tma_tile_blocks > 0)
    set_tma_tiles(d, segments ? segments->segment_block_ptr : m.block_row_ptr, tma_tile_blocks);
  return d;
}

namespace {

// Each block's chunks rotated in place as bsr_tma_rotated_values does on the host: chunk j of
// block k to chunk (j + r) mod n, r = bsr_tma_rotation(k, n). A thread a block (a block is at
// most 8 chunks of 16 bytes here).
template <class V, int CHUNKS>
__global__ void rotate_blocks_kernel(std::int64_t blocks, int block_values, V* values) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= blocks) return;
  constexpr int max_values = 8 * 16 / sizeof(V);
  V v[max_values];
  V* b = values + k * block_values;
  for (int i = 0; i < block_values; ++i) v[i] = b[i];
  const int r = bsr_tma_rotation(k, CHUNKS);
  const int chunk = block_values / CHUNKS;
  for (int j = 0; j < CHUNKS; ++j)
    for (int i = 0; i < chunk; ++i) b[((j + r) % CHUNKS) * chunk + i] = v[j * chunk + i];
}

template <class V>
void rotate_blocks(DeviceBsr<V>& d, std::int64_t blocks) {
  const int chunks = bsr_tma_rotation_chunks(d.bs, static_cast<int>(sizeof(V)));
  if (chunks == 1) return;
  d.tma_rotated = true;
  if (blocks == 0) return;
  constexpr int block = 256;
  const unsigned grid = cuda::grid_for(static_cast<std::size_t>(blocks), block);
  cudaStream_t stream = cuda::Context::get().stream();
  const int block_values = d.bs * d.bs;
  if (chunks == 2)
    rotate_blocks_kernel<V, 2><<<grid, block, 0, stream>>>(blocks, block_values, d.values.data());
  else if (chunks == 4)
    rotate_blocks_kernel<V, 4><<<grid, block, 0, stream>>>(blocks, block_values, d.values.data());
  else
    rotate_blocks_kernel<V, 8><<<grid, block, 0, stream>>>(blocks, block_values, d.values.data());
  SPMVKIT_LAUNCH_CHECK();
}

}  // namespace

template <class V>
DeviceBsr<V> device_bsr(DeviceBsrBlocks<V>&& m, DeviceBsrSegments* segments,
                        index_t tma_tile_blocks, bool tma_rotated) {
  DeviceBsr<V> d;
  d.rows = m.rows;
  d.cols = m.cols;
  d.bs = m.block_size;
  d.col_idx = std::move(m.col_idx);
  d.values = std::move(m.values);
  if (tma_rotated) rotate_blocks(d, m.nnzb());
  if (segments) {
    d.nrows = segments->segments;
    d.row_ptr = std::move(segments->segment_block_ptr);
    d.row_out = std::move(segments->segment_out);
    d.split_rows = std::move(segments->split_rows);
    d.segment_ptr = std::move(segments->segment_ptr);
    d.partials = cuda::DeviceBuffer<V>(static_cast<std::size_t>(segments->partial_slots) *
                                       static_cast<std::size_t>(m.block_size));
    d.n_split = segments->n_split;
    d.max_split = segments->max_split;
  } else {
    d.nrows = m.block_rows;
    d.row_ptr = std::move(m.row_ptr);
  }
  if (tma_tile_blocks > 0) set_tma_tiles_device(d, tma_tile_blocks);
  return d;  // queued: the registry (or build_operator's device entry) waits once at the end
}

#define SPMVKIT_INSTANTIATE(V)                                                               \
  template DeviceBsr<V> device_bsr(DeviceBsrBlocks<V>&&, DeviceBsrSegments*, index_t, bool); \
  template DeviceBsr<V> upload_bsr(const Bsr<V>&, const BsrSegments*, index_t, bool);        \
  template void set_tma_rotated(DeviceBsr<V>&, const Bsr<V>&, bool);                         \
  template void set_tma_tiles(DeviceBsr<V>&, const std::vector<index_t>&, index_t);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::bsr
