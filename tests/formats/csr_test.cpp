// CSR-specific tests: the column-panel split (cache blocking of x, csr_balanced's `panels`
// option), the near/far split (its `far_panels` option) and the balanced kernel with explicit
// panel counts and far panels against the float64 reference (the registry suite runs the
// defaults).
#include "formats/csr/csr.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "spmvkit/generators.hpp"
#include "tests/common/zoo.hpp"
#include "tests/formats/spmv_check.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/device_csr.hpp"
#include "formats/common/csr_split.cuh"
#endif

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

TEST(CsrPanels, SplitSumsToTheMatrixAndKeepsColumnsSorted) {
  const Csr<double> a =
      matrix_with_lengths(300, 1000, [](index_t r) { return r % 7 == 0 ? 0 : r % 40 + 1; });
  for (int panels : {1, 2, 3, 7, 1000, 1500}) {
    SCOPED_TRACE(panels);
    const auto parts = csr_column_panels(a, panels);
    ASSERT_EQ(parts.size(), static_cast<std::size_t>(panels));
    const index_t width = (a.cols + panels - 1) / panels;
    index_t total = 0;
    for (int p = 0; p < panels; ++p) {
      const Csr<double>& part = parts[p];
      EXPECT_EQ(part.rows, a.rows);
      EXPECT_EQ(part.cols, a.cols);
      part.validate("panel");  // sorted, in range, row_ptr consistent
      for (index_t c : part.col_idx) {
        EXPECT_GE(c, p * width);
        EXPECT_LT(c, (p + 1) * width);
      }
      total += part.nnz();
    }
    EXPECT_EQ(total, a.nnz());
    // Row by row, the panels' entries in panel order are the row's entries.
    for (index_t r = 0; r < a.rows; ++r) {
      std::vector<index_t> cols;
      std::vector<double> vals;
      for (const auto& part : parts)
        for (index_t k = part.row_ptr[r]; k < part.row_ptr[r + 1]; ++k) {
          cols.push_back(part.col_idx[k]);
          vals.push_back(part.values[k]);
        }
      ASSERT_EQ(cols, std::vector<index_t>(a.col_idx.begin() + a.row_ptr[r],
                                           a.col_idx.begin() + a.row_ptr[r + 1]));
      ASSERT_EQ(vals, std::vector<double>(a.values.begin() + a.row_ptr[r],
                                          a.values.begin() + a.row_ptr[r + 1]));
    }
  }
  EXPECT_THROW(csr_column_panels(a, 0), InputError);
  const Csr<double> empty = make_csr<double>(0, 0, {0}, {}, {});
  EXPECT_EQ(csr_column_panels(empty, 3)[2].nnz(), 0);
}

TEST(CsrPanels, BalancedWithPanelsMatchesReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: csr_balanced panels run on the GPU only";
  const Csr<double> mixed = matrix_with_lengths(5000, 7000, [](index_t r) {
    return r == 17 ? 6000 : r % 11 == 0 ? 0 : r % 37 + 1;
  });
  for (const char* panels : {"1", "2", "3", "64"}) {
    const Params p = Params::parse(std::string("panels=") + panels);
    testing::expect_spmv_matches<double>("csr_balanced", mixed, p, Backend::cuda);
    testing::expect_spmv_matches<float>("csr_balanced", mixed, p, Backend::cuda);
    for (const char* name : {"one_huge_row", "rect_wide", "rect_tall", "empty_rows", "one_by_one",
                             "empty_0x0", "powerlaw_20000"})
      testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                           Backend::cuda);
  }
}

TEST(CsrPanels, BadPanelCountIsAnInputError) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: the panel parameter is read by the GPU builder";
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad : {"panels=0", "panels=65", "panels=many", "panels=auto"})
    testing::expect_bad_value("csr_balanced", a, bad, Backend::cuda);
}

#if SPMVKIT_HAVE_CUDA
// The far count on the device (a thread an entry, rows searched between its block's first and
// last rows) is the host's, on the zoo's awkward shapes and at every band.
TEST(CsrNearFar, DeviceFarCountMatchesHostCount) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
    for (index_t band : {0, 1, 5, 100, 1 << 20}) {
      SCOPED_TRACE(name + " band " + std::to_string(band));
      EXPECT_EQ(csr_count_far(d.view(), band), csr_count_far(a, band));
    }
  }
}

TEST(CsrNearFar, SplitKeepsEveryEntryOnceInPanelAndRowOrder) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: the near/far split runs on the GPU";
  const Csr<double> a =
      matrix_with_lengths(300, 1000, [](index_t r) { return r % 7 == 0 ? 0 : r % 40 + 1; });
  for (index_t band : {0, 5, 100, 2000}) {
    for (int panels : {1, 3, 1000, 1500}) {
      SCOPED_TRACE(std::to_string(band) + " / " + std::to_string(panels));
      const NearFarSplit<double> s = csr_split_near_far(a, band, panels);
      s.near.validate("near part");
      ASSERT_EQ(s.far_ptr.size(), static_cast<std::size_t>(panels) + 1);
      EXPECT_EQ(s.far_ptr.front(), 0);
      EXPECT_EQ(static_cast<std::size_t>(s.far_ptr.back()), s.far_row.size());
      EXPECT_EQ(s.near.nnz() + static_cast<index_t>(s.far_row.size()), a.nnz());
      EXPECT_EQ(csr_count_far(a, band), static_cast<std::int64_t>(s.far_row.size()));
      const index_t width = (a.cols + panels - 1) / panels;
      auto diagonal = [&](index_t r) {
        return static_cast<index_t>(std::int64_t{r} * a.cols / a.rows);
      };
      for (index_t r = 0; r < a.rows; ++r)
        for (index_t k = s.near.row_ptr[r]; k < s.near.row_ptr[r + 1]; ++k)
          EXPECT_LE(std::abs(s.near.col_idx[k] - diagonal(r)), band);
      // Far entries: outside the band, in their panel, sorted by (row, column) within it.
      std::int64_t segments = 0;
      for (int p = 0; p < panels; ++p)
        for (index_t k = s.far_ptr[p]; k < s.far_ptr[p + 1]; ++k) {
          EXPECT_GT(std::abs(s.far_col[k] - diagonal(s.far_row[k])), band);
          EXPECT_EQ(s.far_col[k] / width, p);
          if (k > s.far_ptr[p]) {
            EXPECT_TRUE(s.far_row[k - 1] < s.far_row[k] ||
                        (s.far_row[k - 1] == s.far_row[k] && s.far_col[k - 1] < s.far_col[k]));
          }
          segments += k == s.far_ptr[p] || s.far_row[k - 1] != s.far_row[k];
        }
      EXPECT_EQ(segments, s.far_row_segments);
      // Near + far rebuilds A entry by entry (as a dense matrix: 300 x 1000 is small).
      std::vector<double> dense(static_cast<std::size_t>(a.rows) * a.cols, 0.0), want = dense;
      for (index_t r = 0; r < a.rows; ++r) {
        for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
          want[static_cast<std::size_t>(r) * a.cols + a.col_idx[k]] = a.values[k];
        for (index_t k = s.near.row_ptr[r]; k < s.near.row_ptr[r + 1]; ++k)
          dense[static_cast<std::size_t>(r) * a.cols + s.near.col_idx[k]] += s.near.values[k];
      }
      for (std::size_t k = 0; k < s.far_row.size(); ++k)
        dense[static_cast<std::size_t>(s.far_row[k]) * a.cols + s.far_col[k]] += s.far_val[k];
      EXPECT_EQ(dense, want);
    }
  }
  EXPECT_THROW(csr_split_near_far(a, 10, 0), InputError);
  EXPECT_THROW(csr_split_near_far(a, -1, 2), InputError);
  EXPECT_THROW(csr_split_near_far(a, 10, 65536), InputError);
  const Csr<double> empty = make_csr<double>(0, 0, {0}, {}, {});
  EXPECT_EQ(csr_split_near_far(empty, 10, 3).far_ptr, (std::vector<index_t>{0, 0, 0, 0}));
  // Rows without entries (first, last, in runs) and a matrix with no near entries at all.
  const Csr<double> gaps =
      make_csr<double>(6, 50, {0, 0, 2, 2, 2, 5, 5}, {9, 49, 0, 25, 34}, {1, 2, 3, 4, 5});
  const NearFarSplit<double> g = csr_split_near_far(gaps, 3, 2);  // diagonals 8 and 33
  EXPECT_EQ(g.near.row_ptr, (std::vector<index_t>{0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(g.near.col_idx, (std::vector<index_t>{9, 34}));
  EXPECT_EQ(g.near.values, (std::vector<double>{1, 5}));
  EXPECT_EQ(g.far_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(g.far_row, (std::vector<index_t>{4, 1, 4}));
  EXPECT_EQ(g.far_col, (std::vector<index_t>{0, 49, 25}));
  EXPECT_EQ(g.far_val, (std::vector<double>{3, 2, 4}));
  EXPECT_EQ(g.far_row_segments, 3);
  const NearFarSplit<double> all_far = csr_split_near_far(gaps, 0, 1);
  EXPECT_EQ(all_far.near.nnz(), 0);
  EXPECT_EQ(all_far.far_row, (std::vector<index_t>{1, 1, 4, 4, 4}));
  EXPECT_EQ(all_far.far_row_segments, 2);
}
#endif

TEST(CsrNearFar, BalancedWithFarPanelsMatchesReference) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: csr_balanced far panels run on the GPU only";
  const Csr<double> near_diag = generate_powerlaw(60000, 8.0, 9000, 3);
  for (const char* params :
       {"far_panels=1", "far_panels=3,near_band=600", "far_panels=4,near_band=0",
        "far_panels=64,near_band=50", "far_panels=2,near_band=100000"}) {
    const Params p = Params::parse(params);
    testing::expect_spmv_matches<double>("csr_balanced", near_diag, p, Backend::cuda);
    testing::expect_spmv_matches<float>("csr_balanced", near_diag, p, Backend::cuda);
    for (const char* name : {"one_huge_row", "rect_wide", "rect_tall", "empty_rows", "one_by_one",
                             "empty_0x0", "powerlaw_20000", "duplicates_heavy", "long_rows_mixed"})
      testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                           Backend::cuda);
    // One row with entries in every panel: the COO kernel sees the same row on both sides of
    // each panel boundary, in runs spanning many warps; 4999 entries, not a multiple of 4.
    testing::expect_spmv_matches<double>("csr_balanced",
                                         matrix_with_lengths(1, 6000, [](index_t) { return 4999; }),
                                         p, Backend::cuda);
  }
  // Far entries really are there (else the test above proves nothing about them).
  const auto op = build_operator<double>(
      "csr_balanced", near_diag, Params::parse("far_panels=3,near_band=600"), Backend::cuda);
  EXPECT_EQ(op->info().details.find("far_nnz=0,"), std::string::npos) << op->info().details;
}

// The options only the GPU builder reads are in the schema, checked first on every backend;
// this runs in CI, where the GPU tests skip.
TEST(CsrBalanced, GpuOptionsAreRegisteredParameters) {
  const FormatEntry& f = find_format("csr_balanced");
  for (const char* name : {"items_per_thread", "block_threads", "row_sum", "panels", "far_panels",
                           "near_band", "long_row_finish"}) {
    ASSERT_NE(f.param(name), nullptr) << name;
    EXPECT_TRUE(f.param(name)->cuda_only) << name;
    EXPECT_NO_THROW(check_params(f, Params().set(name, f.param(name)->fallback))) << name;
  }
  EXPECT_THROW(check_params(f, Params::parse("far_panel=1")), InputError);
  EXPECT_THROW(check_params(f, Params::parse("items_per_thread=5")), InputError);
  const FormatEntry& s = find_format("suraa_static");
  for (const char* name : {"far_panels", "near_band"})
    EXPECT_NO_THROW(check_params(s, Params::parse(std::string(name) + "=1"))) << name;
}

// Long rows finished by their last slice (one launch) instead of the fix-up kernel; the
// operator is applied three times (expect_spmv_matches), so the counters must reset.
TEST(CsrBalanced, LastSliceFinishesLongRows) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: long_row_finish is read by the GPU builder";
  const Params p = Params::parse("long_row_finish=last_slice");
  for (const char* name : {"one_huge_row", "long_rows_mixed", "powerlaw_20000", "empty_rows",
                           "rect_wide", "one_by_one", "empty_0x0"}) {
    testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                         Backend::cuda);
    testing::expect_spmv_matches<float>("csr_balanced", testing::zoo_matrix(name), p,
                                        Backend::cuda);
  }
  const auto op =
      build_operator<double>("csr_balanced", testing::zoo_matrix("one_huge_row"), p, Backend::cuda);
  EXPECT_EQ(op->info().details.find("long_rows=0"), std::string::npos) << op->info().details;
  testing::expect_bad_value("csr_balanced", testing::zoo_matrix("one_by_one"),
                            "long_row_finish=atomic", Backend::cuda);
}

// row_sum=scan (each thread sums its own products in order, a block scan carries the rows that
// cross threads) on every awkward shape, every tile size, both precisions; applied three times
// (expect_spmv_matches), the output poisoned first.
TEST(CsrBalanced, ScanRowSumMatchesTheReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: row_sum is read by the GPU builder";
  for (const char* params :
       {"row_sum=scan", "row_sum=scan,items_per_thread=4", "row_sum=scan,items_per_thread=16",
        "row_sum=scan,block_threads=256", "row_sum=scan,block_threads=256,items_per_thread=16",
        "row_sum=scan,long_row_finish=last_slice"}) {
    const Params p = Params::parse(params);
    for (const auto& name : testing::zoo_names()) {
      SCOPED_TRACE(std::string(params) + " on " + name);
      testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                           Backend::cuda);
      testing::expect_spmv_matches<float>("csr_balanced", testing::zoo_matrix(name), p,
                                          Backend::cuda);
    }
  }
  EXPECT_NE(build_operator<double>("csr_balanced", testing::zoo_matrix("one_by_one"),
                                   Params::parse("row_sum=scan"), Backend::cuda)
                ->info()
                .details.find("row_sum=scan"),
            std::string::npos);
  testing::expect_bad_value("csr_balanced", testing::zoo_matrix("one_by_one"), "row_sum=warp",
                            Backend::cuda);
}

TEST(CsrNearFar, BadFarPanelsIsAnInputError) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: the far-panel parameters are read by the GPU builder";
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad : {"far_panels=-1", "far_panels=65", "far_panels=x", "near_band=-3",
                          "near_band=99999999999", "far_panels=2,panels=2", "far_panels=Auto"})
    testing::expect_bad_value("csr_balanced", a, bad, Backend::cuda);
  // auto (the default) takes no panels where x fits in L2, and gives way to explicit panels.
  for (const char* fine : {"far_panels=auto", "far_panels=auto,panels=2", "far_panels=0,panels=2"})
    EXPECT_NE(build_operator<double>("csr_balanced", a, Params::parse(fine), Backend::cuda)
                  ->info()
                  .details.find("far_panels=0,"),
              std::string::npos)
        << fine;
}

}  // namespace
}  // namespace spmvkit
