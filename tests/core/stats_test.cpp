// compute_stats on small hand-made matrices (exact values) and on generated ones.
#include "spmvkit/stats.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {
namespace {

// Builds CSR from dense rows of a small matrix: nonzero entries are stored.
Csr<double> from_dense(const std::vector<std::vector<double>>& d, index_t cols) {
  std::vector<index_t> row_ptr{0}, col;
  std::vector<double> val;
  for (const auto& row : d) {
    for (index_t c = 0; c < cols; ++c)
      if (row[c] != 0.0) {
        col.push_back(c);
        val.push_back(row[c]);
      }
    row_ptr.push_back(static_cast<index_t>(col.size()));
  }
  return make_csr(static_cast<index_t>(d.size()), cols, row_ptr, col, val);
}

TEST(Stats, HandMadeUnsymmetricMatrix) {
  // Row lengths 2, 0, 3, 1, 5 (nnz 11, mean 2.2, variance (0.04+4.84+0.64+1.44+7.84)/5 = 2.96).
  const Csr<double> a = from_dense(
      {{1, 0, 0, 2, 0}, {0, 0, 0, 0, 0}, {3, 4, 0, 0, 5}, {0, 0, 6, 0, 0}, {7, 8, 9, 1, 2}}, 5);
  const MatrixStats s = compute_stats(a);
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.cols, 5);
  EXPECT_EQ(s.nnz, 11);
  EXPECT_EQ(s.row_min, 0);
  EXPECT_EQ(s.row_max, 5);
  EXPECT_DOUBLE_EQ(s.row_mean, 2.2);
  EXPECT_NEAR(s.row_variance, 2.96, 1e-12);
  EXPECT_EQ(s.empty_rows, 1);
  // |i - j| maxima: row 0: 3, row 2: 2 and 2, row 3: 1, row 4: 4.
  EXPECT_EQ(s.bandwidth, 4);
  // i - first column: row 0: 0, row 1: empty, row 2: 2, row 3: 3 - 2 = 1, row 4: 4.
  EXPECT_EQ(s.profile, 7);
  EXPECT_FALSE(s.pattern_symmetric);
  EXPECT_EQ(s.block_size, 1);
  // Buckets: 0 -> {len 0}, 1 -> {1}, 2 -> {2, 3}, 3 -> {4..7}.
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{1, 1, 2, 1}));
}

TEST(Stats, ProfileIgnoresRowsStartingRightOfTheDiagonal) {
  // Upper triangular: every row starts at or right of its diagonal.
  const Csr<double> a = from_dense({{0, 1, 1}, {0, 0, 1}, {0, 0, 0}}, 3);
  const MatrixStats s = compute_stats(a);
  EXPECT_EQ(s.profile, 0);
  EXPECT_EQ(s.bandwidth, 2);
  EXPECT_EQ(s.empty_rows, 1);
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{1, 1, 1}));
}

TEST(Stats, SymmetricPatternWithUnsymmetricValues) {
  const Csr<double> a = from_dense({{4, 1, 0, 0}, {-7, 4, 2, 0}, {0, 5, 4, 9}, {0, 0, 3, 4}}, 4);
  const MatrixStats s = compute_stats(a);
  EXPECT_TRUE(s.pattern_symmetric);
  EXPECT_EQ(s.bandwidth, 1);
  EXPECT_EQ(s.profile, 3);
  EXPECT_EQ(s.row_min, 2);
  EXPECT_EQ(s.row_max, 3);
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{0, 0, 4}));
}

TEST(Stats, EqualRowAndColumnCountsAreNotEnoughForSymmetry) {
  // A cyclic permutation: every row and column has one entry, yet A != A^T.
  const Csr<double> p = from_dense({{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, 3);
  EXPECT_FALSE(compute_stats(p).pattern_symmetric);
  // Its symmetric cousin (an involution) is symmetric.
  const Csr<double> q = from_dense({{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}, 3);
  EXPECT_TRUE(compute_stats(q).pattern_symmetric);
  // A column with more entries than its row.
  const Csr<double> r = from_dense({{1, 1, 0}, {0, 1, 0}, {0, 1, 1}}, 3);
  EXPECT_FALSE(compute_stats(r).pattern_symmetric);
}

TEST(Stats, RectangularIsNeverSymmetric) {
  const Csr<double> a = from_dense({{1, 0, 0, 2}, {0, 3, 0, 0}}, 4);
  const MatrixStats s = compute_stats(a);
  EXPECT_FALSE(s.pattern_symmetric);
  EXPECT_EQ(s.bandwidth, 3);
  EXPECT_EQ(s.cols, 4);
}

TEST(Stats, EmptyMatrices) {
  const Csr<double> zero;  // 0 x 0
  const MatrixStats s0 = compute_stats(zero);
  EXPECT_EQ(s0.rows, 0);
  EXPECT_EQ(s0.nnz, 0);
  EXPECT_EQ(s0.row_mean, 0.0);
  EXPECT_TRUE(s0.row_histogram.empty());
  EXPECT_EQ(s0.block_size, 1);

  const Csr<double> none = make_csr<double>(6, 9, std::vector<index_t>(7, 0), {}, {});
  const MatrixStats s = compute_stats(none);
  EXPECT_EQ(s.rows, 6);
  EXPECT_EQ(s.empty_rows, 6);
  EXPECT_EQ(s.row_min, 0);
  EXPECT_EQ(s.row_max, 0);
  EXPECT_EQ(s.row_variance, 0.0);
  EXPECT_EQ(s.bandwidth, 0);
  EXPECT_EQ(s.profile, 0);
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{6}));
}

TEST(Stats, HistogramBucketBoundaries) {
  // Row lengths 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33 in a 11 x 40 matrix.
  const std::vector<index_t> lengths = {1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33};
  std::vector<index_t> row_ptr{0}, col;
  for (index_t len : lengths) {
    for (index_t c = 0; c < len; ++c) col.push_back(c);
    row_ptr.push_back(static_cast<index_t>(col.size()));
  }
  const Csr<double> a =
      make_csr<double>(11, 40, row_ptr, col, std::vector<double>(col.size(), 1.0));
  const MatrixStats s = compute_stats(a);
  // [0], [1], [2,3], [4,7], [8,15], [16,31], [32,63].
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{0, 1, 2, 2, 2, 2, 2}));
  EXPECT_EQ(s.row_max, 33);
}

TEST(Stats, FloatAndDoubleAgree) {
  const Csr<double> a = generate_random(500, 400, 5.0, 17);
  const MatrixStats d = compute_stats(a), f = compute_stats(a.cast<float>());
  EXPECT_EQ(d.nnz, f.nnz);
  EXPECT_EQ(d.row_histogram, f.row_histogram);
  EXPECT_EQ(d.bandwidth, f.bandwidth);
  EXPECT_EQ(d.profile, f.profile);
  // Parallel reductions may sum in a different order from run to run: equal up to rounding.
  EXPECT_NEAR(d.row_variance, f.row_variance, 1e-12 * d.row_variance);
}

TEST(Stats, GeneratedMatrices) {
  const MatrixStats s = compute_stats(generate_stencil_2d(10, 5));
  EXPECT_EQ(s.rows, 100);
  EXPECT_EQ(s.row_min, 3);
  EXPECT_EQ(s.row_max, 5);
  EXPECT_EQ(s.bandwidth, 10);
  // Rows past the first grid line start n left of the diagonal, the rest (but row 0) 1 left.
  EXPECT_EQ(s.profile, 90 * 10 + 9 * 1);
  EXPECT_TRUE(s.pattern_symmetric);
  EXPECT_EQ(s.empty_rows, 0);
  // 4 corners of length 3, 32 edges of 4, 64 interior of 5.
  EXPECT_EQ(s.row_histogram, (std::vector<std::int64_t>{0, 0, 4, 96}));
  const MatrixStats b = compute_stats(block_expand(generate_stencil_2d(6, 5), 4));
  EXPECT_EQ(b.block_size, 4);
  EXPECT_TRUE(b.pattern_symmetric);
}

// longest_row is compute_stats' row_max: no rows, all empty, a stencil, and past 64K rows (the
// threaded pass) with one long row placed near the end.
TEST(Stats, LongestRowIsRowMax) {
  EXPECT_EQ(longest_row(Csr<double>{}), 0);
  EXPECT_EQ(longest_row(make_csr<double>(6, 9, std::vector<index_t>(7, 0), {}, {})), 0);
  EXPECT_EQ(longest_row(generate_stencil_2d(10, 5)), 5);
  const index_t rows = 100000, long_row = 99990, len = 700;
  std::vector<index_t> row_ptr{0};
  std::vector<index_t> col;
  for (index_t r = 0; r < rows; ++r) {
    const index_t n = r == long_row ? len : r % 3;
    for (index_t k = 0; k < n; ++k) col.push_back(k);
    row_ptr.push_back(static_cast<index_t>(col.size()));
  }
  const Csr<double> a =
      make_csr<double>(rows, len, row_ptr, col, std::vector<double>(col.size(), 1.0));
  EXPECT_EQ(longest_row(a), len);
  EXPECT_EQ(longest_row(a), compute_stats(a).row_max);
}

}  // namespace
}  // namespace spmvkit
