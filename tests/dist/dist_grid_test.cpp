// The distributed operator on CUDA against the same rows on the CPU, on a generated grid
// large enough that a product outlasts the halo exchange (device only): products with a
// different x each time, as a solver makes them, and BiCGSTAB on both backends. The grid is
// the one where BiCGSTAB with the paper's shadow residual r0^ = b = ones broke down over 2
// ranks on CUDA (ones is nearly a left null vector of the upwind operator), so it also checks
// the weighted shadow residual (ops::shadow_residual) end to end.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "dist/dist.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::testing {
namespace {

TEST(DistCudaGrid, ProductsAndBicgstabMatchTheCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the CUDA distributed grid is skipped";
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = dist::comm_rank(comm);
  const std::string grid = "convdiff3d_100";
  const dist::Loaded l = dist::load_distributed(comm, grid, dist::PartitionMethod::nnz);
  const auto cpu = dist::build_distributed<double>(comm, l.local, "csr_vector", {}, Backend::cpu);
  const auto gpu = dist::build_distributed<double>(comm, l.local, "csr_vector", {}, Backend::cuda);
  const std::size_t n = static_cast<std::size_t>(cpu->rows());
  const index_t c0 = l.local.col_part.begin[me];
  for (int k = 0; k < 8; ++k) {
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double g = static_cast<double>(c0 + static_cast<index_t>(i));
      x[i] = std::cos(0.37 * g * (k + 1)) + 0.1 * k;
      y[i] = std::sin(0.11 * g + k);
    }
    const double alpha = k % 2 == 0 ? -1.0 : 1.0, beta = k % 2 == 0 ? 1.0 : 0.0;
    std::vector<double> want(n);
    cpu->apply(x.data(), y.data(), want.data(), alpha, beta);
    auto xd = Vector<double>::from_host(x, Backend::cuda);
    auto yd = Vector<double>::from_host(y, Backend::cuda);
    Vector<double> zd(n, Backend::cuda);
    zd.fill(std::nan(""));
    gpu->apply(xd.data(), beta != 0 ? yd.data() : nullptr, zd.data(), alpha, beta);
    const std::vector<double> got = zd.to_host();
    double sums[2] = {0, 0};
    for (std::size_t i = 0; i < n; ++i) {
      const double d = std::isfinite(got[i]) ? got[i] - want[i] : INFINITY;
      sums[0] += d * d;
      sums[1] += want[i] * want[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    EXPECT_LE(std::sqrt(sums[0] / sums[1]), 1e-13) << grid << ", product " << k;
  }

  // A x = ones: converged on both backends, the true residual within the tolerance, and close
  // iteration counts (the same algorithm; only rounding differs).
  int iterations[2] = {0, 0};
  for (int be = 0; be < 2; ++be) {
    const Backend b = be == 0 ? Backend::cpu : Backend::cuda;
    const dist::DistOperator<double>& op = be == 0 ? *cpu : *gpu;
    for (SolverImpl impl : {SolverImpl::reference, SolverImpl::merged}) {
      Vector<double> bv(n, b), xv(n, b);
      bv.fill(1.0);
      xv.fill(-7.0);
      SolverOptions o;
      o.impl = impl;
      o.time_spmv = false;
      const SolveResult r = solve(op, bv, xv, o);
      const std::string what = grid + (be == 0 ? " cpu " : " cuda ") +
                               (impl == SolverImpl::reference ? "reference" : "merged");
      EXPECT_EQ(r.status, SolveStatus::converged) << what << ": " << r.breakdown;
      EXPECT_LE(r.true_rel_residual, 10 * o.rtol) << what;
      if (impl == SolverImpl::reference) iterations[be] = r.iterations;
    }
  }
  EXPECT_LE(std::abs(iterations[1] - iterations[0]), 0.2 * iterations[0] + 5)
      << "cpu " << iterations[0] << ", cuda " << iterations[1];
}

}  // namespace
}  // namespace spmvkit::testing
