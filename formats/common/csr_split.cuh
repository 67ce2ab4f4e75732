// CSR arrays on the device, and the near/far split made there (csr_split.cu): csr_balanced's
// and suraa's `far_panels`; a row permutation there (csr3). Its kernels and CUB parts are
// for nvcc only (a .cpp may include it for the host declarations).
//
// The split is a stable partition of the entries by key (0: near the diagonal, 1 + p: far, in
// column panel p) with a CUB radix sort of entry indices, then gathers: the near entries keep
// CSR order, each panel's far entries come out sorted by row then column. On the GPU it takes
// milliseconds; the OpenMP split it replaced took about 1 s of csr_balanced's 1.2 s setup on
// powerlaw_8000000 (H100 machine, 16 threads), most of it zero-filling and faulting in the new
// host arrays.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/common/csr_kernels.hpp"
#include "spmvkit/device_csr.hpp"

#if defined(__CUDACC__)
#include <cub/device/device_scan.cuh>

#include "backend/cuda/cub_call.cuh"
#endif

namespace spmvkit {

// A CSR matrix's arrays on the device.
template <class V>
struct DeviceCsr {
  index_t rows = 0;
  index_t cols = 0;
  cuda::DeviceBuffer<index_t> row_ptr;  // rows + 1
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<V> values;

  DeviceCsr() = default;
  explicit DeviceCsr(const Csr<V>& a) : DeviceCsr(a, cuda::DeviceBuffer<index_t>(a.row_ptr)) {}
  // With the row pointer already uploaded.
  DeviceCsr(const Csr<V>& a, cuda::DeviceBuffer<index_t> uploaded_row_ptr)
      : rows(a.rows),
        cols(a.cols),
        row_ptr(std::move(uploaded_row_ptr)),
        col_idx(a.col_idx),
        values(a.values) {}
  // A copy of a CSR already on the device (device-to-device, on the context stream).
  explicit DeviceCsr(const DeviceCsrView<V>& a)
      : rows(a.rows),
        cols(a.cols),
        row_ptr(static_cast<std::size_t>(a.rows) + 1),
        col_idx(static_cast<std::size_t>(a.nnz)),
        values(static_cast<std::size_t>(a.nnz)) {
    cuda::copy_on_device(row_ptr.data(), a.row_ptr, row_ptr.bytes());
    if (a.nnz > 0) {
      cuda::copy_on_device(col_idx.data(), a.col_idx, col_idx.bytes());
      cuda::copy_on_device(values.data(), a.values, values.bytes());
    }
  }
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
  DeviceCsrView<V> view() const {
    return {rows, cols, nnz(), row_ptr.data(), col_idx.data(), values.data()};
  }
  Csr<V> download() const {
    Csr<V> a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr = row_ptr.download();
    a.col_idx = col_idx.download();
    a.values = values.download();
    return a;
  }
};

// csr_split_near_far's result on the device.
template <class V>
struct DeviceNearFar {
  DeviceCsr<V> near;
  std::vector<index_t> far_ptr;  // panel p's entries: [far_ptr[p], far_ptr[p + 1])
  cuda::DeviceBuffer<index_t> far_row;
  cuda::DeviceBuffer<index_t> far_col;
  cuda::DeviceBuffer<V> far_val;
  std::int64_t far_row_segments = 0;  // distinct (panel, row) pairs
};

// The split of csr.hpp's csr_split_near_far, on the device.
template <class V>
DeviceNearFar<V> csr_split_near_far(const DeviceCsrView<V>& a, index_t band, int panels);
template <class V>
DeviceNearFar<V> csr_split_near_far(const DeviceCsr<V>& a, index_t band, int panels) {
  return csr_split_near_far(a.view(), band, panels);
}

#if defined(__CUDACC__)
// ptr[0] = 0, ptr[j + 1] = ptr[j] + f(length of row rows[j] of row_ptr) for j < n: the row
// pointer of the listed rows (f the identity, RowLength: csr_permute_rows), or an offset array
// of per-row counts made from their lengths (csr3's long-row chunks). A thread a listed row
// (4 B of index, two row pointer entries gathered, 4 B written), then a CUB scan in place
// (~8 B a row). Queued on `stream`; ptr holds n + 1 entries.
struct RowLength {
  __device__ index_t operator()(index_t length) const { return length; }
};
template <class F>
__global__ void gathered_lengths_kernel(index_t n, const index_t* __restrict__ rows,
                                        const index_t* __restrict__ row_ptr, index_t* ptr, F f) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j == 0) ptr[0] = 0;
  if (j >= n) return;
  const index_t r = rows[j];
  ptr[j + 1] = f(row_ptr[r + 1] - row_ptr[r]);
}
template <class F>
void gathered_offsets(index_t n, const index_t* rows, const index_t* row_ptr, index_t* ptr, F f,
                      cudaStream_t stream) {
  constexpr int block = 256;
  gathered_lengths_kernel<<<cuda::grid_for(static_cast<std::size_t>(n), block), block, 0,
                            stream>>>(n, rows, row_ptr, ptr, f);
  SPMVKIT_LAUNCH_CHECK();
  if (n == 0) return;
  index_t* counts = ptr + 1;
  cuda::cub_call(
      [&](void* temp, std::size_t& bytes, cudaStream_t st) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, counts, counts, n, st);
      },
      stream);
}
#endif

// permute_rows (spmvkit/reorder.hpp) on the device: new row i is row perm[i] of `a`, with
// `perm` (a.rows entries) in device memory. Two passes: the new row pointer (the lengths
// gathered through perm, then a CUB scan), then the entries (a thread an entry, its new row by
// a block-narrowed binary search, writes coalesced). With `host_row_ptr` (the new row
// pointer, a.rows + 1 entries, made on the host from a small matrix's host copy) the first pass
// is a queued upload of it instead.
template <class V>
DeviceCsr<V> csr_permute_rows(const DeviceCsrView<V>& a, const index_t* perm,
                              const std::vector<index_t>* host_row_ptr = nullptr);

// csr_count_far on the device: the entries outside the band (a thread an entry).
template <class V>
std::int64_t csr_count_far(const DeviceCsrView<V>& a, index_t band);

}  // namespace spmvkit
