// Helpers shared by the preconditioner and mixed-precision tests: the backends, the float64
// true residual, random right-hand sides, and one mixed-precision solve.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "spmvkit/preconditioners.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "tests/common/zoo.hpp"

#define SKIP_WITHOUT_GPU(be) \
  if ((be) == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device"

namespace spmvkit::testing {

inline constexpr Backend kBackends[] = {Backend::cpu, Backend::cuda};

// ||b - A x|| / ||b|| in float64 on the host.
inline double true_rel_residual(const Csr<double>& a, const std::vector<double>& b,
                                const std::vector<double>& x) {
  double rr = 0, bb = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    double s = b[i];
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s -= a.values[k] * x[a.col_idx[k]];
    rr += s * s;
    bb += b[i] * b[i];
  }
  return std::sqrt(rr / bb);
}

inline std::vector<double> random_rhs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_vector(n, rng);
}

struct MixedRun {
  SolveResult result;
  std::vector<double> x;
};

// solve_mixed (csr_vector, preconditioner `pc` in float) from x0 = 0; x poisoned with NaN
// first, then zeroed, so that a solve that does not write x leaves a residual of 1, never a
// small one by accident.
inline MixedRun run_mixed(const Csr<double>& a, const std::vector<double>& b64, Backend be,
                          SolverMethod method, const std::string& pc, double rtol,
                          const MixedOptions& mo = {}) {
  const auto op = build_operator<double>("csr_vector", a, {}, be);
  const auto op32 = build_operator<float>("csr_vector", a.cast<float>(), {}, be);
  const auto m32 = make_preconditioner<float>(parse_precond(pc), a.cast<float>(), be);
  const Vector<double> b = Vector<double>::from_host(b64, be);
  Vector<double> x(b64.size(), be);
  x.fill_nan();
  x.fill(0);
  SolverOptions o;
  o.method = method;
  o.rtol = rtol;
  o.maxiter = 5000;
  o.time_spmv = false;
  MixedRun out;
  out.result = solve_mixed(*op, *op32, b, x, o, m32.get(), mo);
  out.x = x.to_host();
  return out;
}

}  // namespace spmvkit::testing
