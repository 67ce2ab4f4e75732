// BiCGSTAB's shadow residual (ops::shadow_residual): weights in [0.5, 1.5) that are a function
// of the global row and the seed alone (the same on both backends and over any number of
// ranks), and the system it exists for: b = ones on an upwind convection-diffusion grid, where
// ones is nearly a left null vector of A and the paper's r0^ = r0 drives rho to rounding level.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/blas.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit {
namespace {

std::vector<double> shadow(Backend be, const std::vector<double>& r, std::int64_t first,
                           unsigned seed) {
  const auto rv = Vector<double>::from_host(r, be);
  Vector<double> out(r.size(), be);
  out.fill(std::nan(""));
  ops::shadow_residual(be, r.size(), rv.data(), out.data(), first, seed);
  return out.to_host();
}

TEST(ShadowResidual, WeightsOfTheGlobalRowAndSeed) {
  std::vector<double> r(1000);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = (i % 3 == 0 ? -1.0 : 1.0) * (1 + i % 7);
  const std::vector<double> whole = shadow(Backend::cpu, r, 0, 0);
  double mean = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double w = whole[i] / r[i];
    EXPECT_GE(w, 0.5);
    EXPECT_LT(w, 1.5);
    mean += w / static_cast<double>(r.size());
  }
  EXPECT_NEAR(mean, 1.0, 0.05);  // spread over the interval, not a constant
  // A rank holding rows [400, 1000) gets the same values as the whole vector there.
  const std::vector<double> part(r.begin() + 400, r.end());
  const std::vector<double> tail = shadow(Backend::cpu, part, 400, 0);
  for (std::size_t i = 0; i < part.size(); ++i) EXPECT_EQ(tail[i], whole[400 + i]);
  // Another seed: other weights.
  const std::vector<double> other = shadow(Backend::cpu, r, 0, 1);
  int same = 0;
  for (std::size_t i = 0; i < r.size(); ++i) same += other[i] == whole[i] ? 1 : 0;
  EXPECT_LT(same, 5);
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the CUDA shadow residual is skipped";
  EXPECT_EQ(shadow(Backend::cuda, r, 0, 0), whole);
  EXPECT_EQ(shadow(Backend::cuda, part, 400, 0), tail);
}

// b = ones on convdiff3d_40 (upwind, zero row and column sums inside): BiCGSTAB converges,
// the true residual within the tolerance, on both implementations and backends.
TEST(ShadowResidual, BicgstabOnesOnUpwindConvectionDiffusion) {
  const Csr<double> a = generate_by_name("convdiff3d_40");
  for (Backend be : {Backend::cpu, Backend::cuda}) {
    if (be == Backend::cuda && !cuda_available()) continue;
    const auto op = build_operator<double>("csr_vector", a, {}, be);
    for (SolverImpl impl : {SolverImpl::reference, SolverImpl::merged}) {
      Vector<double> b(static_cast<std::size_t>(a.rows), be), x(b.size(), be);
      b.fill(1.0);
      x.fill(0.0);
      SolverOptions o;
      o.impl = impl;
      o.time_spmv = false;
      const SolveResult r = solve(*op, b, x, o);
      EXPECT_EQ(r.status, SolveStatus::converged) << r.breakdown;
      EXPECT_LE(r.true_rel_residual, 10 * o.rtol);
    }
  }
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the CUDA solves are skipped";
}

}  // namespace
}  // namespace spmvkit
