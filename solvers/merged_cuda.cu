// The merged solvers on CUDA (merged-kernels paper figure 2, and beyond it):
// - every scalar lives in a KrylovState in GPU memory; the kernels of ops/krylov_cuda.cuh
//   update it, so no kernel waits for the host;
// - the host learns the residual every `check_every` iterations: after each group the state
//   and that group's residuals are copied asynchronously to pinned memory and an event is
//   recorded; the host waits on the group before last, so the GPU always has work queued;
// - a group of check_every iterations is one CUDA graph (two, one per pinned slot), built once
//   and relaunched: a WHILE conditional node over one captured iteration, which the GPU
//   itself ends when the solve stops (ops/krylov_cuda.cuh group_begin/group_continue). So the
//   groups queued ahead of the host do no work after convergence, SpMVs included: a solve of
//   4 iterations costs 4 iterations, not the 2 x check_every a queued group of fixed length
//   would. Without conditional nodes (an older driver) a group is check_every captured
//   iterations, whose kernels return at once after convergence (the SpMVs still run).
// Either way x is the iterate that converged and the iteration count is exact.
// A preconditioner: Jacobi and block-Jacobi are fused into the update kernels
// (ops/krylov_cuda.cuh PrecondView); any other is its own apply between them, on the same
// stream (captured in the graph like the SpMV).
// A distributed operator of several ranks (Operator::reduce_sum sums): the same kernels, but
// at each reduction point (BiCGSTAB 3 an iteration, CG 2, +1 with a separate preconditioner,
// as the merged CPU solver) this rank's partial sums are summed over the ranks and take_sums
// forms the scalars on the GPU from the global sums; the stop test reads the global residual
// norm. Where the operator sums on the device (reduce_sum_device: NCCL), the sum is queued on
// the stream and the loop runs in groups as on one rank (the host reads the residual every
// check_every iterations); otherwise the host waits for the partials at each point and sums
// them with reduce_sum (MPI). No CUDA graphs over several ranks.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/pinned.hpp"
#include "ops/blas.hpp"
#include "ops/krylov_cuda.cuh"
#include "solvers/solver_loops.hpp"
#include "spmvkit/preconditioners.hpp"

namespace spmvkit::solvers_detail {
namespace {

using Clock = std::chrono::steady_clock;
using ops::KrylovState;
using ops::krylov::KrylovLaunch;
using ops::krylov::PrecondView;

// The graphs' owners, the per-thread workspace and its lease.
#include "solvers/merged_cuda_workspace.cuh"

template <class V>
class MergedSolve {
 public:
  static constexpr int kMaxSums = 2;

  MergedSolve(const Operator<V>& a, const Operator<V>* m, V* x, const SolverOptions& o,
              unsigned shadow)
      : a_(a),
        shadow_(shadow),
        m_(m),
        o_(o),
        n_(static_cast<std::size_t>(a.rows())),
        x_(x),
        k_(o.check_every),
        stream_(cuda::Context::get().stream()),
        ranks_(a.reduce_sum(nullptr, 0)),
        device_sums_(ranks_ && a.reduce_sum_device(nullptr, 0)) {
    const bool bicg = o.method == SolverMethod::bicgstab;
    const auto* bj = dynamic_cast<const BlockJacobiPreconditioner<V>*>(m);
    if (const auto* j = dynamic_cast<const JacobiPreconditioner<V>*>(m)) {
      fused_.dinv = j->inverse_diagonal();
    } else if (bj && bj->block_size() <= KrylovLaunch::threads) {
      fused_.binv = bj->inverse_blocks();
      fused_.bs = bj->block_size();
      fused_.stride = bj->inverse_stride();
    } else {
      separate_ = m;
    }
    const unsigned max_blocks =
        static_cast<unsigned>(cuda::Context::get().sm_count() * KrylovLaunch::blocks_per_sm);
    blocks_ = std::min(cuda::grid_for(n_, KrylovLaunch::threads), max_blocks);
    Workspace<V>& w = *ws_;
    const int device = cuda::Context::get().device();
    try {
      if (w.device != device) w.clear();
      w.device = device;
      bool grown = false;
      grown |= grow(w.r, n_);
      grown |= grow(w.p, n_);
      grown |= grow(w.v, n_);  // CG: q = A p
      if (bicg) {
        grown |= grow(w.r0, n_);
        grown |= grow(w.s, n_);
        grown |= grow(w.t, n_);
      }
      if (m) grown |= grow(w.ph, n_);  // CG: z = M r
      if (m && bicg) grown |= grow(w.sh, n_);
      grown |= grow(w.partials, std::size_t{blocks_} * 2);
      if (grow(w.counter, 1)) {
        grown = true;
        cuda::fill_bytes(w.counter.data(), 0, sizeof(unsigned));
      }
      grown |= grow(w.state, 1);
      if (grow(w.dhist, 2 * static_cast<std::size_t>(k_))) {
        grown = true;
        // Iterations queued after the solve stopped leave their residual slots unwritten,
        // yet the group's copy to the host takes all of them (the host reads only up to
        // `iterations`): zeroed once, so that copy never reads never-written memory
        // (initcheck).
        cuda::fill_bytes(w.dhist.data(), 0, w.dhist.bytes());
      }
      grown |= grow(w.hist, 2 * static_cast<std::size_t>(k_));
      grown |= grow(w.hstate, 2);
      if (ranks_) {
        if (grow(w.dsums, kMaxSums)) cuda::fill_bytes(w.dsums.data(), 0, w.dsums.bytes());
        grow(w.hsums, kMaxSums);
      }
      if (grown) w.drop_graphs();  // they point into buffers that are gone
    } catch (...) {
      w.clear();  // an allocation failed: hold nothing
      throw;
    }
    r_ = w.r.data();
    r0_ = w.r0.data();
    p_ = w.p.data();
    v_ = w.v.data();
    s_ = w.s.data();
    t_ = w.t.data();
    ph_ = w.ph.data();
    sh_ = w.sh.data();
    partials_ = w.partials.data();
    dhist_ = w.dhist.data();
    counter_ = w.counter.data();
    state_ = w.state.data();
    dsums_ = w.dsums.data();
    hsums_ = w.hsums.data();
    pinned_hist_ = w.hist.data();
    pinned_state_ = w.hstate.data();
    key_.a = a.id();
    key_.m = m ? m->id() : 0;
    key_.x = x;
    key_.n = n_;
    key_.method = static_cast<int>(o.method);
    key_.check_every = k_;
    key_.stream = stream_;
  }

  LoopResult run(const V* b, double tol, std::vector<double>* history,
                 const ReplaceFn<V>* replace) {
    LoopResult out;
    auto record = [&](int k, double res) {
      out.residual_norm = res;
      if (history) history->push_back(res);
      if (o_.callback) o_.callback(k, res);
    };
    const bool profile = solve_profile();
    if (profile) SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    auto t_phase = Clock::now();
    auto phase_ms = [&] {
      if (profile) SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      const auto now = Clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - t_phase).count();
      t_phase = now;
      return ms;
    };
    a_.apply(x_, b, r_, V(-1), V(1));
    const V res0 = global_nrm2(a_, ops::cuda_blas::nrm2(n_, r_));
    record(0, res0);
    if (!std::isfinite(res0)) {
      out.status = SolveStatus::non_finite;
      return out;
    }
    if (res0 <= tol) {
      out.status = SolveStatus::converged;
      return out;
    }
    if (o_.maxiter == 0) return out;

    const bool bicg = o_.method == SolverMethod::bicgstab;
    if (bicg) {
      ops::cuda_blas::shadow_residual(n_, r_, r0_, a_.first_row(), shadow_);
      cuda::fill_bytes(p_, 0, n_ * sizeof(V));
      cuda::fill_bytes(v_, 0, n_ * sizeof(V));
    } else if (m_) {
      m_->apply(r_, nullptr, ph_, V(1), V(0));  // z0 = M r0
      cuda::copy_on_device(p_, ph_, n_ * sizeof(V));
    } else {
      cuda::copy_on_device(p_, r_, n_ * sizeof(V));
    }
    KrylovState<V> init{};
    init.rho_old = V(1);
    init.rho = res0 * res0;  // CG (r, r)
    if (bicg) init.rho = global_dot(a_, ops::cuda_blas::dot(n_, r0_, r_));  // (r0^, r0)
    if (!bicg && m_) {
      // PCG: (r0, M r0)
      init.rho = global_dot(a_, ops::cuda_blas::dot(n_, r_, ph_));
      if (!(init.rho > V(0))) {
        out.status = std::isfinite(init.rho) ? SolveStatus::breakdown : SolveStatus::non_finite;
        out.breakdown = ops::breakdown_name(ops::kRZ);
        return out;
      }
    }
    init.alpha = V(1);
    init.beta = V(0);
    init.omega = V(1);
    init.res = res0;
    init.tol = static_cast<V>(tol);
    init.status = ops::kRunning;
    init.iteration_limit = o_.maxiter;
    cuda::copy_to_device(state_, &init, sizeof init);
    out.r0_ms = phase_ms();

    const bool graphs = !ranks_ && o_.cuda_graph && graphs_for_this_solve(out.graphs_reused);
    out.cuda_graph = graphs;
    out.capture_ms = phase_ms();

    SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto t0 = Clock::now();
    if (ranks_ && !device_sums_) {
      // One iteration at a time; each reduction point reports the state (record_ranks), and
      // the last iteration's residual is read after the loop.
      record_ = record;
      for (int queued = 0; queued < o_.maxiter && enqueue_iteration(); ++queued) {
      }
      SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      out.loop_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const KrylovState<V> st = download_state();
      record_ranks(st);
      return finish(st, out);
    }
    cuda::Event done[2];
    // Reliable updates (replace given): the loop runs in segments, each from iteration 0 of
    // the state (so the groups stay aligned with the history slots) up to its limit; between
    // two the driver replaces the residual and resume_after_replacement sets the scalars.
    // `base` counts the iterations of the segments before; the replacements' time is not
    // the loop's.
    int base = 0, limit = o_.maxiter;
    double replace_ms = 0;
    for (;;) {
      int queued = 0, group = 0;
      int group_first[2] = {0, 0}, group_size[2] = {0, 0};
      bool stopped = false;
      auto consume = [&](int slot) {
        SPMVKIT_CUDA_CHECK(cudaEventSynchronize(done[slot].get()));
        const KrylovState<V>& st = pinned_state_[slot];
        for (int j = 0; j < group_size[slot]; ++j) {
          const int it = group_first[slot] + j + 1;
          if (it > st.iterations) break;
          record(base + it, pinned_hist_[static_cast<std::size_t>(slot) * k_ + j]);
        }
        stopped = st.status != ops::kRunning;
      };
      while (queued < limit) {
        const int slot = group & 1;
        if (group >= 2) {
          consume(slot);  // the group that used this slot, two groups ago
          if (stopped) break;
        }
        const int m = std::min(k_, limit - queued);
        group_first[slot] = queued;
        group_size[slot] = m;
        if (graphs && (m == k_ || while_graphs_)) {
          SPMVKIT_CUDA_CHECK(cudaGraphLaunch(ws_->graph[slot].exec, stream_));
        } else {
          enqueue_group(slot, m);
        }
        SPMVKIT_CUDA_CHECK(cudaEventRecord(done[slot].get(), stream_));
        queued += m;
        ++group;
      }
      // The groups still unread, oldest first.
      for (int g = std::max(0, group - 2); g < group && !stopped; ++g) consume(g & 1);
      SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      KrylovState<V> st = download_state();
      const bool at_limit = st.status == ops::kRunning && st.iterations >= st.iteration_limit;
      if (!replace || !(st.status == ops::kConverged || at_limit)) {
        st.iterations += base;
        out.loop_ms =
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count() - replace_ms;
        return finish(st, out);
      }
      const auto tr = Clock::now();
      const Replacement rep = (*replace)(st.iterations, x_, r_);
      base += st.iterations;
      if (rep.resume)
        resume_after_replacement(a_, m_, o_.method, at_limit, rep.ratio, r_, r0_, p_, v_, ph_, st);
      if (!rep.resume || st.status != ops::kRunning) {
        if (!rep.resume) st.status = ops::kConverged;  // the driver is finished
        st.iterations = base;
        out.loop_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() -
                      replace_ms -
                      std::chrono::duration<double, std::milli>(Clock::now() - tr).count();
        return finish(st, out);
      }
      st.iterations = 0;
      st.tol = static_cast<V>(rep.tol);
      st.iteration_limit = rep.limit;
      limit = rep.limit;
      cuda::copy_to_device(state_, &st, sizeof st);
      replace_ms += std::chrono::duration<double, std::milli>(Clock::now() - tr).count();
    }
  }

 private:
  KrylovState<V> download_state() {
    KrylovState<V> st;
    cuda::copy_to_host(&st, state_, sizeof st);
    return st;
  }

  // The loop's result from the final state.
  static LoopResult finish(const KrylovState<V>& st, LoopResult& out) {
    out.iterations = st.iterations;
    out.residual_norm = st.res;
    switch (st.status) {
      case ops::kConverged:
        out.status = SolveStatus::converged;
        break;
      case ops::kBreakdown:
        out.status = SolveStatus::breakdown;
        out.breakdown = ops::breakdown_name(st.breakdown);
        break;
      case ops::kNonFinite:
        out.status = SolveStatus::non_finite;
        break;
      default:
        out.status = SolveStatus::max_iterations;
    }
    return out;
  }

  // Several ranks: the residuals of the iterations finished since the last call, from a state
  // read on the host (every rank records the same global values).
  void record_ranks(const KrylovState<V>& st) {
    if (st.iterations > recorded_) record_(st.iterations, st.res);
    recorded_ = st.iterations;
  }

  // After a reducing kernel (given dsums_): one rank, nothing (the kernel formed the scalars).
  // Several: waits for this rank's partial sums, sums them over the ranks in one reduce_sum
  // and forms the scalars on the GPU (take_sums). False when the solve had stopped before the
  // kernel: every rank reads the same state (scalars from the same global sums), so all stop
  // at the same point and no rank is left waiting in a reduction.
  bool sum_over_ranks(ops::krylov::KrylovSums which) {
    if (!ranks_) return true;
    const int count = ops::krylov::sums_count(which);
    if (device_sums_) {
      // Queued: the sum over the ranks, then the scalars (every rank queues the same steps;
      // after a stop the kernels return at once, the sums still match rank to rank).
      a_.reduce_sum_device(dsums_, count);
      ops::krylov::take_sums<<<1, 1, 0, stream_>>>(which, state_, dsums_, dhist_, 2 * k_);
      SPMVKIT_LAUNCH_CHECK();
      return true;
    }
    KrylovState<V>* host_state = pinned_state_;
    SPMVKIT_CUDA_CHECK(
        cudaMemcpyAsync(hsums_, dsums_, count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(host_state, state_, sizeof(KrylovState<V>),
                                       cudaMemcpyDeviceToHost, stream_));
    SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    record_ranks(*host_state);
    if (host_state->status != ops::kRunning) return false;
    a_.reduce_sum(hsums_, count);
    SPMVKIT_CUDA_CHECK(
        cudaMemcpyAsync(dsums_, hsums_, count * sizeof(double), cudaMemcpyHostToDevice, stream_));
    ops::krylov::take_sums<<<1, 1, 0, stream_>>>(which, state_, dsums_, dhist_, 2 * k_);
    SPMVKIT_LAUNCH_CHECK();
    return true;
  }

  // One iteration; its residual goes to dhist[iteration % (2 check_every)], the slot of its
  // group. False (several ranks only) when the solve has stopped: nothing more need be queued.
  bool enqueue_iteration() {
    using namespace ops::krylov;
    const unsigned g = blocks_, t = KrylovLaunch::threads;
    KrylovState<V>* st = state_;
    V* part = partials_;
    unsigned* cnt = counter_;
    V* hist = dhist_;
    const int hlen = 2 * k_;
    double* sums = ranks_ ? dsums_ : nullptr;
    // M p and M s (BiCGSTAB) or z = M r (CG), or the vectors themselves without M.
    V* pm = m_ ? ph_ : p_;
    V* sm = m_ ? sh_ : s_;
    V* z = m_ ? ph_ : r_;
    if (o_.method == SolverMethod::bicgstab) {
      (fused_.binv ? bicg_p_update<V, true> : bicg_p_update<V, false>)<<<g, t, 0, stream_>>>(
          n_, st, r_, v_, p_, fused_, pm);
      SPMVKIT_LAUNCH_CHECK();
      if (separate_) separate_->apply(p_, nullptr, pm, V(1), V(0));
      a_.apply(pm, nullptr, v_, V(1), V(0));
      bicg_alpha<<<g, t, 0, stream_>>>(n_, st, r0_, v_, part, cnt, sums);
      SPMVKIT_LAUNCH_CHECK();
      if (!sum_over_ranks(KrylovSums::bicg_alpha)) return false;
      (fused_.binv ? bicg_s_update<V, true> : bicg_s_update<V, false>)<<<g, t, 0, stream_>>>(
          n_, st, r_, v_, s_, fused_, sm);
      SPMVKIT_LAUNCH_CHECK();
      if (separate_) separate_->apply(s_, nullptr, sm, V(1), V(0));
      a_.apply(sm, nullptr, t_, V(1), V(0));
      bicg_omega<<<g, t, 0, stream_>>>(n_, st, t_, s_, part, cnt, sums);
      SPMVKIT_LAUNCH_CHECK();
      if (!sum_over_ranks(KrylovSums::bicg_omega)) return false;
      bicg_xr_update<<<g, t, 0, stream_>>>(n_, st, r0_, pm, sm, s_, t_, x_, r_, part, cnt, hist,
                                           hlen, sums);
      SPMVKIT_LAUNCH_CHECK();
      return sum_over_ranks(KrylovSums::bicg_rho);
    } else {
      a_.apply(p_, nullptr, v_, V(1), V(0));
      cg_alpha<<<g, t, 0, stream_>>>(n_, st, p_, v_, part, cnt, sums);
      SPMVKIT_LAUNCH_CHECK();
      if (!sum_over_ranks(KrylovSums::cg_alpha)) return false;
      (fused_.binv ? cg_xr_update<V, true> : cg_xr_update<V, false>)<<<g, t, 0, stream_>>>(
          n_, st, p_, v_, x_, r_, fused_, z, separate_ != nullptr, part, cnt, hist, hlen, sums);
      SPMVKIT_LAUNCH_CHECK();
      if (!sum_over_ranks(separate_ ? KrylovSums::cg_rr_defer : KrylovSums::cg_rr)) return false;
      if (separate_) {
        // Applied even after the solve stopped (the kernels around it return at once).
        separate_->apply(r_, nullptr, z, V(1), V(0));
        cg_rz<<<g, t, 0, stream_>>>(n_, st, r_, z, part, cnt, sums);
        SPMVKIT_LAUNCH_CHECK();
        if (!sum_over_ranks(KrylovSums::cg_rz)) return false;
      }
      cg_p_update<<<g, t, 0, stream_>>>(n_, st, z, p_);
      SPMVKIT_LAUNCH_CHECK();
    }
    return true;
  }

  // The asynchronous copies of the state and the group's residuals to pinned `slot`.
  void enqueue_copies(int slot) {
    const std::size_t off = static_cast<std::size_t>(slot) * k_;
    SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(pinned_hist_ + off, dhist_ + off, k_ * sizeof(V),
                                       cudaMemcpyDeviceToHost, stream_));
    SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(pinned_state_ + slot, state_, sizeof(KrylovState<V>),
                                       cudaMemcpyDeviceToHost, stream_));
  }

  // m iterations launched directly (their kernels return at once after the solve stopped),
  // then the copies to pinned `slot`.
  void enqueue_group(int slot, int m) {
    for (int j = 0; j < m; ++j) enqueue_iteration();
    enqueue_copies(slot);
  }

  // The workspace's graphs when they were captured for this solve's GraphKey (`reused`),
  // else freshly captured ones, kept in the workspace for the next solve.
  bool graphs_for_this_solve(bool& reused) {
    Workspace<V>& w = *ws_;
    if (w.graphs && w.key == key_) {
      // Unrolled graphs run full groups only: none for a maxiter below check_every (kept).
      reused = w.while_graphs || o_.maxiter >= k_;
      while_graphs_ = w.while_graphs;
      return reused;
    }
    reused = false;
    w.drop_graphs();
    if (!capture_graphs()) return false;
    w.graphs = true;
    w.while_graphs = while_graphs_;
    w.key = key_;
    return true;
  }

  // The CUDA graphs of a group (merged_cuda_graphs.cuh): the WHILE graphs where conditional
  // nodes work, else the unrolled ones (full groups only); failed() clears a failed capture.
  bool capture_graphs();
  bool capture_while_graphs();
  bool failed();
  bool capture_unrolled_graphs();

  const Operator<V>& a_;
  unsigned shadow_;                        // BiCGSTAB's shadow residual seed (ops/blas.hpp)
  const Operator<V>* m_;                   // the preconditioner, or nullptr
  ops::krylov::PrecondView<V> fused_;      // Jacobi or block-Jacobi, fused into the updates
  const Operator<V>* separate_ = nullptr;  // any other preconditioner (its own apply)
  bool while_graphs_ = false;              // the graphs end their groups on the GPU
  const SolverOptions& o_;
  std::size_t n_;
  V* x_;
  int k_;
  cudaStream_t stream_;
  // Several ranks: the partial sums of one reduction point (device, and pinned for MPI), the
  // residuals recorded so far and where they go.
  bool ranks_ = false;
  bool device_sums_ = false;  // the sums over the ranks queued on the device (NCCL)
  int recorded_ = 0;
  std::function<void(int, double)> record_;
  unsigned blocks_ = 1;
  WorkspaceLease<V> ws_;  // everything below points into it
  GraphKey key_;
  V *r_, *r0_, *p_, *v_, *s_, *t_, *ph_, *sh_, *partials_, *dhist_;
  unsigned* counter_;
  KrylovState<V>* state_;
  double *dsums_, *hsums_;
  V* pinned_hist_;                // the host's pinned copies of the residuals
  KrylovState<V>* pinned_state_;  // ... and of the state, one per slot
};

// MergedSolve's graph capture, defined out of the class.
#include "solvers/merged_cuda_graphs.cuh"

}  // namespace

bool release_cuda_workspaces() {
  bool freed = false;
  for (bool f : {release_workspace(thread_workspace<float>()),
                 release_workspace(thread_workspace<double>())})
    freed = freed || f;
  return freed;
}

namespace {
// Out of device memory, device_alloc frees the calling thread's idle solver workspaces (these
// and solve()'s kept vectors) and retries.
const bool kReleaseHookAdded = [] {
  cuda::add_release_hook(&release_solver_workspace);
  return true;
}();
}  // namespace

template <class V>
LoopResult merged_cuda_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x,
                            double tol, const SolverOptions& o, std::vector<double>* history,
                            const ReplaceFn<V>* replace, unsigned shadow) {
  const bool profile = solve_profile();
  if (profile) SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(cuda::Context::get().stream()));
  const auto t0 = Clock::now();
  MergedSolve<V> solve(a, m, x, o, shadow);
  if (profile) SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(cuda::Context::get().stream()));
  const double alloc_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  LoopResult out = solve.run(b, tol, history, a.reduce_sum(nullptr, 0) ? nullptr : replace);
  out.alloc_ms = alloc_ms;
  return out;
}

template LoopResult merged_cuda_loop<float>(const Operator<float>&, const Operator<float>*,
                                            const float*, float*, double, const SolverOptions&,
                                            std::vector<double>*, const ReplaceFn<float>*,
                                            unsigned);
template LoopResult merged_cuda_loop<double>(const Operator<double>&, const Operator<double>*,
                                             const double*, double*, double, const SolverOptions&,
                                             std::vector<double>*, const ReplaceFn<double>*,
                                             unsigned);

}  // namespace spmvkit::solvers_detail
