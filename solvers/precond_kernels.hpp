// The preconditioners' kernels on each backend (solvers/preconditioners.cpp holds the setup).
// z = alpha M x + beta y; y may alias z; when beta == 0, y is not read.
#pragma once

#include <cstddef>

namespace spmvkit::precond_detail {

template <class V>
void jacobi_apply_cpu(std::size_t n, const V* dinv, const V* x, const V* y, V* z, V alpha, V beta);
// inv: the interleaved inverses of BlockJacobiPreconditioner::inverse_blocks (stride
// ceil(n / bs) * bs).
template <class V>
void block_apply_cpu(std::size_t n, int bs, const V* inv, const V* x, const V* y, V* z, V alpha,
                     V beta);
#if SPMVKIT_HAVE_CUDA
template <class V>
void jacobi_apply_cuda(std::size_t n, const V* dinv, const V* x, const V* y, V* z, V alpha, V beta);
template <class V>
void block_apply_cuda(std::size_t n, int bs, const V* inv, const V* x, const V* y, V* z, V alpha,
                      V beta);
// Inverts `count` blocks (device memory, double, bs x bs row-major; overwritten) into inv,
// interleaved (stride count * bs); returns the lowest index of a block that failed
// (lu_invert), or -1.
template <class V>
long long block_invert_cuda(std::size_t count, int bs, double* blocks, V* inv, double eps);
#endif

}  // namespace spmvkit::precond_detail
