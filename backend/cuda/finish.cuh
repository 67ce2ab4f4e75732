// The last step of every SpMV kernel: z[out] = alpha * sum + beta * y[out], y not read when
// beta == 0 (so y may be anything then, NaN included).
#pragma once

#include "spmvkit/csr.hpp"

namespace spmvkit::cuda {

template <class V>
__device__ __forceinline__ V finish(V sum, const V* y, index_t out, V alpha, V beta) {
  return beta == V(0) ? alpha * sum : alpha * sum + beta * y[out];
}

}  // namespace spmvkit::cuda
