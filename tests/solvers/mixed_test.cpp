// Mixed precision by reliable updates (solve_mixed's default scheme, solvers/refine.cpp) and
// the merged solvers' per-thread workspace (solvers/merged_cuda.cu, solver_loops.hpp
// ScratchLease): the reliable scheme reaching rtol 1e-10 on the double true residual where a
// plain float solve stalls (CG and BiCGSTAB, none / Jacobi / block-Jacobi), its float
// iterations staying close to the double solve's (the Krylov space is not lost at an outer
// step, as a restart loses it), and repeated solves giving bit-identical results whatever
// the previous solve was. CUDA cases skip where there is no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/preconditioners.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "tests/common/zoo.hpp"
#include "tests/solvers/solver_testing.hpp"

namespace spmvkit {
namespace {

using namespace testing;

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return std::string(to_string(info.param));
}

// A + A^T of a diagonally dominant matrix: symmetric positive definite (CG with blocks).
Csr<double> symmetrised(const Csr<double>& r) {
  const Csr<double> rt = transpose(r);
  Csr<double> sym = r;
  for (index_t i = 0; i < r.rows; ++i)
    for (index_t k = r.row_ptr[i]; k < r.row_ptr[i + 1]; ++k) sym.values[k] += rt.values[k];
  return sym;
}

// The double solve's iterations (merged, same method and preconditioner).
int double_iterations(const Csr<double>& a, const std::vector<double>& b64, Backend be,
                      SolverMethod method, const std::string& pc, double rtol) {
  const auto op = build_operator<double>("csr_vector", a, {}, be);
  const auto m = make_preconditioner<double>(parse_precond(pc), a, be);
  const Vector<double> b = Vector<double>::from_host(b64, be);
  Vector<double> x(b64.size(), be);
  x.fill(0);
  SolverOptions o;
  o.method = method;
  o.rtol = rtol;
  o.maxiter = 5000;
  o.time_spmv = false;
  const SolveResult r = solve(*op, b, x, o, m.get());
  EXPECT_EQ(r.status, SolveStatus::converged) << r.breakdown;
  return r.iterations;
}

class ReliableMixed : public ::testing::TestWithParam<Backend> {};

TEST_P(ReliableMixed, ReachesWhereFloatStalls) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const double rtol = 1e-10;
  struct Sys {
    std::string name;
    Csr<double> a;
    SolverMethod method;
  };
  const Sys systems[] = {
      {"convdiff2d_40", generate_convdiff_2d(40, 1.0), SolverMethod::bicgstab},
      {"reservoir_bs7", generate_reservoir(5, 7, test_seed(), 10.0), SolverMethod::bicgstab},
      {"stencil7_12", generate_stencil_3d(12, 7), SolverMethod::cg},
      {"sym reservoir_bs4", symmetrised(generate_reservoir(5, 4, test_seed(), 4.0)),
       SolverMethod::cg}};
  for (const Sys& s : systems) {
    const std::vector<double> b64 = random_rhs(static_cast<std::size_t>(s.a.rows), test_seed());
    // The plain float solve does not reach rtol 1e-10 on the true residual.
    {
      const auto op32 = build_operator<float>("csr_vector", s.a.cast<float>(), {}, be);
      const Vector<float> b32 =
          Vector<float>::from_host(std::vector<float>(b64.begin(), b64.end()), be);
      Vector<float> x32(b64.size(), be);
      x32.fill(0);
      SolverOptions o;
      o.method = s.method;
      o.rtol = rtol;
      o.maxiter = 3000;
      o.time_spmv = false;
      const SolveResult f = solve(*op32, b32, x32, o);
      EXPECT_NE(f.status, SolveStatus::converged) << s.name;
      const std::vector<float> xf = x32.to_host();
      EXPECT_GT(true_rel_residual(s.a, b64, std::vector<double>(xf.begin(), xf.end())), 100 * rtol)
          << s.name;
    }
    const std::string block = s.name.find("bs4") != std::string::npos   ? "block_jacobi:4"
                              : s.name.find("bs7") != std::string::npos ? "block_jacobi:7"
                                                                        : "block_jacobi:3";
    for (const std::string& pc : {std::string("none"), std::string("jacobi"), block}) {
      for (const MixedScheme scheme : {MixedScheme::reliable, MixedScheme::restart}) {
        SCOPED_TRACE(s.name + " " + pc +
                     (scheme == MixedScheme::reliable ? " reliable" : " restart"));
        MixedOptions mo;
        mo.scheme = scheme;
        const MixedRun m = run_mixed(s.a, b64, be, s.method, pc, rtol, mo);
        EXPECT_EQ(m.result.status, SolveStatus::converged)
            << to_string(m.result.status) << " " << m.result.breakdown;
        EXPECT_LE(true_rel_residual(s.a, b64, m.x), rtol);
        EXPECT_LE(m.result.true_rel_residual, rtol);
        EXPECT_GE(m.result.outer_iterations, 2);
        EXPECT_GE(m.result.iterations, m.result.outer_iterations);
        EXPECT_EQ(m.result.history.size(), static_cast<std::size_t>(m.result.outer_iterations) + 1);
      }
    }
  }
}

// The claim of the scheme: no Krylov space lost at an outer step, so the float iterations
// stay close to the double solve's. Seen on the CPU (csr_vector, random b, rtol 1e-10,
// reliable_delta 0.1): stencil7_32 CG 145 against 142 (1.02x; the restart scheme at its
// default inner_rtol 1e-4: 178, 1.25x), convdiff3d_32 BiCGSTAB with Jacobi 86 against 82
// (1.05x; restart 101, 1.23x), stencil7_48 CG 213 / 209 (1.02x; restart 259, 1.24x),
// convdiff3d_48 BiCGSTAB 133 / 125 (1.06x; restart 161, 1.29x). Bound: 1.15x.
TEST_P(ReliableMixed, InnerIterationsCloseToDouble) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const double rtol = 1e-10;
  struct Sys {
    const char* name;
    SolverMethod method;
    const char* pc;
  };
  for (const Sys s : {Sys{"stencil7_32", SolverMethod::cg, "none"},
                      Sys{"stencil7_32", SolverMethod::cg, "jacobi"},
                      Sys{"convdiff3d_32", SolverMethod::bicgstab, "none"},
                      Sys{"convdiff3d_32", SolverMethod::bicgstab, "jacobi"},
                      Sys{"convdiff3d_48", SolverMethod::bicgstab, "none"}}) {
    SCOPED_TRACE(std::string(s.name) + " " + s.pc);
    const Csr<double> a = generate_by_name(s.name);
    const std::vector<double> b64 = random_rhs(static_cast<std::size_t>(a.rows), 1);
    const int d = double_iterations(a, b64, be, s.method, s.pc, rtol);
    const MixedRun m = run_mixed(a, b64, be, s.method, s.pc, rtol, MixedOptions{});
    MixedOptions restart;
    restart.scheme = MixedScheme::restart;
    const MixedRun r = run_mixed(a, b64, be, s.method, s.pc, rtol, restart);
    std::printf("%s %s %s: double %d, reliable %d (%d outer, %.2fx), restart %d (%.2fx)\n", s.name,
                std::string(to_string(s.method)).c_str(), s.pc, d, m.result.iterations,
                m.result.outer_iterations, double(m.result.iterations) / d, r.result.iterations,
                double(r.result.iterations) / d);
    ASSERT_EQ(m.result.status, SolveStatus::converged) << m.result.breakdown;
    EXPECT_LE(true_rel_residual(a, b64, m.x), rtol);
    // CPU 1.02-1.06x with the paper's shadow residual, 1.02-1.20x with the weighted one
    // (convdiff3d_48: 142 against 118, 2026-11-26); the H100 1.02-1.15x before it (float sums in
    // another order). The restarted scheme takes 1.16-1.49x on the same systems.
    EXPECT_LE(m.result.iterations, 1.25 * d);
    EXPECT_LT(m.result.iterations, r.result.iterations);
    EXPECT_GE(m.result.outer_iterations, 3);  // several replacements: a real test of them
  }
}

// solve_mixed's checks and stops under the reliable scheme: a bad reliable_delta is an
// InputError; rtol 0 cannot be met and ends as a stall (or at maxiter), never converged; a
// zero b gives x = 0.
TEST_P(ReliableMixed, StopsAndBadInput) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const Csr<double> a = generate_stencil_2d(10, 5);
  MixedOptions bad;
  bad.reliable_delta = 1.0;
  EXPECT_THROW(run_mixed(a, random_rhs(100, 1), be, SolverMethod::cg, "none", 1e-10, bad),
               InputError);
  const MixedRun s =
      run_mixed(a, random_rhs(100, test_seed()), be, SolverMethod::cg, "none", 0, {});
  EXPECT_NE(s.result.status, SolveStatus::converged);
  EXPECT_LE(s.result.true_rel_residual, 1e-12);
  const MixedRun z =
      run_mixed(a, std::vector<double>(100, 0.0), be, SolverMethod::cg, "none", 1e-10, {});
  EXPECT_EQ(z.result.status, SolveStatus::converged);
  for (const double v : z.x) EXPECT_EQ(v, 0.0);
  // max_outer reached: max_iterations, x better than x0 all the same.
  MixedOptions few;
  few.max_outer = 1;
  const MixedRun f =
      run_mixed(a, random_rhs(100, test_seed()), be, SolverMethod::cg, "none", 1e-12, few);
  EXPECT_EQ(f.result.status, SolveStatus::max_iterations);
  EXPECT_EQ(f.result.outer_iterations, 1);
  EXPECT_LT(f.result.true_rel_residual, 0.5);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReliableMixed, ::testing::ValuesIn(kBackends), backend_name);

// --- repeated solves: the per-thread workspace ------------------------------------------------

struct Solved {
  SolveResult result;
  std::vector<double> x;
};

Solved solve_once(const Operator<double>& op, const Operator<double>* m, const Vector<double>& b,
                  SolverMethod method, int check_every = 16) {
  Vector<double> x(b.size(), op.backend());
  x.fill_nan();
  x.fill(0);
  SolverOptions o;
  o.method = method;
  o.rtol = 1e-10;
  o.maxiter = 2000;
  o.time_spmv = false;
  o.check_every = check_every;
  Solved s;
  s.result = solve(op, b, x, o, m);
  s.x = x.to_host();
  return s;
}

void expect_same(const Solved& first, const Solved& again) {
  EXPECT_EQ(again.result.status, first.result.status);
  EXPECT_EQ(again.result.iterations, first.result.iterations);
  EXPECT_EQ(again.result.history, first.result.history);
  EXPECT_EQ(again.x, first.x);  // bit for bit
}

class RepeatedSolves : public ::testing::TestWithParam<Backend> {};

// The same solve three times gives the same bits (the second and third reuse the workspace
// and, on CUDA, the graphs); a solve of another operator, larger and then smaller, in
// between is right on its own true residual, and the first system solved after it is again
// the same bits. For both methods, without and with a fused preconditioner.
TEST_P(RepeatedSolves, IdenticalAndOtherSizesRight) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const Csr<double> cd = generate_convdiff_2d(30, 0.5), cd_big = generate_convdiff_2d(45, 0.5),
                    cd_small = generate_convdiff_2d(17, 0.5);
  const Csr<double> sp = generate_stencil_2d(30, 5), sp_big = generate_stencil_2d(45, 5),
                    sp_small = generate_stencil_2d(17, 5);
  for (const SolverMethod method : {SolverMethod::bicgstab, SolverMethod::cg}) {
    const bool cg = method == SolverMethod::cg;
    for (const char* pc : {"none", "jacobi"}) {
      SCOPED_TRACE(std::string(to_string(method)) + " " + pc);
      const Csr<double>& a = cg ? sp : cd;
      const auto op = build_operator<double>("csr_vector", a, {}, be);
      const auto m = make_preconditioner<double>(parse_precond(pc), a, be);
      const std::vector<double> b64 = random_rhs(static_cast<std::size_t>(a.rows), test_seed());
      const Vector<double> b = Vector<double>::from_host(b64, be);
      const Solved first = solve_once(*op, m.get(), b, method);
      ASSERT_EQ(first.result.status, SolveStatus::converged) << first.result.breakdown;
      EXPECT_LE(true_rel_residual(a, b64, first.x), 1e-9);
      expect_same(first, solve_once(*op, m.get(), b, method));
      expect_same(first, solve_once(*op, m.get(), b, method));
      for (const Csr<double>* other : {cg ? &sp_big : &cd_big, cg ? &sp_small : &cd_small}) {
        const auto op2 = build_operator<double>("csr_vector", *other, {}, be);
        const auto m2 = make_preconditioner<double>(parse_precond(pc), *other, be);
        const std::vector<double> b2 =
            random_rhs(static_cast<std::size_t>(other->rows), test_seed() + 1);
        const Solved s2 = solve_once(*op2, m2.get(), Vector<double>::from_host(b2, be), method);
        EXPECT_EQ(s2.result.status, SolveStatus::converged) << s2.result.breakdown;
        EXPECT_LE(true_rel_residual(*other, b2, s2.x), 1e-9);
      }
      expect_same(first, solve_once(*op, m.get(), b, method));
      // Another check_every (another graph shape) and back.
      const Solved k5 = solve_once(*op, m.get(), b, method, 5);
      EXPECT_EQ(k5.result.iterations, first.result.iterations);
      expect_same(first, solve_once(*op, m.get(), b, method));
    }
  }
}

// A new operator of the same size, built after the first is destroyed (on CUDA its memory,
// and maybe the operator's own address, can be the old one's): its own system is solved,
// not the old one (graphs are keyed by Operator::id, never by address).
TEST_P(RepeatedSolves, NewOperatorOfTheSameSize) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const Csr<double> a1 = generate_convdiff_2d(30, 0.5), a2 = generate_convdiff_2d(30, 3.0);
  const std::vector<double> b64 = random_rhs(900, test_seed());
  const Vector<double> b = Vector<double>::from_host(b64, be);
  Solved s1, s2;
  {
    const auto op = build_operator<double>("csr_vector", a1, {}, be);
    s1 = solve_once(*op, nullptr, b, SolverMethod::bicgstab);
  }
  {
    const auto op = build_operator<double>("csr_vector", a2, {}, be);
    s2 = solve_once(*op, nullptr, b, SolverMethod::bicgstab);
  }
  ASSERT_EQ(s1.result.status, SolveStatus::converged);
  ASSERT_EQ(s2.result.status, SolveStatus::converged);
  EXPECT_LE(true_rel_residual(a1, b64, s1.x), 1e-9);
  EXPECT_LE(true_rel_residual(a2, b64, s2.x), 1e-9);
  EXPECT_GT(true_rel_residual(a2, b64, s1.x), 1e-6);  // the two systems differ
}

// release_solver_workspace frees what the solves kept (true once, then nothing left: false),
// and the next solve allocates afresh and gives the same bits.
TEST_P(RepeatedSolves, ReleasedWorkspaceThenSameAnswer) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const Csr<double> a = generate_convdiff_2d(30, 0.5);
  const auto op = build_operator<double>("csr_vector", a, {}, be);
  const Vector<double> b = Vector<double>::from_host(random_rhs(900, test_seed()), be);
  const Solved first = solve_once(*op, nullptr, b, SolverMethod::bicgstab);
  ASSERT_EQ(first.result.status, SolveStatus::converged);
  release_solver_workspace();  // also what other tests of this thread kept
  EXPECT_FALSE(release_solver_workspace());
  const Solved again = solve_once(*op, nullptr, b, SolverMethod::bicgstab);
  expect_same(first, again);
  EXPECT_TRUE(release_solver_workspace());
  EXPECT_FALSE(release_solver_workspace());
}

// A solve from another solve's callback (same thread) gets its own workspace: both right.
TEST_P(RepeatedSolves, NestedSolveFromCallback) {
  const Backend be = GetParam();
  SKIP_WITHOUT_GPU(be);
  const Csr<double> a = generate_convdiff_2d(30, 0.5), inner_a = generate_convdiff_2d(20, 0.5);
  const auto op = build_operator<double>("csr_vector", a, {}, be);
  const auto inner_op = build_operator<double>("csr_vector", inner_a, {}, be);
  const std::vector<double> b64 = random_rhs(900, test_seed()), ib64 = random_rhs(400, 7);
  const Vector<double> b = Vector<double>::from_host(b64, be);
  const Vector<double> ib = Vector<double>::from_host(ib64, be);
  const Solved alone = solve_once(*op, nullptr, b, SolverMethod::bicgstab);
  std::vector<double> inner_residuals;
  Vector<double> x(900, be);
  x.fill(0);
  SolverOptions o;
  o.rtol = 1e-10;
  o.maxiter = 2000;
  o.time_spmv = false;
  o.callback = [&](int k, double) {
    if (k % 8 != 1) return;
    const Solved s = solve_once(*inner_op, nullptr, ib, SolverMethod::bicgstab);
    inner_residuals.push_back(true_rel_residual(inner_a, ib64, s.x));
  };
  const SolveResult r = solve(*op, b, x, o);
  EXPECT_EQ(r.status, SolveStatus::converged);
  EXPECT_EQ(r.iterations, alone.result.iterations);
  EXPECT_EQ(x.to_host(), alone.x);
  ASSERT_FALSE(inner_residuals.empty());
  for (const double v : inner_residuals) EXPECT_LE(v, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Backends, RepeatedSolves, ::testing::ValuesIn(kBackends), backend_name);

}  // namespace
}  // namespace spmvkit
