// The reference solvers' BLAS-1 calls: cuBLAS on the context stream, host pointer mode (each
// dot and nrm2 returns its scalar to the host, as in the paper's figure 1).
#include <climits>

#include "backend/cuda/cublas_api.hpp"
#include "backend/cuda/cuda.hpp"
#include "ops/blas.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::ops::cuda_blas {
namespace {

int len(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw InputError("vector too long for cuBLAS");
  return static_cast<int>(n);
}
cublasHandle_t handle() {
  cublasHandle_t h = cuda::Context::get().cublas();
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().set_pointer_mode(h, CUBLAS_POINTER_MODE_HOST));
  return h;
}

}  // namespace

template <>
double dot<double>(std::size_t n, const double* x, const double* y) {
  double r = 0;
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().ddot(handle(), len(n), x, 1, y, 1, &r));
  return r;
}
template <>
float dot<float>(std::size_t n, const float* x, const float* y) {
  float r = 0;
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().sdot(handle(), len(n), x, 1, y, 1, &r));
  return r;
}
template <>
double nrm2<double>(std::size_t n, const double* x) {
  double r = 0;
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().dnrm2(handle(), len(n), x, 1, &r));
  return r;
}
template <>
float nrm2<float>(std::size_t n, const float* x) {
  float r = 0;
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().snrm2(handle(), len(n), x, 1, &r));
  return r;
}
template <>
void axpy<double>(std::size_t n, double a, const double* x, double* y) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().daxpy(handle(), len(n), &a, x, 1, y, 1));
}
template <>
void axpy<float>(std::size_t n, float a, const float* x, float* y) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().saxpy(handle(), len(n), &a, x, 1, y, 1));
}
template <>
void scal<double>(std::size_t n, double a, double* x) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().dscal(handle(), len(n), &a, x, 1));
}
template <>
void scal<float>(std::size_t n, float a, float* x) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().sscal(handle(), len(n), &a, x, 1));
}
template <>
void copy<double>(std::size_t n, const double* x, double* y) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().dcopy(handle(), len(n), x, 1, y, 1));
}
template <>
void copy<float>(std::size_t n, const float* x, float* y) {
  SPMVKIT_CUBLAS_CHECK(cuda::cublas_api().scopy(handle(), len(n), x, 1, y, 1));
}

namespace {
template <class V>
__global__ void shadow_kernel(std::size_t n, const V* __restrict__ r, V* __restrict__ r0,
                              std::int64_t first, unsigned seed) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n)
    r0[i] = static_cast<V>(shadow_weight(static_cast<std::uint64_t>(first) + i, seed) * r[i]);
}
}  // namespace

template <class V>
void shadow_residual(std::size_t n, const V* r, V* r0, std::int64_t first, unsigned seed) {
  if (n == 0) return;
  shadow_kernel<<<cuda::grid_for(n, 256), 256, 0, cuda::Context::get().stream()>>>(n, r, r0,
                                                                                   first, seed);
  SPMVKIT_LAUNCH_CHECK();
}
template void shadow_residual<float>(std::size_t, const float*, float*, std::int64_t, unsigned);
template void shadow_residual<double>(std::size_t, const double*, double*, std::int64_t,
                                      unsigned);

}  // namespace spmvkit::ops::cuda_blas
