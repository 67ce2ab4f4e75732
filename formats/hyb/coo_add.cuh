// z += alpha * (COO entries) * x on the GPU, for entries sorted by row: the HYB COO part and
// csr_balanced's far entries (included by .cu files only).
//
// A warp takes a tile of 32*ITEMS consecutive entries, loads all of them first (coalesced,
// ITEMS independent loads of row, column and value per lane), then the x gathers, then reduces
// them by row with warp_segmented_reduce: one atomic add per row segment per tile.
#pragma once

#include <cstdint>

#include "backend/cuda/cuda.hpp"
#include "formats/hyb/segmented_reduce.cuh"

namespace spmvkit {

struct CooPolicy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = 8;
  static constexpr int tile = 32 * items_per_thread;  // entries a warp
};

template <class V, int ITEMS>
__global__ void __launch_bounds__(CooPolicy::block_threads)
    coo_add_kernel(index_t nnz, const index_t* __restrict__ row, const index_t* __restrict__ col,
                   const V* __restrict__ val, const V* __restrict__ x, V* z, V alpha) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t tile = warp * 32 * ITEMS;
  if (tile >= nnz) return;  // the whole warp leaves together
  index_t key[ITEMS];
  index_t c[ITEMS];
  V v[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t k = tile + i * 32 + lane;
    const bool in = k < nnz;
    // The entries stream through once (evict-first loads), so L2 keeps x and z.
    key[i] = in ? __ldcs(row + k) : index_t{-1};
    c[i] = in ? __ldcs(col + k) : index_t{0};
    v[i] = in ? __ldcs(val + k) : V(0);
  }
  V prod[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) prod[i] = key[i] >= 0 ? v[i] * __ldg(x + c[i]) : V(0);
  warp_segmented_reduce<V, ITEMS>(key, prod, lane,
                                  [&](index_t r, V sum) { atomicAdd(z + r, alpha * sum); });
}

// Launches coo_add_kernel over entries [0, nnz) (rows non-decreasing); nothing when nnz == 0.
template <class V>
void launch_coo_add(index_t nnz, const index_t* row, const index_t* col, const V* val, const V* x,
                    V* z, V alpha, cudaStream_t stream) {
  if (nnz == 0) return;
  constexpr int block = CooPolicy::block_threads;
  const std::size_t warps = (static_cast<std::size_t>(nnz) + CooPolicy::tile - 1) / CooPolicy::tile;
  coo_add_kernel<V, CooPolicy::items_per_thread>
      <<<cuda::grid_for(warps * 32, block), block, 0, stream>>>(nnz, row, col, val, x, z, alpha);
  SPMVKIT_LAUNCH_CHECK();
}

}  // namespace spmvkit
