// N consecutive elements of T as one CUDA vector type (one load of up to 16 bytes):
// VectorType<double, 2>::type is double2, VectorType<float, 1>::type is float, ...
#pragma once

#include <cuda_runtime.h>

#include "backend/cuda/loads.cuh"

namespace spmvkit::cuda {

template <class T, int N>
struct VectorType;
// clang-format off
template <> struct VectorType<double, 1> { using type = double; };
template <> struct VectorType<double, 2> { using type = double2; };
template <> struct VectorType<float, 1> { using type = float; };
template <> struct VectorType<float, 2> { using type = float2; };
template <> struct VectorType<float, 4> { using type = float4; };
template <> struct VectorType<int, 1> { using type = int; };
template <> struct VectorType<int, 2> { using type = int2; };
template <> struct VectorType<int, 4> { using type = int4; };
template <> struct VectorType<unsigned short, 1> { using type = unsigned short; };
template <> struct VectorType<unsigned short, 2> { using type = ushort2; };
template <> struct VectorType<unsigned short, 4> { using type = ushort4; };
// clang-format on

// N consecutive elements at p with stream loads (ld_stream<C>: data read once per apply) of up
// to 16 bytes each. p is aligned to min(N * sizeof(T), 16) bytes.
template <class T, int N, Cache C = Cache::streaming>
__device__ __forceinline__ void load_stream(const T* p, T* out) {
  constexpr int kChunk = N * sizeof(T) <= 16 ? N : 16 / static_cast<int>(sizeof(T));
  static_assert(N % kChunk == 0, "whole vector loads");
  using Vec = typename VectorType<T, kChunk>::type;
#pragma unroll
  for (int i = 0; i < N; i += kChunk) {
    const Vec v = ld_stream<C>(reinterpret_cast<const Vec*>(p + i));
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int j = 0; j < kChunk; ++j) out[i + j] = e[j];
  }
}

}  // namespace spmvkit::cuda
