// Mixed precision (BiCGSTAB paper section 5: "mixed precision"): the residual, its norm and
// the solution in double, the Krylov iteration in float. Two schemes (docs/solvers.md):
// - reliable updates (the default; Sleijpen and van der Vorst 1996, as the mixed-precision
//   CG/BiCGSTAB of lattice QCD codes do it): one float iteration runs on across the outer
//   steps; at each, its correction goes into x, the residual is recomputed in double and
//   replaces the float one, and p (r0^, v) are kept: the Krylov space is not lost;
// - restarted refinement: each correction solved afresh by the ordinary solve() (any
//   format, merged or reference, preconditioned), restarting the Krylov method.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

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

// An outer step of either scheme: r = b - A x in double and its norm, recorded in res (and
// history, callback with the float iterations so far).
double outer_residual(const Operator<double>& a, const Vector<double>& b, const Vector<double>& x,
                      double* r, const SolverOptions& o, int iterations, SolveResult& res) {
  a.apply(x.data(), b.data(), r, -1.0, 1.0);
  const double rn =
      solvers_detail::global_nrm2(a, ops::nrm2(a.backend(), b.size(), r));
  res.residual_norm = res.true_residual_norm = rn;
  if (o.record_history) res.history.push_back(rn);
  if (o.callback) o.callback(iterations, rn);
  return rn;
}

// True when ||r|| = rn ends the solve as non-finite or converged (res.status says which).
bool settled(double rn, SolveResult& res) {
  if (!std::isfinite(rn)) {
    res.status = SolveStatus::non_finite;
    return true;
  }
  if (rn <= res.tolerance) {
    res.status = SolveStatus::converged;
    return true;
  }
  return false;
}

// The stall: outer step `outer` took ||b - A x|| from prev only to rn.
void stalled(SolveResult& res, int outer, double prev, double rn) {
  res.status = SolveStatus::breakdown;
  res.breakdown = "refinement stalled: outer step " + std::to_string(outer) +
                  " took ||b - A x|| from " + sci(prev) + " to " + sci(rn) +
                  " (is the matrix too ill-conditioned for float?)";
}
}  // namespace

namespace {

// The time from t0 to now and the split of the result's time per iteration; both schemes.
void finish_timing(const Operator<float>& a32, Backend be, std::chrono::steady_clock::time_point t0,
                   const SolverOptions& o, SolveResult& res, float* d32, float* r32) {
  synchronize(be);
  res.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (res.iterations > 0) {
    res.iter_ms = res.solve_ms / res.iterations;
    if (o.time_spmv) {
      const double spmv =
          median(time_runs(be, 2, 7, [&] { a32.apply(d32, nullptr, r32, 1.0f, 0.0f); }));
      res.spmv_ms_per_iter = res.spmv_per_iter * spmv;
      res.other_ms_per_iter = res.iter_ms - res.spmv_ms_per_iter;
    }
  }
}

// The reliable-update scheme on the merged loops (CPU and CUDA). The float vectors hold
// quantities divided by sigma, the double residual's norm at the last replacement, so that
// they stay near norm 1 however small the residual gets (no underflow). The float loop's
// trigger: its residual down by reliable_delta since the last replacement (or by the looser
// 0.5 tol / ||r|| that the last step needs); a segment is at most inner_maxiter iterations.
SolveResult mixed_reliable(const Operator<double>& a, const Operator<float>& a32,
                           const Vector<double>& b, Vector<double>& x, const SolverOptions& o,
                           const Operator<float>* m32, const MixedOptions& mo, SolveResult res) {
  const Backend be = a.backend();
  const std::size_t n = b.size();
  solvers_detail::ScratchLease<double, solvers_detail::kMixedResidual> r(n, be);
  solvers_detail::ScratchLease<float, solvers_detail::kMixedResidual32> r32(n, be);
  solvers_detail::ScratchLease<float, solvers_detail::kMixedX32> x32(n, be);
  SolverOptions inner = o;
  inner.record_history = false;
  inner.time_spmv = false;
  inner.callback = nullptr;
  int total = 0, outer = 0, hooked = 0;
  double prev = std::numeric_limits<double>::infinity(), sigma = 1;
  bool finished = false;
  // A replacement that does not reduce ||b - A x|| by stall_factor gets a second chance from
  // a fresh Krylov space (the kept search direction can have lost its conjugacy to the
  // float rounding; seen on 3% of random right-hand sides of a 100-unknown Poisson problem at
  // rtol 0, stalling as early as 7e-6); only a second such step in a row is a stall.
  bool may_retry = true, retry = false;
  synchronize(be);
  const auto t0 = std::chrono::steady_clock::now();
  // r = b - A x in double, its norm, the checks. False when the solve is finished (res says
  // how); else sigma becomes the new norm.
  auto double_step = [&]() {
    const double rn = outer_residual(a, b, x, r.data(), o, total, res);
    if (settled(rn, res)) return false;
    if (rn > mo.stall_factor * prev && may_retry) {
      if (outer >= mo.max_outer || total >= o.maxiter) return false;  // max_iterations
      may_retry = false;
      retry = true;
      prev = sigma = rn;
      return true;
    }
    if (rn > mo.stall_factor * prev) {
      stalled(res, outer, prev, rn);
      return false;
    }
    if (outer >= mo.max_outer || total >= o.maxiter) return false;  // max_iterations
    prev = sigma = rn;
    may_retry = true;
    return true;
  };
  auto trigger = [&] {
    return std::min(0.5, std::max(mo.reliable_delta, 0.5 * res.tolerance / sigma));
  };
  auto segment = [&] { return std::min(mo.inner_maxiter, o.maxiter - total); };
  const solvers_detail::ReplaceFn<float> replace = [&](int its, float* xc, float* rc) {
    solvers_detail::Replacement rep;
    total += its;
    hooked += its;
    ++outer;
    const double sigma_old = sigma;
    ops::add_widened(be, n, sigma_old, xc, x.data());  // x += sigma d
    if (!double_step()) {
      finished = true;
      return rep;
    }
    ops::fill_zero(be, n, xc);
    if (retry) return rep;  // resume = false: the pass ends, the next starts afresh from r
    ops::round_scaled(be, n, 1.0 / sigma, r.data(), rc);
    rep.resume = true;
    rep.ratio = sigma_old / sigma;
    rep.tol = trigger();
    rep.limit = segment();
    return rep;
  };
  // Each pass: the float loop from the current residual with a fresh Krylov space; it comes
  // back only when finished or when it broke down (a zero divisor or a NaN) between two
  // replacements.
  bool go = double_step();
  while (go) {
    ops::round_scaled(be, n, 1.0 / sigma, r.data(), r32.data());
    ops::fill_zero(be, n, x32.data());
    inner.maxiter = segment();
    hooked = 0;
    solvers_detail::LoopResult loop;
    if (be == Backend::cpu) {
      loop = solvers_detail::merged_cpu_loop(a32, m32, r32.data(), x32.data(), trigger(), inner,
                                             nullptr, &replace);
    } else {
#if SPMVKIT_HAVE_CUDA
      loop = solvers_detail::merged_cuda_loop(a32, m32, r32.data(), x32.data(), trigger(), inner,
                                              nullptr, &replace);
#else
      throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
    }
    res.inner_loop_ms += loop.loop_ms;
    res.cuda_graph = res.cuda_graph || loop.cuda_graph;
    if (finished) break;
    if (retry) {  // its correction is in x, r is the residual of that x
      retry = false;
      total += loop.iterations - hooked;
      continue;
    }
    total += loop.iterations - hooked;
    ++outer;
    const std::string what = "the float iteration after outer step " + std::to_string(outer - 1);
    if (loop.status == SolveStatus::non_finite) {
      res.status = SolveStatus::non_finite;
      res.breakdown = what + " met a NaN or Inf (its correction not applied)";
      break;
    }
    // A breakdown (a zero divisor): keep the correction if it reduced the double residual
    // by stall_factor and start a fresh Krylov space from there; otherwise stop, undoing it
    // if it made the residual worse.
    const double before = prev;
    ops::add_widened(be, n, sigma, x32.data(), x.data());
    go = double_step();
    retry = false;  // the next pass starts from a fresh Krylov space anyway
    if (res.status == SolveStatus::breakdown) {
      const double after = res.true_residual_norm;
      const bool worse = !(after < before);
      if (worse) {
        ops::add_widened(be, n, -sigma, x32.data(), x.data());
        res.residual_norm = res.true_residual_norm = before;
      }
      res.breakdown = what + " broke down (" + loop.breakdown +
                      ") and its correction took ||b - A x|| from " + sci(before) + " to " +
                      sci(after) + (worse ? " (undone)" : "");
    }
  }
  res.iterations = total;
  res.outer_iterations = outer;
  res.true_rel_residual = res.true_residual_norm / res.b_norm;
  finish_timing(a32, be, t0, o, res, x32.data(), r32.data());
  return res;
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
  if (!(mo.inner_rtol > 0 && mo.inner_rtol < 1) ||
      !(mo.reliable_delta > 0 && mo.reliable_delta < 1) || mo.inner_maxiter < 1 ||
      mo.max_outer < 0 || !(mo.stall_factor > 0 && mo.stall_factor <= 1))
    throw InputError(
        "solve_mixed: needs 0 < inner_rtol < 1, 0 < reliable_delta < 1, inner_maxiter >= 1, "
        "max_outer >= 0 and 0 < stall_factor <= 1");
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
  // The reliable updates run on the merged loops of one process; the reference solvers and
  // a distributed operator keep the restarted refinement.
  if (mo.scheme == MixedScheme::reliable && o.impl == SolverImpl::merged &&
      !a.reduce_sum(nullptr, 0))
    return mixed_reliable(a, a32, b, x, o, m32, mo, std::move(res));

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
    const double rn = outer_residual(a, b, x, r.data(), o, inner_total, res);
    if (settled(rn, res)) break;
    if (rn > mo.stall_factor * prev) {
      stalled(res, outer, prev, rn);
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
  res.iterations = inner_total;
  res.outer_iterations = outer;
  res.true_rel_residual = res.true_residual_norm / res.b_norm;
  finish_timing(a32, be, t0, o, res, d32.data(), r32.data());
  return res;
}

}  // namespace spmvkit
