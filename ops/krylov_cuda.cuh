// The merged solvers' CUDA kernels (merged-kernels paper section 3.2-3.3, figure 2): each
// vector update also computes the first stage of the dot products that read its output;
// the last block to finish (a counter and a fence) does the second stage and the scalar
// arithmetic, so every scalar stays in GPU memory and no kernel waits for the host.
// Every kernel returns at once when the solve has stopped (state->status != kRunning): a
// converged solve queued further iterations that then do nothing, and x stays at the
// iterate that converged.
// Over several ranks (a distributed operator) a reducing kernel is given `sums`: its last
// block writes this rank's K partial sums there (in double) and stops short of the scalars;
// the driver sums them over the ranks (Operator::reduce_sum, one call of K values) and
// take_sums finishes the step with the same scalar code (the take_* functions below), so one
// rank and many run the same arithmetic on the same (global) sums.
//
// Thread mapping: a 1D grid-stride loop, one element per thread per step; grid = the
// KrylovLaunch policy (enough blocks to fill the GPU, few enough that the last block sums
// the partials in one pass). Bytes per element: in each kernel's comment (V-sized words).
//
// A preconditioner the kernels apply on the fly (PrecondView): Jacobi (h_i = dinv_i u_i,
// element-wise) or block-Jacobi (h = B_k^-1 u on each diagonal block k). The paper's fusion
// allows both: M acts inside a diagonal block, so the kernel that produces u (p, s or r) can
// also produce M u while u is still on chip, and the pass of a separate apply (reading u
// again) disappears. Block-Jacobi needs the whole block of u: those kernels walk the vectors
// in tiles of whole blocks (block_tiles below).
#pragma once

#include <cub/block/block_reduce.cuh>

#include "backend/cuda/cuda.hpp"
#include "ops/krylov_state.hpp"

namespace spmvkit::ops::krylov {

// Tuning policy: plain constants, chosen in one place.
struct KrylovLaunch {
  static constexpr int threads = 256;
  static constexpr int blocks_per_sm = 8;
  // The block-Jacobi variants of the update kernels (Blocks = true) hold the tile loop's
  // extra state: capped so that this many CUDA blocks fit on an SM (registers); the variants
  // without it are separate instantiations and keep their own, lower register counts.
  static constexpr int min_blocks_fused = 4;
};

// The preconditioner fused into the update kernels (none when both pointers are null).
// binv holds block-Jacobi's inverses interleaved (BlockJacobiPreconditioner::inverse_blocks):
// binv[j * stride + i] = (B_k^-1)(i - k bs, j) for row i of block k, so the threads of
// consecutive rows read consecutive addresses for each j.
template <class V>
struct PrecondView {
  const V* dinv = nullptr;
  const V* binv = nullptr;
  int bs = 1;
  std::size_t stride = 0;  // ceil(n / bs) * bs
};

// Block-Jacobi fused into an update: the CUDA block walks tiles of whole diagonal blocks
// (rows_per_tile = floor(threads / bs) * bs rows; bs <= threads), thread t of a tile owning
// row i = tile * rows_per_tile + t. `update(i)` does the element's vector update and returns
// u_i (coalesced); u goes to shared memory; then `store(i, u_i, h_i)` gets h_i = (B_k^-1 u)_i,
// the bs inverse entries of row i read coalesced (interleaved layout) and u from shared
// memory. Bytes per row: the update's own, plus bs words of inverse and one word of h. The
// loop bound is uniform over the CUDA block (the __syncthreads inside it).
template <class V, class Update, class Store>
__device__ inline void block_tiles(std::size_t n, const PrecondView<V>& m, Update update,
                                   Store store) {
  __shared__ V tile[KrylovLaunch::threads];
  const unsigned bs = static_cast<unsigned>(m.bs);
  const unsigned per_tile = (blockDim.x / bs) * bs;
  const std::size_t tiles = (n + per_tile - 1) / per_tile;
  const unsigned local = threadIdx.x % bs, base = threadIdx.x - local;
  for (std::size_t tile_id = blockIdx.x; tile_id < tiles; tile_id += gridDim.x) {
    const std::size_t i = tile_id * per_tile + threadIdx.x;
    const bool active = threadIdx.x < per_tile && i < n;
    V u = 0;
    if (active) u = update(i);
    tile[threadIdx.x] = u;  // rows past n (the last, padded block) count as 0
    __syncthreads();
    if (active) {
      const V* row = m.binv + i;
      V h = 0;
      for (unsigned j = 0; j < bs; ++j) h += __ldg(row + j * m.stride) * tile[base + j];
      store(i, u, h);
    }
    __syncthreads();
  }
}

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

// The last block's K sums: to `sums` (several ranks: the driver sums them over the ranks and
// take_sums finishes), or false when this rank's sums are the global ones (one rank).
template <class V, int K>
__device__ inline bool defer_to_ranks(const V (&out)[K], double* sums) {
  if (sums == nullptr) return false;
  for (int j = 0; j < K; ++j) sums[j] = static_cast<double>(out[j]);
  return true;
}

// --- BiCGSTAB (paper figure 2) ---------------------------------------------------------------
// p_update: p = r + beta (p - omega v); with M fused, ph = M p. Reads r, p, v; writes p:
// 3n + n words (+ n for ph, + n (Jacobi) or bs n (block-Jacobi) for M).
template <class V, bool Blocks>
__global__ void __launch_bounds__(KrylovLaunch::threads,
                                  Blocks ? KrylovLaunch::min_blocks_fused : 1)
    bicg_p_update(std::size_t n, const KrylovState<V>* __restrict__ st, const V* __restrict__ r,
                  const V* __restrict__ v, V* __restrict__ p, PrecondView<V> m,
                  V* __restrict__ ph) {
  if (st->status != kRunning) return;
  const V beta = st->beta, omega = st->omega;
  if constexpr (Blocks) {
    block_tiles(
        n, m,
        [&](std::size_t i) {
          const V pi = r[i] + beta * (p[i] - omega * v[i]);
          p[i] = pi;
          return pi;
        },
        [&](std::size_t i, V, V h) { ph[i] = h; });
    return;
  }
  if (m.dinv) {
    SPMVKIT_KRYLOV_LOOP(i, n) {
      const V pi = r[i] + beta * (p[i] - omega * v[i]);
      p[i] = pi;
      ph[i] = m.dinv[i] * pi;
    }
    return;
  }
  SPMVKIT_KRYLOV_LOOP(i, n) p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

// alpha = rho / (r0^, v).
template <class V>
__device__ inline void bicg_take_alpha(KrylovState<V>* st, V r0v) {
  if (!finite(r0v)) {
    st->status = kNonFinite;
  } else if (r0v == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kR0V;
  } else {
    st->alpha = st->rho / r0v;
  }
}

// reduce1: alpha = rho / (r0^, v). Reads r0^, v: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_alpha(std::size_t n, KrylovState<V>* st, const V* __restrict__ r0, const V* __restrict__ v,
               V* partials, unsigned* counter, double* sums) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += r0[i] * v[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!defer_to_ranks(out, sums)) bicg_take_alpha(st, out[0]);
}

// s_update: s = r - alpha v; with M fused, sh = M s. Reads r, v; writes s: 2n + n words
// (+ n for sh, + n (Jacobi) or bs n (block-Jacobi) for M).
template <class V, bool Blocks>
__global__ void __launch_bounds__(KrylovLaunch::threads,
                                  Blocks ? KrylovLaunch::min_blocks_fused : 1)
    bicg_s_update(std::size_t n, const KrylovState<V>* __restrict__ st, const V* __restrict__ r,
                  const V* __restrict__ v, V* __restrict__ s, PrecondView<V> m,
                  V* __restrict__ sh) {
  if (st->status != kRunning) return;
  const V alpha = st->alpha;
  if constexpr (Blocks) {
    block_tiles(
        n, m,
        [&](std::size_t i) {
          const V si = r[i] - alpha * v[i];
          s[i] = si;
          return si;
        },
        [&](std::size_t i, V, V h) { sh[i] = h; });
    return;
  }
  if (m.dinv) {
    SPMVKIT_KRYLOV_LOOP(i, n) {
      const V si = r[i] - alpha * v[i];
      s[i] = si;
      sh[i] = m.dinv[i] * si;
    }
    return;
  }
  SPMVKIT_KRYLOV_LOOP(i, n) s[i] = r[i] - alpha * v[i];
}

// omega = (t, s) / (t, t).
template <class V>
__device__ inline void bicg_take_omega(KrylovState<V>* st, V ts, V tt) {
  if (!finite(ts) || !finite(tt)) {
    st->status = kNonFinite;
    return;
  }
  // t = A s = 0: s is zero (A nonsingular), x + alpha p solves the system; omega = 0 then
  // leaves r = s, and the residual check of bicg_take_rho decides.
  st->omega = tt != V(0) ? ts / tt : V(0);
}

// reduce2 (MDOT over the shared vector t): omega = (t, s) / (t, t). Reads t, s: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_omega(std::size_t n, KrylovState<V>* st, const V* __restrict__ t, const V* __restrict__ s,
               V* partials, unsigned* counter, double* sums) {
  if (st->status != kRunning) return;
  V d[2] = {0, 0}, out[2];
  SPMVKIT_KRYLOV_LOOP(i, n) {
    const V ti = t[i];
    d[0] += ti * s[i];
    d[1] += ti * ti;
  }
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!defer_to_ranks(out, sums)) bicg_take_omega(st, out[0], out[1]);
}

// The end of an iteration from (r, r) and rho = (r0^, r): the residual (to
// history[iteration % history_len]), the checks, beta.
template <class V>
__device__ inline void bicg_take_rho(KrylovState<V>* st, V rr, V rho, V* history,
                                     int history_len) {
  const V alpha = st->alpha, omega = st->omega;
  const V res = sqrt(rr);
  st->res = res;
  history[st->iterations % history_len] = res;
  st->iterations += 1;
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

// xr_update + reduce3: x += alpha ph + omega sh; r = s - omega t; (r, r) and (r0^, r); then
// the iteration's scalars and checks (ph = p, sh = s without a preconditioner). Reads x, p,
// s, t, r0^; writes x, r: 5n + 2n words (+ n for sh with a preconditioner).
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    bicg_xr_update(std::size_t n, KrylovState<V>* st, const V* __restrict__ r0,
                   const V* __restrict__ ph, const V* sh, const V* s, const V* __restrict__ t,
                   V* __restrict__ x, V* __restrict__ r, V* partials, unsigned* counter, V* history,
                   int history_len, double* sums) {
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
  if (!defer_to_ranks(out, sums)) bicg_take_rho(st, out[0], out[1], history, history_len);
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

// alpha = (r, z) / (p, q).
template <class V>
__device__ inline void cg_take_alpha(KrylovState<V>* st, V pq) {
  if (!finite(pq)) {
    st->status = kNonFinite;
  } else if (pq == V(0)) {
    st->status = kBreakdown;
    st->breakdown = kPAp;
  } else {
    st->alpha = st->rho / pq;
  }
}

// alpha = (r, r) / (p, q), q = A p. Reads p, q: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_alpha(std::size_t n, KrylovState<V>* st, const V* __restrict__ p, const V* __restrict__ q,
             V* partials, unsigned* counter, double* sums) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += p[i] * q[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!defer_to_ranks(out, sums)) cg_take_alpha(st, out[0]);
}

// The end of an iteration from (r, r) and (r, z): the residual (to
// history[iteration % history_len]), the checks, and beta unless `defer_beta` (cg_rz sets it).
template <class V>
__device__ inline void cg_take_rr(KrylovState<V>* st, V rr, V rz, bool defer_beta, V* history,
                                  int history_len) {
  const V res = sqrt(rr);
  st->res = res;
  history[st->iterations % history_len] = res;
  st->iterations += 1;
  if (!finite(res) || !finite(rz)) {
    st->status = kNonFinite;
  } else if (res <= st->tol) {
    st->status = kConverged;
  } else if (!defer_beta) {
    cg_take_rz(st, rz);
  }
}

// x += alpha p; r -= alpha q; (r, r); with M fused, z = M r and (r, z); beta and the
// checks, unless `defer_beta` (a preconditioner the driver applies next: cg_rz sets beta).
// Reads x, p, r, q; writes x, r: 4n + 2n words (+ n for z, + n (Jacobi) or bs n
// (block-Jacobi) for M).
template <class V, bool Blocks>
__global__ void __launch_bounds__(KrylovLaunch::threads,
                                  Blocks ? KrylovLaunch::min_blocks_fused : 1)
    cg_xr_update(std::size_t n, KrylovState<V>* st, const V* __restrict__ p,
                 const V* __restrict__ q, V* __restrict__ x, V* __restrict__ r, PrecondView<V> m,
                 V* __restrict__ z, bool defer_beta, V* partials, unsigned* counter, V* history,
                 int history_len, double* sums) {
  if (st->status != kRunning) return;
  const V alpha = st->alpha;
  V d[2] = {0, 0}, out[2];
  if constexpr (Blocks) {
    block_tiles(
        n, m,
        [&](std::size_t i) {
          x[i] += alpha * p[i];
          const V ri = r[i] - alpha * q[i];
          r[i] = ri;
          return ri;
        },
        [&](std::size_t i, V ri, V zi) {
          z[i] = zi;
          d[0] += ri * ri;
          d[1] += ri * zi;
        });
  } else {
    SPMVKIT_KRYLOV_LOOP(i, n) {
      x[i] += alpha * p[i];
      const V ri = r[i] - alpha * q[i];
      r[i] = ri;
      d[0] += ri * ri;
      if (m.dinv) {
        const V zi = m.dinv[i] * ri;
        z[i] = zi;
        d[1] += ri * zi;
      }
    }
  }
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (!Blocks && !m.dinv) out[1] = out[0];  // (r, z) = (r, r)
  if (!defer_to_ranks(out, sums))
    cg_take_rr(st, out[0], out[1], defer_beta, history, history_len);
}

// PCG with a preconditioner applied between the kernels: (r, z), z = M r; beta and the check.
// Reads r, z: 2n words.
template <class V>
__global__ void __launch_bounds__(KrylovLaunch::threads)
    cg_rz(std::size_t n, KrylovState<V>* st, const V* __restrict__ r, const V* __restrict__ z,
          V* partials, unsigned* counter, double* sums) {
  if (st->status != kRunning) return;
  V d[1] = {0}, out[1];
  SPMVKIT_KRYLOV_LOOP(i, n) d[0] += r[i] * z[i];
  if (!reduce_last_block(d, partials, counter, out) || threadIdx.x != 0) return;
  if (defer_to_ranks(out, sums)) return;
  if (!finite(out[0]))
    st->status = kNonFinite;
  else
    cg_take_rz(st, out[0]);
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

// --- several ranks ---------------------------------------------------------------------------
// Which reducing kernel's step take_sums finishes.
enum class KrylovSums : int {
  bicg_alpha,
  bicg_omega,
  bicg_rho,
  cg_alpha,
  cg_rr,
  cg_rr_defer,
  cg_rz
};
// How many sums each step has (the length of its one reduce_sum over the ranks).
constexpr int sums_count(KrylovSums k) {
  return k == KrylovSums::bicg_alpha || k == KrylovSums::cg_alpha || k == KrylovSums::cg_rz ? 1 : 2;
}

// The scalar part of a reducing kernel, from `sums` summed over the ranks: one thread
// (<<<1, 1>>>), the same take_* code the last block runs on one rank. Reads 1-2 doubles.
template <class V>
__global__ void take_sums(KrylovSums which, KrylovState<V>* st, const double* sums, V* history,
                          int history_len) {
  if (st->status != kRunning) return;
  const V first = static_cast<V>(sums[0]);
  switch (which) {
    case KrylovSums::bicg_alpha:
      bicg_take_alpha(st, first);
      break;
    case KrylovSums::bicg_omega:
      bicg_take_omega(st, first, static_cast<V>(sums[1]));
      break;
    case KrylovSums::bicg_rho:
      bicg_take_rho(st, first, static_cast<V>(sums[1]), history, history_len);
      break;
    case KrylovSums::cg_alpha:
      cg_take_alpha(st, first);
      break;
    case KrylovSums::cg_rr:
    case KrylovSums::cg_rr_defer:
      cg_take_rr(st, first, static_cast<V>(sums[1]), which == KrylovSums::cg_rr_defer, history,
                 history_len);
      break;
    case KrylovSums::cg_rz:
      if (!finite(first))
        st->status = kNonFinite;
      else
        cg_take_rz(st, first);
      break;
  }
}

#undef SPMVKIT_KRYLOV_LOOP

// --- the device-side loop (merged_cuda.cu) ---------------------------------------------------
// A group of iterations runs as a CUDA graph WHILE node: group_begin decides whether the
// group runs at all, group_continue (the body's last node) whether another iteration follows.
// So an iteration after convergence (or past maxiter) launches nothing, SpMVs included: no
// queued work is wasted however early the solve stops. A group ends after `group` iterations
// (iterations % group == 0), where the host reads the residuals.
#if CUDART_VERSION >= 12040
template <class V>
__global__ void group_begin(const KrylovState<V>* st, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, st->status == kRunning && st->iterations < st->iteration_limit);
}

template <class V>
__global__ void group_continue(const KrylovState<V>* st, int group,
                               cudaGraphConditionalHandle handle) {
  const int it = st->iterations;
  cudaGraphSetConditional(handle,
                          st->status == kRunning && it % group != 0 && it < st->iteration_limit);
}
#endif

}  // namespace spmvkit::ops::krylov
