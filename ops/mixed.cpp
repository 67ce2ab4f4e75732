#include "ops/mixed.hpp"

#include <cstddef>

namespace spmvkit::ops {

void round_scaled(Backend b, std::size_t n, double scale, const double* x, float* y) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return cuda_mixed::round_scaled(n, scale, x, y);
#endif
  (void)b;
#pragma omp parallel for schedule(static) if (n > 16384)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i)
    y[i] = static_cast<float>(scale * x[i]);
}

void add_widened(Backend b, std::size_t n, double scale, const float* d, double* x) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return cuda_mixed::add_widened(n, scale, d, x);
#endif
  (void)b;
#pragma omp parallel for schedule(static) if (n > 16384)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i)
    x[i] += scale * static_cast<double>(d[i]);
}

}  // namespace spmvkit::ops
