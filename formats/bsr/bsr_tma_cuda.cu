// The tma BSR kernel (ours, not the paper's; see BsrKernel in bsr.hpp): small blocks
// (bs <= 9) streamed tile by tile into shared memory by the Tensor Memory Accelerator.
//
// Setup (upload_bsr) cuts the kernel rows (block rows, or balanced-BSR segments) into tiles of
// whole rows holding at most tile_kb KB of block values. The grid is persistent: thread
// block b takes tiles b, b + grid, b + 2 grid, ... For each tile, thread 0 issues three bulk
// copies (cp.async.bulk: block values, block columns, row pointers, each widened to 16-byte
// alignment) that complete on an mbarrier; the next tile's copies are in flight while this one
// is multiplied (`stages` buffers, 2 to 4). Output rows (kernel row, row i of the block) are then
// taken by `lanes` adjacent threads each, which stride over the row's blocks in shared memory,
// multiply block column c by x[col * bs + c] (read-only path) and add with a shuffle.
// With whole=1 an item is a whole kernel row instead: a thread reads each block's bs x
// values and the block itself with 16-byte loads where they fit, and keeps bs sums; up to bs 6
// it requests the x values of a batch of its blocks before it multiplies the first
// (kTmaXBatch). With whole=2 (bs 6..9) an item is a part of a kernel row, bsr_tma_part_rows
// rows: the x values in vector loads as with whole=1, the block column by column. For whole=1
// the device copy of the values has each block's 16-byte chunks rotated (bsr_tma_rotation_chunks),
// so that neighbouring threads reading "chunk j" of their blocks hit different banks.
//
// Why it is faster than K1 at bs = 2..4 (H100: 61/63/76% -> 86% of the read ceiling,
// docs/results.md): the matrix stream costs one instruction per tile instead of a load per
// value and a shuffle tree per block row, so the SM spends its issue slots on the multiply-adds
// and x, while the copy engine keeps a tile per thread block in flight. What bounded it then was
// the L2 (Nsight Compute at bs 2: L2 83%, DRAM 77%), which also carries the x gathers; whole=1
// halves the x and shared-memory instructions at bs 2 and more above (bs 2-6: 87.7-89.7%,
// bench/results/2026-11-23-h100-bsr-whole). The warps then waited mostly on the x gathers;
// batching them took bs 2/3/5 to 89.6/91.8/91.4% (bench/results/2026-11-23-h100-xbatch).
// From bs 6 whole=1's registers (117-147 in double) leave no room for the batch; whole=2 reads
// x once per part of 3-4 rows in 76-92 registers: bs 9 87.9 -> 90.7%, bs 6 89.5 -> 91.7%
// (bench/results/2026-11-23-h100-part).
//
// Bytes per apply: the same as every BSR kernel (block values, block columns, row pointer, x,
// y when beta != 0, z written); the 16-byte widening re-reads at most 3 values of a neighbour
// tile per tile.
#include <algorithm>
#include <cstdint>
#include <cuda/barrier>
#include <cuda/ptx>

#include "formats/bsr/bsr_cuda.hpp"
#include "formats/bsr/bsr_kernels.cuh"
#include "spmvkit/error.hpp"

namespace spmvkit::bsr {

namespace {

using Barrier = ::cuda::barrier<::cuda::thread_scope_block>;

// Shared-memory layout: kMaxStages barriers, then `stages` buffers of [values | block columns |
// row pointers], every region starting on 16 bytes. Sizes are in elements, with room for the
// 16-byte widening at both ends of each copy.
template <class V>
struct TmaSmem {
  int values;   // tile values + 2 * (16 / sizeof(V))
  int cols;     // tile blocks + 8
  int row_ptr;  // tile rows + 1 + 8, rounded to 4
  int header;   // bytes before buffer 0 (the barriers)
  int stages;   // buffers: tiles in flight per thread block, the one being multiplied included

  static constexpr int round16(int bytes) { return (bytes + 15) / 16 * 16; }
  __host__ __device__ int buffer_bytes() const {
    return round16(values * static_cast<int>(sizeof(V))) + round16(cols * 4) + round16(row_ptr * 4);
  }
  __host__ __device__ int total_bytes() const { return header + stages * buffer_bytes(); }
  __device__ V* values_of(unsigned char* smem, int b) const {
    return reinterpret_cast<V*>(smem + header + b * buffer_bytes());
  }
  __device__ index_t* cols_of(unsigned char* smem, int b) const {
    return reinterpret_cast<index_t*>(smem + header + b * buffer_bytes() +
                                      round16(values * static_cast<int>(sizeof(V))));
  }
  __device__ index_t* row_ptr_of(unsigned char* smem, int b) const {
    return reinterpret_cast<index_t*>(smem + header + b * buffer_bytes() +
                                      round16(values * static_cast<int>(sizeof(V))) +
                                      round16(cols * 4));
  }
};

constexpr int kMaxStages = 4;

template <class V>
TmaSmem<V> tma_smem(int bs, int tile_kb, int stages) {
  TmaSmem<V> s;
  const int tile_blocks = static_cast<int>(bsr_tma_tile_blocks(bs, sizeof(V), tile_kb));
  s.values = tile_blocks * bs * bs + 2 * static_cast<int>(16 / sizeof(V));
  s.cols = tile_blocks + 8;
  s.row_ptr = (static_cast<int>(bsr_tma_tile_rows(tile_blocks)) + 1 + 8 + 3) / 4 * 4;
  s.stages = stages;
  s.header = TmaSmem<V>::round16(kMaxStages * static_cast<int>(sizeof(Barrier)));
  return s;
}

// [first, last) widened to multiples of A elements.
struct Span {
  std::int64_t begin, end;
};
template <int A>
__device__ __forceinline__ Span widen(std::int64_t first, std::int64_t last) {
  return Span{first / A * A, (last + A - 1) / A * A};
}

// whole=1 helpers. x[xb .. xb + BS) as vector loads where they fit whole vectors of 16 bytes (or
// float2), x is aligned to them and the block column is inside x; else one checked load each.
template <class V, int BS>
struct WholeVec {
  static constexpr int kX = (BS * sizeof(V)) % 16 == 0                    ? 16 / sizeof(V)
                            : sizeof(V) == 4 && (BS * sizeof(V)) % 8 == 0 ? 2
                                                                          : 1;
  // A block (column-major, BS * BS values) in shared memory: 16-byte loads when every block
  // starts on 16 bytes (BS * BS * sizeof(V) a multiple of 16).
  static constexpr int kBlock = (BS * BS * sizeof(V)) % 16 == 0 ? 16 / sizeof(V) : 1;
};

template <class V, int BS>
__device__ __forceinline__ void load_x_block(const V* __restrict__ x, index_t xb, index_t cols,
                                             bool x_aligned, V (&xv)[BS]) {
  constexpr int kX = WholeVec<V, BS>::kX;
  if (kX > 1 && x_aligned && xb + BS <= cols) {
    using Vec = typename cuda::VectorType<V, kX>::type;
#pragma unroll
    for (int c = 0; c < BS; c += kX) {
      const Vec v = __ldg(reinterpret_cast<const Vec*>(x + xb + c));
      const V* e = reinterpret_cast<const V*>(&v);
#pragma unroll
      for (int j = 0; j < kX; ++j) xv[c + j] = e[j];
    }
  } else {
#pragma unroll
    for (int c = 0; c < BS; ++c) xv[c] = load_x(x, xb + c, cols, true);
  }
}

// Block `k` (global block index) from shared memory; its chunks are rotated when
// bsr_tma_rotation_chunks says so (the device copy was uploaded that way).
template <class V, int BS>
__device__ __forceinline__ void load_block_shared(const V* block, std::int64_t k, V (&v)[BS * BS]) {
  constexpr int kB = WholeVec<V, BS>::kBlock;
  constexpr int kChunks = bsr_tma_rotation_chunks(BS, sizeof(V));
  const int r = bsr_tma_rotation(k, kChunks);
  using Vec = typename cuda::VectorType<V, kB>::type;
#pragma unroll
  for (int j = 0; j < BS * BS; j += kB) {
    const int at = kChunks > 1 ? (j / kB + r) % kChunks * kB : j;
    const Vec w = *reinterpret_cast<const Vec*>(block + at);
    const V* e = reinterpret_cast<const V*>(&w);
#pragma unroll
    for (int q = 0; q < kB; ++q) v[j + q] = e[q];
  }
}

// An item's N sums (rows first .. first + N - 1 of kernel row kr; rows past the block are not
// stored) added over its `lanes` threads, then written by the first of them (`write`). Every
// thread of the warp calls it (full-warp shuffles).
template <class V, int BS, int N>
__device__ __forceinline__ void reduce_and_store(const KernelArgs<V>& a, index_t kr, int first,
                                                 V (&acc)[N], int lanes, bool write, const V* y,
                                                 V* z, V alpha, V beta) {
#pragma unroll
  for (int r = 0; r < N; ++r)
    for (int off = lanes / 2; off > 0; off /= 2)
      acc[r] += __shfl_down_sync(kFullMask, acc[r], off, lanes);
  if (!write) return;
  const index_t out = row_target(a, kr);
#pragma unroll
  for (int r = 0; r < N; ++r)
    if (BS % N == 0 || first + r < BS) store_row(a, out, first + r, acc[r], y, z, alpha, beta);
}

// whole=1: blocks whose x values a thread requests before it uses the first (1: block by block,
// the loop unrolled twice). H100, f64, tuned (bench/results/2026-11-23-h100-xbatch): 4 took bs 5
// from 87.5 to 91.4% of the read ceiling and bs 3 from 90.0 to 91.8%, 2 took bs 2 from 87.9 to
// 89.6%; from bs 7 the batch's registers cost thread blocks (bs 7 in 48 KB tiles and 256
// threads: 62% of the ceiling).
template <int BS>
constexpr int kTmaXBatch = BS <= 2   ? 2
                           : BS <= 6 ? 4
                                     : 1;

template <class V, int BS, int THREADS, int WHOLE>
__global__ void __launch_bounds__(THREADS)
    bsr_tma_kernel(const KernelArgs<V> a, const index_t* __restrict__ tiles, index_t n_tiles,
                   const TmaSmem<V> s, int lanes, const V* __restrict__ x, const V* y, V* z,
                   V alpha, V beta) {
  constexpr int BS2 = BS * BS;
  constexpr int AV = 16 / static_cast<int>(sizeof(V));  // values per 16 bytes
  extern __shared__ __align__(16) unsigned char smem[];
  Barrier* bar = reinterpret_cast<Barrier*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  if (static_cast<index_t>(blockIdx.x) >= n_tiles) return;  // the whole block

  if (tid == 0) {
    for (int b = 0; b < s.stages; ++b) init(&bar[b], static_cast<std::ptrdiff_t>(blockDim.x));
    // The barriers' initialisation must be visible to the copy engine (async proxy).
    ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
  }
  __syncthreads();

  // Thread 0: queue tile t into buffer b. The barrier's transaction count is raised by the
  // bytes first; the phase completes when every thread has arrived and every byte landed.
  const auto issue = [&](index_t t, int b) {
    const index_t kr0 = tiles[t], kr1 = tiles[t + 1];
    const std::int64_t kb0 = a.row_ptr[kr0], kb1 = a.row_ptr[kr1];
    const Span v = widen<AV>(kb0 * BS2, kb1 * BS2);
    const Span c = widen<4>(kb0, kb1);
    const Span r = widen<4>(kr0, std::int64_t{kr1} + 1);
    const auto vbytes = static_cast<std::uint32_t>((v.end - v.begin) * sizeof(V));
    const auto cbytes = static_cast<std::uint32_t>((c.end - c.begin) * sizeof(index_t));
    const auto rbytes = static_cast<std::uint32_t>((r.end - r.begin) * sizeof(index_t));
    ::cuda::device::barrier_expect_tx(bar[b], vbytes + cbytes + rbytes);
    if (vbytes > 0)
      ::cuda::device::memcpy_async_tx(s.values_of(smem, b), a.values + v.begin,
                                      ::cuda::aligned_size_t<16>(vbytes), bar[b]);
    if (cbytes > 0)
      ::cuda::device::memcpy_async_tx(s.cols_of(smem, b), a.col_idx + c.begin,
                                      ::cuda::aligned_size_t<16>(cbytes), bar[b]);
    ::cuda::device::memcpy_async_tx(s.row_ptr_of(smem, b), a.row_ptr + r.begin,
                                    ::cuda::aligned_size_t<16>(rbytes), bar[b]);
  };

  index_t t = blockIdx.x;
  const auto stride = static_cast<index_t>(gridDim.x);
  const bool x_aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0;  // for whole=1
  if (tid == 0)
    for (int b = 0; b < s.stages && t + b * stride < n_tiles; ++b) issue(t + b * stride, b);
  for (int b = 0; t < n_tiles; t += stride, b = b + 1 == s.stages ? 0 : b + 1) {
    // Tile geometry, recomputed by every thread (cached loads) instead of shared.
    const index_t kr0 = tiles[t], kr1 = tiles[t + 1];
    const index_t kb0 = a.row_ptr[kr0];
    const V* values = s.values_of(smem, b) + (static_cast<std::int64_t>(kb0) * BS2) % AV;
    const index_t* cols = s.cols_of(smem, b) + (kb0 & 3);
    const index_t* row_ptr = s.row_ptr_of(smem, b) + (kr0 & 3);

    bar[b].arrive_and_wait();  // tile t is in buffer b
    if constexpr (WHOLE == 1) {
      // Items are (kernel row, lane): all BS rows of the block row at once, so that each
      // block's x values and its values come in vector loads.
      const int items = (kr1 - kr0) * lanes;
      for (int base = 0; base < items; base += THREADS) {  // uniform trip count
        const int item = base + tid;
        const bool active = item < items;
        const int lane = item % lanes;
        const int lr = item / lanes;
        V acc[BS];
#pragma unroll
        for (int i = 0; i < BS; ++i) acc[i] = V(0);
        if (active) {
          const index_t b0 = row_ptr[lr] - kb0, b1 = row_ptr[lr + 1] - kb0;
          // acc += block k (shared memory) times its x values.
          const auto mac = [&](index_t k, const V(&xv)[BS]) {
            V blk[BS2];
            load_block_shared<V, BS>(values + k * BS2, std::int64_t{kb0} + k, blk);
#pragma unroll
            for (int c = 0; c < BS; ++c)
#pragma unroll
              for (int i = 0; i < BS; ++i) acc[i] += blk[c * BS + i] * xv[c];
          };
          constexpr int kB = kTmaXBatch<BS>;
          if constexpr (kB > 1) {
            // The x values of a batch of blocks are all requested before the first is used:
            // one wait on the gathers (mostly L2 hits) per batch.
            for (index_t k0 = b0 + lane; k0 < b1; k0 += kB * lanes) {
              V xv[kB][BS];
#pragma unroll
              for (int u = 0; u < kB; ++u) {
                const index_t k = k0 + u * lanes;
                if (k < b1) load_x_block<V, BS>(x, cols[k] * BS, a.cols, x_aligned, xv[u]);
              }
#pragma unroll
              for (int u = 0; u < kB; ++u) {
                const index_t k = k0 + u * lanes;
                if (k < b1) mac(k, xv[u]);
              }
            }
          } else {
#pragma unroll 2
            for (index_t k = b0 + lane; k < b1; k += lanes) {
              V xv[BS];
              load_x_block<V, BS>(x, cols[k] * BS, a.cols, x_aligned, xv);
              mac(k, xv);
            }
          }
        }
        reduce_and_store<V, BS>(a, kr0 + lr, 0, acc, lanes, active && lane == 0, y, z, alpha, beta);
      }
    } else if constexpr (WHOLE == 2) {
      // Items are (kernel row, part, lane): rows [r0, r0 + R) of the block row. The block's x
      // values come in vector loads, once for R rows; the block is read column by column.
      constexpr int R = bsr_tma_part_rows(BS);
      constexpr int kParts = (BS + R - 1) / R;
      static_assert(R > 0, "whole=2 is compiled for bs 6..9");
      const int items = (kr1 - kr0) * kParts * lanes;
      for (int base = 0; base < items; base += THREADS) {  // uniform trip count
        const int item = base + tid;
        const bool active = item < items;
        const int lane = item % lanes;
        const int part = item / lanes;
        const int lr = part / kParts, r0 = part % kParts * R;
        V acc[R];
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = V(0);
        if (active) {
          const index_t b0 = row_ptr[lr] - kb0, b1 = row_ptr[lr + 1] - kb0;
#pragma unroll 2
          for (index_t k = b0 + lane; k < b1; k += lanes) {
            V xv[BS];
            load_x_block<V, BS>(x, cols[k] * BS, a.cols, x_aligned, xv);
            const V* block = values + k * BS2 + r0;  // column-major: column c at c * bs
#pragma unroll
            for (int c = 0; c < BS; ++c)
#pragma unroll
              for (int r = 0; r < R; ++r)
                if (BS % R == 0 || r0 + r < BS) acc[r] += block[c * BS + r] * xv[c];
          }
        }
        reduce_and_store<V, BS>(a, kr0 + lr, r0, acc, lanes, active && lane == 0, y, z, alpha,
                                beta);
      }
    } else {
      const int items = (kr1 - kr0) * BS * lanes;
      for (int base = 0; base < items; base += THREADS) {  // uniform trip count: full-warp shuffles
        const int item = base + tid;
        const bool active = item < items;
        const int lane = item % lanes;
        const int row = item / lanes;  // (kernel row, row in block) pair within the tile
        const int lr = row / BS, i = row % BS;
        V sum[1] = {V(0)};
        if (active) {
          const index_t b0 = row_ptr[lr] - kb0, b1 = row_ptr[lr + 1] - kb0;
#pragma unroll 4
          for (index_t k = b0 + lane; k < b1; k += lanes) {
            const index_t xb = cols[k] * BS;
            const V* block = values + k * BS2 + i;  // column-major: column c at c * bs
#pragma unroll
            for (int c = 0; c < BS; ++c) sum[0] += block[c * BS] * load_x(x, xb + c, a.cols, true);
          }
        }
        reduce_and_store<V, BS>(a, kr0 + lr, i, sum, lanes, active && lane == 0, y, z, alpha, beta);
      }
    }
    __syncthreads();  // everyone is done with buffer b
    const index_t next = t + s.stages * stride;
    if (tid == 0 && next < n_tiles) {
      // Order this block's reads of buffer b (generic proxy) before the copy engine's writes.
      ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
      issue(next, b);
    }
  }
}

template <class V>
using TmaFn = void (*)(KernelArgs<V>, const index_t*, index_t, TmaSmem<V>, int, const V*, const V*,
                       V*, V, V);

template <class V, int BS, int THREADS>
TmaFn<V> tma_kernel_mode(int whole) {
  if constexpr (bsr_tma_part_rows(BS) > 0) {
    if (whole == 2) return bsr_tma_kernel<V, BS, THREADS, 2>;
  } else if (whole == 2) {
    throw UnsupportedError("bsr: tma whole=2 takes bs 6.." + std::to_string(kBsrTmaMaxBlockSize) +
                           ", got " + std::to_string(BS));
  }
  return whole == 1 ? bsr_tma_kernel<V, BS, THREADS, 1> : bsr_tma_kernel<V, BS, THREADS, 0>;
}

template <class V, int THREADS>
TmaFn<V> tma_kernel_for(int bs, int whole) {
  static_assert(kBsrTmaMaxBlockSize == 9, "instances below: bs 1..9");
  switch (bs) {
    case 1:
      return tma_kernel_mode<V, 1, THREADS>(whole);
    case 2:
      return tma_kernel_mode<V, 2, THREADS>(whole);
    case 3:
      return tma_kernel_mode<V, 3, THREADS>(whole);
    case 4:
      return tma_kernel_mode<V, 4, THREADS>(whole);
    case 5:
      return tma_kernel_mode<V, 5, THREADS>(whole);
    case 6:
      return tma_kernel_mode<V, 6, THREADS>(whole);
    case 7:
      return tma_kernel_mode<V, 7, THREADS>(whole);
    case 8:
      return tma_kernel_mode<V, 8, THREADS>(whole);
    case 9:
      return tma_kernel_mode<V, 9, THREADS>(whole);
    default:
      throw UnsupportedError("bsr: the tma kernel takes bs <= " +
                             std::to_string(kBsrTmaMaxBlockSize) + ", got " + std::to_string(bs));
  }
}

template <class V>
TmaFn<V> tma_kernel(int bs, int threads, int whole) {
  switch (threads) {
    case 128:
      return tma_kernel_for<V, 128>(bs, whole);
    case 512:
      return tma_kernel_for<V, 512>(bs, whole);
    default:
      return tma_kernel_for<V, 256>(bs, whole);
  }
}

}  // namespace

template <class V>
int tma_shared_bytes(int bs, int tile_kb, int stages) {
  return tma_smem<V>(bs, tile_kb, stages).total_bytes();
}

template <class V>
void launch_tma(const DeviceBsr<V>& d, const BsrPolicy& p, const V* x, const V* y, V* z, V alpha,
                V beta, cudaStream_t stream) {
  if (d.bs > kBsrTmaMaxBlockSize)
    throw UnsupportedError("bsr: the tma kernel takes bs <= " +
                           std::to_string(kBsrTmaMaxBlockSize) + ", got " + std::to_string(d.bs));
  if (d.nrows == 0) return;
  if (d.tma_n_tiles == 0 || d.tma_tile_blocks != bsr_tma_tile_blocks(d.bs, sizeof(V), p.tile_kb))
    throw UnsupportedError("bsr: no tma tiles of " + std::to_string(p.tile_kb) +
                           " KB for this matrix (a kernel row longer than a tile?)");
  if (p.reads_rotated_values() != d.tma_rotated &&
      bsr_tma_rotation_chunks(d.bs, static_cast<int>(sizeof(V))) > 1)
    throw UnsupportedError("bsr: tma whole=" + std::to_string(p.whole) +
                           " needs the values uploaded in its chunk order");
  const TmaFn<V> kernel = tma_kernel<V>(d.bs, p.threads, p.whole);
  const TmaSmem<V> s = tma_smem<V>(d.bs, p.tile_kb, p.stages);
  const int smem = s.total_bytes();
  // Per instance, device and shared-memory size, once (not on every apply): allow the dynamic
  // shared memory (up to the device's opt-in limit, the same value from every thread) and find
  // how many thread blocks an SM holds at this size, to size the persistent grid.
  struct Launch {
    int device = -1;
    int smem = 0;
    int blocks_per_sm = 0;
  };
  static thread_local Launch cache[3][3][kBsrTmaMaxBlockSize + 1];
  Launch& c = cache[p.whole][p.threads == 128 ? 0 : p.threads == 256 ? 1 : 2][d.bs];
  int device = 0;
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&device));
  if (c.device != device || c.smem != smem) {
    SPMVKIT_CUDA_CHECK(cudaFuncSetAttribute(
        reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(cuda::Context::get().props().sharedMemPerBlockOptin)));
    SPMVKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &c.blocks_per_sm, kernel, p.threads, static_cast<std::size_t>(smem)));
    c.device = device;
    c.smem = smem;
  }
  const int blocks_per_sm = c.blocks_per_sm;
  const std::int64_t resident =
      static_cast<std::int64_t>(std::max(1, blocks_per_sm)) * cuda::Context::get().sm_count();
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>(d.tma_n_tiles, resident));
  // Lanes per item (output row, block row with whole=1, part of one with whole=2): the policy's,
  // or by default enough that a tile's items keep the threads busy.
  const int part_rows = p.whole == 1 ? d.bs : p.whole == 2 ? bsr_tma_part_rows(d.bs) : 1;
  const double items_per_tile = d.tma_rows_per_tile / d.bs * ((d.bs + part_rows - 1) / part_rows);
  int lanes = p.lanes;
  if (lanes == 0) {
    lanes = 1;
    while (lanes < 8 && items_per_tile * lanes * 2 <= p.threads) lanes *= 2;
  }
  kernel<<<grid, static_cast<unsigned>(p.threads), static_cast<std::size_t>(smem), stream>>>(
      d.args(), d.tma_tiles.data(), d.tma_n_tiles, s, lanes, x, y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

template int tma_shared_bytes<float>(int, int, int);
template int tma_shared_bytes<double>(int, int, int);
template void launch_tma(const DeviceBsr<float>&, const BsrPolicy&, const float*, const float*,
                         float*, float, float, cudaStream_t);
template void launch_tma(const DeviceBsr<double>&, const BsrPolicy&, const double*, const double*,
                         double*, double, double, cudaStream_t);

}  // namespace spmvkit::bsr
