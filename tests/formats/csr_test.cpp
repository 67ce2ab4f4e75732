// CSR-specific tests: the column-panel split (cache blocking of x, csr_balanced's `panels`
// option) and the balanced kernel with explicit panel counts against the float64 reference (the
// registry suite runs the default, one panel).
#include "formats/csr/csr.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace spmvkit
