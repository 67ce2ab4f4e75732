// Inversion of one small dense block by LU with partial pivoting, as one plain function
// shared by the CPU setup of block-Jacobi and its batched CUDA kernel (one thread per block),
// so both report the same pivot for the same block.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define SPMVKIT_LU_HD __host__ __device__ inline
#else
#define SPMVKIT_LU_HD inline
#endif

namespace spmvkit::precond_detail {

#if !defined(__CUDA_ARCH__)
using std::fabs;
using std::fmax;
using std::isfinite;
#endif

constexpr int kMaxBlock = 64;

// Where the inversion of a block failed: the elimination step and its pivot.
struct LuFailure {
  int step = -1;  // -1: success
  double pivot = 0;
  double scale = 0;  // max |entry| of the block
};

// a: the m x m block, row-major with leading dimension m (overwritten by its LU factors);
// inv: m x m, row-major, receives a^-1. `eps` is the precision's unit roundoff: a pivot with
// |pivot| <= m * eps * max |a| (or a non-finite one) stops the inversion (a near-singular
// block), and `inv` is left unspecified.
SPMVKIT_LU_HD LuFailure lu_invert(double* a, double* inv, int m, double eps) {
  LuFailure f;
  int perm[kMaxBlock];
  double scale = 0;
  for (int i = 0; i < m * m; ++i) scale = fmax(scale, fabs(a[i]));
  f.scale = scale;
  const double tiny = m * eps * scale;
  for (int i = 0; i < m; ++i) perm[i] = i;
  for (int k = 0; k < m; ++k) {
    int p = k;
    for (int i = k + 1; i < m; ++i)
      if (fabs(a[i * m + k]) > fabs(a[p * m + k])) p = i;
    const double piv = a[p * m + k];
    if (!(fabs(piv) > tiny) || !isfinite(piv)) {
      f.step = k;
      f.pivot = piv;
      return f;
    }
    if (p != k) {
      for (int j = 0; j < m; ++j) {
        const double t = a[k * m + j];
        a[k * m + j] = a[p * m + j];
        a[p * m + j] = t;
      }
      const int t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    for (int i = k + 1; i < m; ++i) {
      const double l = a[i * m + k] / piv;
      a[i * m + k] = l;
      for (int j = k + 1; j < m; ++j) a[i * m + j] -= l * a[k * m + j];
    }
  }
  // Column c of the inverse: L U z = P e_c, i.e. (P e_c)_i = 1 where perm[i] == c.
  for (int c = 0; c < m; ++c) {
    double z[kMaxBlock];
    for (int i = 0; i < m; ++i) {
      double s = perm[i] == c ? 1.0 : 0.0;
      for (int j = 0; j < i; ++j) s -= a[i * m + j] * z[j];
      z[i] = s;
    }
    for (int i = m - 1; i >= 0; --i) {
      double s = z[i];
      for (int j = i + 1; j < m; ++j) s -= a[i * m + j] * z[j];
      z[i] = s / a[i * m + i];
    }
    for (int i = 0; i < m; ++i) inv[i * m + c] = z[i];
  }
  return f;
}

}  // namespace spmvkit::precond_detail
