// The preconditioners' CUDA kernels: Jacobi and block-Jacobi application (one thread per
// row), and the batched inversion of the diagonal blocks at setup (one thread per block, LU
// with partial pivoting: solvers/block_lu.hpp, the same code as the CPU setup). The merged
// solvers do not call these in their loop: they fuse both (ops/krylov_cuda.cuh).
#include <climits>

#include "backend/cuda/cuda.hpp"
#include "solvers/block_lu.hpp"
#include "solvers/precond_kernels.hpp"

namespace spmvkit::precond_detail {
namespace {

constexpr int kThreads = 256;

template <class V>
__global__ void __launch_bounds__(kThreads)
    jacobi_apply_kernel(std::size_t n, const V* __restrict__ dinv, const V* __restrict__ x,
                        const V* y, V* z, V alpha, V beta) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const V mx = alpha * dinv[i] * x[i];
  z[i] = beta == V(0) ? mx : mx + beta * y[i];
}

// Thread i: row i of its block's inverse times the block's piece of x. The inverse is
// interleaved (inv[j * stride + i]): for each j a warp reads 32 consecutive words. Bytes per
// row: bs words of inverse, x (bs words per block, from L1 after the block's first row), one
// word of z (and of y when beta != 0).
template <class V>
__global__ void __launch_bounds__(kThreads)
    block_apply_kernel(std::size_t n, int bs, std::size_t stride, const V* __restrict__ inv,
                       const V* __restrict__ x, const V* y, V* z, V alpha, V beta) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::size_t b = static_cast<std::size_t>(bs), first = i / b * b;
  const std::size_t m = n - first < b ? n - first : b;
  V s = 0;
  for (std::size_t j = 0; j < m; ++j) s += __ldg(inv + j * stride + i) * __ldg(x + first + j);
  z[i] = beta == V(0) ? alpha * s : alpha * s + beta * y[i];
}

// Thread k inverts block k, rounds it to V and writes it interleaved (inv[j * stride + k bs
// + q] = (B_k^-1)(q, j)). Blocks up to kSmallBlock: the block and its inverse in the
// thread's local arrays (the compiler interleaves local memory across threads: coalesced and
// L1-cached), not in a strided global scratch.
constexpr int kSmallBlock = 8;

template <class V>
__device__ inline void store_interleaved(const double* out, int bs, std::size_t k,
                                         std::size_t stride, V* inv) {
  const std::size_t b = static_cast<std::size_t>(bs);
  for (std::size_t q = 0; q < b; ++q)
    for (std::size_t j = 0; j < b; ++j)
      inv[j * stride + k * b + q] = static_cast<V>(out[q * b + j]);
}

template <class V>
__global__ void __launch_bounds__(kThreads)
    block_invert_small_kernel(std::size_t count, int bs, const double* __restrict__ blocks, V* inv,
                              double eps, unsigned long long* first_bad) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k >= count) return;
  const int bb = bs * bs;
  double a[kSmallBlock * kSmallBlock], out[kSmallBlock * kSmallBlock];
  for (int j = 0; j < bb; ++j) a[j] = __ldg(blocks + k * bb + j);
  if (lu_invert(a, out, bs, eps).step >= 0) {
    atomicMin(first_bad, static_cast<unsigned long long>(k));
    return;
  }
  store_interleaved(out, bs, k, count * bs, inv);
}

// Larger blocks: in place in `blocks`, the inverse in a double scratch.
template <class V>
__global__ void __launch_bounds__(kThreads)
    block_invert_kernel(std::size_t count, int bs, double* blocks, double* scratch, V* inv,
                        double eps, unsigned long long* first_bad) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k >= count) return;
  const std::size_t bb = static_cast<std::size_t>(bs) * bs;
  const LuFailure f = lu_invert(blocks + k * bb, scratch + k * bb, bs, eps);
  if (f.step >= 0) {
    atomicMin(first_bad, static_cast<unsigned long long>(k));
    return;
  }
  store_interleaved(scratch + k * bb, bs, k, count * bs, inv);
}

}  // namespace

template <class V>
void jacobi_apply_cuda(std::size_t n, const V* dinv, const V* x, const V* y, V* z, V alpha,
                       V beta) {
  if (n == 0) return;
  jacobi_apply_kernel<<<cuda::grid_for(n, kThreads), kThreads, 0, cuda::Context::get().stream()>>>(
      n, dinv, x, y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

template <class V>
void block_apply_cuda(std::size_t n, int bs, const V* inv, const V* x, const V* y, V* z, V alpha,
                      V beta) {
  if (n == 0) return;
  const std::size_t b = static_cast<std::size_t>(bs), stride = (n + b - 1) / b * b;
  block_apply_kernel<<<cuda::grid_for(n, kThreads), kThreads, 0, cuda::Context::get().stream()>>>(
      n, bs, stride, inv, x, y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

template <class V>
long long block_invert_cuda(std::size_t count, int bs, double* blocks, V* inv, double eps) {
  if (count == 0) return -1;
  const cudaStream_t s = cuda::Context::get().stream();
  cuda::DeviceBuffer<unsigned long long> bad(1);
  cuda::fill_bytes(bad.data(), 0xFF, sizeof(unsigned long long));
  const unsigned g = cuda::grid_for(count, kThreads);
  if (bs <= kSmallBlock) {
    block_invert_small_kernel<<<g, kThreads, 0, s>>>(count, bs, blocks, inv, eps, bad.data());
    SPMVKIT_LAUNCH_CHECK();
  } else {
    cuda::DeviceBuffer<double> scratch(count * static_cast<std::size_t>(bs) * bs);
    block_invert_kernel<<<g, kThreads, 0, s>>>(count, bs, blocks, scratch.data(), inv, eps,
                                               bad.data());
    SPMVKIT_LAUNCH_CHECK();
  }
  const unsigned long long first = bad.download().front();
  return first == ULLONG_MAX ? -1 : static_cast<long long>(first);
}

#define SPMVKIT_INSTANTIATE(V)                                                                 \
  template void jacobi_apply_cuda<V>(std::size_t, const V*, const V*, const V*, V*, V, V);     \
  template void block_apply_cuda<V>(std::size_t, int, const V*, const V*, const V*, V*, V, V); \
  template long long block_invert_cuda<V>(std::size_t, int, double*, V*, double);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit::precond_detail
