// SURAA rules, part 1: Freedman-Diaconis segmenting and the sort order. Grouping, launches,
// the CPU schedule, parameters, byte formulas, non-default settings and the GPU setup:
// suraa_plan_test.cpp.
#include "formats/suraa/suraa.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/zoo.hpp"
#include "tests/formats/spmv_check.hpp"
#include "tests/formats/suraa_testing.hpp"

namespace spmvkit {
namespace {

using suraa_testing::from_lengths;
using suraa_testing::from_rows;
using suraa_testing::no_fallback;

// --- Freedman-Diaconis ------------------------------------------------------------------------

TEST(SuraaFreedmanDiaconis, BinWidthIsTwoIqrOverCubeRootOfRows) {
  EXPECT_DOUBLE_EQ(fd_bin_width(10, 1000), 2.0);
  EXPECT_NEAR(fd_bin_width(4, 8), 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(fd_bin_width(0, 1000), 0.0);
  EXPECT_DOUBLE_EQ(fd_bin_width(5, 0), 0.0);
}

TEST(SuraaFreedmanDiaconis, ProbesReadTheSortedNpr) {
  // Range and count are taken over all rows (with class_sort the order is not exact).
  const SuraaProbes q = suraa_probes({33, 40, 32, 20});
  EXPECT_EQ(q.npr_max, 40);
  EXPECT_EQ(q.rows_over_warp, 2);
  const SuraaProbes p = suraa_probes({40, 33, 32, 20, 10, 8, 4, 2});
  EXPECT_EQ(p.rows, 8);
  EXPECT_EQ(p.npr_max, 40);
  EXPECT_EQ(p.npr_min, 2);
  EXPECT_EQ(p.npr_quarter, 32);       // nprSort[8/4]
  EXPECT_EQ(p.npr_three_quarter, 4);  // nprSort[3*8/4]
  EXPECT_EQ(p.rows_over_warp, 2);     // 40 and 33; 32 is not > 32
}

TEST(SuraaFreedmanDiaconis, SegmentSizeFromBinCount) {
  // npr {40,30,20,10,8,6,4,2}: IQR = 20 - 4 = 16, h = 2*16/8^(1/3) = 16, range 38 ->
  // floor(38/16) + 1 = 3 segments of ceil(8/3) = 3 rows.
  const SuraaSegmentation s = fd_segmentation(suraa_probes({40, 30, 20, 10, 8, 6, 4, 2}));
  EXPECT_EQ(s.iqr, 16);
  EXPECT_NEAR(s.bin_width, 16.0, 1e-12);
  EXPECT_EQ(s.segment_size, 3);
  EXPECT_EQ(s.segments, 3);
}

TEST(SuraaFreedmanDiaconis, ZeroIqrIsGuardedToUnitBins) {
  // 990 rows of 5 and 10 rows of 1000: the quartiles are both 5, the raw width 0. With unit
  // bins over [5, 1000]: 996 segments' worth, ceil(1000/996) = 2 rows each, so the 10 long
  // rows are not mixed into a segment of short ones.
  std::vector<index_t> npr(10, 1000);
  npr.resize(1000, 5);
  const SuraaSegmentation s = fd_segmentation(suraa_probes(npr));
  EXPECT_EQ(s.iqr, 0);
  EXPECT_DOUBLE_EQ(s.bin_width, 0.0);
  EXPECT_DOUBLE_EQ(s.bin_width_used, 1.0);
  EXPECT_EQ(s.segment_size, 2);
  EXPECT_EQ(s.segments, 500);
}

TEST(SuraaFreedmanDiaconis, EqualRowsMakeOneSegment) {
  const SuraaSegmentation s = fd_segmentation(suraa_probes(std::vector<index_t>(100, 7)));
  EXPECT_EQ(s.segment_size, 100);
  EXPECT_EQ(s.segments, 1);
}

TEST(SuraaFreedmanDiaconis, NarrowBinsGiveOneRowSegments) {
  // Range far beyond the row count: more bins than rows, segments of one row.
  std::vector<index_t> npr{200000, 50, 4, 3, 3, 2, 1, 0};
  const SuraaSegmentation s = fd_segmentation(suraa_probes(npr));
  EXPECT_EQ(s.segment_size, 1);
  EXPECT_EQ(s.segments, 8);
}

TEST(SuraaFreedmanDiaconis, OverrideAndTinyMatrices) {
  const SuraaProbes p = suraa_probes(std::vector<index_t>(20, 3));
  EXPECT_EQ(fd_segmentation(p, 7).segment_size, 7);
  EXPECT_EQ(fd_segmentation(p, 7).segments, 3);
  EXPECT_EQ(fd_segmentation(p, 1000).segment_size, 20);
  const SuraaSegmentation one = fd_segmentation(suraa_probes({3}));
  EXPECT_EQ(one.segment_size, 1);
  EXPECT_EQ(one.segments, 1);
  EXPECT_EQ(fd_segmentation(suraa_probes({})).segments, 0);
}

// --- sort order -----------------------------------------------------------------------------

TEST(SuraaSort, DescendingLengthThenFirstColumnThenRow) {
  const Csr<double> a = from_rows({{5, 6},     // 0: len 2, first 5
                                   {1},        // 1: len 1
                                   {},         // 2: empty
                                   {2, 9},     // 3: len 2, first 2
                                   {0, 1, 2},  // 4: len 3
                                   {2, 3},     // 5: len 2, first 2 (tie with row 3)
                                   {}},        // 6: empty
                                  10);
  EXPECT_EQ(suraa_sort_rows(a), (std::vector<index_t>{4, 3, 5, 0, 1, 2, 6}));
}

TEST(SuraaSort, PowerOfTwoClassesKeepFirstColumnOrder) {
  EXPECT_EQ(suraa_sort_class(0, true), 0);
  EXPECT_EQ(suraa_sort_class(1, true), 1);
  EXPECT_EQ(suraa_sort_class(3, true), 2);
  EXPECT_EQ(suraa_sort_class(32, true), 6);
  EXPECT_EQ(suraa_sort_class(63, true), 6);
  EXPECT_EQ(suraa_sort_class(64, true), 7);
  EXPECT_EQ(suraa_sort_class(37, false), 37);
  const Csr<double> a = from_rows({{7, 8},        // 0: len 2 (class 2), first 7
                                   {1, 2, 3},     // 1: len 3 (class 2), first 1
                                   {4},           // 2: len 1 (class 1)
                                   {0, 5, 6, 9},  // 3: len 4 (class 3)
                                   {3, 4}},       // 4: len 2 (class 2), first 3
                                  10);
  EXPECT_EQ(suraa_sort_rows(a, SuraaOrder::paper), (std::vector<index_t>{3, 1, 4, 0, 2}));
  EXPECT_EQ(suraa_sort_rows(a, SuraaOrder::pow2), (std::vector<index_t>{3, 1, 4, 0, 2}));
  // bucketed: class 3, then class 2 in row order (0, 1, 4), then class 1.
  EXPECT_EQ(suraa_sort_rows(a, SuraaOrder::bucketed), (std::vector<index_t>{3, 0, 1, 4, 2}));
  // Lengths 2, 3, 1, 2: exact puts the 3 first; classes put lengths 2 and 3 (class 2) in one
  // run, ordered by first column.
  const Csr<double> c = from_rows({{7, 8}, {5, 6, 9}, {4}, {3, 4}}, 10);
  EXPECT_EQ(suraa_sort_rows(c, SuraaOrder::paper), (std::vector<index_t>{1, 3, 0, 2}));
  EXPECT_EQ(suraa_sort_rows(c, SuraaOrder::pow2), (std::vector<index_t>{3, 1, 0, 2}));
  EXPECT_EQ(suraa_sort_rows(c, SuraaOrder::bucketed), (std::vector<index_t>{0, 1, 3, 2}));
}

// groups: three classes (>= 32 entries, 1..31, empty), the row order inside each.
TEST(SuraaSort, GroupsKeepRowOrderInThreeClasses) {
  EXPECT_EQ(suraa_order_class(0, SuraaOrder::groups), 0);
  EXPECT_EQ(suraa_order_class(1, SuraaOrder::groups), 1);
  EXPECT_EQ(suraa_order_class(31, SuraaOrder::groups), 1);
  EXPECT_EQ(suraa_order_class(32, SuraaOrder::groups), 2);
  EXPECT_EQ(suraa_order_class(100000, SuraaOrder::groups), 2);
  EXPECT_EQ(suraa_order_class(37, SuraaOrder::paper), 37);
  EXPECT_EQ(suraa_order_class(37, SuraaOrder::bucketed), 6);
  const Csr<double> a = from_lengths({5, 40, 0, 33, 2, 31, 64}, 64);
  EXPECT_EQ(suraa_sort_rows(a, SuraaOrder::groups), (std::vector<index_t>{1, 3, 6, 0, 4, 5, 2}));
  SuraaOptions o = no_fallback();
  o.order = SuraaOrder::groups;
  o.segment_size = 2;
  const SuraaPlan p = suraa_plan_host(a, o);
  std::vector<index_t> begins;
  for (const auto& seg : p.segments) begins.push_back(seg.row_begin);
  EXPECT_EQ(begins, (std::vector<index_t>{0, 2, 3, 5, 6}));  // cut at the class runs 3 | 3 | 1
}

// bucketed: a permutation; classes descending; inside a class the original row order; every
// segment inside one class; threads per row from the segment's mean.
TEST(SuraaSort, BucketedKeepsRowOrderWithinAClass) {
  for (const std::string m : {"long_rows_mixed", "one_huge_row", "random_2000", "empty_rows",
                              "rect_tall", "duplicates_heavy", "powerlaw_20000"}) {
    SCOPED_TRACE(m);
    const Csr<double>& a = testing::zoo_matrix(m);
    SuraaOptions o = no_fallback();
    o.order = SuraaOrder::bucketed;
    Csr<double> sorted;
    const SuraaPlan plan = suraa_plan_host(a, o, &sorted);
    ASSERT_EQ(plan.perm.size(), static_cast<std::size_t>(a.rows));
    std::vector<int> seen(static_cast<std::size_t>(a.rows), 0);
    for (index_t r : plan.perm) {
      ASSERT_GE(r, 0);
      ASSERT_LT(r, a.rows);
      ASSERT_EQ(seen[r]++, 0) << "perm is not a permutation";
    }
    auto cls = [&](index_t i) { return suraa_sort_class(sorted.row_length(i), true); };
    for (index_t i = 0; i + 1 < a.rows; ++i) {
      ASSERT_GE(cls(i), cls(i + 1)) << "classes not descending at " << i;
      if (cls(i) == cls(i + 1)) {
        ASSERT_LT(plan.perm[i], plan.perm[i + 1]) << "row order at " << i;
      }
      ASSERT_EQ(sorted.row_length(i), a.row_length(plan.perm[i]));
    }
    for (const auto& s : plan.segments) {
      ASSERT_LT(s.row_begin, s.row_end);
      EXPECT_EQ(cls(s.row_begin), cls(s.row_end - 1)) << "segment crosses a class";
      EXPECT_LE(s.row_end - s.row_begin, plan.segmentation.segment_size);
    }
    for (const auto& l : plan.launches) {
      const double mean =
          static_cast<double>(sorted.row_ptr[l.row_end] - sorted.row_ptr[l.row_begin]) /
          (l.row_end - l.row_begin);
      if (l.group == SuraaGroup::scalar) {
        // One class (lengths within 2x) per run of one shape: lanes >= half the longest row.
        EXPECT_LE(l.threads_per_row, 32);
        EXPECT_GE(2.0 * l.threads_per_row, mean);
      } else {
        EXPECT_GE(l.threads_per_row, 32);
      }
    }
  }
}

TEST(SuraaSort, SegmentBoundsCutAtClassRuns) {
  EXPECT_EQ(suraa_segment_bounds(10, 3), (std::vector<index_t>{0, 3, 6, 9, 10}));
  EXPECT_EQ(suraa_segment_bounds(10, 3, {4, 6}), (std::vector<index_t>{0, 3, 4, 7, 10}));
  EXPECT_EQ(suraa_segment_bounds(10, 100, {4, 0, 6}), (std::vector<index_t>{0, 4, 10}));
  EXPECT_EQ(suraa_segment_bounds(0, 3), (std::vector<index_t>{0}));
  EXPECT_THROW(suraa_segment_bounds(10, 3, {4, 5}), InputError);
  std::vector<std::int64_t> count(33, 0);
  count[0] = 2;  // empty rows, last
  count[3] = 5;
  count[7] = 1;
  EXPECT_EQ(suraa_class_runs(count), (std::vector<index_t>{1, 5, 2}));
}

TEST(SuraaSort, BucketedSegmentsAndThreadsPerRow) {
  // 6 rows of 40 (class 6), 5 of 9 (class 4), 5 of 5 (class 3), interleaved; segment size 4.
  std::vector<index_t> lengths;
  for (int i = 0; i < 5; ++i) lengths.insert(lengths.end(), {40, 9, 5});
  lengths.push_back(40);
  const Csr<double> a = from_lengths(lengths, 64);
  SuraaOptions o = no_fallback();
  o.order = SuraaOrder::bucketed;
  o.segment_size = 4;
  o.max_child_threads = 2048;
  const SuraaPlan p = suraa_plan_host(a, o);
  std::vector<index_t> begins;
  for (const auto& s : p.segments) begins.push_back(s.row_begin);
  EXPECT_EQ(begins, (std::vector<index_t>{0, 4, 6, 10, 11, 15}));
  EXPECT_EQ(p.g1_end, 6);  // class 6, mean 40 > 32
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[0].row_begin, 6);
  EXPECT_EQ(p.launches[0].row_end, 11);
  EXPECT_EQ(p.launches[0].threads_per_row, 16);  // mean 9
  EXPECT_EQ(p.launches[1].row_begin, 11);
  EXPECT_EQ(p.launches[1].threads_per_row, 8);  // mean 5
  EXPECT_EQ(p.perm, (std::vector<index_t>{0, 3, 6, 9, 12, 15, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14}));
  o.scalar_short_rows = true;
  for (const auto& l : suraa_plan_host(a, o).launches) EXPECT_EQ(l.threads_per_row, 1);
}

TEST(SuraaSort, PermutationRoundTrip) {
  const Csr<double>& a = testing::zoo_matrix("long_rows_mixed");
  Csr<double> sorted;
  const SuraaPlan plan = suraa_plan_host(a, no_fallback(), &sorted);
  ASSERT_EQ(plan.perm.size(), static_cast<std::size_t>(a.rows));
  std::vector<index_t> inverse(plan.perm.size(), -1);
  for (index_t i = 0; i < a.rows; ++i) {
    ASSERT_GE(plan.perm[i], 0);
    ASSERT_LT(plan.perm[i], a.rows);
    ASSERT_EQ(inverse[plan.perm[i]], -1) << "perm is not a permutation";
    inverse[plan.perm[i]] = i;
  }
  for (index_t i = 0; i + 1 < a.rows; ++i)
    ASSERT_GE(sorted.row_length(i), sorted.row_length(i + 1)) << "not descending at " << i;
  // Sorted row i is original row perm[i]; undoing the permutation gives back the matrix.
  Csr<double> back = suraa_permute_rows(sorted, inverse);
  EXPECT_EQ(back.row_ptr, a.row_ptr);
  EXPECT_EQ(back.col_idx, a.col_idx);
  EXPECT_EQ(back.values, a.values);
  sorted.validate("sorted");
}

}  // namespace
}  // namespace spmvkit
