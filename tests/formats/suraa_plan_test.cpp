// SURAA rules, part 2: grouping thresholds, max_child_threads, launches, G1 sizing, the CPU
// schedule, parameters, byte formulas, and the GPU setup against the host one (skipped without
// a GPU). SpMV correctness of the default settings is the shared format suite's job; here
// only non-default settings are run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "formats/suraa/suraa.hpp"
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
  EXPECT_EQ(suraa_vector_threads(40, 1, 8), 32);
  EXPECT_EQ(suraa_vector_threads(1000, 1, 8), 128);
  EXPECT_EQ(suraa_vector_threads(4000, 4, 2), 512);
  EXPECT_EQ(suraa_vector_threads(1000000, 1, 8), 1024);
  EXPECT_EQ(suraa_short_threads(7, 1, false), 8);
  EXPECT_EQ(suraa_short_threads(7, 1, true), 1);
  EXPECT_EQ(suraa_short_threads(0, 3, false), 1);
  EXPECT_EQ(suraa_short_threads(100, 5, false), 32);
  // At and just past a power of two (mean / nnz_per_thread = 64 exactly, then above it).
  EXPECT_EQ(suraa_vector_threads(64 * 8 * 3, 3, 8), 64);
  EXPECT_EQ(suraa_vector_threads(64 * 8 * 3 + 1, 3, 8), 128);
  EXPECT_EQ(suraa_short_threads(12, 3, false), 4);
  EXPECT_EQ(suraa_short_threads(13, 3, false), 8);
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

// The row-length moments made on the host (npr_moments_host: a small matrix's GPU setup) and
// the sorted row pointer from its counts, against sums and a sort made here; with and without a
// row longer than 4m + 64 (no counts by length then).
TEST(SuraaSort, RowLengthMomentsAndSortedRowPointer) {
  std::mt19937 rng(112911);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE(trial);
    const auto m = static_cast<index_t>(std::uniform_int_distribution<int>(0, 300)(rng));
    std::vector<index_t> len(static_cast<std::size_t>(m));
    for (auto& l : len) l = std::uniform_int_distribution<index_t>(0, trial % 2 ? 80 : 5)(rng);
    if (m > 0 && trial % 4 == 3) len[static_cast<std::size_t>(m / 2)] = 4 * m + 65;  // long
    if (m > 0 && trial % 4 == 2) len[0] = 4 * m + 64;  // the longest that keeps the counts
    std::vector<index_t> ptr(static_cast<std::size_t>(m) + 1, 0);
    for (index_t i = 0; i < m; ++i) ptr[i + 1] = ptr[i] + len[static_cast<std::size_t>(i)];
    const NprMoments mom = npr_moments_host(m, ptr.data());
    double sq = 0;
    std::vector<std::int64_t> classes(kSuraaClasses, 0);
    for (index_t l : len) {
      sq += static_cast<double>(l) * l;
      ++classes[static_cast<std::size_t>(suraa_sort_class(l, true))];
    }
    EXPECT_EQ(mom.sum_squared, sq);
    EXPECT_EQ(mom.max, m > 0 ? *std::max_element(len.begin(), len.end()) : 0);
    EXPECT_EQ(mom.min, m > 0 ? *std::min_element(len.begin(), len.end()) : 0);
    EXPECT_EQ(mom.over_warp,
              std::count_if(len.begin(), len.end(), [](index_t l) { return l > 32; }));
    EXPECT_EQ(mom.class_count, classes);
    const bool counted = m > 0 && mom.max <= 4 * m + 64;
    ASSERT_EQ(mom.length_count.empty(), !counted);
    if (!counted) continue;
    ASSERT_EQ(mom.length_count.size(), static_cast<std::size_t>(mom.max) + 1);
    std::vector<index_t> sorted = len;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    std::vector<index_t> want(static_cast<std::size_t>(m) + 1, 0), got(want.size(), -1);
    for (index_t i = 0; i < m; ++i) want[i + 1] = want[i] + sorted[static_cast<std::size_t>(i)];
    suraa_sorted_row_ptr(mom.length_count, got.data());
    EXPECT_EQ(got, want);
  }
}

// The class orders' one-pass sort (suraa_class_order: a small matrix's GPU setup) against the
// host setup's stable sort, with the row pointer it leaves.
TEST(SuraaSort, ClassOrderMatchesTheStableSort) {
  for (const std::string& name : testing::zoo_names()) {
    SCOPED_TRACE(name);
    const Csr<double>& a = testing::zoo_matrix(name);
    const NprMoments mom = npr_moments_host(a.rows, a.row_ptr.data());
    for (const SuraaOrder order : {SuraaOrder::bucketed, SuraaOrder::groups}) {
      SCOPED_TRACE(to_string(order));
      const std::vector<index_t> want = suraa_sort_rows(a, order);
      std::vector<index_t> ptr(static_cast<std::size_t>(a.rows) + 1, -1);
      const std::vector<index_t> perm =
          suraa_class_order(a.row_ptr.data(), a.rows, order, suraa_order_class(mom.max, order),
                            mom.class_count, ptr.data());
      EXPECT_EQ(perm, want);
      EXPECT_EQ(ptr, suraa_permute_rows(a, want).row_ptr);
    }
  }
}

// The plan made from the sorted row pointer in one pass (suraa_plan_from_sorted: the CPU setup
// and the GPU's small-matrix setup) against the rules applied literally here: the cut into
// segments (every segment_size rows, and at every class run's end), a segment's mean as a double,
// G1 the leading segments with mean > 32 within max_child_threads rows, G2 mean >= 32, launches
// merged over consecutive segments of one group and one width.
TEST(SuraaLaunches, PlanFromSortedRowPointerFollowsTheRules) {
  std::mt19937 rng(20261129);
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE(trial);
    const auto rows = static_cast<index_t>(std::uniform_int_distribution<int>(1, 400)(rng));
    // Descending lengths from long to short, with ties; a trial in three also in runs of classes
    // whose lengths are not sorted within a run.
    std::vector<index_t> len(static_cast<std::size_t>(rows));
    for (auto& l : len) l = std::uniform_int_distribution<index_t>(0, trial % 2 ? 300 : 40)(rng);
    std::sort(len.begin(), len.end(), std::greater<>());
    std::vector<index_t> runs;
    if (trial % 3 == 0) {
      std::shuffle(len.begin(), len.end(), rng);
      for (index_t left = rows; left > 0;) {
        const index_t r = std::min(left, std::uniform_int_distribution<index_t>(0, 60)(rng));
        runs.push_back(r);  // an empty run now and then
        left -= r;
      }
    }
    std::vector<index_t> ptr(static_cast<std::size_t>(rows) + 1, 0);
    for (index_t i = 0; i < rows; ++i) ptr[i + 1] = ptr[i] + len[static_cast<std::size_t>(i)];
    SuraaOptions o;
    o.max_child_threads = std::uniform_int_distribution<index_t>(0, 3)(rng) == 0 ? 7 : 0;
    o.launch = trial % 4 == 1   ? SuraaLaunchMode::segment
               : trial % 4 == 2 ? SuraaLaunchMode::table
                                : SuraaLaunchMode::merged;
    o.scalar_short_rows = trial % 5 == 0;
    o.nnz_per_thread = 1 + trial % 8;
    SuraaProbes probes;
    probes.rows = rows;
    probes.rows_over_warp = static_cast<index_t>(trial * 37 % 9000);
    SuraaSegmentation seg;
    seg.segment_size = std::uniform_int_distribution<index_t>(1, 12)(rng);

    // The cut.
    std::vector<index_t> bounds{0};
    std::vector<index_t> whole = runs.empty() ? std::vector<index_t>{rows} : runs;
    index_t at = 0;
    for (index_t r : whole) {
      for (index_t b = at + seg.segment_size; b < at + r; b += seg.segment_size)
        bounds.push_back(b);
      if (r > 0) bounds.push_back(at + r);
      at += r;
    }
    // The groups and launches.
    const index_t cap = o.max_child_threads > 0 ? o.max_child_threads
                                                : suraa_max_child_threads(probes.rows_over_warp);
    std::vector<SuraaGroup> want_group;
    std::vector<SuraaLaunch> want_launch;
    index_t g1_rows = 0, g1_end = 0, g2_end = 0;
    bool open = true;
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
      const index_t b = bounds[k], e = bounds[k + 1];
      const double mean = static_cast<double>(ptr[e] - ptr[b]) / (e - b);
      SuraaGroup g = mean >= 32 ? SuraaGroup::vector : SuraaGroup::scalar;
      if (open && mean > 32 && g1_rows + (e - b) <= cap) {
        g = SuraaGroup::dynamic;
        g1_rows += e - b;
        g1_end = e;
      } else {
        open = false;
      }
      if (g != SuraaGroup::scalar) g2_end = e;
      want_group.push_back(g);
      if (g == SuraaGroup::dynamic) continue;
      int tpr = 1;
      if (g == SuraaGroup::vector) {
        for (tpr = 32; tpr < 1024 && tpr < mean / o.nnz_per_thread;) tpr *= 2;
      } else if (!o.scalar_short_rows) {
        for (tpr = 1; tpr < 32 && tpr < mean;) tpr *= 2;
      }
      if (o.launch == SuraaLaunchMode::table) tpr = std::min(tpr, kSuraaTableBlock);
      if (o.launch != SuraaLaunchMode::segment && !want_launch.empty() &&
          want_launch.back().group == g && want_launch.back().threads_per_row == tpr &&
          want_launch.back().row_end == b)
        want_launch.back().row_end = e;
      else
        want_launch.push_back(SuraaLaunch{b, e, tpr, g});
    }

    const SuraaPlan plan = suraa_plan_from_sorted(rows, 50, probes, seg, runs, ptr.data(), o, true);
    ASSERT_EQ(plan.segments.size(), bounds.size() - 1);
    EXPECT_EQ(plan.segment_count, static_cast<std::int64_t>(bounds.size() - 1));
    for (std::size_t k = 0; k < plan.segments.size(); ++k) {
      EXPECT_EQ(plan.segments[k].row_begin, bounds[k]);
      EXPECT_EQ(plan.segments[k].row_end, bounds[k + 1]);
      EXPECT_EQ(plan.segments[k].nnz, ptr[bounds[k + 1]] - ptr[bounds[k]]);
      EXPECT_EQ(plan.segments[k].group, want_group[k]) << "segment " << k;
    }
    EXPECT_EQ(plan.g1_end, g1_end);
    EXPECT_EQ(plan.g2_end, std::max(g2_end, g1_end));
    EXPECT_EQ(plan.nnz, ptr[static_cast<std::size_t>(rows)]);
    ASSERT_EQ(plan.launches.size(), want_launch.size());
    for (std::size_t i = 0; i < want_launch.size(); ++i) {
      EXPECT_EQ(plan.launches[i].row_begin, want_launch[i].row_begin);
      EXPECT_EQ(plan.launches[i].row_end, want_launch[i].row_end);
      EXPECT_EQ(plan.launches[i].threads_per_row, want_launch[i].threads_per_row);
      EXPECT_EQ(plan.launches[i].group, want_launch[i].group);
    }
    // Without the list: the same groups, count and nonzeros, nothing listed.
    const SuraaPlan lite =
        suraa_plan_from_sorted(rows, 50, probes, seg, runs, ptr.data(), o, false);
    EXPECT_TRUE(lite.segments.empty());
    EXPECT_TRUE(lite.launches.empty());
    EXPECT_EQ(lite.segment_count, plan.segment_count);
    EXPECT_EQ(lite.g1_end, plan.g1_end);
    EXPECT_EQ(lite.g2_end, plan.g2_end);
    EXPECT_EQ(lite.nnz, plan.nnz);
  }
  // Runs that do not add up to the rows.
  const std::vector<index_t> ptr{0, 1, 2, 3};
  EXPECT_THROW(suraa_plan_from_sorted(3, 3, SuraaProbes{}, SuraaSegmentation{}, {1, 1}, ptr.data(),
                                      SuraaOptions{}, true),
               InputError);
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
    for (const char* params :
         {"low_variance_cv=0", "low_variance_cv=0,order=pow2", "low_variance_cv=0,order=bucketed",
          "low_variance_cv=0,order=groups", "low_variance_cv=0,order=groups,max_child_threads=64",
          "low_variance_cv=0,segment_size=1,max_child_threads=40"}) {
      SCOPED_TRACE(params);
      const SuraaOptions o = suraa_options(Params::parse(params), true);
      const SuraaPlan host = suraa_plan_host(a, o);
      // Planned on the device, and from the host's copy of a small matrix (the registry's
      // upload of a host CSR: suraa_setup_from_host).
      for (const bool host_copy : {false, true}) {
        SCOPED_TRACE(host_copy ? "from the host's copy" : "on the device");
        const SuraaPlan gpu = suraa_plan_cuda(a, o, true, host_copy);
        // Without the list (launch=tiles, static G1): the same groups, count and nonzeros.
        const SuraaPlan lite = suraa_plan_cuda(a, o, false, host_copy);
        EXPECT_TRUE(lite.segments.empty());
        EXPECT_EQ(lite.segment_count, static_cast<std::int64_t>(host.segments.size()));
        EXPECT_EQ(lite.g1_end, host.g1_end);
        EXPECT_EQ(lite.g2_end, host.g2_end);
        EXPECT_EQ(lite.nnz, host.nnz);
        EXPECT_EQ(lite.max_child_threads, host.max_child_threads);
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
  }
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

}  // namespace
}  // namespace spmvkit
