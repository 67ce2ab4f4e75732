// Generators: sizes (closed forms), structure, reproducibility, thread independence, names.
#include "spmvkit/generators.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"

namespace spmvkit {
namespace {

void expect_identical(const Csr<double>& a, const Csr<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_TRUE(a.row_ptr == b.row_ptr);
  EXPECT_TRUE(a.col_idx == b.col_idx);
  EXPECT_TRUE(a.values == b.values);  // bitwise-equal doubles (no NaN can occur)
}

bool identical(const Csr<double>& a, const Csr<double>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

// A == A^T, pattern and values.
bool symmetric(const Csr<double>& a) {
  const Csr<double> t = transpose(a);
  return identical(a, t);
}

double entry(const Csr<double>& a, index_t r, index_t c) {
  for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
    if (a.col_idx[k] == c) return a.values[k];
  return 0.0;
}

TEST(Stencil, TwoDimensionalSizesMatchClosedForms) {
  for (index_t n : {1, 2, 3, 7, 20}) {
    const std::int64_t N = n;
    const Csr<double> a5 = generate_stencil_2d(n, 5);
    a5.validate();
    EXPECT_EQ(a5.rows, n * n);
    EXPECT_EQ(a5.cols, n * n);
    EXPECT_EQ(a5.nnz(), 5 * N * N - 4 * N) << "n = " << n;
    const Csr<double> a9 = generate_stencil_2d(n, 9);
    a9.validate();
    EXPECT_EQ(a9.rows, n * n);
    EXPECT_EQ(a9.nnz(), (3 * N - 2) * (3 * N - 2)) << "n = " << n;
  }
}

TEST(Stencil, ThreeDimensionalSizesMatchClosedForms) {
  for (index_t n : {1, 2, 3, 6, 11}) {
    const std::int64_t N = n;
    const Csr<double> a7 = generate_stencil_3d(n, 7);
    a7.validate();
    EXPECT_EQ(a7.rows, n * n * n);
    EXPECT_EQ(a7.nnz(), 7 * N * N * N - 6 * N * N) << "n = " << n;
    const Csr<double> a27 = generate_stencil_3d(n, 27);
    a27.validate();
    EXPECT_EQ(a27.rows, n * n * n);
    EXPECT_EQ(a27.nnz(), (3 * N - 2) * (3 * N - 2) * (3 * N - 2)) << "n = " << n;
  }
}

TEST(Stencil, SymmetricLaplacianValues) {
  struct Case {
    Csr<double> a;
    int points;
  };
  const Case cases[] = {{generate_stencil_2d(9, 5), 5},
                        {generate_stencil_2d(9, 9), 9},
                        {generate_stencil_3d(5, 7), 7},
                        {generate_stencil_3d(5, 27), 27}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.points);
    EXPECT_TRUE(symmetric(c.a));
    EXPECT_TRUE(compute_stats(c.a).pattern_symmetric);
    for (index_t r = 0; r < c.a.rows; ++r) {
      EXPECT_EQ(entry(c.a, r, r), c.points - 1);
      double sum = 0;
      for (index_t k = c.a.row_ptr[r]; k < c.a.row_ptr[r + 1]; ++k) {
        sum += c.a.values[k];
        if (c.a.col_idx[k] != r) {
          EXPECT_EQ(c.a.values[k], -1.0);
        }
      }
      // Interior rows hold every point: the Laplacian's rows sum to zero there.
      if (c.a.row_length(r) == c.points) {
        EXPECT_EQ(sum, 0.0);
      } else {
        EXPECT_GT(sum, 0.0);
      }
    }
  }
}

TEST(Stencil, KnownNeighboursOf3dSevenPoint) {
  const index_t n = 4;
  const Csr<double> a = generate_stencil_3d(n, 7);
  const index_t r = 1 + n * (2 + n * 1);  // (x, y, z) = (1, 2, 1), interior
  const std::vector<index_t> expected = {r - n * n, r - n, r - 1, r, r + 1, r + n, r + n * n};
  EXPECT_EQ(
      std::vector<index_t>(a.col_idx.begin() + a.row_ptr[r], a.col_idx.begin() + a.row_ptr[r + 1]),
      expected);
}

TEST(Stencil, InvalidParametersThrow) {
  EXPECT_THROW(generate_stencil_2d(0, 5), InputError);
  EXPECT_THROW(generate_stencil_2d(-3, 5), InputError);
  EXPECT_THROW(generate_stencil_2d(10, 7), InputError);
  EXPECT_THROW(generate_stencil_3d(10, 9), InputError);
  EXPECT_THROW(generate_stencil_3d(2000, 7), InputError);   // 8e9 rows
  EXPECT_THROW(generate_stencil_3d(1000, 27), InputError);  // 1e9 rows, 27e9 nonzeros
  EXPECT_THROW(generate_stencil_2d(46000, 9), InputError);  // 2.1e9 rows, 19e9 nonzeros
}

TEST(Reservoir, SizesBlocksAndDominance) {
  for (int bs : {1, 2, 3, 7}) {
    const index_t n = 4;
    const std::int64_t N = n, B = bs;
    const Csr<double> a = generate_reservoir(n, bs, 5);
    a.validate();
    EXPECT_EQ(a.rows, n * n * n * bs);
    EXPECT_EQ(a.cols, a.rows);
    EXPECT_EQ(a.nnz(), B * B * (7 * N * N * N - 6 * N * N));
    EXPECT_EQ(detect_block_size(a), bs);
    EXPECT_TRUE(compute_stats(a).pattern_symmetric);
    for (index_t r = 0; r < a.rows; ++r) {
      double off = 0, diag = 0;
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        if (a.col_idx[k] == r) {
          diag = a.values[k];
        } else {
          off += std::abs(a.values[k]);
          EXPECT_LT(std::abs(a.values[k]), 1.0);
        }
      }
      EXPECT_GT(diag, off) << "row " << r;  // strictly diagonally dominant
    }
  }
}

TEST(Reservoir, NamedCaseHasSevenBySevenBlocks) {
  const Csr<double> a = generate_by_name("reservoir_bs7_5");
  EXPECT_EQ(a.rows, 125 * 7);
  EXPECT_EQ(compute_stats(a).block_size, 7);
}

TEST(Reservoir, GridForAValueCount) {
  // The benchmark's bsr suite sizes: ~1e8 values.
  EXPECT_EQ(reservoir_grid_for(2, 1e8), 153);
  EXPECT_EQ(reservoir_grid_for(7, 1e8), 66);
  EXPECT_EQ(reservoir_grid_for(32, 1e8), 24);
  EXPECT_EQ(reservoir_grid_for(64, 100.0), 2);  // at least 2
}

TEST(Reservoir, InvalidParametersThrow) {
  EXPECT_THROW(generate_reservoir(0, 7), InputError);
  EXPECT_THROW(generate_reservoir(5, 0), InputError);
  EXPECT_THROW(generate_reservoir(100, 64), InputError);  // 2.7e9 nonzeros
  EXPECT_THROW(generate_reservoir(1291, 1), InputError);  // rows overflow
}

TEST(BlockExpand, EveryEntryBecomesADenseBlock) {
  const Csr<double> a = generate_random(40, 55, 4.0, 9);
  ASSERT_GT(a.nnz(), 0);
  for (int bs : {2, 3, 5}) {
    SCOPED_TRACE(bs);
    const Csr<double> e = block_expand(a, bs, 3);
    e.validate();
    EXPECT_EQ(e.rows, a.rows * bs);
    EXPECT_EQ(e.cols, a.cols * bs);
    EXPECT_EQ(e.nnz(), a.nnz() * bs * bs);
    EXPECT_EQ(detect_block_size(e), bs);
    for (index_t i = 0; i < a.rows; ++i)
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        for (int p = 0; p < bs; ++p)
          for (int q = 0; q < bs; ++q) {
            const double v = entry(e, i * bs + p, a.col_idx[k] * bs + q);
            EXPECT_LE(std::abs(v - a.values[k]), 0.1 * std::abs(a.values[k]) + 1e-15);
          }
  }
}

TEST(BlockExpand, EdgeCases) {
  const Csr<double> a = generate_stencil_2d(5, 5);
  const Csr<double> one = block_expand(a, 1);
  EXPECT_EQ(one.row_ptr, a.row_ptr);
  EXPECT_EQ(one.col_idx, a.col_idx);
  const Csr<double> empty;
  const Csr<double> e = block_expand(empty, 4);
  EXPECT_EQ(e.rows, 0);
  EXPECT_EQ(e.nnz(), 0);
  EXPECT_THROW(block_expand(a, 0), InputError);
  EXPECT_THROW(block_expand(a, -2), InputError);
  EXPECT_THROW(block_expand(generate_stencil_3d(50, 7), 64), InputError);  // 3.5e9 nonzeros
}

TEST(Powerlaw, LongestRowAndNonzerosMatchRequest) {
  const index_t rows = 200000, max_row = 20000;
  const double mean = 12.5;
  const Csr<double> a = generate_powerlaw(rows, mean, max_row, 4);
  a.validate();
  EXPECT_EQ(a.rows, rows);
  EXPECT_EQ(a.cols, rows);
  const MatrixStats s = compute_stats(a);
  EXPECT_EQ(s.row_max, max_row);
  EXPECT_GE(s.row_min, 1);
  EXPECT_NEAR(s.row_mean, mean, 0.01 * mean);
  // Power-law: a handful of rows hold many entries, most are short.
  EXPECT_GT(s.row_variance, 16 * mean * mean);  // standard deviation over 4x the mean
  index_t long_rows = 0, first_long = rows, last_long = -1;
  for (index_t r = 0; r < rows; ++r)
    if (a.row_length(r) >= 1000) {
      ++long_rows;
      first_long = std::min(first_long, r);
      last_long = r;
    }
  EXPECT_GT(long_rows, 3);
  EXPECT_LT(long_rows, rows / 100);
  // Rows are shuffled: the long ones are spread over the matrix.
  EXPECT_LT(first_long, rows / 4);
  EXPECT_GT(last_long, 3 * rows / 4);
  // Every row holds its diagonal.
  for (index_t r = 0; r < rows; ++r) ASSERT_NE(entry(a, r, r), 0.0) << r;
}

TEST(Powerlaw, ShapeAtTheBenchmarkRatioOnASmallerScale) {
  // powerlaw_8000000 has mean 12.5 and max_row 200000 (2.5% of rows); same ratio at 80000 rows.
  const Csr<double> a = generate_by_name("powerlaw_80000_2000");
  const MatrixStats s = compute_stats(a);
  EXPECT_EQ(s.row_max, 2000);
  EXPECT_NEAR(s.row_mean, 12.5, 0.125);
  EXPECT_EQ(s.empty_rows, 0);
}

TEST(Powerlaw, SmallAndDenseCasesStayValid) {
  // max_row == rows: the longest row is full (selection sampling path).
  const Csr<double> a = generate_powerlaw(300, 12.5, 300, 2);
  a.validate();
  EXPECT_EQ(compute_stats(a).row_max, 300);
  const Csr<double> b = generate_powerlaw(1, 1.0, 1, 2);
  EXPECT_EQ(b.nnz(), 1);
}

TEST(Powerlaw, InvalidParametersThrow) {
  EXPECT_THROW(generate_powerlaw(0, 12.5, 1), InputError);
  EXPECT_THROW(generate_powerlaw(1000, 12.5, 1001), InputError);  // longer than the row
  EXPECT_THROW(generate_powerlaw(1000, 12.5, 0), InputError);
  EXPECT_THROW(generate_powerlaw(1000, 0.5, 10), InputError);    // mean below 1
  EXPECT_THROW(generate_powerlaw(1000, 20.0, 10), InputError);   // mean above max_row
  EXPECT_THROW(generate_powerlaw(1000, 1.5, 1000), InputError);  // infeasible with one full row
  EXPECT_THROW(generate_powerlaw(200000000, 12.5, 200000), InputError);  // 2.5e9 nonzeros
  EXPECT_THROW(generate_powerlaw(1000, std::nan(""), 100), InputError);
}

TEST(Banded, EntriesStayInTheBand) {
  const index_t rows = 3000, half = 40, per_row = 9;
  const Csr<double> a = generate_banded(rows, half, per_row, 8);
  a.validate();
  EXPECT_EQ(a.nnz(), rows * per_row);
  const MatrixStats s = compute_stats(a);
  EXPECT_LE(s.bandwidth, half);
  for (index_t r = 0; r < rows; ++r) {
    EXPECT_EQ(entry(a, r, r), static_cast<double>(per_row));
  }
  // A narrow band is full: per_row larger than the window.
  const Csr<double> full = generate_banded(10, 1, 5, 8);
  EXPECT_EQ(full.nnz(), 3 * 10 - 2);
  EXPECT_EQ(generate_banded(7, 20, 100, 8).nnz(), 49);  // band wider than the matrix: dense
  EXPECT_EQ(generate_banded(9, 4, 3, 8).nnz(), 27);
  EXPECT_EQ(generate_banded(0, 3, 2).rows, 0);
  EXPECT_THROW(generate_banded(10, -1, 2), InputError);
  EXPECT_THROW(generate_banded(10, 1, 0), InputError);
  EXPECT_THROW(generate_banded(100000000, 100, 100), InputError);  // 1e10 nonzeros
}

TEST(Random, SizesAndMeanRowLength) {
  const Csr<double> a = generate_random(20000, 7000, 6.0, 3);
  a.validate();
  EXPECT_EQ(a.rows, 20000);
  EXPECT_EQ(a.cols, 7000);
  const MatrixStats s = compute_stats(a);
  EXPECT_NEAR(s.row_mean, 6.0, 0.1);
  EXPECT_NEAR(s.row_variance, 6.0, 0.5);                         // Poisson
  const Csr<double> big = generate_random(2000, 300, 200.0, 3);  // normal approximation, dense rows
  big.validate();
  EXPECT_NEAR(compute_stats(big).row_mean, 200.0, 2.0);
  EXPECT_EQ(generate_random(0, 0, 0.0).nnz(), 0);
  EXPECT_EQ(generate_random(5, 0, 0.0).nnz(), 0);
  EXPECT_THROW(generate_random(10, 10, 11.0), InputError);
  EXPECT_THROW(generate_random(10, 10, -1.0), InputError);
  EXPECT_THROW(generate_random(-1, 10, 1.0), InputError);
  EXPECT_THROW(generate_random(100000000, 100000000, 30.0), InputError);
}

// The random generators, by seed.
const std::vector<std::pair<std::string, std::function<Csr<double>(std::uint64_t)>>>& seeded() {
  static const std::vector<std::pair<std::string, std::function<Csr<double>(std::uint64_t)>>> list =
      {
          {"powerlaw", [](std::uint64_t s) { return generate_powerlaw(50000, 12.5, 5000, s); }},
          {"banded", [](std::uint64_t s) { return generate_banded(20000, 300, 12, s); }},
          {"random", [](std::uint64_t s) { return generate_random(20000, 15000, 7.5, s); }},
          {"reservoir", [](std::uint64_t s) { return generate_reservoir(8, 3, s); }},
          {"expand",
           [](std::uint64_t s) { return block_expand(generate_stencil_2d(30, 9), 4, s); }},
      };
  return list;
}

TEST(Reproducibility, SameSeedSameMatrixDifferentSeedDifferent) {
  for (const auto& [name, make] : seeded()) {
    SCOPED_TRACE(name);
    const Csr<double> a = make(11), b = make(11), c = make(12);
    expect_identical(a, b);
    EXPECT_FALSE(identical(a, c));
    EXPECT_FALSE(a.values == c.values);
  }
}

TEST(Reproducibility, IndependentOfThreadCount) {
  const int saved = omp_get_max_threads();
  for (const auto& [name, make] : seeded()) {
    SCOPED_TRACE(name);
    omp_set_num_threads(1);
    const Csr<double> one = make(21);
    omp_set_num_threads(3);
    const Csr<double> three = make(21);
    omp_set_num_threads(saved);
    expect_identical(one, three);
  }
}

TEST(Names, GeneratorNamesAreRecognised) {
  for (const char* name :
       {"stencil5_10", "stencil9_3", "stencil7_4", "stencil27_150", "reservoir_bs7_66",
        "powerlaw_8000000", "powerlaw_1000_100", "banded_100_5", "banded_100_5_3",
        "random_10_20_2.5", "expand_bs4_stencil5_10", "expand_bs2_/some/path/m.mtx", "stencil5_x",
        "random_1"})
    EXPECT_TRUE(is_generator_name(name)) << name;
  for (const char* name :
       {"", "foo", "matrix.mtx", "stencil5_10.mtx", "powerlaw_100.mtx.gz", "/data/stencil5_10",
        "dir/random_10_10_1", "stencil", "stencil5x_10", "cage10"})
    EXPECT_FALSE(is_generator_name(name)) << name;
}

TEST(Names, NamesBuildTheSameMatricesAsTheFunctions) {
  expect_identical(generate_by_name("stencil5_7"), generate_stencil_2d(7, 5));
  expect_identical(generate_by_name("stencil9_7"), generate_stencil_2d(7, 9));
  expect_identical(generate_by_name("stencil7_5"), generate_stencil_3d(5, 7));
  expect_identical(generate_by_name("stencil27_5"), generate_stencil_3d(5, 27));
  expect_identical(generate_by_name("reservoir_bs3_4"), generate_reservoir(4, 3));
  expect_identical(generate_by_name("powerlaw_5000"), generate_powerlaw(5000, 12.5, 5000));
  expect_identical(generate_by_name("powerlaw_5000_700"), generate_powerlaw(5000, 12.5, 700));
  expect_identical(generate_by_name("banded_500_10"), generate_banded(500, 10, 16));
  expect_identical(generate_by_name("banded_500_3"), generate_banded(500, 3, 7));
  expect_identical(generate_by_name("banded_500_10_4"), generate_banded(500, 10, 4));
  expect_identical(generate_by_name("random_300_200_2.5"), generate_random(300, 200, 2.5));
  expect_identical(generate_by_name("expand_bs3_stencil5_6"),
                   block_expand(generate_stencil_2d(6, 5), 3));
  expect_identical(generate_by_name("expand_bs2_expand_bs3_stencil5_4"),
                   block_expand(block_expand(generate_stencil_2d(4, 5), 3), 2));
}

// Parts appended row after row (each holds global columns).
Csr<double> concatenate(const std::vector<Csr<double>>& parts, index_t cols) {
  Csr<double> a;
  a.cols = cols;
  for (const Csr<double>& p : parts) {
    EXPECT_EQ(p.cols, cols);
    for (index_t i = 0; i < p.rows; ++i) a.row_ptr.push_back(a.row_ptr.back() + p.row_length(i));
    a.rows += p.rows;
    a.col_idx.insert(a.col_idx.end(), p.col_idx.begin(), p.col_idx.end());
    a.values.insert(a.values.end(), p.values.begin(), p.values.end());
  }
  return a;
}

TEST(RowRanges, RandomSplitsConcatenateToTheWholeMatrix) {
  // Every family, with its block row (the unit a range is cut at).
  const std::pair<const char*, index_t> cases[] = {{"stencil5_13", 1},
                                                   {"stencil9_11", 1},
                                                   {"stencil7_6", 1},
                                                   {"stencil27_5", 1},
                                                   {"convdiff2d_12", 1},
                                                   {"convdiff3d_6_2.5", 1},
                                                   {"reservoir_bs3_5", 3},
                                                   {"reservoir_bs7_4_3", 7},
                                                   {"reservoir_bs1_3", 1},
                                                   {"powerlaw_20000_2000", 1},
                                                   {"powerlaw_300", 1},
                                                   {"banded_3000_40_9", 1},
                                                   {"banded_50_100", 1},
                                                   {"random_2000_700_6.5", 1},
                                                   {"random_500_300_200", 1},
                                                   {"expand_bs3_stencil5_6", 3},
                                                   {"expand_bs2_reservoir_bs3_3", 6},
                                                   {"expand_bs2_expand_bs3_powerlaw_1000_100", 6}};
  std::mt19937 rng(2718);
  for (const auto& [name, unit] : cases) {
    SCOPED_TRACE(name);
    const Csr<double> whole = generate_by_name(name);
    Csr<double> untouched;
    index_t rows = -1, got_unit = -1;
    ASSERT_TRUE(generate_rows_by_name(name, 0, -1, untouched, rows, &got_unit));
    EXPECT_EQ(untouched.rows, 0);
    EXPECT_EQ(untouched.row_ptr.size(), 1u);
    ASSERT_EQ(rows, whole.rows);
    ASSERT_EQ(got_unit, unit);
    const index_t units = rows / unit;
    // The lengths alone (what a distributed load balances by): the whole, and a middle range.
    for (const auto& [u0, u1] : {std::pair<index_t, index_t>{0, units}, {units / 3, units / 2}}) {
      std::vector<index_t> lengths, want;
      ASSERT_TRUE(generate_row_lengths_by_name(name, u0 * unit, u1 * unit, lengths));
      for (index_t i = u0 * unit; i < u1 * unit; ++i) want.push_back(whole.row_length(i));
      EXPECT_EQ(lengths, want) << "rows [" << u0 * unit << ", " << u1 * unit << ")";
    }
    for (int split = 0; split < 6; ++split) {
      // Cuts at both ends, a few anywhere, one twice (an empty range); split 0 is the whole.
      std::vector<index_t> cuts = {0, units};
      if (split > 0) {
        std::uniform_int_distribution<index_t> any(0, units);
        for (int k = 0; k < split; ++k) cuts.push_back(any(rng));
        cuts.push_back(cuts[2 + rng() % split]);
        cuts.push_back(split % 2 ? 0 : units);  // an empty range at an end
      }
      std::sort(cuts.begin(), cuts.end());
      std::vector<Csr<double>> parts;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        Csr<double> part;
        index_t g = 0;
        ASSERT_TRUE(generate_rows_by_name(name, cuts[k] * unit, cuts[k + 1] * unit, part, g));
        EXPECT_EQ(g, rows);
        EXPECT_EQ(part.rows, (cuts[k + 1] - cuts[k]) * unit);
        parts.push_back(std::move(part));
      }
      expect_identical(concatenate(parts, whole.cols), whole);
    }
  }
}

TEST(RowRanges, OnlyTheRangeMustFitTheIndexLimit) {
  // Whole, these exceed 2^31 - 1 nonzeros; a few rows of them do not.
  for (const char* name : {"stencil27_1000", "reservoir_bs64_100", "powerlaw_300000000"}) {
    SCOPED_TRACE(name);
    EXPECT_THROW(generate_by_name(name), InputError);
    Csr<double> part;
    index_t rows = 0, unit = 0;
    ASSERT_TRUE(generate_rows_by_name(name, 0, -1, part, rows, &unit));
    ASSERT_TRUE(generate_rows_by_name(name, rows - 2 * unit, rows, part, rows));
    part.validate();
    EXPECT_EQ(part.rows, 2 * unit);
    EXPECT_GT(part.nnz(), 0);
    std::vector<index_t> lengths;
    ASSERT_TRUE(generate_row_lengths_by_name(name, rows - 2 * unit, rows, lengths));
    ASSERT_EQ(lengths.size(), static_cast<std::size_t>(2 * unit));
    for (index_t i = 0; i < part.rows; ++i) EXPECT_EQ(lengths[i], part.row_length(i));
  }
}

TEST(RowRanges, BadRangesAndNames) {
  Csr<double> part;
  index_t rows = 0;
  const index_t n = 4 * 4 * 4 * 3;  // reservoir_bs3_4
  // Not at block rows (multiples of 3), reversed, outside.
  std::vector<index_t> lengths;
  for (auto [b, e] : {std::pair<index_t, index_t>{1, 6}, {3, 7}, {6, 3}, {-3, 3}, {0, n + 3}}) {
    EXPECT_THROW(generate_rows_by_name("reservoir_bs3_4", b, e, part, rows), InputError) << b;
    EXPECT_THROW(generate_row_lengths_by_name("reservoir_bs3_4", b, e, lengths), InputError) << b;
  }
  EXPECT_THROW(generate_row_lengths_by_name("expand_bs2_stencil5_4", 1, 4, lengths), InputError);
  EXPECT_THROW(generate_row_lengths_by_name("stencil5_x", 0, 1, lengths), InputError);
  EXPECT_THROW(generate_rows_by_name("expand_bs2_stencil5_4", 1, 4, part, rows), InputError);
  EXPECT_THROW(generate_rows_by_name("powerlaw_1000", 10, 1001, part, rows), InputError);
  EXPECT_THROW(generate_rows_by_name("stencil5_x", 0, -1, part, rows), InputError);
  EXPECT_THROW(generate_rows_by_name("reservoir_bs7", 0, -1, part, rows), InputError);
  try {
    generate_rows_by_name("reservoir_bs3_4", 3, 7, part, rows);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("multiples of 3"), std::string::npos) << e.what();
  }
  // Not made alone (nothing touched): files, and expansions of files.
  rows = -7;
  for (const char* name : {"bcsstk13", "/data/m.mtx", "expand_bs2_/nonexistent/m.mtx",
                           "expand_bs2_expand_bs3_cage5"}) {
    EXPECT_FALSE(generate_rows_by_name(name, 0, -1, part, rows)) << name;
    EXPECT_FALSE(generate_rows_by_name(name, 0, 1, part, rows)) << name;
    EXPECT_FALSE(generate_row_lengths_by_name(name, 0, 1, lengths)) << name;
  }
  EXPECT_TRUE(lengths.empty());
  EXPECT_EQ(rows, -7);
  EXPECT_EQ(part.rows, 0);
}

TEST(Names, InvalidNamesThrowInputError) {
  for (const char* name : {"stencil5_",
                           "stencil5_x",
                           "stencil5_0",
                           "stencil5_-3",
                           "stencil5_1e3",
                           "stencil5_3_4",
                           "stencil27_1000",
                           "stencil7_99999999999",
                           "reservoir_7_66",
                           "reservoir_bs_66",
                           "reservoir_bs7",
                           "reservoir_bs0_4",
                           "reservoir_bs7_4_1_2",
                           "powerlaw",
                           "powerlaw_",
                           "powerlaw_10",
                           "powerlaw_1000_2000",
                           "powerlaw_300000000",
                           "banded_100",
                           "banded_100_x",
                           "banded_100_5_0",
                           "random_10_10",
                           "random_10_10_x",
                           "random_10_10_11",
                           "random_10_10_1_1",
                           "expand_bs4",
                           "expand_bs4_",
                           "expand_bsx_stencil5_4",
                           "expand_bs0_stencil5_4",
                           "expand_4_stencil5_4",
                           "expand_bs4_stencil5_y",
                           "expand_bs64_stencil7_50"})
    EXPECT_THROW(generate_by_name(name), InputError) << name;
  EXPECT_THROW(generate_by_name("not_a_generator"), InputError);
}

TEST(Names, ErrorsNameTheProblem) {
  try {
    generate_by_name("stencil27_1000");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2^31"), std::string::npos) << e.what();
  }
  try {
    generate_by_name("banded_100_x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spmvkit
