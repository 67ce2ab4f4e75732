// N consecutive elements of T as one CUDA vector type (one load of up to 16 bytes):
// VectorType<double, 2>::type is double2, VectorType<float, 1>::type is float, ...
#pragma once

#include <cuda_runtime.h>

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

}  // namespace spmvkit::cuda
