// HEC-specific tests: the eq. (1) width minimiser on hand-made cases (p_r extremes included)
// and against brute force, diagonal positions, where p_r comes from (param, calibration store,
// paper default), the CSR-kernel rule, parameter validation, both CSR kernels against the
// reference, and (with a GPU) the p_r calibration.
#include "formats/hec/hec.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "spmvkit/tuning.hpp"
#include "tests/common/tuning_file.hpp"
#include "tests/formats/spmv_check.hpp"

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

// w(l) = l*n + p_r*nz(l) evaluated directly from the row lengths.
double w_of(const std::vector<index_t>& lengths, index_t l, double p_r) {
  std::int64_t nz = 0;
  for (index_t len : lengths) nz += std::max<index_t>(0, len - l);
  return static_cast<double>(l) * lengths.size() + p_r * static_cast<double>(nz);
}

TEST(Hec, WidthMinimisesEquationOne) {
  // n = 10: eight rows of 1 entry, one of 5, one of 10. nz(l) = 23, 13, 11, 9, 7, 5, 4, 3, 2,
  // 1, 0 for l = 0..10.
  const std::vector<index_t> lengths{1, 1, 1, 1, 1, 1, 1, 1, 5, 10};
  const std::vector<std::int64_t> hist = length_histogram(lengths);
  // p_r = 8: w = 184, 114, 108, 102, 96, 90, 92, 94, ... -> l = 5.
  EXPECT_EQ(hec_ell_width(hist, 10, 8.0), 5);
  // p_r = 5: w = 115, 75, 75, 75, 75, 75, 80, ... -> ties: the smallest l, 1.
  EXPECT_EQ(hec_ell_width(hist, 10, 5.0), 1);
  // p_r = 20 (the paper's): a CSR entry costs more than a whole ELL column here: l = 10.
  EXPECT_EQ(hec_ell_width(hist, 10, 20.0), 10);
  // Extremes: CSR entries nearly free -> all CSR; CSR entries hugely expensive -> all ELL.
  EXPECT_EQ(hec_ell_width(hist, 10, 1e-3), 0);
  EXPECT_EQ(hec_ell_width(hist, 10, 1e9), 10);
  // p_r = 1: an ELL column costs n, so it never beats the entries it takes (tie -> l = 0).
  EXPECT_EQ(hec_ell_width(length_histogram(std::vector<index_t>(10, 3)), 10, 1.0), 0);
  EXPECT_EQ(hec_ell_width({}, 0, 20.0), 0);
  EXPECT_EQ(hec_ell_width({7}, 7, 20.0), 0);  // no entries

  // Random length distributions against brute force over every l.
  std::mt19937_64 rng(testing::test_seed());
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<index_t> len(1 + rng() % 300);
    for (auto& l : len) l = static_cast<index_t>(rng() % 4 == 0 ? rng() % 200 : rng() % 12);
    const double p_r = std::exp(std::uniform_real_distribution<double>(-3.0, 5.0)(rng));
    const index_t got = hec_ell_width(length_histogram(len), static_cast<index_t>(len.size()), p_r);
    const index_t longest = *std::max_element(len.begin(), len.end());
    index_t best = 0;
    for (index_t l = 1; l <= longest; ++l)
      if (w_of(len, l, p_r) < w_of(len, best, p_r)) best = l;
    ASSERT_EQ(got, best) << "trial " << trial << " p_r " << p_r;
  }
}

TEST(Hec, DiagonalPositions) {
  // l = 2.  row 0: cols 0 3 (diagonal in ELL slot 0)   row 1: cols 0 2 3 (no diagonal)
  //         row 2: cols 0 1 2 4 (diagonal rank 2: CSR part, entry 0 of the row)
  //         row 3: col 3 (ELL slot 0)                  row 4: cols 0 1 2 3 4 (rank 4: CSR 2)
  const Csr<double> a =
      make_csr<double>(5, 5, {0, 2, 5, 9, 10, 15}, {0, 3, 0, 2, 3, 0, 1, 2, 4, 3, 0, 1, 2, 3, 4},
                       {10, 1, 2, 3, 4, 5, 6, 20, 7, 30, 8, 9, 11, 12, 40});
  const HecData<double> h = hec_pack(a, 2);
  EXPECT_EQ(h.diag_pos, (std::vector<index_t>{0, -1, 2, 0, 4}));
  EXPECT_EQ(h.csr_row_ptr, (std::vector<index_t>{0, 0, 1, 3, 3, 6}));
  const double expected[] = {10, 0, 20, 30, 40};
  for (index_t i = 0; i < 5; ++i) {
    const HecLocation d = h.diagonal(i);
    if (i == 1) {
      EXPECT_EQ(d.part, HecPart::none);
      continue;
    }
    const bool in_ell = d.part == HecPart::ell;
    EXPECT_EQ(in_ell, i == 0 || i == 3) << "row " << i;
    EXPECT_EQ(in_ell ? h.ell.col_idx[d.index] : h.csr_col_idx[d.index], i);
    EXPECT_EQ(in_ell ? h.ell.values[d.index] : h.csr_values[d.index], expected[i]);
  }
  // Entries before the diagonal are the strictly lower part, in either part.
  const HecLocation before = h.locate(4, 3);
  ASSERT_EQ(before.part, HecPart::csr);
  EXPECT_EQ(h.csr_col_idx[before.index], 3);

  // Any l on a larger matrix: every located diagonal is entry (i, i).
  Csr<double> b = matrix_with_lengths(
      300, 300, [](index_t r) { return r % 17; }, 5);
  for (index_t l : {0, 3, 16}) {
    const HecData<double> g = hec_pack(b, l);
    for (index_t i = 0; i < b.rows; ++i) {
      bool has = false;
      for (index_t k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k) has = has || b.col_idx[k] == i;
      const HecLocation d = g.diagonal(i);
      ASSERT_EQ(d.part != HecPart::none, has) << "row " << i;
      if (has) {
        ASSERT_EQ(d.part == HecPart::ell ? g.ell.col_idx[d.index] : g.csr_col_idx[d.index], i);
      }
    }
  }
}

using testing::ScopedTuningFile;

std::string hec_details(const Csr<double>& a, const std::string& params, Backend b = Backend::cpu) {
  return build_operator<double>("hec", a, Params::parse(params), b)->info().details;
}

TEST(Hec, PrComesFromParamThenCalibrationThenPaper) {
  ScopedTuningFile store;
  const Csr<double> a = matrix_with_lengths(500, 500, [](index_t r) { return 3 + r % 9; });
  EXPECT_NE(hec_details(a, "").find("p_r=20(paper default)"), std::string::npos);
  const std::string cpu = device_name(Backend::cpu);
  tuning_put(cpu, "hec.p_r.f64", "7.5");
  EXPECT_NE(hec_details(a, "").find("p_r=7.5(calibrated)"), std::string::npos);
  // Float reads its own key.
  EXPECT_NE(build_operator<float>("hec", a.cast<float>(), {}, Backend::cpu)
                ->info()
                .details.find("p_r=20(paper default)"),
            std::string::npos);
  EXPECT_NE(hec_details(a, "p_r=3").find("p_r=3(param)"), std::string::npos);
  // The balanced kernel reads its own calibration.
  tuning_put(cpu, "hec.p_r_balanced.f64", "1.25");
  EXPECT_NE(hec_details(a, "csr_kernel=balanced").find("p_r=1.25(calibrated)"), std::string::npos);
  // A malformed record is ignored.
  tuning_put(cpu, "hec.p_r.f64", "fast");
  EXPECT_NE(hec_details(a, "").find("p_r=20(paper default)"), std::string::npos);
  EXPECT_EQ(hec_p_r_key(HecCsrKernel::scalar, false), "hec.p_r.f32");
  EXPECT_EQ(hec_p_r_key(HecCsrKernel::balanced, true), "hec.p_r_balanced.f64");
}

TEST(Hec, CsrKernelRule) {
  ScopedTuningFile store;  // no calibration: p_r = 20
  // Regular rows: the CSR part is short, the paper's scalar kernel.
  const Csr<double> regular = matrix_with_lengths(400, 400, [](index_t r) { return 2 + r % 5; });
  EXPECT_NE(hec_details(regular, "").find("csr_kernel=scalar(auto)"), std::string::npos);
  // One row of 300 entries: its CSR part is far too long for one thread.
  const Csr<double> skewed =
      matrix_with_lengths(400, 400, [](index_t r) { return r == 9 ? 300 : 2 + r % 5; });
  const std::string d = hec_details(skewed, "");
  EXPECT_NE(d.find("csr_kernel=balanced(auto)"), std::string::npos) << d;
  EXPECT_NE(hec_details(skewed, "csr_kernel=scalar").find("csr_kernel=scalar,"), std::string::npos);
  EXPECT_NE(hec_details(skewed, "ell_width=0").find("ell_width=0(param)"), std::string::npos);
}

TEST(Hec, ParameterValidation) {
  const Csr<double> a = matrix_with_lengths(40, 40, [](index_t r) { return 1 + r % 5; });
  for (const char* bad :
       {"p_r=0", "p_r=-4", "p_r=nan", "p_r=x", "csr_kernel=vector", "ell_width=-1", "ell_width=6",
        "skip=never", "rows_per_thread=0", "index_bits=15"})
    testing::expect_bad_value("hec", a, bad, Backend::cpu);
}

TEST(Hec, BothCsrKernelsMatchReference) {
  // Lengths 0..30 plus a row of 4000 every 700 rows: the balanced kernel's tiles cut through
  // long rows and hold many short ones; the scalar kernel gets a long serial row.
  const Csr<double> a = matrix_with_lengths(
      3001, 5000, [](index_t r) { return r % 700 == 3 ? 4000 : (r * 11) % 31; });
  for (const char* p :
       {"csr_kernel=scalar", "csr_kernel=balanced", "csr_kernel=scalar,ell_width=0",
        "csr_kernel=balanced,ell_width=0", "csr_kernel=balanced,ell_width=12,skip=sentinel",
        "csr_kernel=scalar,ell_width=12,skip=row_length,rows_per_thread=1", "p_r=1e6",
        "csr_kernel=balanced,ell_width=12,index_bits=32"})
    testing::expect_spmv_matches_everywhere("hec", a, Params::parse(p));
}

TEST(Hec, CalibrationStoresPr) {
  ScopedTuningFile store;
  if (!cuda_available()) {
    EXPECT_THROW(calibrate_hec_pr(), UnsupportedError);
    GTEST_SKIP() << "no CUDA device";
  }
  const double p_r = calibrate_hec_pr();
  EXPECT_GT(p_r, 0.0);
  EXPECT_TRUE(std::isfinite(p_r));
  const std::string gpu = device_name(Backend::cuda);
  for (HecCsrKernel k : {HecCsrKernel::scalar, HecCsrKernel::balanced})
    for (bool dbl : {false, true}) {
      const auto v = tuning_get(gpu, hec_p_r_key(k, dbl));
      ASSERT_TRUE(v.has_value()) << hec_p_r_key(k, dbl);
      EXPECT_GT(std::stod(*v), 0.0);
    }
  const Csr<double> a = matrix_with_lengths(500, 500, [](index_t r) { return 3 + r % 9; });
  EXPECT_NE(hec_details(a, "", Backend::cuda).find("(calibrated)"), std::string::npos);
  std::cout << "[ calibrated ] " << gpu << ": p_r scalar f64 " << p_r << ", balanced f64 "
            << *tuning_get(gpu, hec_p_r_key(HecCsrKernel::balanced, true)) << ", scalar f32 "
            << *tuning_get(gpu, hec_p_r_key(HecCsrKernel::scalar, false)) << ", balanced f32 "
            << *tuning_get(gpu, hec_p_r_key(HecCsrKernel::balanced, false)) << "\n";
}

}  // namespace
}  // namespace spmvkit
