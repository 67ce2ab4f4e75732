// The merged solvers' fused vector kernels on the CPU (OpenMP): the same fusion as the CUDA
// kernels of merged_cuda.cu (each update carries the first stage of the dot products that
// read its output), scalars on the host. Sums accumulate in double.
#pragma once

#include <cstddef>

namespace spmvkit::ops::fused {

struct Dot2 {
  double first = 0, second = 0;
};

// BiCGSTAB (paper figure 2). p = r + beta (p - omega v).
template <class V>
void bicg_p_update(std::size_t n, V beta, V omega, const V* r, const V* v, V* p);
// s = r - alpha v.
template <class V>
void bicg_s_update(std::size_t n, V alpha, const V* r, const V* v, V* s);
// MDOT: (t, s) and (t, t) in one pass.
template <class V>
Dot2 mdot_ts_tt(std::size_t n, const V* t, const V* s);
// x += alpha p + omega s; r = s - omega t; returns ((r, r), (r0^, r)).
template <class V>
Dot2 bicg_xr_update(std::size_t n, V alpha, V omega, const V* r0, const V* p, const V* s,
                    const V* t, V* x, V* r);
// CG: x += alpha p; r -= alpha q; returns (r, r).
template <class V>
double cg_xr_update(std::size_t n, V alpha, const V* p, const V* q, V* x, V* r);
// p = r + beta p.
template <class V>
void cg_p_update(std::size_t n, V beta, const V* r, V* p);
template <class V>
double dot(std::size_t n, const V* x, const V* y);

}  // namespace spmvkit::ops::fused
