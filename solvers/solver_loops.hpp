// The solvers' iteration loops, one per implementation and backend (solvers.cpp validates the
// input, handles ||b|| = 0, and computes the true residual and the timing split around them).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/solvers.hpp"

namespace spmvkit::solvers_detail {

struct LoopResult {
  SolveStatus status = SolveStatus::max_iterations;
  std::string breakdown;
  int iterations = 0;
  double residual_norm = 0;
  double loop_ms = 0;  // the iterations only (setup excluded)
  bool cuda_graph = false;
};

// Reductions over the operator's rows, wherever they live: the local result, summed over the
// ranks by Operator::reduce_sum when the operator is distributed (dist/); otherwise the
// local result untouched (the same numbers as before the hook existed).
template <class V>
V global_dot(const Operator<V>& a, double local) {
  a.reduce_sum(&local, 1);
  return static_cast<V>(local);
}
template <class V>
V global_nrm2(const Operator<V>& a, double local_nrm2) {
  double sq = local_nrm2 * local_nrm2;
  return a.reduce_sum(&sq, 1) ? static_cast<V>(std::sqrt(sq)) : static_cast<V>(local_nrm2);
}

// Each loop: r0 = b - A x; stops at once when ||r0|| <= tol; history (when non-null) gets
// ||r_k|| for k = 0 .. iterations; options.callback is called with each. `m` is the
// preconditioner (nullptr: none), applied on the right (BiCGSTAB) or as in PCG, so r stays
// the residual of A x = b.
template <class V>
LoopResult reference_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                          const SolverOptions& o, std::vector<double>* history);
template <class V>
LoopResult merged_cpu_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x, double tol,
                           const SolverOptions& o, std::vector<double>* history);
#if SPMVKIT_HAVE_CUDA
template <class V>
LoopResult merged_cuda_loop(const Operator<V>& a, const Operator<V>* m, const V* b, V* x,
                            double tol, const SolverOptions& o, std::vector<double>* history);
#endif

}  // namespace spmvkit::solvers_detail
