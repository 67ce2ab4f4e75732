// The merged solvers on the CPU: the fused loops of ops/fused_cpu.hpp in the order of the
// merged-kernels paper's figure 2 (p_update, SpMV, reduce1, s_update, SpMV, reduce2,
// xr_update + reduce3), the same scalar logic as the CUDA kernels (ops/krylov_cuda.cuh).
// A Jacobi preconditioner is fused into the vector updates (they also write D^-1 p, D^-1 s,
// D^-1 r); any other preconditioner is one apply after the update that produces its input.
#include <chrono>
#include <cmath>

#include "ops/blas.hpp"
#include "ops/fused_cpu.hpp"
#include "ops/krylov_state.hpp"
#include "spmvkit/preconditioners.hpp"
#include "solvers/solver_loops.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::solvers_detail {
namespace {

using Clock = std::chrono::steady_clock;

template <class V>
bool finite(V v) {
  return std::isfinite(v);
}

// Both sums of a fused pass in one reduction (one message a distributed solve).
template <class V>
void reduce_pair(const Operator<V>& a, ops::fused::Dot2& d) {
  double both[2] = {d.first, d.second};
  if (a.reduce_sum(both, 2)) d = {both[0], both[1]};
}

}  // namespace

template <class V>
LoopResult merged_cpu_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                           const SolverOptions& o, std::vector<double>* history,
                           const ReplaceFn<V>* replace, unsigned shadow) {
  namespace fz = ops::fused;
  const Backend be = Backend::cpu;
  const std::size_t n = static_cast<std::size_t>(a.rows());
  LoopResult out;
  auto record = [&](int k, double res) {
    out.residual_norm = res;
    if (history) history->push_back(res);
    if (o.callback) o.callback(k, res);
  };
  auto stop = [&](SolveStatus s, int breakdown = ops::kNoBreakdown) {
    out.status = s;
    out.breakdown = ops::breakdown_name(breakdown);
  };
  Vector<V> r(n, be);
  a.apply(x, b, r.data(), V(-1), V(1));
  double rr0 = fz::dot(n, r.data(), r.data());
  a.reduce_sum(&rr0, 1);
  record(0, static_cast<V>(std::sqrt(rr0)));
  if (!finite(out.residual_norm)) {
    stop(SolveStatus::non_finite);
    return out;
  }
  if (out.residual_norm <= tol) {
    stop(SolveStatus::converged);
    return out;
  }
  if (o.maxiter == 0) return out;
  const auto* jacobi = dynamic_cast<const JacobiPreconditioner<V>*>(m);
  const V* dinv = jacobi ? jacobi->inverse_diagonal() : nullptr;
  const Operator<V>* separate = jacobi ? nullptr : m;  // applied as its own step

  const auto t0 = Clock::now();
  int k = 0;
  // Reliable updates (replace given): the current segment's first iteration, its limit and
  // trigger, and the time spent in the driver's replacements (not the loop's).
  int seg0 = 0, limit = o.maxiter;
  double trigger = tol, replace_ms = 0;
  // Calls the driver; false when the loop must stop (the driver finished, or resuming met a
  // breakdown). `st` carries the loop's scalars in and out.
  auto replace_now = [&](bool at_limit, const V* r0, V* p, V* v, V* z, ops::KrylovState<V>& st) {
    const auto tr = Clock::now();
    const Replacement rep = (*replace)(k - seg0, x, r.data());
    bool go = rep.resume;
    if (!go) {
      stop(SolveStatus::converged);
    } else {
      resume_after_replacement(a, m, o.method, at_limit, rep.ratio, r.data(), r0, p, v, z, st);
      if (st.status != ops::kRunning) {
        stop(st.status == ops::kBreakdown ? SolveStatus::breakdown : SolveStatus::non_finite,
             st.breakdown);
        go = false;
      }
      trigger = rep.tol;
      seg0 = k;
      limit = rep.limit;
    }
    replace_ms += std::chrono::duration<double, std::milli>(Clock::now() - tr).count();
    return go;
  };
  if (o.method == SolverMethod::bicgstab) {
    Vector<V> r0(n, be), p(n, be), v(n, be), s(n, be), t(n, be), ph, sh;
    if (m) {
      ph = Vector<V>(n, be);
      sh = Vector<V>(n, be);
    }
    V* pm = m ? ph.data() : p.data();  // M p and M s, or p and s themselves
    V* sm = m ? sh.data() : s.data();
    ops::shadow_residual(be, n, r.data(), r0.data(), a.first_row(), shadow);
    ops::fill_zero(be, n, p.data());
    ops::fill_zero(be, n, v.data());
    double rho0 = fz::dot(n, r0.data(), r.data());
    a.reduce_sum(&rho0, 1);
    V rho = static_cast<V>(rho0), rho_old = 1, beta = 0, omega = 1, alpha = 1;
    auto bicg_replace = [&](bool at_limit) {
      ops::KrylovState<V> st{};
      st.rho = rho;
      st.rho_old = rho_old;
      st.alpha = alpha;
      st.beta = beta;
      st.omega = omega;
      const bool go = replace_now(at_limit, r0.data(), p.data(), v.data(), nullptr, st);
      rho = st.rho;
      rho_old = st.rho_old;
      beta = st.beta;
      return go;
    };
    for (;;) {
      if (k - seg0 >= limit) {
        if (replace && bicg_replace(true)) continue;
        break;
      }
      fz::bicg_p_update(n, beta, omega, r.data(), v.data(), p.data(), dinv, pm);
      if (separate) separate->apply(p.data(), nullptr, pm, V(1), V(0));
      a.apply(pm, nullptr, v.data(), V(1), V(0));
      const V r0v = global_dot(a, fz::dot(n, r0.data(), v.data()));
      if (!finite(r0v)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (r0v == V(0)) {
        stop(SolveStatus::breakdown, ops::kR0V);
        break;
      }
      alpha = rho / r0v;
      fz::bicg_s_update(n, alpha, r.data(), v.data(), s.data(), dinv, sm);
      if (separate) separate->apply(s.data(), nullptr, sm, V(1), V(0));
      a.apply(sm, nullptr, t.data(), V(1), V(0));
      fz::Dot2 d = fz::mdot_ts_tt(n, t.data(), s.data());
      reduce_pair(a, d);
      const V ts = static_cast<V>(d.first), tt = static_cast<V>(d.second);
      if (!finite(ts) || !finite(tt)) {
        stop(SolveStatus::non_finite);
        break;
      }
      omega = tt != V(0) ? ts / tt : V(0);
      fz::Dot2 e =
          fz::bicg_xr_update(n, alpha, omega, r0.data(), pm, sm, s.data(), t.data(), x, r.data());
      reduce_pair(a, e);
      const V res = static_cast<V>(std::sqrt(e.first)), rho_new = static_cast<V>(e.second);
      record(++k, res);
      if (!finite(res) || !finite(rho_new)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (res <= trigger) {
        if (replace && bicg_replace(false)) continue;
        if (!replace) stop(SolveStatus::converged);
        break;
      }
      if (omega == V(0)) {
        stop(SolveStatus::breakdown, ops::kOmega);
        break;
      }
      if (rho_new == V(0)) {
        stop(SolveStatus::breakdown, ops::kRho);
        break;
      }
      beta = (rho_new / rho) * (alpha / omega);
      rho_old = rho;
      rho = rho_new;
    }
  } else {
    Vector<V> p(n, be), q(n, be), zv;
    if (m) zv = Vector<V>(n, be);
    V* z = m ? zv.data() : r.data();  // z = M r, or r itself
    if (m) m->apply(r.data(), nullptr, z, V(1), V(0));
    ops::copy(be, n, z, p.data());
    V rz = m ? global_dot(a, fz::dot(n, r.data(), z)) : static_cast<V>(rr0);
    const bool start = !m || rz > V(0);
    if (!start) stop(finite(rz) ? SolveStatus::breakdown : SolveStatus::non_finite, ops::kRZ);
    auto cg_replace = [&](bool at_limit) {
      ops::KrylovState<V> st{};
      st.rho = rz;
      const bool go = replace_now(at_limit, nullptr, p.data(), q.data(), m ? z : nullptr, st);
      rz = st.rho;
      return go;
    };
    while (start) {
      if (k - seg0 >= limit) {
        if (replace && cg_replace(true)) continue;
        break;
      }
      a.apply(p.data(), nullptr, q.data(), V(1), V(0));
      const V pq = global_dot(a, fz::dot(n, p.data(), q.data()));
      if (!finite(pq)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (pq == V(0)) {
        stop(SolveStatus::breakdown, ops::kPAp);
        break;
      }
      const V alpha = rz / pq;
      fz::Dot2 e = fz::cg_xr_update(n, alpha, p.data(), q.data(), x, r.data(), dinv, z);
      reduce_pair(a, e);
      const V res = static_cast<V>(std::sqrt(e.first));
      record(++k, res);
      if (!finite(res)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (res <= trigger) {
        if (replace && cg_replace(false)) continue;
        if (!replace) stop(SolveStatus::converged);
        break;
      }
      if (separate) separate->apply(r.data(), nullptr, z, V(1), V(0));
      const V rz_new =
          separate ? global_dot(a, fz::dot(n, r.data(), z)) : static_cast<V>(e.second);
      if (!finite(rz_new)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (rz_new == V(0)) {
        stop(SolveStatus::breakdown, ops::kRZ);
        break;
      }
      fz::cg_p_update(n, rz_new / rz, z, p.data());
      rz = rz_new;
    }
  }
  out.loop_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() - replace_ms;
  out.iterations = k;
  return out;
}

template LoopResult merged_cpu_loop<float>(const Operator<float>&, const Operator<float>*,
                                           const float*, float*, double, const SolverOptions&,
                                           std::vector<double>*, const ReplaceFn<float>*,
                                           unsigned);
template LoopResult merged_cpu_loop<double>(const Operator<double>&, const Operator<double>*,
                                            const double*, double*, double, const SolverOptions&,
                                            std::vector<double>*, const ReplaceFn<double>*,
                                            unsigned);

}  // namespace spmvkit::solvers_detail
