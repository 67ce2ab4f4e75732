// The Krylov solvers over backend x method x implementation x precision: convergence to rtol
// on generated SPD stencils and convection-diffusion systems and on bundled real matrices
// (the true residual checked), merged against reference iteration counts, CPU against CUDA,
// and breakdowns and bad input (each a clear status or InputError, never a crash). CUDA cases
// skip where there is no GPU.
#include "spmvkit/solvers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {
namespace {

using testing::test_seed;

constexpr const char* kFormat = "csr_vector";

template <class V>
double rtol_for() {
  return std::is_same_v<V, float> ? 1e-4 : 1e-8;
}

template <class V>
struct System {
  std::unique_ptr<Operator<V>> a;
  Vector<V> b;
};

// b = A * ones-ish (random solution), so the system is consistent.
template <class V>
System<V> make_system(const Csr<double>& a64, Backend be, std::uint64_t seed,
                      const std::string& format = kFormat) {
  System<V> s;
  s.a = build_operator<V>(format, a64.cast<V>(), {}, be);
  std::mt19937_64 rng(seed);
  const std::vector<double> xs = testing::random_vector(static_cast<std::size_t>(a64.cols), rng);
  std::vector<V> b(static_cast<std::size_t>(a64.rows), V(0));
  for (index_t i = 0; i < a64.rows; ++i) {
    double sum = 0;
    for (index_t k = a64.row_ptr[i]; k < a64.row_ptr[i + 1]; ++k)
      sum += a64.values[k] * xs[a64.col_idx[k]];
    b[i] = static_cast<V>(sum);
  }
  s.b = Vector<V>::from_host(b, be);
  return s;
}

template <class V>
SolveResult run(System<V>& s, const SolverOptions& o) {
  Vector<V> x(s.b.size(), s.a->backend());
  x.fill(V(0));
  return solve(*s.a, s.b, x, o);
}

SolverOptions options(SolverMethod m, SolverImpl i, double rtol, int maxiter = 2000) {
  SolverOptions o;
  o.method = m;
  o.impl = i;
  o.rtol = rtol;
  o.maxiter = maxiter;
  o.time_spmv = false;
  return o;
}

// A macro: GTEST_SKIP returns from the function it is written in.
#define SKIP_WITHOUT_GPU(be) \
  if ((be) == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device"

// --- convergence ------------------------------------------------------------------------------

using Case = std::tuple<Backend, SolverMethod, SolverImpl, bool /*f64*/>;

class SolverConvergence : public ::testing::TestWithParam<Case> {
 protected:
  template <class V>
  void check(const std::string& matrix, const Csr<double>& a) {
    const auto [be, method, impl, f64] = GetParam();
    (void)f64;
    System<V> s = make_system<V>(a, be, test_seed());
    const double rtol = rtol_for<V>();
    const SolveResult r = run(s, options(method, impl, rtol));
    SCOPED_TRACE(matrix + " seed " + std::to_string(test_seed()));
    EXPECT_EQ(r.status, SolveStatus::converged) << to_string(r.status) << " " << r.breakdown;
    EXPECT_GT(r.iterations, 0);
    EXPECT_LE(r.history.back(), r.tolerance);
    EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
    // The true residual (recomputed from x) within a small factor of the requested one.
    EXPECT_LE(r.true_rel_residual, (std::is_same_v<V, float> ? 20 : 10) * rtol);
  }
  void check_both(const std::string& matrix) {
    SKIP_WITHOUT_GPU(std::get<0>(GetParam()));
    const Csr<double>& a = matrix.find('/') == std::string::npos ? generate_by_name(matrix)
                                                                 : read_matrix_market(matrix);
    if (std::get<3>(GetParam()))
      check<double>(matrix, a);
    else
      check<float>(matrix, a);
  }
};

TEST_P(SolverConvergence, Stencil5) { check_both("stencil5_24"); }
TEST_P(SolverConvergence, Stencil7) { check_both("stencil7_10"); }
TEST_P(SolverConvergence, ConvectionDiffusion2d) {
  if (std::get<1>(GetParam()) == SolverMethod::cg) GTEST_SKIP() << "nonsymmetric: BiCGSTAB only";
  check_both("convdiff2d_32");
}
TEST_P(SolverConvergence, ConvectionDiffusion3d) {
  if (std::get<1>(GetParam()) == SolverMethod::cg) GTEST_SKIP() << "nonsymmetric: BiCGSTAB only";
  check_both("convdiff3d_10_0.5");
}
// Bundled real matrices (tests/data): 494_bus is SPD (both methods); cage5 is nonsymmetric.
TEST_P(SolverConvergence, Real494Bus) {
  if (!std::get<3>(GetParam())) GTEST_SKIP() << "494_bus (cond ~2e6) is a float64 case";
  check_both(testing::data_matrix("494_bus.mtx"));
}
TEST_P(SolverConvergence, RealBcsstk16) {
  if (!std::get<3>(GetParam())) GTEST_SKIP() << "bcsstk16 is a float64 case";
  check_both(testing::data_matrix("bcsstk16.mtx.gz"));
}
TEST_P(SolverConvergence, RealCage5) {
  if (std::get<1>(GetParam()) == SolverMethod::cg) GTEST_SKIP() << "nonsymmetric: BiCGSTAB only";
  check_both(testing::data_matrix("cage5.mtx"));
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [be, m, i, f64] = info.param;
  return std::string(to_string(be)) + "_" + std::string(to_string(m)) + "_" +
         std::string(to_string(i)) + (f64 ? "_f64" : "_f32");
}

INSTANTIATE_TEST_SUITE_P(
    All, SolverConvergence,
    ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                       ::testing::Values(SolverMethod::bicgstab, SolverMethod::cg),
                       ::testing::Values(SolverImpl::reference, SolverImpl::merged),
                       ::testing::Bool()),
    case_name);

// --- the larger set of real matrices ------------------------------------------------------------
// Which square matrices of ../shared/matrices the unpreconditioned solvers solve to rtol 1e-8
// within 20000 iterations (random right-hand side, float64; found with `spmvkit solve`,
// 2026-11-25). The others are square too but not solved without a preconditioner:
// BiCGSTAB stalls or diverges on Erdos971, adder_dcop_05, bayer10, bcspwr10, bcsstk13,
// bp_1200, cryg2500, dwt_878, dwt_992, fs_183_1, hangGlider_2, nnc1374, olm1000, rajat01,
// rajat19, reorientation_1, watt_2, west0479, zenios (max_iterations), breaks down on
// impcol_a and olm500 (rho = 0), overflows on karate (singular: non_finite); Pd's recursive
// residual reaches 1e-8 while its true residual stays near 1e-5 (not listed).
struct SharedCase {
  const char* name;
  SolverMethod method;
};
const SharedCase kSharedCases[] = {
    {"494_bus", SolverMethod::bicgstab},
    {"494_bus", SolverMethod::cg},
    {"G51", SolverMethod::cg},
    {"arrow", SolverMethod::bicgstab},
    {"bcsstk16", SolverMethod::bicgstab},
    {"bcsstk16", SolverMethod::cg},
    {"cage5", SolverMethod::bicgstab},
    {"jagmesh7", SolverMethod::bicgstab},
    {"jagmesh7", SolverMethod::cg},
    {"pts5ldd03", SolverMethod::bicgstab},
};
// One case a test (backend, implementation, case): the sanitizer sweep's shards spread them.
class SolverSharedMatrices : public ::testing::TestWithParam<std::tuple<Backend, SolverImpl, int>> {
};

TEST_P(SolverSharedMatrices, SolvesTheListedOnes) {
  const auto [be, impl, index] = GetParam();
  SKIP_WITHOUT_GPU(be);
  const std::string dir = testing::shared_matrices_dir();
  if (dir.empty())
    GTEST_SKIP() << "no folder of real matrices ($SPMVKIT_MATRICES or ../shared/matrices)";
  const SharedCase& c = kSharedCases[index];
  // The library's named lookup: NAME.mtx or NAME.mtx.gz in the same folder.
  System<double> s = make_system<double>(load_matrix(c.name), be, test_seed());
  const SolveResult r = run(s, options(c.method, impl, 1e-8, 20000));
  EXPECT_EQ(r.status, SolveStatus::converged)
      << c.name << " " << to_string(c.method) << ": " << to_string(r.status) << " after "
      << r.iterations << " seed " << test_seed();
  EXPECT_LE(r.true_rel_residual, 1e-7) << c.name << " " << to_string(c.method);
}

INSTANTIATE_TEST_SUITE_P(
    All, SolverSharedMatrices,
    ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                       ::testing::Values(SolverImpl::reference, SolverImpl::merged),
                       ::testing::Range(0, static_cast<int>(std::size(kSharedCases)))),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             std::string(to_string(std::get<1>(info.param))) + "_" +
             kSharedCases[std::get<2>(info.param)].name + "_" +
             std::string(to_string(kSharedCases[std::get<2>(info.param)].method));
    });

// --- merged against reference, CPU against CUDA ----------------------------------------------

class SolverAgreement : public ::testing::TestWithParam<std::tuple<Backend, SolverMethod>> {};

TEST_P(SolverAgreement, MergedAndReferenceTakeTheSameIterations) {
  const auto [be, method] = GetParam();
  SKIP_WITHOUT_GPU(be);
  for (const char* name : {"stencil5_24", "convdiff2d_32", "convdiff3d_10_0.5"}) {
    if (method == SolverMethod::cg && std::string(name).rfind("convdiff", 0) == 0) continue;
    System<double> s = make_system<double>(generate_by_name(name), be, test_seed());
    const SolveResult ref = run(s, options(method, SolverImpl::reference, 1e-10));
    const SolveResult mer = run(s, options(method, SolverImpl::merged, 1e-10));
    EXPECT_EQ(ref.status, SolveStatus::converged) << name;
    EXPECT_EQ(mer.status, SolveStatus::converged) << name;
    // Rounding differs (fused sums), and BiCGSTAB's irregular convergence amplifies it: on the
    // symmetric stencil5_24 one seed in the device run gave 70 against 62 (2026-11-25).
    EXPECT_NEAR(ref.iterations, mer.iterations, std::max(5.0, 0.15 * ref.iterations)) << name;
  }
}

TEST_P(SolverAgreement, CpuAndCudaAgree) {
  const auto [be, method] = GetParam();
  if (be == Backend::cpu) GTEST_SKIP() << "compares CPU with CUDA: run once, in the cuda case";
  SKIP_WITHOUT_GPU(be);
  for (const SolverImpl impl : {SolverImpl::reference, SolverImpl::merged}) {
    const Csr<double> a =
        generate_by_name(method == SolverMethod::cg ? "stencil5_24" : "convdiff2d_32");
    System<double> cpu = make_system<double>(a, Backend::cpu, test_seed());
    System<double> gpu = make_system<double>(a, Backend::cuda, test_seed());
    Vector<double> xc(cpu.b.size(), Backend::cpu), xg(gpu.b.size(), Backend::cuda);
    xc.fill(0);
    xg.fill(0);
    const SolveResult rc = solve(*cpu.a, cpu.b, xc, options(method, impl, 1e-10));
    const SolveResult rg = solve(*gpu.a, gpu.b, xg, options(method, impl, 1e-10));
    EXPECT_EQ(rc.status, SolveStatus::converged);
    EXPECT_EQ(rg.status, SolveStatus::converged);
    EXPECT_NEAR(rc.iterations, rg.iterations, std::max(3.0, 0.1 * rc.iterations));
    const std::vector<double> hc = xc.to_host(), hg = xg.to_host();
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < hc.size(); ++i) {
      diff = std::max(diff, std::abs(hc[i] - hg[i]));
      norm = std::max(norm, std::abs(hc[i]));
    }
    EXPECT_LE(diff, 1e-6 * norm);
  }
}

INSTANTIATE_TEST_SUITE_P(All, SolverAgreement,
                         ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                                            ::testing::Values(SolverMethod::bicgstab,
                                                              SolverMethod::cg)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

// --- breakdowns and bad input ------------------------------------------------------------------

using BadCase = std::tuple<Backend, SolverMethod, SolverImpl>;
class SolverBadInput : public ::testing::TestWithParam<BadCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(std::get<0>(GetParam())); }
  Backend be() const { return std::get<0>(GetParam()); }
  SolverOptions opts(double rtol = 1e-8, int maxiter = 200) const {
    return options(std::get<1>(GetParam()), std::get<2>(GetParam()), rtol, maxiter);
  }
};

Csr<double> from_dense(index_t n, const std::vector<double>& dense) {
  Coo<double> c;
  c.rows = c.cols = n;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      if (dense[i * n + j] != 0) {
        c.row_idx.push_back(i);
        c.col_idx.push_back(j);
        c.values.push_back(dense[i * n + j]);
      }
  return to_csr(c);
}

TEST_P(SolverBadInput, ZeroRightHandSideGivesZeroAtOnce) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  s.b.fill(0);
  Vector<double> x(s.b.size(), be());
  x.fill(3.0);  // the initial guess is replaced: A x = 0 has x = 0
  const SolveResult r = solve(*s.a, s.b, x, opts());
  EXPECT_EQ(r.status, SolveStatus::converged);
  EXPECT_EQ(r.iterations, 0);
  for (double v : x.to_host()) EXPECT_EQ(v, 0.0);
}

TEST_P(SolverBadInput, MaxiterZeroStopsAtOnce) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  Vector<double> x(s.b.size(), be());
  x.fill(0);
  const SolveResult r = solve(*s.a, s.b, x, opts(1e-8, 0));
  EXPECT_EQ(r.status, SolveStatus::max_iterations);
  EXPECT_EQ(r.iterations, 0);
  for (double v : x.to_host()) EXPECT_EQ(v, 0.0);
  // maxiter too small to converge: max_iterations, x finite.
  const SolveResult r3 = solve(*s.a, s.b, x, opts(1e-12, 3));
  EXPECT_EQ(r3.status, SolveStatus::max_iterations);
  EXPECT_EQ(r3.iterations, 3);
  for (double v : x.to_host()) EXPECT_TRUE(std::isfinite(v));
}

TEST_P(SolverBadInput, NegativeMaxRestartsIsRefused) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  Vector<double> x(s.b.size(), be());
  x.fill(0);
  SolverOptions o = opts();
  o.max_restarts = -1;
  EXPECT_THROW(solve(*s.a, s.b, x, o), InputError);
}

TEST_P(SolverBadInput, NanInRightHandSideIsNonFinite) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  std::vector<double> b = s.b.to_host();
  b[5] = std::numeric_limits<double>::quiet_NaN();
  s.b.copy_from_host(b);
  const SolveResult r = run(s, opts());
  EXPECT_EQ(r.status, SolveStatus::non_finite);
  EXPECT_EQ(r.iterations, 0);
}

TEST_P(SolverBadInput, InfInInitialGuessIsNonFinite) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  Vector<double> x(s.b.size(), be());
  std::vector<double> x0(s.b.size(), 0.0);
  x0[3] = std::numeric_limits<double>::infinity();
  x.copy_from_host(x0);
  const SolveResult r = solve(*s.a, s.b, x, opts());
  EXPECT_EQ(r.status, SolveStatus::non_finite);
}

TEST_P(SolverBadInput, NanInMatrixIsRefusedOrNonFinite) {
  Csr<double> a = generate_by_name("stencil5_8");
  a.values[7] = std::numeric_limits<double>::quiet_NaN();
  try {
    System<double> s = make_system<double>(a, be(), 1);
    const SolveResult r = run(s, opts());
    EXPECT_EQ(r.status, SolveStatus::non_finite);
  } catch (const InputError&) {
    SUCCEED() << "refused when the operator is built";
  }
}

TEST_P(SolverBadInput, NonSquareMatrixIsAnInputError) {
  const Csr<double> a = generate_random(12, 9, 3.0, 1);
  auto op = build_operator<double>(kFormat, a, {}, be());
  Vector<double> b(12, be()), x(12, be());
  b.fill(1);
  x.fill(0);
  EXPECT_THROW(solve(*op, b, x, opts()), InputError);
}

TEST_P(SolverBadInput, SizeMismatchesAreInputErrors) {
  System<double> s = make_system<double>(generate_by_name("stencil5_8"), be(), 1);
  Vector<double> x_short(s.b.size() - 1, be()), x(s.b.size(), be()), b_long(s.b.size() + 2, be());
  x_short.fill(0);
  x.fill(0);
  b_long.fill(1);
  EXPECT_THROW(solve(*s.a, s.b, x_short, opts()), InputError);
  EXPECT_THROW(solve(*s.a, b_long, x, opts()), InputError);
  EXPECT_THROW(solve(*s.a, s.b, x, opts(-1.0)), InputError);
  EXPECT_THROW(solve(*s.a, s.b, x, opts(1e-8, -1)), InputError);
}

TEST_P(SolverBadInput, SingularMatrixNeverConverges) {
  // stencil5_8 with row 10 zeroed (explicit zeros) and b nonzero there: inconsistent.
  Csr<double> a = generate_by_name("stencil5_8");
  for (index_t k = a.row_ptr[10]; k < a.row_ptr[11]; ++k) a.values[k] = 0;
  System<double> s = make_system<double>(a, be(), 1);
  std::vector<double> b = s.b.to_host();
  b[10] = 1.0;
  s.b.copy_from_host(b);
  Vector<double> x(s.b.size(), be());
  x.fill(0);
  const SolveResult r = solve(*s.a, s.b, x, opts(1e-10, 300));
  EXPECT_NE(r.status, SolveStatus::converged);
  EXPECT_GE(r.true_rel_residual, 1e-6);
  if (r.status == SolveStatus::max_iterations) {
    for (double v : x.to_host()) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST_P(SolverBadInput, ZeroDivisorIsABreakdownNamingTheScalar) {
  // A = [[0, 1], [1, 0]], b = (1, 0): v = A p = (0, 1) is orthogonal to r0^ = (w, 0), and
  // (p, A p) = 0 for CG: the first division breaks down. BiCGSTAB restarts with another
  // shadow residual (zero where r is) each time, as often as allowed, then says so.
  System<double> s = make_system<double>(from_dense(2, {0, 1, 1, 0}), be(), 1);
  s.b.copy_from_host({1.0, 0.0});
  const SolveResult r = run(s, opts());
  EXPECT_EQ(r.status, SolveStatus::breakdown);
  EXPECT_FALSE(r.breakdown.empty());
  EXPECT_NE(r.breakdown.find(std::get<1>(GetParam()) == SolverMethod::cg ? "(p, A p)" : "(r0^, v)"),
            std::string::npos)
      << r.breakdown;
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.restarts, std::get<1>(GetParam()) == SolverMethod::cg ? 0 : opts().max_restarts);
}

TEST_P(SolverBadInput, ConvergedMeansTheTrueResidualToo) {
  // b = ones on upwind convection-diffusion: BiCGSTAB's residuals grow to ~1e12 on the way, and
  // the recursive residual drifts from the true one; the solver restarts (or says so).
  if (std::get<1>(GetParam()) == SolverMethod::cg) GTEST_SKIP() << "nonsymmetric: BiCGSTAB only";
  System<double> s = make_system<double>(generate_by_name("convdiff2d_64"), be(), 1);
  s.b.fill(1.0);
  const SolveResult r = run(s, opts(1e-8, 3000));
  if (r.status == SolveStatus::converged) {
    EXPECT_LE(r.true_rel_residual, 1e-7) << "restarts " << r.restarts;
  } else if (r.status == SolveStatus::breakdown) {
    EXPECT_FALSE(r.breakdown.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, SolverBadInput,
    ::testing::Combine(::testing::Values(Backend::cpu, Backend::cuda),
                       ::testing::Values(SolverMethod::bicgstab, SolverMethod::cg),
                       ::testing::Values(SolverImpl::reference, SolverImpl::merged)),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             std::string(to_string(std::get<1>(info.param))) + "_" +
             std::string(to_string(std::get<2>(info.param)));
    });

// --- the merged CUDA loop's options -------------------------------------------------------------

TEST(SolverMergedCuda, GraphAndCheckIntervalDoNotChangeTheResult) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  System<double> s = make_system<double>(generate_by_name("convdiff2d_32"), Backend::cuda, 7);
  SolverOptions o = options(SolverMethod::bicgstab, SolverImpl::merged, 1e-10);
  std::vector<int> iters;
  for (int every : {1, 5, 16, 64})
    for (bool graph : {false, true}) {
      o.check_every = every;
      o.cuda_graph = graph;
      const SolveResult r = run(s, o);
      EXPECT_EQ(r.status, SolveStatus::converged);
      EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
      iters.push_back(r.iterations);
    }
  for (int it : iters) EXPECT_EQ(it, iters.front());
}

// The graph's groups end on the GPU (a WHILE node): maxiter that check_every does not divide
// (23 in groups of 5, or below one group of 64), and a solve that stops inside a group (tens
// of iterations at rtol 1e-2: inside the first group of 64), give the same iterations,
// history and x as launching each iteration directly (check_every 1, no graph).
TEST(SolverMergedCuda, DeviceLoopStopsExactly) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const SolverMethod method : {SolverMethod::bicgstab, SolverMethod::cg}) {
    SCOPED_TRACE(std::string(to_string(method)));
    System<double> s = make_system<double>(
        generate_by_name(method == SolverMethod::cg ? "stencil5_32" : "convdiff2d_32"),
        Backend::cuda, 7);
    for (const auto& [rtol, maxiter] : {std::pair{1e-12, 23}, std::pair{1e-2, 1000}})
      for (const int every : {5, 64}) {
        SolverOptions o = options(method, SolverImpl::merged, rtol);
        o.maxiter = maxiter;
        o.check_every = 1;
        o.cuda_graph = false;
        Vector<double> x1(s.b.size(), Backend::cuda);
        x1.fill(0);
        const SolveResult direct = solve(*s.a, s.b, x1, o);
        o.check_every = every;
        o.cuda_graph = true;
        Vector<double> x2(s.b.size(), Backend::cuda);
        x2.fill(0);
        const SolveResult graph = solve(*s.a, s.b, x2, o);
        // Under SPMVKIT_SOLVER_GRAPHS=unrolled (synccheck's sweep) a graph holds whole groups
        // only: maxiter 23 in groups of 64 runs without one.
        const char* graphs = std::getenv("SPMVKIT_SOLVER_GRAPHS");
        const bool unrolled = graphs != nullptr && std::string(graphs) == "unrolled";
        EXPECT_EQ(graph.cuda_graph, !unrolled || maxiter >= every);
        EXPECT_EQ(graph.status, direct.status);
        EXPECT_EQ(graph.iterations, direct.iterations);
        if (maxiter == 23) {
          EXPECT_EQ(graph.iterations, 23);
        }
        EXPECT_EQ(graph.history, direct.history);
        EXPECT_EQ(x2.to_host(), x1.to_host());
      }
  }
}

// --- traffic and savings model ------------------------------------------------------------------

TEST(SolverModel, PaperTable1AndEquations) {
  const SolverTraffic ref = solver_traffic(SolverMethod::bicgstab, SolverImpl::reference);
  const SolverTraffic mer = solver_traffic(SolverMethod::bicgstab, SolverImpl::merged);
  EXPECT_EQ(ref.words(), 34);
  EXPECT_EQ(mer.words(), 18);
  EXPECT_EQ(mer.bound_words, 18);
  EXPECT_NEAR(paper_eta_memory(), 0.47, 0.005);  // "approximately 47%"
  EXPECT_NEAR(paper_f(1e5), (1.0 / 0.028 + 8) / 100, 1e-12);
  EXPECT_NEAR(paper_savings_memory(0.5, 0.2), 0.3 * paper_eta_memory(), 1e-12);
  OperatorInfo info;
  info.rows = info.cols = 1000;
  info.matrix_bytes = 12000;
  EXPECT_DOUBLE_EQ(solver_iteration_bytes(SolverMethod::bicgstab, SolverImpl::merged, info, 8),
                   18 * 1000 * 8 + 2 * (12000 + 2000 * 8));
}

}  // namespace
}  // namespace spmvkit
