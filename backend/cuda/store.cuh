// One value written to device memory in stream order, by a one-thread launch (included by .cu
// files only). A build's flags and counters start this way instead of by a synchronous upload
// of a host value (a ~12 us round trip on the H100).
#pragma once

#include "backend/cuda/cuda.hpp"

namespace spmvkit::cuda {

template <class T>
__global__ void store_kernel(T* dst, T value) {
  *dst = value;
}

// *dst = value, queued on the context stream.
template <class T>
void store_async(T* dst, T value) {
  store_kernel<T><<<1, 1, 0, Context::get().stream()>>>(dst, value);
  SPMVKIT_LAUNCH_CHECK();
}

}  // namespace spmvkit::cuda
