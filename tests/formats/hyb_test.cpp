// HYB-specific tests: Bell & Garland's width rule on hand-made histograms, the ELL/COO split,
// parameter validation, and explicit widths (COO-heavy, ELL-heavy) against the reference.
#include "formats/hyb/hyb.hpp"

#include <gtest/gtest.h>

#include "tests/formats/spmv_check.hpp"

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

TEST(Hyb, WidthRuleOnHandMadeHistogram) {
  // 12000 rows: 2000 of length 1, 2000 of 2, 3000 of 3, 1000 of 4, 3000 of 5, 1000 of 6.
  // Rows longer than k: k=0: 12000, 1: 10000, 2: 8000, 3: 5000, 4: 4000, 5: 1000.
  const std::vector<std::int64_t> hist{0, 2000, 2000, 3000, 1000, 3000, 1000};
  // relative_speed 3: column k+1 is kept while >= 4000 rows fill it; breakeven 4096 stops at
  // the 5th column (4000 rows).
  EXPECT_EQ(hyb_ell_width(hist, 12000, 3.0, 4096), 4);
  // Without the breakeven, the 5th column (4000 rows = exactly a third) is kept, not the 6th.
  EXPECT_EQ(hyb_ell_width(hist, 12000, 3.0, 0), 5);
  // ELL only twice as fast: a column must be half full (>= 6000 rows).
  EXPECT_EQ(hyb_ell_width(hist, 12000, 2.0, 0), 3);
  // ELL no faster: only columns every row fills.
  EXPECT_EQ(hyb_ell_width(hist, 12000, 1.0, 0), 1);
  // ELL very much faster: every column (the longest row).
  EXPECT_EQ(hyb_ell_width(hist, 12000, 1e9, 0), 6);
  // Fewer rows than the breakeven: no ELL part at all.
  EXPECT_EQ(hyb_ell_width({0, 100, 100}, 200, 3.0, 4096), 0);
  EXPECT_EQ(hyb_ell_width({}, 0, 3.0, 4096), 0);
  EXPECT_EQ(hyb_ell_width({50}, 50, 3.0, 0), 0);  // no entries

  // The builder uses the rule: 6000 rows of length 2, 3000 of 8 (a third): width 8 with
  // relative_speed 3 (3000*3 >= 9000), width 2 with relative_speed 2.
  const Csr<double> a =
      matrix_with_lengths(9000, 500, [](index_t r) { return r % 3 == 2 ? 8 : 2; });
  EXPECT_NE(build_operator<double>("hyb", a, Params::parse("breakeven_rows=0"), Backend::cpu)
                ->info()
                .details.find("ell_width=8,"),
            std::string::npos);
  EXPECT_NE(build_operator<double>("hyb", a, Params::parse("breakeven_rows=0,relative_speed=2"),
                                   Backend::cpu)
                ->info()
                .details.find("ell_width=2,"),
            std::string::npos);
}

TEST(Hyb, SplitsRowsAtTheWidth) {
  // row 0: cols 0 1 2 3 | row 1: col 4 | row 2: empty | row 3: cols 1 5 6
  const Csr<double> a =
      make_csr<double>(4, 8, {0, 4, 5, 5, 8}, {0, 1, 2, 3, 4, 1, 5, 6}, {1, 2, 3, 4, 5, 6, 7, 8});
  const HybData<double> h = hyb_pack(a, 2);
  EXPECT_EQ(h.ell.width, 2);
  EXPECT_EQ(h.ell.stored, 5);
  EXPECT_EQ(h.coo_row, (std::vector<index_t>{0, 0, 3}));
  EXPECT_EQ(h.coo_col, (std::vector<index_t>{2, 3, 6}));
  EXPECT_EQ(h.coo_values, (std::vector<double>{3, 4, 8}));
  const HybData<double> all_coo = hyb_pack(a, 0);
  EXPECT_EQ(all_coo.coo_nnz(), 8);
  EXPECT_EQ(all_coo.ell.width, 0);
  EXPECT_EQ(hyb_pack(a, 4).coo_nnz(), 0);

  const auto op = build_operator<double>("hyb", a, Params::parse("ell_width=2"), Backend::cpu);
  // Byte model: the ELL pass (sentinel: 2 slots of indices, values where stored) + 16 bytes
  // per COO entry.
  EXPECT_EQ(op->info().matrix_bytes,
            ell_pass_bytes(h.ell, ell_choose_skip(h.ell)) + 3 * (4 + 4 + 8));
}

TEST(Hyb, ParameterValidation) {
  const Csr<double> a = matrix_with_lengths(40, 40, [](index_t r) { return 1 + r % 5; });
  for (const char* bad : {"relative_speed=0", "relative_speed=-2", "relative_speed=nan",
                          "breakeven_rows=-1", "breakeven_rows=1.5", "ell_width=-1", "ell_width=6",
                          "skip=sometimes", "rows_per_thread=8", "index_bits=12"})
    testing::expect_bad_value("hyb", a, bad, Backend::cpu);
  EXPECT_NO_THROW(build_operator<double>("hyb", a, Params::parse("ell_width=5"), Backend::cpu));
}

TEST(Hyb, ExplicitWidthsMatchReference) {
  // Row lengths 0..40 and, every 500th row, a row of 3000 entries: COO segments span many
  // warp tiles, and many short segments share one.
  const Csr<double> a = matrix_with_lengths(
      5003, 6000, [](index_t r) { return r % 500 == 17 ? 3000 : (r * 13) % 41; });
  for (const char* p :
       {"ell_width=0", "ell_width=1", "ell_width=20,skip=sentinel", "ell_width=20,skip=row_length",
        "ell_width=40,rows_per_thread=1", "breakeven_rows=0", "ell_width=20,index_bits=32"})
    testing::expect_spmv_matches_everywhere("hyb", a, Params::parse(p));
}

}  // namespace
}  // namespace spmvkit
