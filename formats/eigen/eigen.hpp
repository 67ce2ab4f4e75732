// Eigen's sparse matrix-vector product wrapped as a registry format: the CPU backend's peer,
// measured in the same run as our OpenMP kernels, as cuSPARSE is on the GPU. Registered only
// when the build found Eigen 3 (Debian's libeigen3-dev); Eigen runs the row-major product
// with OpenMP threads when compiled with OpenMP, as spmvkit is.
#pragma once

#include "spmvkit/format_entry.hpp"

namespace spmvkit {

#if SPMVKIT_HAVE_EIGEN
FormatEntry eigen_csr_format();
#endif

}  // namespace spmvkit
