// The convection-diffusion generator that gives BiCGSTAB its nonsymmetric test systems.
#include <gtest/gtest.h>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {
namespace {

TEST(ConvectionDiffusion, PecletZeroIsTheLaplacian) {
  const Csr<double> a = generate_by_name("convdiff2d_6_0"), s = generate_stencil_2d(6, 5);
  EXPECT_EQ(a.row_ptr, s.row_ptr);
  EXPECT_EQ(a.col_idx, s.col_idx);
  EXPECT_EQ(a.values, s.values);
  const Csr<double> a3 = generate_by_name("convdiff3d_4_0"), s3 = generate_stencil_3d(4, 7);
  EXPECT_EQ(a3.col_idx, s3.col_idx);
  EXPECT_EQ(a3.values, s3.values);
}

TEST(ConvectionDiffusion, UpwindValuesAndZeroRowSumsInside) {
  const index_t n = 5;
  const Csr<double> a = generate_by_name("convdiff2d_5");  // Peclet 1
  EXPECT_EQ(a.rows, n * n);
  EXPECT_EQ(a.nnz(), 5 * n * n - 4 * n);
  const index_t r = 2 * n + 2;  // an interior row
  double sum = 0;
  for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
    const index_t c = a.col_idx[k];
    const double v = a.values[k];
    sum += v;
    // Diagonal 2d (1 + pe); upwind neighbours -1 - 2 pe; downwind -1.
    if (c == r) {
      EXPECT_DOUBLE_EQ(v, 8.0);
    }
    if (c == r - 1 || c == r - n) {
      EXPECT_DOUBLE_EQ(v, -3.0);
    }
    if (c == r + 1 || c == r + n) {
      EXPECT_DOUBLE_EQ(v, -1.0);
    }
  }
  EXPECT_DOUBLE_EQ(sum, 0.0);
  const Csr<double> b = generate_convdiff_3d(4, 0.5);
  EXPECT_EQ(b.rows, 64);
  EXPECT_EQ(b.nnz(), 7 * 64 - 6 * 16);
}

TEST(ConvectionDiffusion, BadParametersAreInputErrors) {
  EXPECT_THROW(generate_by_name("convdiff2d_0"), InputError);
  EXPECT_THROW(generate_by_name("convdiff2d_8_-1"), InputError);
  EXPECT_THROW(generate_by_name("convdiff3d_8_x"), InputError);
  EXPECT_THROW(generate_by_name("convdiff2d_8_1_2"), InputError);
  EXPECT_TRUE(is_generator_name("convdiff3d_10_0.5"));
}

}  // namespace
}  // namespace spmvkit
