// Reorderings: RCM and banding validity, bandwidth reduction, components, un-permuting.
#include "spmvkit/reorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>

#include "spmvkit/error.hpp"
#include "spmvkit/reference.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {
namespace {

// Small local helpers (compute_stats is another helper's work): max |i - j| over entries.
index_t bandwidth(const Csr<double>& a) {
  index_t bw = 0;
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      bw = std::max(bw, std::abs(i - a.col_idx[k]));
  return bw;
}

Csr<double> from_entries(index_t n, index_t m,
                         std::vector<std::tuple<index_t, index_t, double>> e) {
  Coo<double> coo;
  coo.rows = n;
  coo.cols = m;
  for (const auto& [r, c, v] : e) {
    coo.row_idx.push_back(r);
    coo.col_idx.push_back(c);
    coo.values.push_back(v);
  }
  return to_csr(coo, "test");
}

// Random banded matrix, symmetric pattern, full diagonal: entries within |i-j| <= half_band.
Csr<double> banded(index_t n, index_t half_band, double fill, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::tuple<index_t, index_t, double>> e;
  for (index_t i = 0; i < n; ++i) {
    e.emplace_back(i, i, 4.0);
    for (index_t j = i + 1; j <= std::min(n - 1, i + half_band); ++j)
      if (j == i + 1 || u(rng) < fill) {  // the first off-diagonal keeps it connected
        e.emplace_back(i, j, u(rng) - 0.5);
        e.emplace_back(j, i, u(rng) - 0.5);
      }
  }
  return from_entries(n, n, std::move(e));
}

std::vector<index_t> random_perm(index_t n, std::uint64_t seed) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), std::mt19937_64(seed));
  return p;
}

TEST(Reorder, PermutationHelpers) {
  EXPECT_TRUE(is_permutation({2, 0, 1}, 3));
  EXPECT_FALSE(is_permutation({2, 0, 0}, 3));
  EXPECT_FALSE(is_permutation({0, 1, 3}, 3));
  EXPECT_FALSE(is_permutation({0, 1}, 3));
  EXPECT_FALSE(is_permutation({-1, 0}, 2));
  EXPECT_TRUE(is_permutation({}, 0));
  EXPECT_EQ(inverse_permutation({2, 0, 1}), (std::vector<index_t>{1, 2, 0}));
  EXPECT_THROW(inverse_permutation({1, 1}), InputError);
  const std::vector<double> v{10, 20, 30};
  const std::vector<index_t> p{2, 0, 1};
  EXPECT_EQ(to_permuted(v, p), (std::vector<double>{30, 10, 20}));
  EXPECT_EQ(from_permuted(to_permuted(v, p), p), v);
  EXPECT_EQ(parse_reorder_method("rcm"), ReorderMethod::rcm);
  EXPECT_EQ(parse_reorder_method("band"), ReorderMethod::band);
  EXPECT_EQ(parse_reorder_method("none"), ReorderMethod::none);
  EXPECT_THROW(parse_reorder_method("metis"), InputError);
}

TEST(Reorder, ValidPermutationsOnTheSquareZoo) {
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    if (a.rows != a.cols) continue;
    SCOPED_TRACE(name);
    EXPECT_TRUE(is_permutation(rcm_order(a), a.rows));
    EXPECT_TRUE(is_permutation(band_order(a), a.rows));
    EXPECT_TRUE(is_permutation(band_order(a, {3, 8}), a.rows));
    EXPECT_TRUE(is_permutation(band_order(a, {0, 4}), a.rows));
    EXPECT_EQ(rcm_order(a), rcm_order(a));  // deterministic
  }
}

TEST(Reorder, ShuffledBandedMatrixGetsItsBandBack) {
  const index_t n = 4000, half_band = 5;
  const Csr<double> a = banded(n, half_band, 0.5, testing::test_seed());
  const Csr<double> shuffled = permute_symmetric(a, random_perm(n, testing::test_seed() + 1));
  const index_t bw_orig = bandwidth(a), bw_shuffled = bandwidth(shuffled);
  ASSERT_GT(bw_shuffled, n / 2);  // shuffling really spread it

  const std::vector<index_t> rcm = rcm_order(shuffled);
  ASSERT_TRUE(is_permutation(rcm, n));
  const index_t bw_rcm = bandwidth(permute_symmetric(shuffled, rcm));
  EXPECT_LE(bw_rcm, 2 * bw_orig) << "original " << bw_orig << ", shuffled " << bw_shuffled;
  EXPECT_LE(bw_rcm, bw_shuffled);

  const std::vector<index_t> band = band_order(shuffled);
  ASSERT_TRUE(is_permutation(band, n));
  const index_t bw_band = bandwidth(permute_symmetric(shuffled, band));
  EXPECT_LE(bw_band, 8 * bw_orig) << "original " << bw_orig << ", shuffled " << bw_shuffled;

  // Not increased on an already banded matrix (RCM keeps the band within a small factor).
  EXPECT_LE(bandwidth(permute_symmetric(a, rcm_order(a))), 2 * bw_orig);
}

TEST(Reorder, UnsymmetricPatternIsSymmetrised) {
  // A lower bidiagonal matrix (a path through the symmetrised pattern), shuffled.
  const index_t n = 500;
  std::vector<std::tuple<index_t, index_t, double>> e;
  for (index_t i = 0; i < n; ++i) {
    e.emplace_back(i, i, 1.0);
    if (i > 0) e.emplace_back(i, i - 1, -1.0);
  }
  const Csr<double> a = from_entries(n, n, std::move(e));
  const Csr<double> s = permute_symmetric(a, random_perm(n, testing::test_seed()));
  EXPECT_EQ(bandwidth(permute_symmetric(s, rcm_order(s))), 1);
}

// Components: several banded blocks and isolated vertices, shuffled together. Each
// component must come out contiguous in the new order and with a small band.
TEST(Reorder, EachConnectedComponentOnItsOwn) {
  const std::vector<index_t> sizes{300, 1, 120, 1, 1, 57, 800, 1};
  std::vector<std::tuple<index_t, index_t, double>> e;
  std::vector<index_t> component;
  index_t offset = 0;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const Csr<double> block = banded(sizes[c], 3, 0.6, testing::test_seed() + c);
    for (index_t i = 0; i < block.rows; ++i) {
      component.push_back(static_cast<index_t>(c));
      for (index_t k = block.row_ptr[i]; k < block.row_ptr[i + 1]; ++k)
        e.emplace_back(offset + i, offset + block.col_idx[k], block.values[k]);
    }
    offset += sizes[c];
  }
  // An isolated vertex with no entry at all (not even a diagonal).
  component.push_back(static_cast<index_t>(sizes.size()));
  const index_t n = offset + 1;
  const Csr<double> a = from_entries(n, n, std::move(e));
  const std::vector<index_t> shuffle = random_perm(n, testing::test_seed());
  const Csr<double> s = permute_symmetric(a, shuffle);
  const std::vector<index_t> comp_of_s = to_permuted(component, shuffle);

  for (ReorderMethod m : {ReorderMethod::rcm, ReorderMethod::band}) {
    SCOPED_TRACE(std::string(to_string(m)));
    const std::vector<index_t> order = reorder_order(s, m);
    ASSERT_TRUE(is_permutation(order, n));
    const std::vector<index_t> comp_new = to_permuted(comp_of_s, order);
    // Contiguous: each component id appears in one run.
    std::vector<int> runs(sizes.size() + 1, 0);
    for (index_t i = 0; i < n; ++i)
      if (i == 0 || comp_new[i] != comp_new[i - 1]) ++runs[comp_new[i]];
    for (std::size_t c = 0; c < runs.size(); ++c) EXPECT_EQ(runs[c], 1) << "component " << c;
    // band keeps a coarse vertex's rows together (up to 16 at two levels of 4), so its band is
    // coarser than RCM's: 25 on one seed (2655841642299591607), against 1,000+ shuffled.
    EXPECT_LE(bandwidth(permute_symmetric(s, order)), m == ReorderMethod::rcm ? 6 : 32);
  }
}

TEST(Reorder, SpmvOnPermutedMatrixMatchesAfterUnpermuting) {
  // Unsymmetric values and pattern.
  std::mt19937_64 rng(testing::test_seed());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const index_t n = 3000;
  std::vector<std::tuple<index_t, index_t, double>> e;
  for (index_t i = 0; i < n; ++i)
    for (int t = 0; t < 6; ++t)
      e.emplace_back(i, std::clamp<index_t>(i + static_cast<index_t>(rng() % 41) - 20, 0, n - 1),
                     u(rng));
  const Csr<double> a = permute_symmetric(from_entries(n, n, std::move(e)), random_perm(n, 7));
  const std::vector<double> x = testing::random_vector(n, rng);
  const std::vector<double> y = testing::random_vector(n, rng);
  const auto ref = reference_spmv(a, x, y, 1.5, -0.5);
  for (ReorderMethod m : {ReorderMethod::none, ReorderMethod::rcm, ReorderMethod::band}) {
    SCOPED_TRACE(std::string(to_string(m)));
    const Reordered<double> r = reorder_matrix(a, m);
    ASSERT_TRUE(is_permutation(r.perm, n));
    EXPECT_GE(r.order_ms, 0.0);
    EXPECT_GE(r.permute_ms, 0.0);
    r.matrix.validate("permuted");
    EXPECT_EQ(r.matrix.nnz(), a.nnz());
    const auto zp =
        reference_spmv(r.matrix, to_permuted(x, r.perm), to_permuted(y, r.perm), 1.5, -0.5);
    EXPECT_LE(relative_error(from_permuted(zp, r.perm), ref), 1e-14);
  }
  const Csr<double> rows_only = permute_rows(a, rcm_order(a));
  const auto zr = reference_spmv(rows_only, x, to_permuted(y, rcm_order(a)), 1.5, -0.5);
  EXPECT_LE(relative_error(from_permuted(zr, rcm_order(a)), ref), 1e-14);
}

TEST(Reorder, RectangularMatricesAreRefused) {
  const Csr<double>& wide = testing::zoo_matrix("rect_wide");
  EXPECT_THROW(rcm_order(wide), UnsupportedError);
  EXPECT_THROW(band_order(wide), UnsupportedError);
  EXPECT_THROW(reorder_matrix(wide, ReorderMethod::rcm), UnsupportedError);
  EXPECT_THROW(permute_symmetric(wide, random_perm(wide.rows, 1)), InputError);
  // Row-only permutation is fine on any shape.
  const Csr<double> p = permute_rows(wide, random_perm(wide.rows, 1));
  p.validate("rows permuted");
  EXPECT_EQ(p.nnz(), wide.nnz());
  EXPECT_THROW(band_order(testing::zoo_matrix("random_2000"), {-1, 4}), InputError);
}

TEST(Reorder, TinyAndEmpty) {
  const Csr<double> empty = from_entries(0, 0, {});
  EXPECT_TRUE(rcm_order(empty).empty());
  EXPECT_TRUE(band_order(empty).empty());
  const Csr<double> no_entries = from_entries(5, 5, {});
  EXPECT_TRUE(is_permutation(rcm_order(no_entries), 5));
  EXPECT_TRUE(is_permutation(band_order(no_entries), 5));
  EXPECT_DOUBLE_EQ(spmv_equivalents(10.0, 0.5), 20.0);
  EXPECT_DOUBLE_EQ(spmv_equivalents(10.0, 0.0), 0.0);
}

}  // namespace
}  // namespace spmvkit
