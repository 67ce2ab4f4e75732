// The distributed layer under mpirun (1..4 ranks, CPU backend in CI): SpMV of every CPU format
// over the matrix zoo and the solvers give the single-process float64 answer; awkward
// partitions (empty ranks, more ranks than rows, a halo that is every column); loading;
// failures on one rank reach every rank. Inputs are drawn from one seed shared by the ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "dist/dist.hpp"
#include "dist/halo.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/preconditioners.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit::testing {
namespace {

using dist::Partition;

int me() { return dist::comm_rank(MPI_COMM_WORLD); }
int ranks() { return dist::comm_size(MPI_COMM_WORLD); }

// This rank's rows of `a`, cut here (independently of dist::scatter_rows, tested below).
template <class V>
dist::LocalRows<V> slice(const Csr<double>& a, const Partition& rows, const Partition& cols) {
  dist::LocalRows<V> out;
  out.row_part = rows;
  out.col_part = cols;
  const index_t r0 = rows.begin[me()], r1 = rows.begin[me() + 1];
  out.rows.rows = r1 - r0;
  out.rows.cols = a.cols;
  out.rows.row_ptr.assign(1, 0);
  for (index_t i = r0; i < r1; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      out.rows.col_idx.push_back(a.col_idx[k]);
      out.rows.values.push_back(static_cast<V>(a.values[k]));
    }
    out.rows.row_ptr.push_back(static_cast<index_t>(out.rows.col_idx.size()));
  }
  return out;
}

// Row partitions worth testing: balanced by nonzeros, and rank 0 empty (the rest evenly).
std::vector<std::pair<std::string, Partition>> row_partitions(const Csr<double>& a) {
  std::vector<std::pair<std::string, Partition>> out{
      {"nnz", dist::partition_by_nnz(a.row_ptr, ranks())}};
  if (ranks() > 1) {
    Partition p = dist::partition_even(a.rows, ranks() - 1);
    p.begin.insert(p.begin.begin(), 0);
    out.push_back({"rank0_empty", p});
  }
  return out;
}

Partition col_partition(const Csr<double>& a, const Partition& rows) {
  return a.rows == a.cols ? rows : dist::partition_even(a.cols, ranks());
}

// z = alpha*A*x + beta*y with the distributed operator (z poisoned), gathered on rank 0 and
// compared with the float64 reference of the whole matrix.
template <class V>
void expect_dist_spmv(const dist::DistOperator<V>& op, const Csr<double>& a,
                      const dist::LocalRows<V>& local, std::uint64_t seed, const std::string& what,
                      Backend be = Backend::cpu) {
  std::mt19937_64 rng(seed);
  std::vector<V> xv, yv;  // whole vectors, the same on every rank (one seed)
  for (double v : random_vector(a.cols, rng)) xv.push_back(static_cast<V>(v));
  for (double v : random_vector(a.rows, rng)) yv.push_back(static_cast<V>(v));
  const std::vector<double> x64(xv.begin(), xv.end()), y64(yv.begin(), yv.end());
  Csr<double> a_rounded = a.cast<V>().template cast<double>();
  for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-1.5, 0.75}}) {
    const std::vector<V> xl(xv.begin() + local.col_part.begin[me()],
                            xv.begin() + local.col_part.begin[me() + 1]);
    const std::vector<V> yl(yv.begin() + local.row_part.begin[me()],
                            yv.begin() + local.row_part.begin[me() + 1]);
    auto x = Vector<V>::from_host(xl, be);
    auto y = Vector<V>::from_host(yl, be);
    Vector<V> z(yl.size(), be);
    z.fill_nan();
    op.apply(x.data(), beta == 0 ? nullptr : y.data(), z.data(), V(alpha), V(beta));
    const std::vector<V> got = dist::gather_vector(MPI_COMM_WORLD, local.row_part, z.to_host());
    if (me() != 0) continue;
    const auto ref = reference_spmv(a_rounded, x64, y64, alpha, beta);
    // Error relative to |alpha| |A| |x| + |beta| |y| (the sizes rounding works on), so a draw
    // where the two terms cancel is not mistaken for a wrong result.
    Csr<double> abs_a = a_rounded;
    for (double& v : abs_a.values) v = std::abs(v);
    std::vector<double> ax(x64.size()), ay(y64.size());
    for (std::size_t i = 0; i < ax.size(); ++i) ax[i] = std::abs(x64[i]);
    for (std::size_t i = 0; i < ay.size(); ++i) ay[i] = std::abs(y64[i]);
    const auto scale = reference_spmv(abs_a, ax, ay, std::abs(alpha), std::abs(beta));
    double err = 0, size = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double d = static_cast<double>(got[i]) - ref[i];
      err += d * d;
      size += scale[i] * scale[i];
    }
    ASSERT_EQ(got.size(), ref.size());
    EXPECT_LE(size > 0 ? std::sqrt(err / size) : std::sqrt(err), spmv_tolerance<V>(a_rounded))
        << what << " alpha " << alpha << " beta " << beta << ", " << ranks() << " ranks, seed "
        << test_seed();
  }
}

// Every CPU format over the zoo; float on the balanced partition only (CI time).
template <class V>
void spmv_over_zoo() {
  int checked = 0;
  for (const std::string& name : zoo_names()) {
    const Csr<double>& a = zoo_matrix(name);
    auto partitions = row_partitions(a);
    if (sizeof(V) == 4) partitions.resize(1);
    for (const auto& [pname, rows] : partitions) {
      const Partition cols = col_partition(a, rows);
      const auto local = slice<V>(a, rows, cols);
      for (const FormatEntry& f : formats()) {
        if (!f.supports(Backend::cpu)) continue;
        std::unique_ptr<dist::DistOperator<V>> op;
        try {
          op = dist::build_distributed<V>(MPI_COMM_WORLD, local, f.name);
        } catch (const UnsupportedError&) {
          continue;  // the format refuses some rank's part, on every rank alike
        }
        expect_dist_spmv(*op, a, local, test_seed() + checked,
                         f.name + " on " + name + " (" + pname + " partition)");
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);  // formats x zoo: a refusal everywhere would pass unnoticed
}

TEST(DistSpmv, ZooEveryCpuFormatDouble) { spmv_over_zoo<double>(); }
TEST(DistSpmv, ZooEveryCpuFormatFloat) { spmv_over_zoo<float>(); }

// More ranks than rows, and a matrix whose halo is every column: row i of n couples only to
// column (i + n/2) mod n, owned by another rank whenever there are two or more.
TEST(DistSpmv, AwkwardShapes) {
  for (index_t n : {1, 3, 64}) {
    Coo<double> c;
    c.rows = c.cols = n;
    for (index_t i = 0; i < n; ++i) {
      c.row_idx.push_back(i);
      c.col_idx.push_back((i + n / 2) % n);
      c.values.push_back(1.0 + i);
    }
    const Csr<double> a = to_csr(c);
    const Partition p = dist::partition_even(n, ranks());
    const auto local = slice<double>(a, p, p);
    auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, "csr_scalar");
    if (n == 64 && ranks() > 1) {
      EXPECT_EQ(op->halo().local_nnz, 0);
      EXPECT_EQ(op->halo().halo_nnz, local.rows.nnz());
      EXPECT_EQ(op->halo().halo_rows, local.rows.rows);  // every row reads ghosts: kept whole
    }
    expect_dist_spmv(*op, a, local, test_seed(), "halo-only n=" + std::to_string(n));
  }
}

// A grid's halo part holds only its boundary rows (the compressed halo operator, its result
// added at those rows); the product stays the reference's, every CPU format, alpha and beta.
TEST(DistSpmv, GridHaloKeepsOnlyBoundaryRows) {
  // 24^3 rows: on 4 ranks six layers a rank, at most two of them boundary layers.
  const Csr<double> a = generate_by_name("stencil7_24");
  const Partition p = dist::partition_by_nnz(a.row_ptr, ranks());
  const auto local = slice<double>(a, p, p);
  for (const char* format : {"csr_scalar", "csr_vector", "sellp", "csr_balanced"}) {
    auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, format);
    if (ranks() > 1 && local.rows.rows > 0) {
      EXPECT_GT(op->halo().halo_rows, 0) << format;
      EXPECT_LE(2 * op->halo().halo_rows, local.rows.rows) << format;
    }
    expect_dist_spmv(*op, a, local, test_seed(), std::string(format) + " on stencil7_24");
  }
}

TEST(DistSpmv, ScatterRowsMatchesSlice) {
  const Csr<double>& a = zoo_matrix("real_west0479");
  const Partition p = dist::partition_by_nnz(a.row_ptr, ranks());
  const auto got = dist::scatter_rows<double>(MPI_COMM_WORLD, me() == 0 ? &a : nullptr, p, p);
  const auto want = slice<double>(a, p, p);
  EXPECT_EQ(got.rows.row_ptr, want.rows.row_ptr);
  EXPECT_EQ(got.rows.col_idx, want.rows.col_idx);
  EXPECT_EQ(got.rows.values, want.rows.values);
}

TEST(DistPartition, BalancedByNonzerosCoversEveryRow) {
  for (int parts : {1, 2, 3, 7, 40}) {
    const Csr<double>& a = zoo_matrix("powerlaw_20000");
    const Partition p = dist::partition_by_nnz(a.row_ptr, parts);
    ASSERT_EQ(p.ranks(), parts);
    EXPECT_EQ(p.begin.front(), 0);
    EXPECT_EQ(p.begin.back(), a.rows);
    const double share = (static_cast<double>(a.nnz()) + a.rows) / parts;
    index_t longest = 0;
    for (index_t i = 0; i < a.rows; ++i) longest = std::max(longest, a.row_length(i));
    for (int r = 0; r < parts; ++r) {
      EXPECT_LE(p.begin[r], p.begin[r + 1]);
      const double w = a.row_ptr[p.begin[r + 1]] - a.row_ptr[p.begin[r]] + p.count(r);
      EXPECT_LE(w, share + longest + 1) << "part " << r << " of " << parts;
    }
    for (index_t i : {index_t{0}, a.rows / 2, a.rows - 1}) {
      const int o = p.owner(i);
      EXPECT_TRUE(p.begin[o] <= i && i < p.begin[o + 1]);
    }
  }
  const Partition tiny = dist::partition_by_nnz({0, 1, 2}, 5);  // more parts than rows
  EXPECT_EQ(tiny.begin.back(), 2);
  EXPECT_EQ(tiny.ranks(), 5);
}

TEST(DistLoad, StencilRowsAreTheWholeMatrixRows) {
  const auto loaded = dist::load_distributed(MPI_COMM_WORLD, "stencil27_9", dist::PartitionMethod::nnz);
  const Csr<double> whole = generate_stencil_3d(9, 27);
  EXPECT_EQ(loaded.global_nnz, whole.nnz());
  const auto want = slice<double>(whole, loaded.local.row_part, loaded.local.col_part);
  EXPECT_EQ(loaded.local.rows.row_ptr, want.rows.row_ptr);
  EXPECT_EQ(loaded.local.rows.col_idx, want.rows.col_idx);
  EXPECT_EQ(loaded.local.rows.values, want.rows.values);
}

TEST(DistLoad, EveryGeneratorsRowsAreTheWholeMatrixRows) {
  // Reservoir and expansions in whole block rows; random_ is rectangular (columns split evenly).
  const std::pair<const char*, index_t> cases[] = {{"convdiff3d_7_2", 1},
                                                   {"reservoir_bs3_5", 3},
                                                   {"powerlaw_3000_300", 1},
                                                   {"banded_500_20_7", 1},
                                                   {"random_300_200_4.5", 1},
                                                   {"expand_bs2_banded_200_5", 2},
                                                   {"expand_bs2_reservoir_bs3_3", 6}};
  for (const auto& [name, unit] : cases) {
    SCOPED_TRACE(name);
    const auto loaded = dist::load_distributed(MPI_COMM_WORLD, name, dist::PartitionMethod::nnz);
    const Csr<double> whole = generate_by_name(name);
    EXPECT_EQ(loaded.global_nnz, whole.nnz());
    EXPECT_EQ(loaded.local.row_part.size(), whole.rows);
    EXPECT_EQ(loaded.local.col_part.size(), whole.cols);
    for (index_t b : loaded.local.row_part.begin) EXPECT_EQ(b % unit, 0) << b;
    const auto want = slice<double>(whole, loaded.local.row_part, loaded.local.col_part);
    EXPECT_EQ(loaded.local.rows.rows, want.rows.rows);
    EXPECT_EQ(loaded.local.rows.cols, want.rows.cols);
    EXPECT_EQ(loaded.local.rows.row_ptr, want.rows.row_ptr);
    EXPECT_EQ(loaded.local.rows.col_idx, want.rows.col_idx);
    EXPECT_EQ(loaded.local.rows.values, want.rows.values);
  }
}

// Generated rows are cut by nonzeros, though no rank sees the whole row pointer: with a row
// unit of 1 the cuts are partition_by_nnz's on the whole matrix, and on power-law matrices
// (long rows anywhere) the ranks' nonzero counts stay close. Block generators cut at block
// rows, by block-row weight.
TEST(DistLoad, GeneratedRowsAreBalancedByNonzeros) {
  const std::pair<const char*, index_t> cases[] = {{"powerlaw_40000_2000", 1},
                                                   {"powerlaw_3000_300", 1},
                                                   {"random_3000_200_4.5", 1},
                                                   {"expand_bs2_powerlaw_20000_500", 2},
                                                   {"reservoir_bs3_6", 3}};
  for (const auto& [name, unit] : cases) {
    SCOPED_TRACE(name);
    const auto loaded = dist::load_distributed(MPI_COMM_WORLD, name, dist::PartitionMethod::nnz);
    const Csr<double> whole = generate_by_name(name);
    const Partition& p = loaded.local.row_part;
    ASSERT_EQ(p.ranks(), ranks());
    if (unit == 1) {
      EXPECT_EQ(p.begin, dist::partition_by_nnz(whole.row_ptr, ranks()).begin);
    }
    // The weights (nnz + rows) of the parts: each within one block row of the ideal share.
    index_t widest = 0;  // the heaviest block row
    for (index_t u = 0; u < whole.rows; u += unit)
      widest = std::max(widest, whole.row_ptr[u + unit] - whole.row_ptr[u] + unit);
    const double share = static_cast<double>(whole.nnz() + whole.rows) / ranks();
    std::vector<std::int64_t> nnz;
    for (int r = 0; r < ranks(); ++r) {
      EXPECT_EQ(p.begin[r] % unit, 0);
      const std::int64_t nz = whole.row_ptr[p.begin[r + 1]] - whole.row_ptr[p.begin[r]];
      EXPECT_LE(std::abs(static_cast<double>(nz + p.count(r)) - share), widest + 1.0)
          << "rank " << r << ": " << nz << " nonzeros in " << p.count(r) << " rows";
      nnz.push_back(nz);
    }
    EXPECT_EQ(loaded.local.rows.nnz(), nnz[me()]);
    if (std::string(name) == "powerlaw_40000_2000") {
      const auto [lo, hi] = std::minmax_element(nnz.begin(), nnz.end());
      EXPECT_LE(static_cast<double>(*hi), 1.1 * static_cast<double>(*lo))
          << "nonzeros per rank from " << *lo << " to " << *hi;
    }
  }
}

// The cuts from row lengths scattered over the ranks in any slice equal the cuts from the
// whole row pointer (rank 0 empty, the last rank holding most rows).
TEST(DistPartition, FromSlicedLengthsEqualsWholeRowPointer) {
  const Csr<double> a = generate_by_name("powerlaw_3000_300");
  Partition slice = dist::partition_even(a.rows / 2, std::max(ranks() - 1, 1));
  if (ranks() > 1) slice.begin.insert(slice.begin.begin(), 0);
  slice.begin.back() = a.rows;
  std::vector<index_t> lengths;
  for (index_t i = slice.begin[me()]; i < slice.begin[me() + 1]; ++i)
    lengths.push_back(a.row_length(i));
  EXPECT_EQ(dist::partition_by_nnz(MPI_COMM_WORLD, slice, lengths).begin,
            dist::partition_by_nnz(a.row_ptr, ranks()).begin);
  lengths.push_back(1);  // one length too many on every rank
  EXPECT_THROW(dist::partition_by_nnz(MPI_COMM_WORLD, slice, lengths), InputError);
}

TEST(DistLoad, MetisPartitionGivesTheSameProduct) {
  if (!dist::metis_compiled() && ranks() > 1) GTEST_SKIP() << "built without METIS";
  const std::string path = data_matrix("bcsstk13.mtx.gz");
  const auto loaded = dist::load_distributed(MPI_COMM_WORLD, path, dist::PartitionMethod::metis);
  const Csr<double> a = load_matrix(path);
  ASSERT_EQ(loaded.perm.size(), static_cast<std::size_t>(a.rows));
  // The distributed operator holds P A P^T: compare with that.
  const Csr<double> pa = dist::permute_symmetric(a, loaded.perm);
  auto op = dist::build_distributed<double>(MPI_COMM_WORLD, loaded.local, "csr_vector");
  expect_dist_spmv(*op, pa, loaded.local, test_seed(), "metis bcsstk13");
}

TEST(DistFaults, ABadFileFailsEveryRank) {
  EXPECT_THROW(dist::load_distributed(MPI_COMM_WORLD, "/nonexistent/none.mtx",
                                      dist::PartitionMethod::nnz),
               InputError);
}

TEST(DistFaults, AWrongVectorSizeFailsEveryRank) {
  const Partition p = dist::partition_even(10, ranks());
  EXPECT_THROW(dist::scatter_vector<double>(MPI_COMM_WORLD, p, std::vector<double>(9, 1.0)),
               InputError);
  std::vector<double> mine(static_cast<std::size_t>(p.count(me())) + (me() == ranks() - 1 ? 1 : 0));
  EXPECT_THROW(dist::gather_vector<double>(MPI_COMM_WORLD, p, mine), InputError);
  const auto back = dist::gather_vector<double>(
      MPI_COMM_WORLD, p, dist::scatter_vector<double>(MPI_COMM_WORLD, p, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  if (me() == 0) {
    EXPECT_EQ(back, (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  }
}

TEST(DistFaults, AWrongPartitionFailsEveryRank) {
  const Csr<double>& a = zoo_matrix("random_2000");
  Partition p = dist::partition_even(a.rows, ranks());
  auto local = slice<double>(a, p, p);
  if (me() == ranks() - 1) local.rows.rows += 1;  // one rank's block disagrees
  EXPECT_THROW(dist::build_distributed<double>(MPI_COMM_WORLD, local, "csr_scalar"), InputError);
  EXPECT_THROW(dist::build_distributed<double>(MPI_COMM_WORLD, slice<double>(a, p, p), "no_such"),
               InputError);
  EXPECT_THROW(dist::build_distributed<double>(MPI_COMM_WORLD, slice<double>(a, p, p), "csr_scalar",
                                               {}, Backend::cpu, dist::Transport::nccl),
               UnsupportedError);
}

// The solvers, unchanged, on the distributed operator: converged with a true residual (from
// the gathered x, in float64 on the whole matrix) within the tolerance, and the same
// iteration count as one process, give or take rounding.
TEST(DistSolvers, MatchSingleProcess) {
  struct Case {
    const char* matrix;
    SolverMethod method;
  };
  for (const Case c : {Case{"stencil7_12", SolverMethod::cg}, Case{"convdiff3d_10", SolverMethod::bicgstab},
                       Case{"stencil5_30", SolverMethod::bicgstab}}) {
    for (SolverImpl impl : {SolverImpl::reference, SolverImpl::merged}) {
      const Csr<double> a = generate_by_name(c.matrix);
      std::mt19937_64 rng(test_seed());
      const std::vector<double> b = random_vector(a.rows, rng);
      SolverOptions o;
      o.method = c.method;
      o.impl = impl;
      o.rtol = 1e-10;
      o.maxiter = 2000;
      o.time_spmv = false;
      // One process.
      auto single = build_operator<double>("csr_vector", a);
      auto b1 = Vector<double>::from_host(b, Backend::cpu);
      Vector<double> x1(b.size(), Backend::cpu);
      x1.fill(0.0);
      const SolveResult r1 = solve(*single, b1, x1, o);
      // Distributed.
      const Partition p = dist::partition_by_nnz(a.row_ptr, ranks());
      const auto local = slice<double>(a, p, p);
      auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, "csr_vector");
      auto bl = Vector<double>::from_host(
          std::vector<double>(b.begin() + p.begin[me()], b.begin() + p.begin[me() + 1]), Backend::cpu);
      Vector<double> xl(bl.size(), Backend::cpu);
      xl.fill(0.0);
      const SolveResult rd = solve(*op, bl, xl, o);
      const std::vector<double> x = dist::gather_vector(MPI_COMM_WORLD, p, xl.to_host());
      const std::string what = std::string(c.matrix) + " " + std::string(to_string(c.method)) +
                               " " + std::string(to_string(impl)) + ", " +
                               std::to_string(ranks()) + " ranks";
      EXPECT_EQ(rd.status, SolveStatus::converged) << what;
      EXPECT_EQ(r1.status, SolveStatus::converged) << what;
      // Sums in another order change BiCGSTAB's path by rounding: close, not equal.
      EXPECT_LE(std::abs(rd.iterations - r1.iterations), 3 + r1.iterations / 4)
          << what << ": " << rd.iterations << " iterations, one process " << r1.iterations;
      EXPECT_NEAR(rd.b_norm, r1.b_norm, 1e-12 * r1.b_norm) << what;
      if (me() != 0) continue;
      const auto ax = reference_spmv(a, x, b, -1.0, 1.0);  // b - A x in float64
      double rr = 0, bb = 0;
      for (std::size_t i = 0; i < b.size(); ++i) rr += ax[i] * ax[i], bb += b[i] * b[i];
      EXPECT_LE(std::sqrt(rr / bb), 10 * o.rtol) << what;
      EXPECT_NEAR(rd.true_rel_residual, std::sqrt(rr / bb), 1e-3 * o.rtol + 1e-15) << what;
      EXPECT_LE(relative_error(x, x1.to_host()), 1e-6) << what;
    }
  }
}

// This rank's diagonal block (its rows, the columns it owns, renumbered from 0): what a
// per-rank preconditioner is built from.
dist::LocalRows<double> diagonal_block(const dist::LocalRows<double>& local) {
  dist::LocalRows<double> out = local;
  const index_t c0 = local.col_part.begin[me()], c1 = local.col_part.begin[me() + 1];
  Csr<double>& d = out.rows;
  d.cols = c1 - c0;
  d.col_idx.clear();
  d.values.clear();
  for (index_t i = 0; i < local.rows.rows; ++i) {
    for (index_t k = local.rows.row_ptr[i]; k < local.rows.row_ptr[i + 1]; ++k)
      if (local.rows.col_idx[k] >= c0 && local.rows.col_idx[k] < c1) {
        d.col_idx.push_back(local.rows.col_idx[k] - c0);
        d.values.push_back(local.rows.values[k]);
      }
    d.row_ptr[i + 1] = static_cast<index_t>(d.col_idx.size());
  }
  return out;
}

// The merged solver on a distributed operator (its fused reductions summed over the ranks at
// each reduction point) against the same solver in one process on backend `be`: the same
// iteration count within 2, and a true residual below rtol, both the solver's own (a global
// norm) and float64 ||b - A x|| / ||b|| of the gathered x on the whole matrix. Without and
// with Jacobi (fused into the updates) and a bs-1 block-Jacobi (the same M, applied as its
// own step: the merged CG's separate (r, z) reduction).
void merged_matches_single_process(Backend be, dist::Transport transport) {
  struct Case {
    const char* matrix;
    SolverMethod method;
    const char* precond;
  };
  const Case cases[] = {{"stencil7_12", SolverMethod::cg, "none"},
                        {"convdiff3d_10", SolverMethod::bicgstab, "none"},
                        {"stencil7_12", SolverMethod::cg, "jacobi"},
                        {"stencil7_12", SolverMethod::cg, "block_jacobi:1"},
                        {"convdiff3d_10", SolverMethod::bicgstab, "jacobi"},
                        {"convdiff3d_10", SolverMethod::bicgstab, "block_jacobi:1"}};
  for (const Case& c : cases) {
    const Csr<double> a = generate_by_name(c.matrix);
    std::mt19937_64 rng(test_seed());
    const std::vector<double> b = random_vector(a.rows, rng);
    SolverOptions o;
    o.method = c.method;
    o.impl = SolverImpl::merged;
    o.rtol = 1e-8;
    o.maxiter = 2000;
    o.time_spmv = false;
    o.record_history = true;
    const PrecondSpec spec = parse_precond(c.precond);
    // One process.
    auto single = build_operator<double>("csr_vector", a, {}, be);
    auto m1 = make_preconditioner<double>(spec, a, be);
    auto b1 = Vector<double>::from_host(b, be);
    Vector<double> x1(b.size(), be);
    x1.fill(0.0);
    const SolveResult r1 = solve(*single, b1, x1, o, m1.get());
    // Distributed.
    const Partition p = dist::partition_by_nnz(a.row_ptr, ranks());
    const auto local = slice<double>(a, p, p);
    auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, "csr_vector", {}, be,
                                              transport);
    auto md = make_preconditioner<double>(spec, diagonal_block(local).rows, be);
    auto bl = Vector<double>::from_host(
        std::vector<double>(b.begin() + p.begin[me()], b.begin() + p.begin[me() + 1]), be);
    Vector<double> xl(bl.size(), be);
    xl.fill(0.0);
    const SolveResult rd = solve(*op, bl, xl, o, md.get());
    const std::vector<double> x = dist::gather_vector(MPI_COMM_WORLD, p, xl.to_host());
    const std::string what = std::string(c.matrix) + " " + std::string(to_string(c.method)) +
                             " merged " + c.precond + " on " + std::string(to_string(be)) +
                             ", " + std::to_string(ranks()) + " ranks";
    EXPECT_EQ(r1.status, SolveStatus::converged) << what << ": one process " << r1.breakdown;
    EXPECT_EQ(rd.status, SolveStatus::converged) << what << ": " << rd.breakdown;
    EXPECT_LE(std::abs(rd.iterations - r1.iterations), 2)
        << what << ": " << rd.iterations << " iterations, one process " << r1.iterations;
    // Every iteration's (global) residual recorded once, the first ||b||.
    EXPECT_EQ(rd.history.size(), static_cast<std::size_t>(rd.iterations) + 1) << what;
    if (!rd.history.empty()) {
      EXPECT_NEAR(rd.history.front(), rd.b_norm, 1e-12 * rd.b_norm) << what;
    }
    EXPECT_LE(rd.true_rel_residual, o.rtol) << what;
    if (me() != 0) continue;
    const auto ax = reference_spmv(a, x, b, -1.0, 1.0);  // b - A x in float64
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) rr += ax[i] * ax[i], bb += b[i] * b[i];
    EXPECT_LE(std::sqrt(rr / bb), o.rtol) << what;
    EXPECT_NEAR(rd.true_rel_residual, std::sqrt(rr / bb), 1e-3 * o.rtol) << what;
  }
}

TEST(DistSolvers, MergedCpuMatchesSingleProcess) {
  merged_matches_single_process(Backend::cpu, dist::Transport::mpi);
}

// NCCL refuses two ranks on one GPU: it is tested where every rank has its own (one rank on
// a one-GPU machine, up to G ranks on a machine of G GPUs).
bool nccl_testable() { return dist::nccl_compiled() && ranks() <= dist::visible_gpus(); }

// The GPU transports (device only): MPI through pinned host buffers (every rank on the one
// GPU, or ranks dealt over the GPUs), NCCL with one GPU a rank; SpMV against the reference,
// the reference solver's true residual.
TEST(DistCuda, TransportsMatchReference) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the CUDA transports are skipped";
  int gpus = 0;
  for (std::string name : {"real_west0479", "stencil27_12", "rect_wide", "powerlaw_20000"}) {
    const Csr<double>& a = zoo_matrix(name);
    for (const auto& [pname, rows] : row_partitions(a)) {
      const auto local = slice<double>(a, rows, col_partition(a, rows));
      for (const char* format : {"csr_vector", "sellp", "csr_balanced"}) {
        auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, format, {}, Backend::cuda,
                                                  dist::Transport::mpi);
        expect_dist_spmv(*op, a, local, test_seed(), std::string(format) + " mpi on " + name,
                         Backend::cuda);
        if (nccl_testable()) {
          auto nc = dist::build_distributed<double>(MPI_COMM_WORLD, local, format, {},
                                                    Backend::cuda, dist::Transport::nccl);
          expect_dist_spmv(*nc, a, local, test_seed(), std::string(format) + " nccl on " + name,
                           Backend::cuda);
          ++gpus;
        }
      }
    }
  }
  if (nccl_testable()) {
    EXPECT_GT(gpus, 0);
  }
  // Solvers on CUDA, reference and merged, over any number of ranks.
  const Csr<double> a = generate_by_name("convdiff3d_12");
  const Partition p = dist::partition_by_nnz(a.row_ptr, ranks());
  const auto local = slice<double>(a, p, p);
  auto op = dist::build_distributed<double>(MPI_COMM_WORLD, local, "sellp", {}, Backend::cuda);
  std::vector<double> b(static_cast<std::size_t>(p.count(me())), 1.0);
  auto bv = Vector<double>::from_host(b, Backend::cuda);
  Vector<double> xv(b.size(), Backend::cuda);
  SolverOptions o;
  o.rtol = 1e-10;
  o.impl = SolverImpl::reference;
  o.time_spmv = false;
  xv.fill(0.0);
  const SolveResult r = solve(*op, bv, xv, o);
  EXPECT_EQ(r.status, SolveStatus::converged);
  const std::vector<double> x = dist::gather_vector(MPI_COMM_WORLD, p, xv.to_host());
  if (me() == 0) {
    const auto res = reference_spmv(a, x, std::vector<double>(a.rows, 1.0), -1.0, 1.0);
    EXPECT_LE(relative_error(res, std::vector<double>(a.rows, 0.0)) /
                  std::sqrt(static_cast<double>(a.rows)),
              10 * o.rtol);
  }
  o.impl = SolverImpl::merged;
  xv.fill(0.0);
  EXPECT_EQ(solve(*op, bv, xv, o).status, SolveStatus::converged);
}

// The merged CUDA solver over the ranks (MPI transport; NCCL where every rank has a GPU).
TEST(DistCuda, MergedMatchesSingleProcess) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the merged CUDA solver over ranks is skipped";
  merged_matches_single_process(Backend::cuda, dist::Transport::mpi);
  if (nccl_testable())
    merged_matches_single_process(Backend::cuda, dist::Transport::nccl);
}

}  // namespace
}  // namespace spmvkit::testing

// MPI around GoogleTest: one seed for all ranks (rank 0's), output from rank 0 only; a rank's
// failure makes mpirun's exit status non-zero.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  unsigned long long seed = me == 0 ? spmvkit::testing::test_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  setenv("SPMVKIT_TEST_SEED", std::to_string(seed).c_str(), 1);
  if (spmvkit::testing::test_seed() != seed) {
    std::fprintf(stderr, "rank %d: the test seed was drawn before it was shared\n", me);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  spmvkit::dist::select_device(MPI_COMM_WORLD);
  ::testing::InitGoogleTest(&argc, argv);
  if (me != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  int any = failed;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
