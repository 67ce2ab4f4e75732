// The reference solvers: the merged-kernels paper's figure 1 as written. Every vector
// operation is one BLAS-1 call (ops/blas.hpp: cuBLAS on CUDA, plain loops on the CPU) and
// every scalar lives on the host, so each dot product and norm waits for its result. It is
// the baseline of every speed claim (bench/solver_bench.cpp runs it beside the merged one).
// A preconditioner M is one more operator apply per use, a separate step (right-preconditioned
// BiCGSTAB: p^ = M p, s^ = M s, x += alpha p^ + omega s^; PCG: z = M r).
#include <chrono>
#include <cmath>

#include "ops/blas.hpp"
#include "ops/krylov_state.hpp"
#include "solvers/solver_loops.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::solvers_detail {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <class V>
bool finite(V v) {
  return std::isfinite(v);
}

}  // namespace

template <class V>
LoopResult reference_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                          const SolverOptions& o, std::vector<double>* history,
                          unsigned shadow) {
  const Backend be = a.backend();
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
  a.apply(x, b, r.data(), V(-1), V(1));  // line 2: r0 = b - A x0
  V res = global_nrm2(a, ops::nrm2(be, n, r.data()));
  record(0, res);
  if (!finite(res)) {
    stop(SolveStatus::non_finite);
    return out;
  }
  if (res <= tol) {
    stop(SolveStatus::converged);
    return out;
  }
  if (o.maxiter == 0) return out;

  synchronize(be);
  const auto t0 = Clock::now();
  int k = 0;
  if (o.method == SolverMethod::bicgstab) {
    Vector<V> r0(n, be), p(n, be), v(n, be), s(n, be), t(n, be), ph, sh;
    if (m) {
      ph = Vector<V>(n, be);
      sh = Vector<V>(n, be);
    }
    // The vectors the SpMVs and the x update read: M p and M s, or p and s themselves.
    V* pm = m ? ph.data() : p.data();
    V* sm = m ? sh.data() : s.data();
    // line 3: r0^ = r0 in the paper; weighted row by row here (ops::shadow_residual)
    ops::shadow_residual(be, n, r.data(), r0.data(), a.first_row(), shadow);
    ops::fill_zero(be, n, p.data());        // line 5: v0 = p0 = 0
    ops::fill_zero(be, n, v.data());
    V rho_old = 1, alpha = 1, omega = 1;  // line 4
    while (k < o.maxiter) {
      const V rho = global_dot(a, ops::dot(be, n, r0.data(), r.data()));  // line 8
      if (!finite(rho)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (rho == V(0)) {
        stop(SolveStatus::breakdown, ops::kRho);
        break;
      }
      const V beta = (rho / rho_old) * (alpha / omega);  // line 9
      ops::scal(be, n, beta, p.data());                  // line 10: p = r + beta (p - omega v)
      ops::axpy(be, n, -omega * beta, v.data(), p.data());
      ops::axpy(be, n, V(1), r.data(), p.data());
      if (m) m->apply(p.data(), nullptr, pm, V(1), V(0));  // p^ = M p
      a.apply(pm, nullptr, v.data(), V(1), V(0));          // line 11: v = A p^
      const V r0v = global_dot(a, ops::dot(be, n, r0.data(), v.data()));
      if (!finite(r0v)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (r0v == V(0)) {
        stop(SolveStatus::breakdown, ops::kR0V);
        break;
      }
      alpha = rho / r0v;                     // line 12
      ops::copy(be, n, r.data(), s.data());  // line 13: s = r - alpha v
      ops::axpy(be, n, -alpha, v.data(), s.data());
      if (m) m->apply(s.data(), nullptr, sm, V(1), V(0));  // s^ = M s
      a.apply(sm, nullptr, t.data(), V(1), V(0));          // line 14: t = A s^
      const V ts = global_dot(a, ops::dot(be, n, t.data(), s.data()));  // line 15
      const V tt = global_dot(a, ops::dot(be, n, t.data(), t.data()));
      if (!finite(ts) || !finite(tt)) {
        stop(SolveStatus::non_finite);
        break;
      }
      omega = tt != V(0) ? ts / tt : V(0);
      ops::axpy(be, n, alpha, pm, x);  // line 16: x += alpha p^ + omega s^
      ops::axpy(be, n, omega, sm, x);
      ops::copy(be, n, s.data(), r.data());  // line 17: r = s - omega t
      ops::axpy(be, n, -omega, t.data(), r.data());
      res = global_nrm2(a, ops::nrm2(be, n, r.data()));  // line 18
      record(++k, res);
      if (!finite(res)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (res <= tol) {
        stop(SolveStatus::converged);
        break;
      }
      if (omega == V(0)) {
        stop(SolveStatus::breakdown, ops::kOmega);
        break;
      }
      rho_old = rho;
    }
  } else {
    Vector<V> p(n, be), q(n, be), zv;
    if (m) zv = Vector<V>(n, be);
    V* z = m ? zv.data() : r.data();  // z = M r, or r itself
    if (m) m->apply(r.data(), nullptr, z, V(1), V(0));
    ops::copy(be, n, z, p.data());
    V rz = m ? global_dot(a, ops::dot(be, n, r.data(), z)) : res * res;
    const bool start = !m || rz > V(0);
    if (!start) stop(finite(rz) ? SolveStatus::breakdown : SolveStatus::non_finite, ops::kRZ);
    while (start && k < o.maxiter) {
      a.apply(p.data(), nullptr, q.data(), V(1), V(0));  // q = A p
      const V pq = global_dot(a, ops::dot(be, n, p.data(), q.data()));
      if (!finite(pq)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (pq == V(0)) {
        stop(SolveStatus::breakdown, ops::kPAp);
        break;
      }
      const V alpha = rz / pq;
      ops::axpy(be, n, alpha, p.data(), x);
      ops::axpy(be, n, -alpha, q.data(), r.data());
      const V rr = global_dot(a, ops::dot(be, n, r.data(), r.data()));
      res = std::sqrt(rr);
      record(++k, res);
      if (!finite(res)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (res <= tol) {
        stop(SolveStatus::converged);
        break;
      }
      if (m) m->apply(r.data(), nullptr, z, V(1), V(0));  // z = M r
      const V rz_new = m ? global_dot(a, ops::dot(be, n, r.data(), z)) : rr;
      if (!finite(rz_new)) {
        stop(SolveStatus::non_finite);
        break;
      }
      if (rz_new == V(0)) {
        stop(SolveStatus::breakdown, ops::kRZ);
        break;
      }
      ops::scal(be, n, rz_new / rz, p.data());  // p = z + beta p
      ops::axpy(be, n, V(1), z, p.data());
      rz = rz_new;
    }
  }
  synchronize(be);
  out.loop_ms = ms_since(t0);
  out.iterations = k;
  return out;
}

template LoopResult reference_loop<float>(const Operator<float>&, const Operator<float>*,
                                          const float*, float*, double,
                                          const SolverOptions&, std::vector<double>*,
                                          unsigned);
template LoopResult reference_loop<double>(const Operator<double>&, const Operator<double>*,
                                           const double*, double*, double,
                                           const SolverOptions&, std::vector<double>*,
                                           unsigned);

}  // namespace spmvkit::solvers_detail
