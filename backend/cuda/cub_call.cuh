// Running CUB device algorithms on the context's buffers (included by .cu files only).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "backend/cuda/cuda.hpp"

namespace spmvkit::cuda {

// A CUB device algorithm: size query, scratch, run. `fn(temp, bytes, stream)` calls it.
template <class Fn>
void cub_call(Fn&& fn, cudaStream_t stream) {
  std::size_t bytes = 0;
  SPMVKIT_CUDA_CHECK(fn(nullptr, bytes, stream));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  SPMVKIT_CUDA_CHECK(fn(temp.data(), bytes, stream));
}

// Bits a radix-sort key needs to hold values up to v (0 for v = 0).
inline int bits_for(std::uint64_t v) {
  int b = 0;
  while (v) {
    ++b;
    v >>= 1;
  }
  return b;
}

}  // namespace spmvkit::cuda
