// Warp segmented reduction over a tile of products sorted by key (row), for the HEC balanced
// CSR part (included by .cu files only). The COO kernel (formats/common/coo_add.cuh) sums per
// thread instead, which measured faster there.
//
// Bell & Garland reduce COO with a segmented reduction rather than an atomic per entry; we do
// it per warp in registers: each round of 32 products is scanned by key with shuffles (a
// segmented inclusive scan: lane L adds lane L-d's partial when both have the same key, which
// is exact because equal keys are contiguous), the last lane's partial is carried into the
// next round, and only a segment's last lane writes: one atomic add per row segment per warp
// (rows whose entries span two warps' tiles get two), never one per entry.
#pragma once

#include "spmvkit/csr.hpp"

namespace spmvkit {

// key[i] / value[i]: lane `lane`'s item of round i (round i covers the tile's items
// 32*i .. 32*i+31 in order). Keys are non-decreasing over the tile except for key -1, which
// marks items past the end (only at the tile's tail; their values must be 0). flush(key, sum)
// is called once for each maximal run of equal keys (>= 0) of the tile, by one lane.
template <class V, int ITEMS, class Flush>
__device__ __forceinline__ void warp_segmented_reduce(const index_t (&key)[ITEMS],
                                                      const V (&value)[ITEMS], int lane,
                                                      Flush&& flush) {
  constexpr unsigned full = 0xffffffffu;
  index_t carry_key = -1;
  V carry = V(0);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const index_t k = key[i];
    V s = value[i];
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const V up = __shfl_up_sync(full, s, offset);
      const index_t up_key = __shfl_up_sync(full, k, offset);
      if (lane >= offset && up_key == k) s += up;
    }
    // The carried run continues into this round only through its first lanes.
    const index_t first = __shfl_sync(full, k, 0);
    if (carry_key >= 0) {
      if (first == carry_key) {
        if (k == carry_key) s += carry;
      } else if (lane == 0) {
        flush(carry_key, carry);
      }
    }
    const index_t next = __shfl_down_sync(full, k, 1);
    if (lane < 31 && k >= 0 && next != k) flush(k, s);
    carry_key = __shfl_sync(full, k, 31);
    carry = __shfl_sync(full, s, 31);
  }
  if (lane == 0 && carry_key >= 0) flush(carry_key, carry);
}

}  // namespace spmvkit
