// The public solve(): validation at the boundary, ||b|| = 0, the dispatch to the iteration
// loop of the chosen implementation and backend, the true residual and the timing split.
// Also the traffic model and the merged-kernels paper's savings model (section 4.5).
#include "spmvkit/solvers.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "ops/blas.hpp"
#include "solvers/solver_loops.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/timing.hpp"

namespace spmvkit {

std::string_view to_string(SolverMethod m) { return m == SolverMethod::cg ? "cg" : "bicgstab"; }
std::string_view to_string(SolverImpl i) {
  return i == SolverImpl::merged ? "merged" : "reference";
}
std::string_view to_string(SolveStatus s) {
  switch (s) {
    case SolveStatus::converged:
      return "converged";
    case SolveStatus::max_iterations:
      return "max_iterations";
    case SolveStatus::breakdown:
      return "breakdown";
    case SolveStatus::non_finite:
      return "non_finite";
  }
  return "?";
}
SolverMethod parse_solver_method(std::string_view name) {
  if (name == "bicgstab") return SolverMethod::bicgstab;
  if (name == "cg") return SolverMethod::cg;
  throw InputError("unknown solver method '" + std::string(name) + "' (bicgstab, cg)");
}
SolverImpl parse_solver_impl(std::string_view name) {
  if (name == "merged") return SolverImpl::merged;
  if (name == "reference") return SolverImpl::reference;
  throw InputError("unknown solver implementation '" + std::string(name) + "' (merged, reference)");
}

namespace solvers_detail {
bool solve_profile() {
  static const bool on = [] {
    const char* v = std::getenv("SPMVKIT_SOLVE_PROFILE");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}
}  // namespace solvers_detail

bool release_solver_workspace() {
  using namespace solvers_detail;
  bool freed = false;
  for (bool f : {ScratchLease<float, kTrueResidual>::release(),
                 ScratchLease<double, kTrueResidual>::release(),
                 ScratchLease<double, kMixedResidual>::release(),
                 ScratchLease<float, kMixedResidual32>::release(),
                 ScratchLease<float, kMixedX32>::release()})
    freed = freed || f;
#if SPMVKIT_HAVE_CUDA
  freed = release_cuda_workspaces() || freed;
#endif
  return freed;
}

namespace {

void check_inputs(const OperatorInfo& a, std::size_t b_size, Backend b_backend, std::size_t x_size,
                  Backend x_backend, const SolverOptions& o) {
  if (a.rows != a.cols)
    throw InputError("a solver needs a square matrix: A is " + std::to_string(a.rows) + " x " +
                     std::to_string(a.cols));
  const std::size_t n = static_cast<std::size_t>(a.rows);
  if (b_size != n)
    throw InputError("right-hand side b has " + std::to_string(b_size) + " entries, A has " +
                     std::to_string(n) + " rows");
  if (x_size != n)
    throw InputError("solution vector x has " + std::to_string(x_size) + " entries, A has " +
                     std::to_string(n) + " columns");
  if (b_backend != a.backend || x_backend != a.backend)
    throw InputError("b and x must live on the operator's backend (" +
                     std::string(to_string(a.backend)) + ")");
  if (!(o.rtol >= 0) || !std::isfinite(o.rtol))
    throw InputError("rtol must be a finite number >= 0 (got " + std::to_string(o.rtol) + ")");
  if (!(o.atol >= 0) || !std::isfinite(o.atol))
    throw InputError("atol must be a finite number >= 0 (got " + std::to_string(o.atol) + ")");
  if (o.maxiter < 0)
    throw InputError("maxiter must be >= 0 (got " + std::to_string(o.maxiter) + ")");
  if (o.max_restarts < 0)
    throw InputError("max_restarts must be >= 0 (got " + std::to_string(o.max_restarts) + ")");
  if (o.check_every < 1)
    throw InputError("check_every must be >= 1 (got " + std::to_string(o.check_every) + ")");
}

}  // namespace

template <class V>
SolveResult solve(const Operator<V>& a, const Vector<V>& b, Vector<V>& x, const SolverOptions& o,
                  const Operator<V>* m) {
  check_inputs(a.info(), b.size(), b.backend(), x.size(), x.backend(), o);
  if (m && (m->rows() != a.rows() || m->cols() != a.cols() || m->backend() != a.backend()))
    throw InputError("the preconditioner is " + std::to_string(m->rows()) + " x " +
                     std::to_string(m->cols()) + " on " + std::string(to_string(m->backend())) +
                     ", A is " + std::to_string(a.rows()) + " x " + std::to_string(a.cols()) +
                     " on " + std::string(to_string(a.backend())));
  const Backend be = a.backend();
  const std::size_t n = b.size();
  SolveResult res;
  res.spmv_per_iter = solver_traffic(o.method, o.impl).spmv_per_iter;
  res.b_norm = solvers_detail::global_nrm2(a, ops::nrm2(be, n, b.data()));
  if (!std::isfinite(res.b_norm)) {
    res.status = SolveStatus::non_finite;
    res.residual_norm = res.true_residual_norm = res.true_rel_residual =
        std::numeric_limits<double>::quiet_NaN();
    return res;
  }
  res.tolerance = std::max(o.rtol * res.b_norm, o.atol);
  if (res.b_norm == 0) {
    // SciPy's rule: the solution of A x = 0 is x = 0, whatever the initial guess.
    ops::fill_zero(be, n, x.data());
    res.status = SolveStatus::converged;
    if (o.record_history) res.history.push_back(0.0);
    return res;
  }
  // The loop, restarted from x (r = b - A x, r0^ = r) when its recursive residual claims
  // convergence that the true residual denies: after large intermediate residuals the two
  // drift apart by rounding (a "residual gap"), and such an x must not come back as converged.
  const double accept = 10.0 * res.tolerance;
  // The true residual's vector, kept per thread (solver_loops.hpp ScratchLease).
  solvers_detail::ScratchLease<V, solvers_detail::kTrueResidual> r(n, be);
  const bool profile = solvers_detail::solve_profile();
  int done = 0;
  unsigned shadow = 0;  // BiCGSTAB's shadow residual seed: another one after a breakdown
  for (int restart = 0;; ++restart) {
    SolverOptions lo = o;
    lo.maxiter = o.maxiter - done;
    if (o.callback)
      lo.callback = [&o, done, restart](int k, double v) {
        if (restart == 0 || k > 0) o.callback(done + k, v);
      };
    std::vector<double> h;
    std::vector<double>* hp = o.record_history ? &h : nullptr;
    solvers_detail::LoopResult loop;
    const solvers_detail::ReplaceFn<V>* no_replace = nullptr;
    if (o.impl == SolverImpl::reference) {
      loop = solvers_detail::reference_loop(a, m, b.data(), x.data(), res.tolerance, lo, hp,
                                            shadow);
    } else if (be == Backend::cpu) {
      loop = solvers_detail::merged_cpu_loop(a, m, b.data(), x.data(), res.tolerance, lo, hp,
                                             no_replace, shadow);
    } else {
#if SPMVKIT_HAVE_CUDA
      loop = solvers_detail::merged_cuda_loop(a, m, b.data(), x.data(), res.tolerance, lo, hp,
                                              no_replace, shadow);
#else
      throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
    }
    res.history.insert(res.history.end(), h.begin() + (restart > 0 && !h.empty() ? 1 : 0), h.end());
    done += loop.iterations;
    res.status = loop.status;
    res.breakdown = loop.breakdown;
    res.residual_norm = loop.residual_norm;
    res.solve_ms += loop.loop_ms;
    res.cuda_graph = res.cuda_graph || loop.cuda_graph;
    // The true residual, from x.
    if (profile) synchronize(be);
    const auto t_true = std::chrono::steady_clock::now();
    a.apply(x.data(), b.data(), r.data(), V(-1), V(1));
    res.true_residual_norm = solvers_detail::global_nrm2(a, ops::nrm2(be, n, r.data()));
    if (profile) {
      synchronize(be);
      const double true_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_true)
              .count();
      std::fprintf(
          stderr,
          "spmvkit solve profile: n %zu, %s %s, %d its | alloc %.3f ms, r0 %.3f ms, "
          "capture %.3f ms (%s), loop %.3f ms, true residual %.3f ms\n",
          n, std::string(to_string(o.method)).c_str(), sizeof(V) == 4 ? "f32" : "f64",
          loop.iterations, loop.alloc_ms, loop.r0_ms, loop.capture_ms,
          loop.graphs_reused ? "graphs reused" : (loop.cuda_graph ? "captured" : "no graph"),
          loop.loop_ms, true_ms);
    }
    // A BiCGSTAB breakdown of rho or (r0^, v): the shadow residual has become orthogonal to
    // the residuals it meets; from x, with another one, while restarts and iterations remain.
    const bool lost_shadow = loop.status == SolveStatus::breakdown &&
                             (loop.breakdown == ops::breakdown_name(ops::kRho) ||
                              loop.breakdown == ops::breakdown_name(ops::kR0V));
    if (lost_shadow && std::isfinite(res.true_residual_norm) && restart < o.max_restarts &&
        done < o.maxiter) {
      res.restarts = restart + 1;
      ++shadow;
      continue;
    }
    if (loop.status != SolveStatus::converged || res.true_residual_norm <= accept) break;
    if (restart >= o.max_restarts || done >= o.maxiter) {
      res.status = SolveStatus::breakdown;
      res.breakdown =
          "residual gap: the recursive residual reached the tolerance, the true residual "
          "||b - A x|| did not (after " +
          std::to_string(restart) +
          " restarts; is rtol below what this precision can reach for this matrix?)";
      break;
    }
    res.restarts = restart + 1;
  }
  res.iterations = done;
  res.true_rel_residual = res.true_residual_norm / res.b_norm;
  if (!std::isfinite(res.true_residual_norm) && res.status != SolveStatus::breakdown)
    res.status = SolveStatus::non_finite;

  if (res.iterations > 0) {
    res.iter_ms = res.solve_ms / res.iterations;
    if (o.time_spmv) {
      const double spmv =
          median(time_runs(be, 2, 7, [&] { a.apply(x.data(), nullptr, r.data(), V(1), V(0)); }));
      res.spmv_ms_per_iter = res.spmv_per_iter * spmv;
      res.other_ms_per_iter = res.iter_ms - res.spmv_ms_per_iter;
    }
  }
  return res;
}

template SolveResult solve<float>(const Operator<float>&, const Vector<float>&, Vector<float>&,
                                  const SolverOptions&, const Operator<float>*);
template SolveResult solve<double>(const Operator<double>&, const Vector<double>&, Vector<double>&,
                                   const SolverOptions&, const Operator<double>*);

// --- traffic model ---------------------------------------------------------------------------

SolverTraffic solver_traffic(SolverMethod m, SolverImpl i) {
  SolverTraffic t;
  if (m == SolverMethod::bicgstab) {
    // Paper table 1: the cuBLAS calls read 25n and write 9n; the merged kernels read 14n
    // (p_update 3n, reduce1 2n, s_update 2n, reduce2 2n, xr_update 5n) and write 4n
    // (p, s, x, r); theorem 1's bound is 18n.
    t.read_words = i == SolverImpl::reference ? 25 : 14;
    t.write_words = i == SolverImpl::reference ? 9 : 4;
    t.bound_words = 18;
    t.spmv_per_iter = 2;
  } else {
    // CG, counted the same way. Reference: dot(p,q) 2n, axpy x 2n+1n, axpy r 2n+1n,
    // dot(r,r) 2n, scal p 1n+1n, axpy p 2n+1n: 11n reads, 4n writes. Merged: alpha 2n,
    // xr_update 4n + 2n, p_update 2n + 1n: 8n reads, 3n writes. Bound: x, r, p, q read once,
    // x, r, p written once: 7n.
    t.read_words = i == SolverImpl::reference ? 11 : 8;
    t.write_words = i == SolverImpl::reference ? 4 : 3;
    t.bound_words = 7;
    t.spmv_per_iter = 1;
  }
  return t;
}

double solver_vector_bytes(SolverMethod m, SolverImpl i, const OperatorInfo& a,
                           std::size_t value_bytes) {
  return solver_traffic(m, i).words() * static_cast<double>(a.rows) *
         static_cast<double>(value_bytes);
}

double solver_iteration_bytes(SolverMethod m, SolverImpl i, const OperatorInfo& a,
                              std::size_t value_bytes) {
  const double spmv = static_cast<double>(a.matrix_bytes) +
                      static_cast<double>(a.rows + a.cols) * static_cast<double>(value_bytes);
  return solver_vector_bytes(m, i, a, value_bytes) + solver_traffic(m, i).spmv_per_iter * spmv;
}

double paper_eta_memory() { return 1.0 - 18.0 / 34.0; }
double paper_f(double n) { return (1.0 / (1e-7 * n + 0.018) + 8.0) / 100.0; }
double paper_savings_memory(double spmv_fraction, double dot_fraction) {
  return (1.0 - spmv_fraction - dot_fraction) * paper_eta_memory();
}
double paper_savings_memory_dot(double spmv_fraction, double dot_fraction, double n) {
  return paper_savings_memory(spmv_fraction, dot_fraction) + paper_f(n) * dot_fraction;
}

}  // namespace spmvkit
