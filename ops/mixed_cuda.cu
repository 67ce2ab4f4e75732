// ops/mixed.hpp on CUDA: one thread per element, on the context stream.
#include "backend/cuda/cuda.hpp"
#include "ops/mixed.hpp"

namespace spmvkit::ops::cuda_mixed {
namespace {

constexpr int kThreads = 256;

__global__ void round_scaled_kernel(std::size_t n, double scale, const double* __restrict__ x,
                                    float* __restrict__ y) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) y[i] = static_cast<float>(scale * x[i]);
}

__global__ void add_widened_kernel(std::size_t n, double scale, const float* __restrict__ d,
                                   double* __restrict__ x) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) x[i] += scale * static_cast<double>(d[i]);
}

}  // namespace

void round_scaled(std::size_t n, double scale, const double* x, float* y) {
  if (n == 0) return;
  round_scaled_kernel<<<cuda::grid_for(n, kThreads), kThreads, 0, cuda::Context::get().stream()>>>(
      n, scale, x, y);
  SPMVKIT_LAUNCH_CHECK();
}

void add_widened(std::size_t n, double scale, const float* d, double* x) {
  if (n == 0) return;
  add_widened_kernel<<<cuda::grid_for(n, kThreads), kThreads, 0, cuda::Context::get().stream()>>>(
      n, scale, d, x);
  SPMVKIT_LAUNCH_CHECK();
}

}  // namespace spmvkit::ops::cuda_mixed
