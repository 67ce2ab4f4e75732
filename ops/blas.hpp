// BLAS-1 vector operations on either backend, scalars on the host: what the reference solvers
// are made of (merged-kernels paper figure 1, right: every vector operation one cuBLAS call).
// CPU: plain OpenMP loops (the reference is the truth: no cleverness). CUDA: cuBLAS on the
// context stream with host pointer mode, so dot and nrm2 wait for their result.
#pragma once

#include <cstddef>

#include "spmvkit/backend.hpp"

namespace spmvkit::ops {

template <class V>
V dot(Backend b, std::size_t n, const V* x, const V* y);
template <class V>
V nrm2(Backend b, std::size_t n, const V* x);
template <class V>
void axpy(Backend b, std::size_t n, V alpha, const V* x, V* y);  // y += alpha x
template <class V>
void scal(Backend b, std::size_t n, V alpha, V* x);  // x *= alpha
template <class V>
void copy(Backend b, std::size_t n, const V* x, V* y);  // y = x
template <class V>
void fill_zero(Backend b, std::size_t n, V* x);

#if SPMVKIT_HAVE_CUDA
namespace cuda_blas {
template <class V>
V dot(std::size_t n, const V* x, const V* y);
template <class V>
V nrm2(std::size_t n, const V* x);
template <class V>
void axpy(std::size_t n, V alpha, const V* x, V* y);
template <class V>
void scal(std::size_t n, V alpha, V* x);
template <class V>
void copy(std::size_t n, const V* x, V* y);
}  // namespace cuda_blas
#endif

}  // namespace spmvkit::ops
