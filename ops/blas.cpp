#include "ops/blas.hpp"

#include <cmath>
#include <cstring>

#include "spmvkit/error.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif

namespace spmvkit::ops {
namespace {

[[noreturn]] void no_cuda() { throw UnsupportedError("this build of spmvkit has no CUDA backend"); }

using ssize = std::ptrdiff_t;
// Below this length a loop runs on one thread: a parallel region costs more than it saves.
constexpr std::size_t kParallelMin = 16384;

}  // namespace

// CPU sums accumulate in double for both value types (float solves then agree with float64
// references to float precision); OpenMP's static schedule keeps the order fixed per thread
// count, so runs repeat bit for bit.
template <class V>
V dot(Backend b, std::size_t n, const V* x, const V* y) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::dot(n, x, y);
#else
    no_cuda();
#endif
  }
  double s = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : s)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) s += static_cast<double>(x[i]) * y[i];
  return static_cast<V>(s);
}

template <class V>
V nrm2(Backend b, std::size_t n, const V* x) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::nrm2(n, x);
#else
    no_cuda();
#endif
  }
  double s = 0;
#pragma omp parallel for schedule(static) if (n > kParallelMin) reduction(+ : s)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) s += static_cast<double>(x[i]) * x[i];
  return static_cast<V>(std::sqrt(s));
}

template <class V>
void axpy(Backend b, std::size_t n, V alpha, const V* x, V* y) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::axpy(n, alpha, x, y);
#else
    no_cuda();
#endif
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) y[i] += alpha * x[i];
}

template <class V>
void scal(Backend b, std::size_t n, V alpha, V* x) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::scal(n, alpha, x);
#else
    no_cuda();
#endif
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) x[i] *= alpha;
}

template <class V>
void copy(Backend b, std::size_t n, const V* x, V* y) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::copy(n, x, y);
#else
    no_cuda();
#endif
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) y[i] = x[i];
}

template <class V>
void fill_zero(Backend b, std::size_t n, V* x) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    if (n > 0) cuda::fill_bytes(x, 0, n * sizeof(V));
    return;
#else
    no_cuda();
#endif
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i) x[i] = V(0);
}

template <class V>
void shadow_residual(Backend b, std::size_t n, const V* r, V* r0, std::int64_t first,
                     unsigned seed) {
  if (b == Backend::cuda) {
#if SPMVKIT_HAVE_CUDA
    return cuda_blas::shadow_residual(n, r, r0, first, seed);
#else
    no_cuda();
#endif
  }
#pragma omp parallel for schedule(static) if (n > kParallelMin)
  for (ssize i = 0; i < static_cast<ssize>(n); ++i)
    r0[i] = static_cast<V>(shadow_weight(static_cast<std::uint64_t>(first + i), seed) * r[i]);
}

#define SPMVKIT_INSTANTIATE(V)                                  \
  template V dot<V>(Backend, std::size_t, const V*, const V*);  \
  template V nrm2<V>(Backend, std::size_t, const V*);           \
  template void axpy<V>(Backend, std::size_t, V, const V*, V*); \
  template void scal<V>(Backend, std::size_t, V, V*);           \
  template void copy<V>(Backend, std::size_t, const V*, V*);    \
  template void fill_zero<V>(Backend, std::size_t, V*);         \
  template void shadow_residual<V>(Backend, std::size_t, const V*, V*, std::int64_t, unsigned);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::ops
