#include "ops/fused_cpu.hpp"

namespace spmvkit::ops::fused {
namespace {
using ssize = std::ptrdiff_t;
// Below this length a loop runs on one thread: a parallel region costs more than it saves.
constexpr std::size_t kParallelMin = 16384;
}  // namespace

template <class V>
void bicg_p_update(std::size_t n, V beta, V omega, const V* r, const V* v, V* p, const V* dinv,
                   V* ph) {
  if (dinv) {
#pragma omp parallel for schedule(static) if (n > kParallelMin)
    for (ssize i = 0; i < static_cast<ssize>(n); ++i) {
      const V pi = r[i] + beta * (p[i] - omega * v[i]);
      p[i] = pi;
      ph[i] = dinv[i] * pi;
    }
    return;
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

template <class V>
void bicg_s_update(std::size_t n, V alpha, const V* r, const V* v, V* s, const V* dinv, V* sh) {
  if (dinv) {
#pragma omp parallel for schedule(static) if (n > kParallelMin)
    for (ssize i = 0; i < static_cast<ssize>(n); ++i) {
      const V si = r[i] - alpha * v[i];
      s[i] = si;
      sh[i] = dinv[i] * si;
    }
    return;
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) s[i] = r[i] - alpha * v[i];
}

template <class V>
Dot2 mdot_ts_tt(std::size_t n, const V* t, const V* s) {
  double ts = 0, tt = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : ts, tt)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) {
    const double ti = t[i];
    ts += ti * s[i];
    tt += ti * ti;
  }
  return {ts, tt};
}

template <class V>
Dot2 bicg_xr_update(std::size_t n, V alpha, V omega, const V* r0, const V* ph, const V* sh,
                    const V* s, const V* t, V* x, V* r) {
  double rr = 0, r0r = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : rr, r0r)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) {
    x[i] += alpha * ph[i] + omega * sh[i];
    const V ri = s[i] - omega * t[i];
    r[i] = ri;
    rr += static_cast<double>(ri) * ri;
    r0r += static_cast<double>(r0[i]) * ri;
  }
  return {rr, r0r};
}

template <class V>
Dot2 cg_xr_update(std::size_t n, V alpha, const V* p, const V* q, V* x, V* r, const V* dinv,
                  V* z) {
  double rr = 0, rz = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : rr, rz)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) {
    x[i] += alpha * p[i];
    const V ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr += static_cast<double>(ri) * ri;
    if (dinv) {
      const V zi = dinv[i] * ri;
      z[i] = zi;
      rz += static_cast<double>(ri) * zi;
    }
  }
  return {rr, dinv ? rz : rr};
}

template <class V>
void cg_p_update(std::size_t n, V beta, const V* z, V* p) {
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) p[i] = z[i] + beta * p[i];
}

template <class V>
double dot(std::size_t n, const V* x, const V* y) {
  double s = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : s)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) s += static_cast<double>(x[i]) * y[i];
  return s;
}

#define SPMVKIT_INSTANTIATE(V)                                                                   \
  template void bicg_p_update<V>(std::size_t, V, V, const V*, const V*, V*, const V*, V*);       \
  template void bicg_s_update<V>(std::size_t, V, const V*, const V*, V*, const V*, V*);          \
  template Dot2 mdot_ts_tt<V>(std::size_t, const V*, const V*);                                  \
  template Dot2 bicg_xr_update<V>(std::size_t, V, V, const V*, const V*, const V*, const V*,      \
                                  const V*, V*, V*);                                             \
  template Dot2 cg_xr_update<V>(std::size_t, V, const V*, const V*, V*, V*, const V*, V*);       \
  template void cg_p_update<V>(std::size_t, V, const V*, V*);                                    \
  template double dot<V>(std::size_t, const V*, const V*);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::ops::fused
