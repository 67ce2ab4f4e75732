// The one check of an operator against the float64 reference, used by every format test.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit::testing {

// Norm-wise bound that fits precision V: rounding grows like sqrt(row length).
template <class V, class W>
double spmv_tolerance(const Csr<W>& a) {
  index_t longest = 0;
  for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
  return 64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(static_cast<double>(longest) + 1.0);
}

// Three forms with fresh random inputs (rounded to V, so the reference sees what the kernel
// sees): y = A*x with y poisoned (beta == 0 must not read it), z = alpha*A*x + beta*y into a
// poisoned z, and y = alpha*A*x + beta*y in place; each compared by relative norm. With
// x_offset > 0, x starts that many elements into its allocation (not aligned to 16 bytes for
// an odd offset in double), for kernels that take vector loads of x where it is aligned.
template <class V>
void expect_operator_matches(const Operator<V>& op, const Csr<V>& a, Backend backend,
                             std::uint64_t seed, std::size_t x_offset = 0) {
  const Csr<double> a_rounded = a.template cast<double>();
  const double tol = spmv_tolerance<V>(a_rounded);
  Csr<double> a_abs = a_rounded;
  for (double& v : a_abs.values) v = std::abs(v);
  std::mt19937_64 rng(seed);
  struct Form {
    const char* name;
    double alpha, beta;
    bool in_place;
  };
  for (const Form form : {Form{"y=A*x", 1.0, 0.0, false}, Form{"z=aAx+by", 1.5, -0.75, false},
                          Form{"y=aAx+by in place", -2.0, 0.5, true}}) {
    SCOPED_TRACE(form.name);
    std::vector<V> xv, yv;
    for (double v : random_vector(a.cols, rng)) xv.push_back(static_cast<V>(v));
    for (double v : random_vector(a.rows, rng)) yv.push_back(static_cast<V>(v));
    const std::vector<double> x64(xv.begin(), xv.end()), y64(yv.begin(), yv.end());
    const auto ref = reference_spmv(a_rounded, x64, y64, form.alpha, form.beta);
    // Rounding is relative to the terms, not to their sum: where the sums cancel (one long
    // row of random signs) the bound grows by || |alpha| |A| |x| + |beta| |y| || / || ref ||.
    std::vector<double> x_abs(x64), y_abs(y64);
    for (double& v : x_abs) v = std::abs(v);
    for (double& v : y_abs) v = std::abs(v);
    const auto terms =
        reference_spmv(a_abs, x_abs, y_abs, std::abs(form.alpha), std::abs(form.beta));
    const std::vector<double> zero(ref.size(), 0.0);
    const double ref_norm = relative_error(ref, zero), terms_norm = relative_error(terms, zero);
    const double bound = ref_norm > 0 ? tol * std::max(1.0, terms_norm / ref_norm) : tol;
    std::vector<V> x_stored(x_offset, V(0));
    x_stored.insert(x_stored.end(), xv.begin(), xv.end());
    auto x = Vector<V>::from_host(x_stored, backend);
    auto y = Vector<V>::from_host(yv, backend);
    Vector<V> z(a.rows, backend);
    if (form.beta == 0.0) y.fill_nan();
    z.fill_nan();
    Vector<V>& out = form.in_place ? y : z;
    op.apply(x.data() + x_offset, form.beta == 0.0 ? nullptr : y.data(), out.data(),
             static_cast<V>(form.alpha), static_cast<V>(form.beta));
    const std::vector<V> got_v = out.to_host();
    const std::vector<double> got(got_v.begin(), got_v.end());
    EXPECT_LE(relative_error(got, ref), bound)
        << op.info().format << " [" << op.info().details << "] on " << to_string(backend) << " ("
        << a.rows << "x" << a.cols << ", nnz " << a.nnz() << "), seed " << test_seed()
        << ", tolerance " << bound << " (" << tol << " before cancellation)";
  }
}

// Two operators of one matrix (built two ways: on the host and on the device) give the same
// products, bit for bit: z = 1.5 A x - 0.5 y, random x and y, z poisoned first, on `backend`.
template <class V>
void expect_same_products_bitwise(const Operator<V>& first, const Operator<V>& second,
                                  Backend backend, std::uint64_t seed) {
  ASSERT_EQ(first.rows(), second.rows());
  ASSERT_EQ(first.cols(), second.cols());
  std::mt19937_64 rng(seed);
  std::vector<V> xh, yh;
  for (double v : random_vector(first.cols(), rng)) xh.push_back(static_cast<V>(v));
  for (double v : random_vector(first.rows(), rng)) yh.push_back(static_cast<V>(v));
  const auto x = Vector<V>::from_host(xh, backend);
  const auto y = Vector<V>::from_host(yh, backend);
  Vector<V> z1(first.rows(), backend), z2(first.rows(), backend);
  z1.fill_nan();
  z2.fill_nan();
  first.apply(x.data(), y.data(), z1.data(), V(1.5), V(-0.5));
  second.apply(x.data(), y.data(), z2.data(), V(1.5), V(-0.5));
  const std::vector<V> h1 = z1.to_host(), h2 = z2.to_host();
  ASSERT_EQ(h1.size(), h2.size());
  EXPECT_TRUE(h1.empty() || std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(V)) == 0)
      << "products differ";
}

}  // namespace spmvkit::testing
