// Device helpers shared by the BSR kernels (bsr_cuda.cu: K1, K3, reduction; bsr_k2_cuda.cu: K2).
//
// Memory paths (why):
// - The matrix stream (block values, block column indices) is read exactly once per apply:
//   K1 and K3 read it with __ldcs (cache-streaming, evict-first), which keeps it from evicting
//   x (reused by every block row that touches the same block column) from L1/L2; K2 with
//   __ldcg (L2 only), measured faster there (backend/cuda/loads.cuh). The tma kernel copies
//   it to shared memory.
// - x goes through the read-only data path (__ldg), as the paper does for every kernel (5.1).
#pragma once

#include <cstdint>

#include "backend/cuda/vector_types.cuh"
#include "formats/bsr/bsr_cuda.hpp"
#include "formats/bsr/bsr_mapping.hpp"

namespace spmvkit::bsr {

constexpr unsigned kFullMask = 0xffffffffu;

template <cuda::Cache C = cuda::Cache::streaming>
__device__ __forceinline__ index_t load_block_col(const index_t* p) {
  return cuda::ld_stream<C>(p);
}

// x[col] when `ok` and col is a real column (the padded columns of the last block column, and
// col < 0 for a block slot past the end of a row, read nothing and give 0).
template <class V>
__device__ __forceinline__ V load_x(const V* __restrict__ x, index_t col, index_t cols, bool ok) {
  return ok && static_cast<unsigned>(col) < static_cast<unsigned>(cols) ? __ldg(x + col) : V(0);
}

// Where a kernel row's results go: its block row, or -(slot + 1) for a split row's segment.
template <class V>
__device__ __forceinline__ index_t row_target(const KernelArgs<V>& a, index_t row) {
  return a.row_out ? __ldg(a.row_out + row) : row;
}

// Row i of the block row / segment `out` is `sum`: z = alpha*sum + beta*y for a whole block row
// (padded rows past `rows` are dropped; y is not read when beta == 0), the raw sum into the
// partial slot for a segment of a split row.
template <class V>
__device__ __forceinline__ void store_row(const KernelArgs<V>& a, index_t out, int i, V sum,
                                          const V* y, V* z, V alpha, V beta) {
  if (out >= 0) {
    const std::int64_t r = static_cast<std::int64_t>(out) * a.bs + i;
    if (r < a.rows) z[r] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[r];
  } else {
    a.partials[static_cast<std::int64_t>(-1 - out) * a.bs + i] = sum;
  }
}

}  // namespace spmvkit::bsr
