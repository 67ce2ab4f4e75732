// The ELL pass on the device, shared by ELL, HYB, HEC and SELL-P (included by .cu files only).
#pragma once

#include <vector>

#include "backend/cuda/cuda.hpp"
#include "formats/common/ell_pass.hpp"

namespace spmvkit {

// How a stored column index decodes, in the ELL pass and in SELL-P: int = the column
// (-1 = padding); unsigned short = a delta from the base of the slot's row group or chunk
// (delta_padding = padding; see ColumnDeltas).
template <class IT>
struct ColumnCode;
template <>
struct ColumnCode<int> {
  static __device__ __forceinline__ index_t base(const index_t*, std::int64_t) { return 0; }
  static __device__ __forceinline__ bool valid(int c) { return c >= 0; }
  static __device__ __forceinline__ index_t column(int c, index_t) { return c; }
};
template <>
struct ColumnCode<unsigned short> {
  static __device__ __forceinline__ index_t base(const index_t* bases, std::int64_t group) {
    return __ldg(bases + group);
  }
  static __device__ __forceinline__ bool valid(unsigned short c) { return c != delta_padding; }
  static __device__ __forceinline__ index_t column(unsigned short c, index_t base) {
    return base + c;
  }
};

// Kernel tuning for the ELL pass: threads a block and slots each thread loads before it uses
// any of them (independent loads in flight per thread).
struct EllPolicy {
  static constexpr int block_threads = 256;
  static constexpr int unroll = 4;
};

// An ELL matrix in device memory and the pass z = alpha * ELL * x + beta * y over every row.
template <class V>
struct EllDevice {
  index_t rows = 0;
  index_t width = 0;
  std::int64_t pitch = 0;
  EllSkip skip = EllSkip::sentinel;
  int rows_per_thread = 1;  // 1 or ell_vector_rows<V>()
  int index_bits = 32;      // 32: col_idx; 16: col_delta + col_base (see ColumnDeltas)
  cuda::DeviceBuffer<index_t> col_idx;
  cuda::DeviceBuffer<std::uint16_t> col_delta;
  cuda::DeviceBuffer<index_t> col_base;
  cuda::DeviceBuffer<V> values;
  cuda::DeviceBuffer<index_t> row_length;  // uploaded only for EllSkip::row_length

  EllDevice() = default;
  // Uploads `e` (synchronously: the upload is part of the format's setup), with 16-bit column
  // deltas when `deltas` is given (ell_column_deltas(e)), else 32-bit indices.
  EllDevice(const EllData<V>& e, EllSkip skip, int rows_per_thread, const ColumnDeltas* deltas);

  // Queues the pass on `stream`; y is not read when beta == 0; y may alias z.
  void launch(const V* x, const V* y, V* z, V alpha, V beta, cudaStream_t stream) const;
};

// The ELL arrays on the device from a CSR there (ell_build_cuda.cu): the first min(row
// length, width) entries of each row, as ell_pack and (with `deltas`) ell_column_deltas lay
// them out on the host; for EllSkip::row_length the per-row lengths are made on the device
// from the row pointer.
template <class V>
EllDevice<V> ell_pack_device(const DeviceCsrView<V>& a, index_t width, std::int64_t pitch,
                             EllSkip skip, int rows_per_thread, bool deltas);
// The same from ell_shape_device's `s`, the skip and *info by `decide` (ell_pass.hpp). Where the
// delta fit is pending the pack's one pass writes both encodings (and row lengths, where either
// choice's skip reads them) and tests the fit, decide.meanwhile runs, the fit comes down in one
// download (s.deltas_fit set, fit_pending cleared) and what the choice does not read is
// dropped: a small matrix's ELL part without a wait before its pack.
template <class V>
EllDevice<V> ell_pack_device(const DeviceCsrView<V>& a, EllShape& s, std::int64_t pitch,
                             int rows_per_thread, const EllDecisions& decide, OperatorInfo* info);

// The entries past `width` of each row of a device CSR, as COO sorted by (row, column) (HYB's
// COO part, hyb_pack's tail on the host); tail_nnz: their count, known from the row lengths.
template <class V>
struct CooDeviceTail {
  cuda::DeviceBuffer<index_t> row;
  cuda::DeviceBuffer<index_t> col;
  cuda::DeviceBuffer<V> values;
};
// What the tails take from the row lengths (csr_tail_plan, before the build first uses the
// stream, beside the upload), made on the host from a small matrix's host copy
// (host_mirror.hpp): each row's tail offset (rows + 1), or with `list_rows` the listed rows and
// their pointer instead (HEC's CSR part, gathered through them). Not on_host where the host
// holds no copy (the tails then make them on the device).
struct CsrTailPlan {
  bool on_host = false;
  std::vector<index_t> offset, row_id, row_ptr;
};
template <class V>
CsrTailPlan csr_tail_plan(const DeviceCsrView<V>& a, index_t width, bool list_rows);
template <class V>
CooDeviceTail<V> csr_tail_coo_device(const DeviceCsrView<V>& a, index_t width,
                                     std::int64_t tail_nnz, const CsrTailPlan& plan);

// The same entries as a CSR over the rows that have any (HEC's CSR part, hec_pack's on the
// host): listed row j is matrix row row_id[j], its entries [row_ptr[j], row_ptr[j + 1]);
// tail_rows: how many rows have entries past `width`, known from the row lengths.
template <class V>
struct CsrDeviceTail {
  index_t rows = 0;                      // listed rows
  cuda::DeviceBuffer<index_t> row_id;    // rows
  cuda::DeviceBuffer<index_t> row_ptr;   // rows + 1
  cuda::DeviceBuffer<index_t> col;
  cuda::DeviceBuffer<V> values;
};
template <class V>
CsrDeviceTail<V> csr_tail_rows_device(const DeviceCsrView<V>& a, index_t width,
                                      std::int64_t tail_nnz, index_t tail_rows,
                                      const CsrTailPlan& plan);

}  // namespace spmvkit
