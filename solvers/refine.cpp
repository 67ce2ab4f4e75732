// Mixed-precision iterative refinement (BiCGSTAB paper section 5: "mixed precision"): the
// residual, its norm and the update in double, each correction solved in float by the
// ordinary solve() (any format, merged or reference, preconditioned).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "ops/blas.hpp"
#include "ops/mixed.hpp"
#include "solvers/solver_loops.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/timing.hpp"

namespace spmvkit {
namespace {
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}
}  // namespace

SolveResult solve_mixed(const Operator<double>& a, const Operator<float>& a32,
                        const Vector<double>& b, Vector<double>& x, const SolverOptions& o,
                        const Operator<float>* m32, const MixedOptions& mo) {
  if (a32.rows() != a.rows() || a32.cols() != a.cols() || a32.backend() != a.backend())
    throw InputError("solve_mixed: the float operator is " + std::to_string(a32.rows()) + " x " +
                     std::to_string(a32.cols()) + " on " + std::string(to_string(a32.backend())) +
                     ", the double one " + std::to_string(a.rows()) + " x " +
                     std::to_string(a.cols()) + " on " + std::string(to_string(a.backend())));
  if (!(mo.inner_rtol > 0 && mo.inner_rtol < 1) || mo.inner_maxiter < 1 || mo.max_outer < 0 ||
      !(mo.stall_factor > 0 && mo.stall_factor <= 1))
    throw InputError(
        "solve_mixed: needs 0 < inner_rtol < 1, inner_maxiter >= 1, max_outer >= 0 and "
        "0 < stall_factor <= 1");
  // The checks of solve() on the double system (sizes, backends, tolerances), at no cost: a
  // zero-iteration solve. It also settles b = 0 and a non-finite b.
  SolverOptions probe = o;
  probe.maxiter = 0;
  probe.time_spmv = false;
  probe.callback = nullptr;
  SolveResult res = solve(a, b, x, probe);
  if (!std::isfinite(res.b_norm) || res.b_norm == 0) return res;
  res.status = SolveStatus::max_iterations;
  res.history.clear();

  const Backend be = a.backend();
  const std::size_t n = b.size();
  Vector<double> r(n, be);
  Vector<float> r32(n, be), d32(n, be);
  SolverOptions inner = o;
  inner.rtol = mo.inner_rtol;
  inner.atol = 0;
  inner.record_history = false;
  inner.time_spmv = false;
  inner.callback = nullptr;
  // A residual gap in float (the recursive residual below what float's true residual can
  // reach) ends the inner solve: the outer step is the restart, from the double residual.
  inner.max_restarts = 0;
  int inner_total = 0, outer = 0;
  double prev = std::numeric_limits<double>::infinity();
  synchronize(be);
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    a.apply(x.data(), b.data(), r.data(), -1.0, 1.0);  // r = b - A x, in double
    const double rn = solvers_detail::global_nrm2(a, ops::nrm2(be, n, r.data()));
    res.residual_norm = res.true_residual_norm = rn;
    if (o.record_history) res.history.push_back(rn);
    if (o.callback) o.callback(inner_total, rn);
    if (!std::isfinite(rn)) {
      res.status = SolveStatus::non_finite;
      break;
    }
    if (rn <= res.tolerance) {
      res.status = SolveStatus::converged;
      break;
    }
    if (rn > mo.stall_factor * prev) {
      res.status = SolveStatus::breakdown;
      res.breakdown = "refinement stalled: outer step " + std::to_string(outer) +
                      " took ||b - A x|| from " + sci(prev) + " to " + sci(rn) +
                      " (is the matrix too ill-conditioned for float?)";
      break;
    }
    if (outer >= mo.max_outer || inner_total >= o.maxiter) break;  // max_iterations
    prev = rn;
    // A d = r / ||r|| in float (scaled: no underflow as r shrinks), then x += ||r|| d.
    ops::round_scaled(be, n, 1.0 / rn, r.data(), r32.data());
    d32.fill(0.0f);
    inner.maxiter = std::min(mo.inner_maxiter, o.maxiter - inner_total);
    // No tighter than the last step needs: tol / ||r|| (with a margin), never looser than 0.5.
    inner.rtol = std::min(0.5, std::max(mo.inner_rtol, 0.5 * res.tolerance / rn));
    const SolveResult in = solve(a32, r32, d32, inner, m32);
    inner_total += in.iterations;
    res.inner_loop_ms += in.solve_ms;
    res.restarts += in.restarts;
    res.cuda_graph = res.cuda_graph || in.cuda_graph;
    ++outer;
    if (in.status == SolveStatus::non_finite) {
      res.status = SolveStatus::non_finite;
      res.breakdown = "the float inner solve of outer step " + std::to_string(outer) +
                      " met a NaN or Inf (correction not applied)";
      break;
    }
    // A correction that does not even reduce the float residual would make x worse.
    if (!(in.true_rel_residual < 1)) {
      res.status = SolveStatus::breakdown;
      res.breakdown = "the float inner solve of outer step " + std::to_string(outer) + " (" +
                      std::string(to_string(in.status)) +
                      (in.breakdown.empty() ? "" : ": " + in.breakdown) +
                      ") did not reduce the residual (correction not applied)";
      break;
    }
    ops::add_widened(be, n, rn, d32.data(), x.data());
  }
  synchronize(be);
  res.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  res.iterations = inner_total;
  res.outer_iterations = outer;
  res.true_rel_residual = res.true_residual_norm / res.b_norm;
  if (inner_total > 0) {
    res.iter_ms = res.solve_ms / inner_total;
    if (o.time_spmv) {
      const double spmv = median(
          time_runs(be, 2, 7, [&] { a32.apply(d32.data(), nullptr, r32.data(), 1.0f, 0.0f); }));
      res.spmv_ms_per_iter = res.spmv_per_iter * spmv;
      res.other_ms_per_iter = res.iter_ms - res.spmv_ms_per_iter;
    }
  }
  return res;
}

}  // namespace spmvkit
