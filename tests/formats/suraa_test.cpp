// SURAA-specific rules: Freedman-Diaconis segmenting, the sort order, grouping thresholds,
// max_child_threads, launches, G1 sizing, the CPU schedule, parameters, byte formulas, and
// the GPU setup against the host one (skipped without a GPU). SpMV correctness of the default
// settings is the shared format suite's job; here only non-default settings are run.
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

namespace spmvkit {
namespace {

// A matrix from explicit column lists (values 1).
Csr<double> from_rows(const std::vector<std::vector<index_t>>& rows, index_t cols) {
  std::vector<index_t> rp{0}, ci;
  for (const auto& r : rows) {
    ci.insert(ci.end(), r.begin(), r.end());
    rp.push_back(static_cast<index_t>(ci.size()));
  }
  std::vector<double> v(ci.size(), 1.0);
  return make_csr<double>(static_cast<index_t>(rows.size()), cols, rp, ci, v, "test");
}

// A matrix whose row r has lengths[r] entries in columns 0.. (cols >= max length).
Csr<double> from_lengths(const std::vector<index_t>& lengths, index_t cols) {
  std::vector<std::vector<index_t>> rows;
  for (index_t len : lengths) {
    std::vector<index_t> r(static_cast<std::size_t>(len));
    std::iota(r.begin(), r.end(), 0);
    rows.push_back(r);
  }
  return from_rows(rows, cols);
}

SuraaOptions no_fallback() {
  SuraaOptions o;
  o.low_variance_cv = 0;
  return o;
}

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

// --- grouping -------------------------------------------------------------------------------

std::vector<SuraaGroup> groups_of(const std::vector<SuraaSegment>& segs) {
  std::vector<SuraaGroup> g;
  for (const auto& s : segs) g.push_back(s.group);
  return g;
}

TEST(SuraaGroups, WarpThresholds) {
  // Five segments of 4 rows, means 100, 33, 32, 31, 0: G1 takes mean > 32, G2 mean >= 32,
  // G3 the rest (Algorithm 2 and its text).
  const auto segs = suraa_group_segments({400, 132, 128, 124, 0}, 20, 4, 2048);
  using G = SuraaGroup;
  EXPECT_EQ(groups_of(segs),
            (std::vector<G>{G::dynamic, G::dynamic, G::vector, G::scalar, G::scalar}));
  EXPECT_EQ(segs[1].row_begin, 4);
  EXPECT_EQ(segs[4].row_end, 20);
}

TEST(SuraaGroups, MaxChildThreadsCapsTheFirstGroup) {
  using G = SuraaGroup;
  // 3 x 4 = 12 rows would exceed 10: only (n-1) segments go to G1.
  EXPECT_EQ(groups_of(suraa_group_segments({400, 400, 400, 160}, 16, 4, 10)),
            (std::vector<G>{G::dynamic, G::dynamic, G::vector, G::vector}));
  // A segment larger than max_child_threads: G1 stays empty.
  EXPECT_EQ(groups_of(suraa_group_segments({400, 400}, 8, 4, 3)),
            (std::vector<G>{G::vector, G::vector}));
  // The last, shorter segment counts its own rows.
  EXPECT_EQ(groups_of(suraa_group_segments({400, 100}, 6, 4, 6)),
            (std::vector<G>{G::dynamic, G::dynamic}));
}

TEST(SuraaGroups, MaxChildThreadsRule) {
  EXPECT_EQ(suraa_max_child_threads(0), 2048);
  EXPECT_EQ(suraa_max_child_threads(2048), 2048);
  EXPECT_EQ(suraa_max_child_threads(2049), 4096);
  EXPECT_EQ(suraa_max_child_threads(5000), 8192);
  EXPECT_EQ(suraa_max_child_threads(8192), 8192);
  EXPECT_EQ(suraa_max_child_threads(1000000), 8192);
}

TEST(SuraaGroups, MaxChildThreadsDerivedOrOverridden) {
  std::vector<index_t> lengths(3000, 40);
  lengths.resize(4000, 3);
  const Csr<double> a = from_lengths(lengths, 64);
  SuraaOptions o = no_fallback();
  const SuraaPlan derived = suraa_plan_host(a, o);
  EXPECT_EQ(derived.probes.rows_over_warp, 3000);
  EXPECT_EQ(derived.max_child_threads, 4096);
  o = suraa_options(Params::parse("max_child_threads=100,low_variance_cv=0"), true);
  const SuraaPlan capped = suraa_plan_host(a, o);
  EXPECT_EQ(capped.max_child_threads, 100);
  EXPECT_LE(capped.g1_end, 100);
}

TEST(SuraaGroups, PlanGroupsAreConsecutiveRowRanges) {
  for (const std::string m : {"long_rows_mixed", "one_huge_row", "random_2000", "empty_rows"}) {
    const SuraaPlan p = suraa_plan_host(testing::zoo_matrix(m), no_fallback());
    index_t expect = 0;
    for (const auto& s : p.segments) {
      EXPECT_EQ(s.row_begin, expect) << m;
      expect = s.row_end;
      if (s.group == SuraaGroup::dynamic) {
        EXPECT_LE(s.row_end, p.g1_end) << m;
      } else if (s.group == SuraaGroup::vector) {
        EXPECT_GE(s.row_begin, p.g1_end) << m;
        EXPECT_LE(s.row_end, p.g2_end) << m;
      } else {
        EXPECT_GE(s.row_begin, p.g2_end) << m;
      }
    }
    EXPECT_EQ(expect, p.rows) << m;
    EXPECT_LE(p.g1_end, p.max_child_threads) << m;
  }
}

// --- launches and G1 sizing ----------------------------------------------------------------

TEST(SuraaLaunches, ThreadsPerRow) {
  EXPECT_EQ(suraa_vector_threads(40, 8), 32);
  EXPECT_EQ(suraa_vector_threads(1000, 8), 128);
  EXPECT_EQ(suraa_vector_threads(1000, 2), 512);
  EXPECT_EQ(suraa_vector_threads(1e6, 8), 1024);
  EXPECT_EQ(suraa_short_threads(7, false), 8);
  EXPECT_EQ(suraa_short_threads(7, true), 1);
  EXPECT_EQ(suraa_short_threads(0, false), 1);
  EXPECT_EQ(suraa_short_threads(20, false), 32);
}

TEST(SuraaLaunches, MergedRunsOrOnePerSegment) {
  const auto segs = suraa_group_segments({400, 132, 128, 28, 28, 4}, 24, 4, 4);
  SuraaOptions o;
  const auto merged = suraa_launches(segs, o);
  // Means 100, 33, 32, 7, 7, 1. G1 = segment 0 (a second would exceed 4 rows); G2: segments 1
  // and 2, 32 threads a row each -> one launch; G3: means 7, 7 -> 8 lanes, merged; mean 1 ->
  // 1 lane.
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].row_begin, 4);
  EXPECT_EQ(merged[0].row_end, 12);
  EXPECT_EQ(merged[0].threads_per_row, 32);
  EXPECT_EQ(merged[0].group, SuraaGroup::vector);
  EXPECT_EQ(merged[1].row_begin, 12);
  EXPECT_EQ(merged[1].row_end, 20);
  EXPECT_EQ(merged[1].threads_per_row, 8);
  EXPECT_EQ(merged[2].threads_per_row, 1);
  o.launch = SuraaLaunchMode::table;  // merged the same way
  EXPECT_EQ(suraa_launches(segs, o).size(), 3u);
  o.launch = SuraaLaunchMode::segment;
  o.scalar_short_rows = true;
  const auto each = suraa_launches(segs, o);
  ASSERT_EQ(each.size(), 5u);
  for (std::size_t i = 2; i < each.size(); ++i) EXPECT_EQ(each[i].threads_per_row, 1);
}

TEST(SuraaLaunches, TableCapsThreadsPerRow) {
  // One G2 segment of mean 10000: 1024 lanes for a launch of its own, the table block's 256.
  const auto segs = suraa_group_segments({40000, 40000}, 8, 4, 0);  // G1 empty (cap 0)
  SuraaOptions o;
  EXPECT_EQ(suraa_launches(segs, o).front().threads_per_row, 1024);
  o.launch = SuraaLaunchMode::table;
  EXPECT_EQ(suraa_launches(segs, o).front().threads_per_row, kSuraaTableBlock);
}

TEST(SuraaChild, GridSizing) {
  // Algorithm 3 lines 8-10 with nnz_per_thread = 2: npr/2 rounded up to a multiple of 32.
  EXPECT_EQ(suraa_child_threads(40, 2), 32);
  EXPECT_EQ(suraa_child_threads(100, 2), 64);
  EXPECT_EQ(suraa_child_threads(2000, 2), 1024);
  EXPECT_EQ(suraa_child_blocks(2000, 2), 1);
  EXPECT_EQ(suraa_child_threads(100000, 2), 1024);
  EXPECT_EQ(suraa_child_blocks(100000, 2), 49);
  EXPECT_EQ(suraa_child_blocks(0, 8), 1);
  EXPECT_EQ(suraa_static_blocks(2048), 1);
  EXPECT_EQ(suraa_static_blocks(2049), 2);
  EXPECT_EQ(suraa_static_blocks(0), 1);
}

// --- CPU path ------------------------------------------------------------------------------

TEST(SuraaCpu, ScheduleCoversEveryNonzeroOnceWithinGroups) {
  for (const std::string m : {"one_huge_row", "long_rows_mixed", "empty_rows", "rect_tall"}) {
    const Csr<double>& a = testing::zoo_matrix(m);
    Csr<double> sorted;
    const SuraaPlan plan = suraa_plan_host(a, no_fallback(), &sorted);
    const SuraaCpuSchedule s = suraa_cpu_schedule(plan, sorted.row_ptr, 1000, 64);
    std::vector<int> row_seen(static_cast<std::size_t>(a.rows), 0);
    std::vector<std::int64_t> long_nnz(static_cast<std::size_t>(a.rows), 0);
    auto group = [&](index_t r) { return r < plan.g1_end ? 0 : r < plan.g2_end ? 1 : 2; };
    for (const auto& c : s.chunks) {
      if (c.partial >= 0) {
        EXPECT_EQ(c.row_end, c.row_begin + 1) << m;
        EXPECT_LE(c.nnz_end - c.nnz_begin, 1000) << m;
        long_nnz[c.row_begin] += c.nnz_end - c.nnz_begin;
        continue;
      }
      EXPECT_EQ(group(c.row_begin), group(c.row_end - 1)) << m << ": chunk crosses a group";
      EXPECT_LE(c.row_end - c.row_begin, 64) << m;
      for (index_t r = c.row_begin; r < c.row_end; ++r) ++row_seen[r];
    }
    for (const auto& lr : s.long_rows) {
      EXPECT_EQ(long_nnz[lr.row], sorted.row_length(lr.row)) << m;
      EXPECT_GT(lr.partial_end - lr.partial_begin, 1) << m;
      ++row_seen[lr.row];
    }
    for (index_t r = 0; r < a.rows; ++r) ASSERT_EQ(row_seen[r], 1) << m << " row " << r;
  }
}

TEST(SuraaCpu, OperatorStructureAndFallback) {
  auto op =
      build_operator<double>("suraa", testing::zoo_matrix("long_rows_mixed"), {}, Backend::cpu);
  EXPECT_EQ(op->info().format, "suraa");
  EXPECT_EQ(op->info().details.rfind("path=suraa,", 0), 0u) << op->info().details;
  EXPECT_EQ(op->info().matrix_bytes,
            suraa_matrix_bytes(op->rows(), op->info().nnz, sizeof(double)));
  auto uniform =
      build_operator<double>("suraa_static", testing::zoo_matrix("dense_96"), {}, Backend::cpu);
  EXPECT_EQ(uniform->info().format, "suraa_static");
  EXPECT_EQ(uniform->info().details.rfind("path=csr_balanced,", 0), 0u) << uniform->info().details;
  auto forced = build_operator<double>("suraa", testing::zoo_matrix("dense_96"),
                                       Params::parse("low_variance_cv=0"), Backend::cpu);
  EXPECT_EQ(forced->info().details.rfind("path=suraa,", 0), 0u);
}

TEST(SuraaFallback, CoefficientOfVariation) {
  EXPECT_DOUBLE_EQ(suraa_npr_cv(4, 8, 16), 0.0);  // all rows 2
  // rows {0, 4}: mean 2, E[npr^2] = 8, var 4, cv 1.
  EXPECT_DOUBLE_EQ(suraa_npr_cv(2, 4, 16), 1.0);
  EXPECT_DOUBLE_EQ(suraa_npr_cv(0, 0, 0), 0.0);
  SuraaOptions o;
  EXPECT_TRUE(suraa_use_csr_fallback(4, 8, 16, o));
  EXPECT_FALSE(suraa_use_csr_fallback(2, 4, 16, o));
  EXPECT_TRUE(suraa_use_csr_fallback(5, 0, 0, o));  // no entries
  o.low_variance_cv = 0;
  EXPECT_FALSE(suraa_use_csr_fallback(4, 8, 16, o));
}

// --- parameters and bytes --------------------------------------------------------------------

TEST(SuraaParams, PaperPresetAndOverrides) {
  const SuraaOptions paper = suraa_options(Params::parse("paper=1"), true);
  EXPECT_TRUE(paper.scalar_short_rows);
  EXPECT_EQ(paper.launch, SuraaLaunchMode::segment);
  EXPECT_EQ(paper.order, SuraaOrder::paper);
  EXPECT_EQ(paper.nnz_per_thread, 2);
  EXPECT_EQ(paper.low_variance_cv, 0.0);
  const SuraaOptions mixed =
      suraa_options(Params::parse("paper=1,short_kernel=subwarp,nnz_per_thread=4"), false);
  EXPECT_FALSE(mixed.dynamic);
  EXPECT_FALSE(mixed.scalar_short_rows);
  EXPECT_EQ(mixed.nnz_per_thread, 4);
  EXPECT_EQ(mixed.launch, SuraaLaunchMode::segment);
  EXPECT_EQ(mixed.order, SuraaOrder::paper);
  // Defaults: suraa the paper's order, merged launches; suraa_static groups order, tiles.
  const SuraaOptions dyn = suraa_options(Params{}, true);
  EXPECT_EQ(dyn.order, SuraaOrder::paper);
  EXPECT_EQ(dyn.launch, SuraaLaunchMode::merged);
  EXPECT_FALSE(dyn.scalar_short_rows);
  const SuraaOptions stat = suraa_options(Params{}, false);
  EXPECT_EQ(stat.order, SuraaOrder::groups);
  EXPECT_EQ(stat.launch, SuraaLaunchMode::tiles);
  EXPECT_FALSE(stat.scalar_short_rows);
  const SuraaOptions chosen =
      suraa_options(Params::parse("order=pow2,launch=merged,short_kernel=scalar"), false);
  EXPECT_EQ(chosen.order, SuraaOrder::pow2);
  EXPECT_EQ(chosen.launch, SuraaLaunchMode::merged);
  EXPECT_TRUE(chosen.scalar_short_rows);
}

TEST(SuraaParams, BadValuesAreRejected) {
  for (const char* bad : {"max_child_threads=-1", "segment_size=-2", "low_variance_cv=-1",
                          "short_kernel=warp", "launch=each", "streams=33", "nnz_per_thread=0",
                          "paper=maybe", "order=radix", "launch=fused", "launch=tile"})
    EXPECT_THROW(suraa_options(Params::parse(bad), true), InputError) << bad;
  EXPECT_THROW(build_operator<double>("suraa", testing::zoo_matrix("one_by_one"),
                                      Params::parse("threads_per_row=4"), Backend::cpu),
               InputError);
  // `sort` became `order` (paper|pow2|bucketed).
  EXPECT_THROW(build_operator<double>("suraa", testing::zoo_matrix("one_by_one"),
                                      Params::parse("sort=pow2"), Backend::cpu),
               InputError);
}

TEST(SuraaBytes, PaperFormulaAndByteModel) {
  // Section 5.3.3: (2m + 1 + nnz)*4 + (nnz + m + n)*8.
  EXPECT_EQ(suraa_paper_bytes(10, 20, 50), (21u + 50u) * 4u + (50u + 10u + 20u) * 8u);
  EXPECT_EQ(suraa_paper_bytes(10, 20, 50, 4), (21u + 50u) * 4u + (50u + 10u + 20u) * 4u);
  // Without G1 metadata, our model plus x (n) and y (m) is the paper's count.
  EXPECT_EQ(suraa_matrix_bytes(10, 50, 8) + (10 + 20) * 8, suraa_paper_bytes(10, 20, 50));
  EXPECT_EQ(suraa_matrix_bytes(10, 50, 8, 3, 5), suraa_matrix_bytes(10, 50, 8) + 4 * 4 + 2 * 5 * 8);
}

// --- non-default settings against the reference (both backends) ---------------------------

template <class V>
void expect_matches_reference(const std::string& format, const std::string& matrix,
                              const std::string& params, Backend b) {
  SCOPED_TRACE(format + " " + matrix + " " + params + " " + std::string(to_string(b)));
  const Csr<double>& a64 = testing::zoo_matrix(matrix);
  const Csr<V> a = a64.cast<V>();
  auto op = build_operator<V>(format, a, Params::parse(params), b);
  std::mt19937_64 rng(testing::test_seed());
  std::vector<V> xv, yv;
  for (double v : testing::random_vector(a.cols, rng)) xv.push_back(static_cast<V>(v));
  for (double v : testing::random_vector(a.rows, rng)) yv.push_back(static_cast<V>(v));
  const auto ref =
      reference_spmv(a.template cast<double>(), std::vector<double>(xv.begin(), xv.end()),
                     std::vector<double>(yv.begin(), yv.end()), 1.5, -0.5);
  auto x = Vector<V>::from_host(xv, b);
  auto y = Vector<V>::from_host(yv, b);
  for (int rep = 0; rep < 2; ++rep) {  // twice: scratch and streams are reused
    Vector<V> z(a.rows, b);
    z.fill_nan();
    op->apply(x.data(), y.data(), z.data(), V(1.5), V(-0.5));
    const auto got_v = z.to_host();
    index_t longest = 0;
    for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
    const double tol =
        64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(static_cast<double>(longest) + 1.0);
    EXPECT_LE(relative_error(std::vector<double>(got_v.begin(), got_v.end()), ref), tol)
        << op->info().details;
  }
}

TEST(SuraaSettings, MatchReferenceOnEveryBackend) {
  const std::vector<std::string> settings = {
      "paper=1",
      "low_variance_cv=0,streams=0",
      "low_variance_cv=0,segment_size=1,max_child_threads=1",
      "low_variance_cv=0,max_child_threads=100000,nnz_per_thread=1",
      "low_variance_cv=0,launch=segment,short_kernel=scalar,streams=3",
      "low_variance_cv=0,segment_size=100000",
      "low_variance_cv=0,order=pow2",
      "low_variance_cv=0,order=bucketed",
      "low_variance_cv=0,order=paper,launch=merged",
      "low_variance_cv=0,launch=table",
      "low_variance_cv=0,launch=table,order=bucketed,streams=0",
      "low_variance_cv=0,launch=table,segment_size=1,max_child_threads=1",
      "low_variance_cv=0,launch=table,max_child_threads=100000,nnz_per_thread=1",
      "low_variance_cv=0,launch=table,short_kernel=scalar,order=paper",
      "low_variance_cv=0,launch=tiles",
      "low_variance_cv=0,launch=tiles,order=paper,streams=0",
      "low_variance_cv=0,launch=tiles,segment_size=1,max_child_threads=1",
      "low_variance_cv=0,launch=tiles,max_child_threads=100000,order=pow2",
      "low_variance_cv=0,launch=tiles,order=groups",
      "low_variance_cv=0,launch=table,order=groups",
      "low_variance_cv=0,far_panels=3,near_band=100",
      "low_variance_cv=0,far_panels=1,near_band=0",
      "low_variance_cv=0,far_panels=64,near_band=7,order=paper",
      "low_variance_cv=0,launch=table,far_panels=2,near_band=10",
  };
  for (Backend b : {Backend::cpu, Backend::cuda}) {
    if (b == Backend::cuda && !cuda_available()) continue;
    for (const char* format : {"suraa", "suraa_static"})
      for (const std::string m : {"one_huge_row", "long_rows_mixed", "dense_96", "empty_rows",
                                  "no_entries_50x70", "rect_wide"})
        for (const auto& s : settings) {
          expect_matches_reference<double>(format, m, s, b);
          expect_matches_reference<float>(format, m, s, b);
        }
  }
}

// launch=tiles with far panels: the far entries really go to the COO panels, and the result
// matches the reference on a matrix that has them; bad far options are InputErrors.
TEST(SuraaCuda, FarPanelsAfterTiles) {
#if SPMVKIT_HAVE_CUDA
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Csr<double> a = generate_powerlaw(60000, 8.0, 9000, 3);
  for (const char* params :
       {"far_panels=3,near_band=600", "far_panels=2,near_band=0,order=paper"}) {
    SCOPED_TRACE(params);
    const auto op = build_operator<double>("suraa_static", a, Params::parse(params), Backend::cuda);
    EXPECT_NE(op->info().details.find("path=suraa,"), std::string::npos) << op->info().details;
    EXPECT_EQ(op->info().details.find("far_nnz=0"), std::string::npos) << op->info().details;
    EXPECT_EQ(op->info().nnz, a.nnz());
    testing::expect_spmv_matches<double>("suraa_static", a, Params::parse(params), Backend::cuda);
    testing::expect_spmv_matches<float>("suraa_static", a, Params::parse(params), Backend::cuda);
  }
  for (const char* bad : {"far_panels=65", "far_panels=-1", "near_band=-3", "far_panels=many"})
    testing::expect_bad_value("suraa_static", a, bad, Backend::cuda);
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// --- the GPU setup reproduces the host setup -----------------------------------------------

TEST(SuraaCuda, GpuSetupMatchesHostPlan) {
#if SPMVKIT_HAVE_CUDA
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const std::string& m : testing::zoo_names()) {
    SCOPED_TRACE(m);
    const Csr<double>& a = testing::zoo_matrix(m);
    for (const char* params : {"low_variance_cv=0", "low_variance_cv=0,order=pow2",
                               "low_variance_cv=0,order=bucketed"}) {
      const SuraaOptions o = suraa_options(Params::parse(params), true);
      const SuraaPlan host = suraa_plan_host(a, o);
      const SuraaPlan gpu = suraa_plan_cuda(a, o);
      EXPECT_EQ(gpu.perm, host.perm);
      EXPECT_EQ(gpu.segmentation.segment_size, host.segmentation.segment_size);
      EXPECT_EQ(gpu.segmentation.segments, host.segmentation.segments);
      EXPECT_EQ(gpu.segments.size(), host.segments.size());
      EXPECT_EQ(gpu.probes.rows_over_warp, host.probes.rows_over_warp);
      EXPECT_EQ(gpu.max_child_threads, host.max_child_threads);
      EXPECT_EQ(gpu.g1_end, host.g1_end);
      EXPECT_EQ(gpu.g2_end, host.g2_end);
      ASSERT_EQ(gpu.launches.size(), host.launches.size());
      for (std::size_t i = 0; i < gpu.launches.size(); ++i) {
        EXPECT_EQ(gpu.launches[i].row_begin, host.launches[i].row_begin);
        EXPECT_EQ(gpu.launches[i].threads_per_row, host.launches[i].threads_per_row);
      }
    }
  }
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

}  // namespace
}  // namespace spmvkit
