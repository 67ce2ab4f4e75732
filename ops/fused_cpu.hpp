// The merged solvers' fused vector kernels on the CPU (OpenMP): the same fusion as the CUDA
// kernels of merged_cuda.cu (each update carries the first stage of the dot products that
// read its output), scalars on the host. Sums accumulate in double. Where a Jacobi
// preconditioner is fused in, `dinv` is its inverse diagonal (nullptr: none) and the update
// also writes the preconditioned vector (right preconditioning: p^ = D^-1 p, s^ = D^-1 s).
#pragma once

#include <cstddef>

namespace spmvkit::ops::fused {

struct Dot2 {
  double first = 0, second = 0;
};

// BiCGSTAB (paper figure 2). p = r + beta (p - omega v); with dinv, also ph = dinv p.
template <class V>
void bicg_p_update(std::size_t n, V beta, V omega, const V* r, const V* v, V* p,
                   const V* dinv = nullptr, V* ph = nullptr);
// s = r - alpha v; with dinv, also sh = dinv s.
template <class V>
void bicg_s_update(std::size_t n, V alpha, const V* r, const V* v, V* s, const V* dinv = nullptr,
                   V* sh = nullptr);
// MDOT: (t, s) and (t, t) in one pass.
template <class V>
Dot2 mdot_ts_tt(std::size_t n, const V* t, const V* s);
// x += alpha ph + omega sh; r = s - omega t; returns ((r, r), (r0^, r)). Without a
// preconditioner ph = p and sh = s.
template <class V>
Dot2 bicg_xr_update(std::size_t n, V alpha, V omega, const V* r0, const V* ph, const V* sh,
                    const V* s, const V* t, V* x, V* r);
// CG: x += alpha p; r -= alpha q; returns ((r, r), (r, z)) with z = dinv r written (with
// dinv), else ((r, r), (r, r)).
template <class V>
Dot2 cg_xr_update(std::size_t n, V alpha, const V* p, const V* q, V* x, V* r,
                  const V* dinv = nullptr, V* z = nullptr);
// p = z + beta p (z = r without a preconditioner).
template <class V>
void cg_p_update(std::size_t n, V beta, const V* z, V* p);
template <class V>
double dot(std::size_t n, const V* x, const V* y);

}  // namespace spmvkit::ops::fused
