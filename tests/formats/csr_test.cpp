// CSR-specific tests: the column-panel split (cache blocking of x, csr_balanced's `panels`
// option), the choice of x windows (its `x_window` option) and the balanced kernel with explicit
// panel counts and windows against the float64 reference (the registry suite runs the
// defaults).
#include "formats/csr/csr.hpp"

#include <gtest/gtest.h>

#include "spmvkit/generators.hpp"
#include "tests/formats/spmv_check.hpp"

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
    EXPECT_THROW(build_operator<double>("csr_balanced", a, Params::parse(bad), Backend::cuda),
                 InputError)
        << bad;
}

TEST(CsrWindow, TakesTheDensestSpanOnlyWhenItSavesSectors) {
  // 384 entries scattered over [1000, 1512) (every warp touches most of its sectors) among 128
  // far ones: the window covers the cluster.
  std::vector<index_t> cols;
  for (index_t i = 0; i < 512; ++i) cols.push_back(i % 4 == 3 ? i * 100000 : 1000 + i * 37 % 512);
  const XWindow w = choose_x_window<double>(cols.data(), static_cast<index_t>(cols.size()), 1024);
  EXPECT_EQ(w.first, 1000);
  EXPECT_LE(w.length, 512);
  for (index_t i = 0; i < 512; i += (i % 4 == 2 ? 2 : 1))  // the cluster's entries
    EXPECT_LT(cols[i] - w.first, w.length) << cols[i];
  // The cap bounds the span.
  const XWindow narrow =
      choose_x_window<double>(cols.data(), static_cast<index_t>(cols.size()), 256);
  EXPECT_GT(narrow.length, 0);
  EXPECT_LE(narrow.length, 256);
  // Entries 64 columns apart: every one its own sector either way, a window would only add.
  std::vector<index_t> spread;
  for (index_t i = 0; i < 128; ++i) spread.push_back(64 * i);
  EXPECT_EQ(choose_x_window<double>(spread.data(), 128, 8192).length, 0);
  // Consecutive columns: a warp's gathers already share sectors; no window.
  std::vector<index_t> dense;
  for (index_t i = 0; i < 1024; ++i) dense.push_back(5000 + i);
  EXPECT_EQ(choose_x_window<double>(dense.data(), 1024, 2048).length, 0);
  EXPECT_EQ(choose_x_window<double>(cols.data(), 0, 1024).length, 0);
  EXPECT_EQ(choose_x_window<double>(cols.data(), 512, 0).length, 0);
}

TEST(CsrWindow, BalancedWithWindowsMatchesReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: csr_balanced windows run on the GPU only";
  // Near-diagonal rows (windows pay) with far entries, empty rows and one long row.
  const Csr<double> near = generate_powerlaw(60000, 8.0, 9000, 3);
  const Csr<double> banded = generate_banded(40000, 700, 12);
  for (const char* params :
       {"x_window=64", "x_window=1024", "x_window=8192",
        "x_window=2048,block_threads=256,items_per_thread=16", "x_window=4096,panels=3",
        "x_window=512,block_threads=128,items_per_thread=4"}) {
    const Params p = Params::parse(params);
    for (const Csr<double>* a : {&near, &banded}) {
      testing::expect_spmv_matches<double>("csr_balanced", *a, p, Backend::cuda);
      testing::expect_spmv_matches<float>("csr_balanced", *a, p, Backend::cuda);
    }
    for (const char* name : {"one_huge_row", "rect_wide", "rect_tall", "empty_rows", "one_by_one",
                             "empty_0x0", "powerlaw_20000"})
      testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                           Backend::cuda);
  }
  // The windows are really taken on the banded matrix (else the test above proves nothing).
  const auto op =
      build_operator<double>("csr_balanced", banded, Params::parse("x_window=2048"), Backend::cuda);
  EXPECT_EQ(op->info().details.find("windowed_tiles=0,"), std::string::npos) << op->info().details;
  EXPECT_NE(op->info().details.find("windowed_tiles="), std::string::npos) << op->info().details;
}

TEST(CsrWindow, BadWindowIsAnInputError) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: the window parameter is read by the GPU builder";
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad :
       {"x_window=1", "x_window=63", "x_window=8193", "x_window=-5", "x_window=big"})
    EXPECT_THROW(build_operator<double>("csr_balanced", a, Params::parse(bad), Backend::cuda),
                 InputError)
        << bad;
}

}  // namespace
}  // namespace spmvkit
