// The merged solvers' CUDA kernels (merged-kernels paper section 3.2-3.3, figure 2): each
// vector update also computes the first stage of the dot products that read its output;
// the last block to finish (a counter and a fence) does the second stage and the scalar
// arithmetic, so every scalar stays in GPU memory and no kernel waits for the host.
// Every kernel returns at once when the solve has stopped (state->status != kRunning): a
// converged solve queued further iterations that then do nothing, and x stays at the
// iterate that converged.
//
// Thread mapping: a 1D grid-stride loop, one element per thread per step; grid = the
// KrylovLaunch policy (enough blocks to fill the GPU, few enough that the last block sums
// the partials in one pass). Bytes per element: in each kernel's comment (V-sized words).
#pragma once

#include <cub/block/block_reduce.cuh>

#include "backend/cuda/cuda.hpp"
#include "ops/krylov_state.hpp"

namespace spmvkit::ops::krylov {

// Tuning policy: plain constants, chosen in one place.
struct KrylovLaunch {
  static constexpr int threads = 256;
  static constexpr int blocks_per_sm = 8;
};

template <class V>
__device__ inline bool finite(V v) {
  return isfinite(v);
}

// Block-sums `vals[0..K)` (CUB), writes them to partials[block*K + j]; the last block to
// arrive sums every block's partials (fixed order: deterministic) into out[0..K) and returns
// true in all of its threads. The counter is reset by that block for the next kernel.
template <class V, int K>
__device__ bool reduce_last_block(V (&vals)[K], V* partials, unsigned* counter, V (&out)[K]) {
  using Reduce = cub::BlockReduce<V, KrylovLaunch::threads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ bool last;
  for (int j = 0; j < K; ++j) {
    const V s = Reduce(temp).Sum(vals[j]);
    if (threadIdx.x == 0) partials[blockIdx.x * K + j] = s;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  for (int j = 0; j < K; ++j) {
    V s = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
      s += __ldcg(partials + b * K + j);
    out[j] = Reduce(temp).Sum(s);  // valid in thread 0
    __syncthreads();
  }
  if (threadIdx.x == 0) *counter = 0;
  return true;
}

#define SPMVKIT_KRYLOV_LOOP(i, n)                                                   \
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < (n); \
       i += std::size_t{gridDim.x} * blockDim.x)

// --- BiCGSTAB (paper figure 2) ---------------------------------------------------------------
// p_update: p = r + beta (p - omega v); with dinv, ph = dinv p. Reads r, p, v; writes p:
// 3n + n words (+ n + n with dinv).
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_p_update(std::size_t n, const KrylovState<V>* __restrict__ st, const V* __restrict__ r,
                  const V* __restrict__ v, V* __restrict__ p, const V* __restrict__ dinv,
                  V* __restrict__ ph) {
  if (st->status != kRunning) return;
  const V beta = st->beta, omega = st->omega;
  if (dinv) {
    SPMVKIT_KRYLOV_LOOP(i, n) {
      const V pi = r[i] + beta * (p[i] - omega * v[i]);
      p[i] = pi;
      ph[i] = dinv[i] * pi;
    }
    return;
  }
  SPMVKIT_KRYLOV_LOOP(i, n) p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

// reduce1: alpha = rho / (r0^, v). Reads r0^, v: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_alpha(std::size_t n, KrylovState<V>* st, const V* __restrict__ r0, const V* __restrict__ v,
               V* partials, unsigned* counter) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += r0[i] * v[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  const V r0v = out[0];
  if (!finite(r0v)) {
    st->status = kNonFinite;
  } else if (r0v == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kR0V;
  } else {
    st->alpha = st->rho / r0v;
  }
}

// s_update: s = r - alpha v; with dinv, sh = dinv s. Reads r, v; writes s: 2n + n words
// (+ n + n with dinv).
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_s_update(std::size_t n, const KrylovState<V>* __restrict__ st, const V* __restrict__ r,
                  const V* __restrict__ v, V* __restrict__ s, const V* __restrict__ dinv,
                  V* __restrict__ sh) {
  if (st->status != kRunning) return;
  const V alpha = st->alpha;
  if (dinv) {
    SPMVKIT_KRYLOV_LOOP(i, n) {
      const V si = r[i] - alpha * v[i];
      s[i] = si;
      sh[i] = dinv[i] * si;
    }
    return;
  }
  SPMVKIT_KRYLOV_LOOP(i, n) s[i] = r[i] - alpha * v[i];
}

// reduce2 (MDOT over the shared vector t): omega = (t, s) / (t, t). Reads t, s: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_omega(std::size_t n, KrylovState<V>* st, const V* __restrict__ t, const V* __restrict__ s,
               V* partials, unsigned* counter) {
  if (st->status != kRunning) return;
  V d[2] = {0, 0}, out[2];
  SPMVKIT_KRYLOV_LOOP(i, n) {
    const V ti = t[i];
    d[0] += ti * s[i];
    d[1] += ti * ti;
  }
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!finite(out[0]) || !finite(out[1])) {
    st->status = kNonFinite;
    return;
  }
  // t = A s = 0: s is zero (A nonsingular), x + alpha p solves the system; omega = 0 then
  // leaves r = s, and the residual check below decides.
  st->omega = out[1] != V(0) ? out[0] / out[1] : V(0);
}

// xr_update + reduce3: x += alpha ph + omega sh; r = s - omega t; (r, r) and (r0^, r); then
// the iteration's scalars and checks (ph = p, sh = s without a preconditioner). Reads x, p,
// s, t, r0^; writes x, r: 5n + 2n words (+ n for sh with a preconditioner).
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_xr_update(std::size_t n, KrylovState<V>* st, const V* __restrict__ r0,
                   const V* __restrict__ ph, const V* sh, const V* s, const V* __restrict__ t,
                   V* __restrict__ x, V* __restrict__ r, V* partials, unsigned* counter,
                   V* history) {
  if (st->status != kRunning) return;
  const V alpha = st->alpha, omega = st->omega;
  V d[2] = {0, 0}, out[2];
  SPMVKIT_KRYLOV_LOOP(i, n) {
    x[i] += alpha * ph[i] + omega * sh[i];
    const V ri = s[i] - omega * t[i];
    r[i] = ri;
    d[0] += ri * ri;
    d[1] += r0[i] * ri;
  }
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  const V res = sqrt(out[0]);
  const V rho = out[1];
  st->res = res;
  st->iterations += 1;
  *history = res;
  if (!finite(res) || !finite(rho)) {
    st->status = kNonFinite;
  } else if (res <= st->tol) {
    st->status = kConverged;
  } else if (omega == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kOmega;
  } else if (rho == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kRho;
  } else {
    st->beta = (rho / st->rho) * (alpha / omega);
    st->rho_old = st->rho;
    st->rho = rho;
  }
}

// --- CG --------------------------------------------------------------------------------------
// The new (r, z) (finite): beta = (r, z) / (r, z)_old, or a breakdown when it is 0.
template <class V>
__device__ inline void cg_take_rz(KrylovState<V>* st, V rz) {
  if (rz == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kRZ;
  } else {
    st->beta = rz / st->rho;
    st->rho = rz;
  }
}

// alpha = (r, r) / (p, q), q = A p. Reads p, q: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_alpha(std::size_t n, KrylovState<V>* st, const V* __restrict__ p, const V* __restrict__ q,
             V* partials, unsigned* counter) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += p[i] * q[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!finite(out[0])) {
    st->status = kNonFinite;
  } else if (out[0] == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kPAp;
  } else {
    st->alpha = st->rho / out[0];
  }
}

// x += alpha p; r -= alpha q; (r, r); with dinv, z = dinv r and (r, z); beta and the
// checks, unless `defer_beta` (a preconditioner the driver applies next: cg_rz sets beta).
// Reads x, p, r, q; writes x, r: 4n + 2n words (+ n + n with dinv).
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_xr_update(std::size_t n, KrylovState<V>* st, const V* __restrict__ p,
                 const V* __restrict__ q, V* __restrict__ x, V* __restrict__ r,
                 const V* __restrict__ dinv, V* __restrict__ z, bool defer_beta, V* partials,
                 unsigned* counter, V* history) {
  if (st->status != kRunning) return;
  const V alpha = st->alpha;
  V d[2] = {0, 0}, out[2];
  SPMVKIT_KRYLOV_LOOP(i, n) {
    x[i] += alpha * p[i];
    const V ri = r[i] - alpha * q[i];
    r[i] = ri;
    d[0] += ri * ri;
    if (dinv) {
      const V zi = dinv[i] * ri;
      z[i] = zi;
      d[1] += ri * zi;
    }
  }
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  const V rr = out[0];
  const V rz = dinv ? out[1] : rr;
  const V res = sqrt(rr);
  st->res = res;
  st->iterations += 1;
  *history = res;
  if (!finite(res) || !finite(rz)) {
    st->status = kNonFinite;
  } else if (res <= st->tol) {
    st->status = kConverged;
  } else if (!defer_beta) {
    cg_take_rz(st, rz);
  }
}

// PCG with a preconditioner applied between the kernels: (r, z), z = M r; beta and the check.
// Reads r, z: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_rz(std::size_t n, KrylovState<V>* st, const V* __restrict__ r, const V* __restrict__ z,
          V* partials, unsigned* counter) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += r[i] * z[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  const V rz = out[0];
  if (!finite(rz))
    st->status = kNonFinite;
  else
    cg_take_rz(st, rz);
}

// p = z + beta p (z = r without a preconditioner). Reads z, p; writes p: 2n + n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_p_update(std::size_t n, const KrylovState<V>* __restrict__ st, const V* __restrict__ z,
                V* __restrict__ p) {
  if (st->status != kRunning) return;
  const V beta = st->beta;
  SPMVKIT_KRYLOV_LOOP(i, n) p[i] = z[i] + beta * p[i];
}

#undef SPMVKIT_KRYLOV_LOOP

}  // namespace spmvkit::ops::krylov
