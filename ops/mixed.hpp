// The precision crossings of mixed-precision iterative refinement (solvers/refine.cpp), on
// either backend: the double residual scaled and rounded to float for the inner solve, and
// the float correction added back to the double solution.
#pragma once

#include <cstddef>

#include "spmvkit/backend.hpp"

namespace spmvkit::ops {

void round_scaled(Backend b, std::size_t n, double scale, const double* x,
                  float* y);  // y = scale x
void add_widened(Backend b, std::size_t n, double scale, const float* d,
                 double* x);  // x += scale d

#if SPMVKIT_HAVE_CUDA
namespace cuda_mixed {
void round_scaled(std::size_t n, double scale, const double* x, float* y);
void add_widened(std::size_t n, double scale, const float* d, double* x);
}  // namespace cuda_mixed
#endif

}  // namespace spmvkit::ops
