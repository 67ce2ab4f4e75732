// CSR arrays on the device, and the near/far split made there (csr_split.cu): csr_balanced's
// and suraa's `far_panels`; a row permutation there (csr3) (included by .cu files only).
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

// permute_rows (spmvkit/reorder.hpp) on the device: new row i is row perm[i] of `a`;
// `new_row_ptr` is the permuted matrix's row pointer, made on the host from the row lengths.
// A thread an entry (its new row by a binary search), writes coalesced.
template <class V>
DeviceCsr<V> csr_permute_rows(const DeviceCsrView<V>& a, const std::vector<index_t>& perm,
                              const std::vector<index_t>& new_row_ptr);

// csr_count_far on the device: the entries outside the band (a thread an entry).
template <class V>
std::int64_t csr_count_far(const DeviceCsrView<V>& a, index_t band);

}  // namespace spmvkit
