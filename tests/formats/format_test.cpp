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

// Norm-wise bound that fits the precision: rounding grows like sqrt(row length).
template <class V>
double tolerance(const Csr<double>& a) {
  index_t longest = 0;
  for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
  return 64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(static_cast<double>(longest) + 1.0);
}

template <class V>
void check_format(const std::string& format, Backend backend, const std::string& matrix) {
  if (backend == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Csr<double>& a64 = testing::zoo_matrix(matrix);
  const Csr<V> a = a64.cast<V>();
  Csr<double> a_rounded = a.template cast<double>();  // the matrix exactly as V holds it

  std::unique_ptr<Operator<V>> op;
  try {
    op = build_operator<V>(format, a, {}, backend);
  } catch (const UnsupportedError& e) {
    GTEST_SKIP() << "format refuses this matrix: " << e.what();
  }
  ASSERT_EQ(op->rows(), a.rows);
  ASSERT_EQ(op->cols(), a.cols);
  ASSERT_EQ(op->info().nnz, a.nnz());

  std::mt19937_64 rng(testing::test_seed() ^ std::hash<std::string>{}(format + matrix));
  const double tol = tolerance<V>(a64);
  SCOPED_TRACE("seed " + std::to_string(testing::test_seed()) + ", tolerance " + std::to_string(tol));

  // Three forms: y = A*x (y poisoned: beta == 0 must not read it), z = alpha*A*x + beta*y into
  // a separate poisoned z, and y = alpha*A*x + beta*y in place.
  struct Form {
    const char* name;
    double alpha, beta;
    bool in_place;
  };
  for (const Form form : {Form{"y=A*x", 1.0, 0.0, false}, Form{"z=aAx+by", 1.5, -0.75, false},
                          Form{"y=aAx+by in place", -2.0, 0.5, true}}) {
    SCOPED_TRACE(form.name);
    // Fresh inputs, rounded to V so the reference sees exactly what the kernel sees.
    std::vector<V> xv, yv;
    for (double v : testing::random_vector(a.cols, rng)) xv.push_back(static_cast<V>(v));
    for (double v : testing::random_vector(a.rows, rng)) yv.push_back(static_cast<V>(v));
    const std::vector<double> x64(xv.begin(), xv.end()), y64(yv.begin(), yv.end());
    const auto ref = reference_spmv(a_rounded, x64, y64, form.alpha, form.beta);

    auto x = Vector<V>::from_host(xv, backend);
    auto y = Vector<V>::from_host(yv, backend);
    Vector<V> z(a.rows, backend);
    if (form.beta == 0.0) y.fill_nan();
    z.fill_nan();
    Vector<V>& out = form.in_place ? y : z;
    op->apply(x.data(), form.beta == 0.0 ? nullptr : y.data(), out.data(), static_cast<V>(form.alpha),
              static_cast<V>(form.beta));
    const std::vector<V> got_v = out.to_host();
    const std::vector<double> got(got_v.begin(), got_v.end());
    const double err = relative_error(got, ref);
    EXPECT_LE(err, tol) << format << " on " << matrix << " (" << a.rows << "x" << a.cols
                        << ", nnz " << a.nnz() << ")";
  }
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
  EXPECT_GT(relative_error(wrong, ref), tolerance<double>(a));
  wrong[17] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(relative_error(wrong, ref)));
}

}  // namespace
}  // namespace spmvkit
