// ONE parameterised suite over registry x backend x precision x matrix zoo. A format is tested
// by being registered; CUDA cases skip (visibly) where there is no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "spmvkit/error.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {

// Readable test parameters in gtest output.
inline void PrintTo(Backend b, std::ostream* os) { *os << to_string(b); }

namespace {

using Case = std::tuple<std::string, Backend, bool /*double*/, std::string>;

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& f : formats())
    for (Backend b : {Backend::cpu, Backend::cuda})
      if (f.supports(b))
        for (bool dbl : {false, true})
          for (const auto& m : testing::zoo_names()) cases.emplace_back(f.name, b, dbl, m);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [format, backend, dbl, matrix] = info.param;
  return format + "_" + std::string(to_string(backend)) + (dbl ? "_f64_" : "_f32_") + matrix;
}

template <class V>
void check_format(const std::string& format, Backend backend, const std::string& matrix) {
  if (backend == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Csr<double>& a64 = testing::zoo_matrix(matrix);
  const Csr<V> a = a64.cast<V>();

  std::unique_ptr<Operator<V>> op;
  try {
    op = build_operator<V>(format, a, {}, backend);
  } catch (const UnsupportedError& e) {
    GTEST_SKIP() << "format refuses this matrix: " << e.what();
  }
  ASSERT_EQ(op->rows(), a.rows);
  ASSERT_EQ(op->cols(), a.cols);
  ASSERT_EQ(op->info().nnz, a.nnz());

  testing::expect_operator_matches(*op, a, backend,
                                   testing::test_seed() ^ std::hash<std::string>{}(format + matrix));
}

class FormatTest : public ::testing::TestWithParam<Case> {};

TEST_P(FormatTest, MatchesFloat64Reference) {
  const auto& [format, backend, dbl, matrix] = GetParam();
  if (dbl)
    check_format<double>(format, backend, matrix);
  else
    check_format<float>(format, backend, matrix);
}

INSTANTIATE_TEST_SUITE_P(Registry, FormatTest, ::testing::ValuesIn(all_cases()), case_name);

// Guards against a test that cannot fail: a deliberately wrong result must be caught.
TEST(FormatTestSelfCheck, WrongResultIsDetected) {
  const Csr<double>& a = testing::zoo_matrix("random_2000");
  std::mt19937_64 rng(testing::test_seed());
  const auto x = testing::random_vector(a.cols, rng);
  auto ref = reference_spmv(a, x, {}, 1.0, 0.0);
  auto wrong = ref;
  wrong[17] += 1e-3 * std::abs(wrong[17]) + 1e-3;
  EXPECT_GT(relative_error(wrong, ref), testing::spmv_tolerance<double>(a));
  wrong[17] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(relative_error(wrong, ref)));
}

}  // namespace
}  // namespace spmvkit
