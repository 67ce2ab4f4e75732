// The host's copy of the CSR a device build reads, when the registry uploaded that CSR from the
// host for this build: a small build plans from it (row lengths, the longest row, tiles, the
// histogram) instead of waiting for a download of the same numbers. On the H100 machine a
// launch, a download and a wait cost ~18 us (scripts/api_cost_probe.cu) and its host ~2.5 ns a
// simple loop step, so passes over the rows (the row pointer, and format=auto's sample of
// middle columns) read it, passes over the entries only for tiny matrices, and only for
// matrices of at most kHostPlanRows rows. docs/formats.md lists the steps that use it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit::cuda {

// At most this many rows: a host pass over the rows then costs at most ~40 us there (SELL-P's
// plan makes about a dozen: ~0.2 ms for rajat01's 6,833 rows, about what its device plan took).
constexpr index_t kHostPlanRows = 16384;

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
  friend const index_t* host_row_ptr(const index_t*, std::size_t);
  friend const index_t* host_col_idx(const index_t*);
  friend const std::vector<index_t>* host_lengths(const index_t*, index_t);
  ScopedHostMirror* outer_;
  const index_t* device_ = nullptr;  // null: nothing registered by this scope
  const index_t* host_ = nullptr;
  std::size_t n_ = 0;  // row-pointer entries
  const index_t* device_col_ = nullptr;
  const index_t* host_col_ = nullptr;
  std::vector<index_t> lengths_;  // host_lengths, made on the first ask
  bool lengths_made_ = false;
};

// The host copy of device row-pointer entries [device, device + n) when they lie inside the
// registered row pointer of this thread's build (the same offset there); else nullptr.
const index_t* host_row_ptr(const index_t* device, std::size_t n);
// The longest row of a host row pointer (rows + 1 entries), as host_row_ptr answers it.
inline index_t host_longest_row(const index_t* row_ptr, index_t rows) {
  index_t longest = 0;
  for (index_t r = 0; r < rows; ++r) longest = std::max(longest, row_ptr[r + 1] - row_ptr[r]);
  return longest;
}

// The host column indices of the registered build whose device column indices start at
// `device`, or nullptr.
const index_t* host_col_idx(const index_t* device);
// The row lengths of the registered build whose device row pointer is `device_row_ptr` with
// `rows` rows (made once a build and kept for its scope: the histogram, the shape, the tails
// and the rules of one build each read them), or nullptr.
const std::vector<index_t>* host_lengths(const index_t* device_row_ptr, index_t rows);

}  // namespace spmvkit::cuda
