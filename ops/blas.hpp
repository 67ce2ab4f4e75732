// BLAS-1 vector operations on either backend, scalars on the host: what the reference solvers
// are made of (merged-kernels paper figure 1, right: every vector operation one cuBLAS call).
// CPU: plain OpenMP loops (the reference is the truth: no cleverness). CUDA: cuBLAS on the
// context stream with host pointer mode, so dot and nrm2 wait for their result.
#pragma once

#include <cstddef>
#include <cstdint>

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

// BiCGSTAB's shadow residual: r0^ = w .* r, w_i = shadow_weight(first + i, seed) in [0.5, 1.5),
// a fixed pseudo-random weight of the global row. The paper's r0^ = r0 breaks down where r0
// is nearly orthogonal to A's range: b = ones on an upwind convection-diffusion grid (zero
// column sums inside, so ones^T A ~ 0) drives rho = (r0^, r) to rounding level; weights that
// vary row by row keep r0^ out of any such structured direction (a random shadow residual,
// van der Vorst's and Saad's advice), while rho_0 = (r0^, r0) > 0 still.
template <class V>
void shadow_residual(Backend b, std::size_t n, const V* r, V* r0, std::int64_t first,
                     unsigned seed);

#if defined(__CUDACC__)
__host__ __device__
#endif
inline double shadow_weight(std::uint64_t row, unsigned seed) {
  // splitmix64 of the row and the seed: the same bits on the host and the device.
  std::uint64_t z = row + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(seed) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 0.5 + static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

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
template <class V>
void shadow_residual(std::size_t n, const V* r, V* r0, std::int64_t first, unsigned seed);
}  // namespace cuda_blas
#endif

}  // namespace spmvkit::ops
