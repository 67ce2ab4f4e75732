// Krylov solvers for A x = b over any operator of the registry: BiCGSTAB and CG, each as the
// "reference" (every vector operation a BLAS-1 call, scalars on the host: the merged-kernels
// paper's figure 1) and "merged" (fused vector kernels that carry the first stage of their dot
// products, scalars kept on the GPU: the paper's figure 2). docs/solvers.md says why the API
// looks as it does and gives the traffic model.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit {

enum class SolverMethod { bicgstab, cg };
enum class SolverImpl { reference, merged };
// Why a solve stopped. Only `converged` means ||r|| <= max(rtol ||b||, atol) was reached; a
// breakdown (a zero divisor, named in SolveResult::breakdown) or a NaN/Inf never is.
enum class SolveStatus { converged, max_iterations, breakdown, non_finite };

std::string_view to_string(SolverMethod m);
std::string_view to_string(SolverImpl i);
std::string_view to_string(SolveStatus s);
SolverMethod parse_solver_method(std::string_view name);  // "bicgstab" | "cg"; InputError
SolverImpl parse_solver_impl(std::string_view name);      // "merged" | "reference"; InputError

// SciPy's stopping triple (rtol relative to ||b||, atol, maxiter) and its callback; the
// implementation knobs beside it. Ginkgo's combinable criteria are not worth their weight for
// the two criteria every user sets (docs/solvers.md).
struct SolverOptions {
  SolverMethod method = SolverMethod::bicgstab;
  SolverImpl impl = SolverImpl::merged;
  double rtol = 1e-8;  // stop when ||b - A x_k|| <= max(rtol * ||b||, atol) (recursive residual)
  double atol = 0.0;
  int maxiter = 1000;  // >= 0; 0 returns at once (converged only if x already solves A x = b)
  // Restarts after a residual gap or a BiCGSTAB breakdown (see solve()); >= 0. solve_mixed's
  // inner solves use 0: its outer loop recomputes the residual in double, a better restart
  // than one in float.
  int max_restarts = 3;
  bool record_history = true;  // SolveResult::history: the residual norm of every iteration
  // Merged solver on CUDA: the host learns the residual every `check_every` iterations (an
  // asynchronous copy to pinned memory and an event; the GPU never waits for the host), and
  // `cuda_graph` captures those iterations in a CUDA graph (fewer launch costs on small n).
  // The iteration that converges is exact either way: later queued iterations do nothing.
  int check_every = 16;
  bool cuda_graph = true;
  // After the solve, time the operator alone (a few applies) to split the time per iteration
  // into SpMV and the rest (SolveResult::spmv_ms_per_iter / other_ms_per_iter).
  bool time_spmv = true;
  // Called as the host learns residual norms: (iteration, ||r||); every iteration for the
  // reference and CPU solvers, in groups of check_every for the merged CUDA solver.
  std::function<void(int, double)> callback;
};

struct SolveResult {
  SolveStatus status = SolveStatus::max_iterations;
  std::string breakdown;  // for SolveStatus::breakdown: which scalar, e.g. "rho = (r0^, r)"
  int iterations = 0;
  int restarts = 0;  // restarts from x after a residual gap (recursive converged, true not)
                     // or after a BiCGSTAB breakdown of rho or (r0^, v)
  double b_norm = 0;
  double tolerance = 0;           // max(rtol * ||b||, atol)
  double residual_norm = 0;       // the solver's recursive residual at the end
  double true_residual_norm = 0;  // ||b - A x|| recomputed from x at the end
  double true_rel_residual = 0;   // true_residual_norm / ||b|| (the absolute one if b = 0)
  std::vector<double> history;    // ||r_k||, k = 0 .. iterations (recursive residuals)
  double solve_ms = 0;            // the iteration loop (setup and final check excluded)
  double iter_ms = 0;             // solve_ms / iterations
  int spmv_per_iter = 0;          // 2 (BiCGSTAB) or 1 (CG)
  double spmv_ms_per_iter = 0;    // spmv_per_iter * the median time of one apply
  double other_ms_per_iter = 0;   // iter_ms - spmv_ms_per_iter
  bool cuda_graph = false;        // the merged CUDA loop ran as a CUDA graph
  // Mixed-precision refinement (solve_mixed): its outer (double) steps; `iterations` is then
  // the sum of the inner (float) solves' iterations, `solve_ms` the whole refinement and
  // `inner_loop_ms` the inner solves' loops alone (their iterations, as solve_ms of each).
  int outer_iterations = 0;
  double inner_loop_ms = 0;
};

// Solves A x = b, x holding the initial guess on entry. When the recursive residual reaches
// the tolerance but the true residual ||b - A x|| exceeds 10x the tolerance, the method
// restarts from x (at most options.max_restarts times, within maxiter); if the gap stays,
// the status is breakdown ("residual gap"), never converged. When BiCGSTAB breaks down on
// rho = (r0^, r) or (r0^, v) (the shadow residual r0^ orthogonal to what it meets), it
// restarts from x with another shadow residual, within the same limits. A must be square, b and x of its
// size and on its backend (InputError otherwise); rtol, atol >= 0, maxiter >= 0. A zero b gives
// x = 0, converged at iteration 0.
// `preconditioner` M ~ A^-1 (any Operator<V> of A's size and backend: JacobiPreconditioner,
// BlockJacobiPreconditioner of spmvkit/preconditioners.hpp, or the user's own; nullptr for
// none) is applied on the right for BiCGSTAB (A M y = b, x = M y) and as in PCG for CG (M
// symmetric positive definite), so the residual and the stopping test stay those of A x = b.
// A solve keeps its work vectors (and on CUDA its captured graphs) for the calling thread's
// next solve, which then starts without allocating (docs/solvers.md). They are freed when the
// thread ends, when a device allocation would otherwise run out of memory, or here.
template <class V>
SolveResult solve(const Operator<V>& a, const Vector<V>& b, Vector<V>& x,
                  const SolverOptions& options = {}, const Operator<V>* preconditioner = nullptr);

// Frees the calling thread's kept solver work vectors and graphs (none is in use between
// solves). Returns true when it freed any.
bool release_solver_workspace();

// Mixed precision: the residual, its norm and the solution x in double, the Krylov
// iteration in float (a32, preconditioned by m32; nullptr: none), with `options`' method.
// Stops when the double true residual ||b - A x|| <= max(rtol ||b||, atol) (converged), after
// `options.maxiter` float iterations in all or `max_outer` outer steps (max_iterations), or
// when an outer step no longer reduces the residual by `stall_factor` (breakdown: "refinement
// stalled"). `iterations` is the sum of the float iterations, `outer_iterations` the number
// of outer (double) steps, `history` the double true residual norms (outer steps + 1). a and
// a32 must be the same matrix on the same backend. Two schemes (docs/solvers.md):
// - MixedScheme::reliable (the default; merged implementation, one process): reliable
//   updates. One float iteration runs on; each time its residual has dropped by
//   reliable_delta since the last outer step (or by the looser 0.5 tol / ||r|| the last step
//   needs), or after inner_maxiter iterations, the outer step adds its correction to x, recomputes
//   the residual in double and replaces the float residual with it, keeping the search direction:
//   the Krylov space is not lost. A float breakdown (a zero divisor) restarts the iteration from x
//   if its correction reduced the residual (else undoes it and stops); a NaN stops as non_finite,
//   its correction not applied.
// - MixedScheme::restart (and always for the reference implementation or a distributed
//   operator): iterative refinement, each correction from A32 d = r / ||r|| solved afresh by
//   solve() to inner_rtol (at most inner_maxiter iterations), restarting the Krylov method;
//   an inner solve that does not reduce its own residual is a breakdown (its correction not
//   applied).
enum class MixedScheme { reliable, restart };
struct MixedOptions {
  MixedScheme scheme = MixedScheme::reliable;
  // reliable: the float residual's drop between outer steps. The float recursive residual
  // drifts from the true one by about eps(float) / delta relative: a small delta saves outer
  // steps but costs iterations (CPU, rtol 1e-10: convdiff3d_48 BiCGSTAB 1.06x the double
  // solve's iterations at 0.1, 1.34x at 1e-4; docs/solvers.md).
  double reliable_delta = 0.1;
  double inner_rtol = 1e-4;  // restart: each inner solve's relative tolerance
  int inner_maxiter = 500;   // float iterations per outer step at most
  int max_outer = 50;
  double stall_factor = 0.9;  // an outer step must give ||r_new|| <= stall_factor ||r||
};
SolveResult solve_mixed(const Operator<double>& a, const Operator<float>& a32,
                        const Vector<double>& b, Vector<double>& x, const SolverOptions& options,
                        const Operator<float>* m32 = nullptr, const MixedOptions& mixed = {});

// --- the traffic model (merged-kernels paper section 3.3, table 1, theorem 1) ---------------
// Vector words (one value each) a method moves per iteration besides its SpMVs.
struct SolverTraffic {
  double read_words = 0;   // per unknown: reads are read_words * n values
  double write_words = 0;  // writes are write_words * n values
  double bound_words = 0;  // the lower bound (paper theorem 1: 18n for BiCGSTAB)
  int spmv_per_iter = 0;
  double words() const { return read_words + write_words; }
};
SolverTraffic solver_traffic(SolverMethod m, SolverImpl i);

// Bytes one iteration must move: vector words * n * sizeof(value) (vectors_only), plus each
// SpMV's byte model (matrix_bytes + x read + y written).
double solver_vector_bytes(SolverMethod m, SolverImpl i, const OperatorInfo& a,
                           std::size_t value_bytes);
double solver_iteration_bytes(SolverMethod m, SolverImpl i, const OperatorInfo& a,
                              std::size_t value_bytes);

// The paper's runtime-savings model (section 4.5), savings = 1 - T_merged / T_reference, from
// the reference's time fractions spent in SpMV and in dot products:
//   eq. (2): P_memory = (1 - spmv - dot) * eta,  eta = 1 - 18/34 (table 1);
//   eq. (3): F(n) = (1 / (1e-7 n + 0.018) + 8) / 100 (its regression fit on a K40);
//   eq. (4): P_memory+dot = eta (1 - spmv - dot) + F(n) dot.
double paper_eta_memory();
double paper_f(double n);
double paper_savings_memory(double spmv_fraction, double dot_fraction);
double paper_savings_memory_dot(double spmv_fraction, double dot_fraction, double n);

}  // namespace spmvkit
