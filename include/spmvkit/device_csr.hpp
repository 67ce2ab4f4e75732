// A CSR matrix whose arrays are already in device memory: what a user whose matrix lives on
// the GPU builds an operator from (build_operator in registry.hpp), without a round trip
// through the host. The arrays are borrowed: read during the build, never kept or freed.
#pragma once

#include <cstdint>

#include "spmvkit/csr.hpp"

namespace spmvkit {

// The same invariants as Csr (validated before a build): row_ptr has rows + 1 entries,
// row_ptr[0] == 0, nondecreasing, row_ptr[rows] == nnz; each row's columns strictly increasing
// in [0, cols). Pointers may be null only where their array is empty (col_idx and values when
// nnz == 0).
template <class V>
struct DeviceCsrView {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  const index_t* row_ptr = nullptr;  // device memory, rows + 1
  const index_t* col_idx = nullptr;  // device memory, nnz
  const V* values = nullptr;         // device memory, nnz
};

}  // namespace spmvkit
