// The host's copy of the CSR a device build reads, when the registry uploaded that CSR from the
// host for this build: a small build plans from it (row lengths, the longest row, tiles, the
// histogram) instead of waiting for a download of the same numbers. On the H100 a round trip
// (a kernel, a download, a wait) cost 40-60 us in a small build (docs/formats.md); a pass over
// a few thousand row pointers on the host costs a few. Only passes over the rows read it (the
// row pointer, and format=auto's sample of middle columns), and only for matrices of at most
// kHostPlanRows rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmvkit/csr.hpp"

namespace spmvkit::cuda {

// At most this many rows: host passes over the row pointer stay under ~20 us.
constexpr index_t kHostPlanRows = 32768;

// For the scope of one build on this thread: `device_row_ptr` (rows + 1 entries, device memory)
// holds the same numbers as `host_row_ptr`, and `device_col_idx` as `host_col_idx` (nnz
// entries; both may be null). Nothing is registered for more than kHostPlanRows rows. Nested
// scopes: the innermost one counts.
class ScopedHostMirror {
 public:
  ScopedHostMirror(const index_t* device_row_ptr, const index_t* host_row_ptr, index_t rows,
                   const index_t* device_col_idx = nullptr, const index_t* host_col_idx = nullptr);
  ~ScopedHostMirror();
  ScopedHostMirror(const ScopedHostMirror&) = delete;
  ScopedHostMirror& operator=(const ScopedHostMirror&) = delete;

 private:
  const void* saved_[4];
  std::size_t saved_n_;
};

// The host copy of device row-pointer entries [device, device + n) when they lie inside the
// registered row pointer of this thread's build (the same offset there); else nullptr.
const index_t* host_row_ptr(const index_t* device, std::size_t n);
// The host column indices of the registered build whose device column indices start at
// `device`, or nullptr.
const index_t* host_col_idx(const index_t* device);

}  // namespace spmvkit::cuda
