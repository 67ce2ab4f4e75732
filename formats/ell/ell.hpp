// ELL (ELLPACK/ITPACK, HEC paper section 2.1, Fig. 1) as a registry format: every row padded
// to the longest, the ELL pass of formats/common/ell_pass.hpp over the whole matrix.
#pragma once

#include <cstdint>
#include <memory>

#include "formats/common/ell_pass.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"

namespace spmvkit {

// ELL as a registry format. Parameters:
//   max_fill        refuse (UnsupportedError) when width * rows > max_fill * nnz (default 3,
//                   CUSP's limit for its ELL conversion); must be >= 1.
//   rows_per_thread CUDA: rows a thread handles with one vector load per slot: 1, or the
//                   16-byte vector width (2 for double, 4 for float; the default).
//   skip            auto | sentinel | row_length (see EllSkip).
//   index_bits      CUDA: auto | 16 | 32 (see ColumnDeltas).
FormatEntry ell_format();

// ELL's fill check (shared with the tests; its width is spmvkit/stats.hpp's longest_row).
// width * rows / nnz (1 when nnz == 0): the memory factor ELL's padding costs.
double ell_fill(index_t width, index_t rows, std::int64_t nnz);

template <class V>
std::unique_ptr<Operator<V>> make_ell_cpu(EllData<V> e, OperatorInfo info);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_ell_cuda(const EllData<V>& e, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, OperatorInfo info);
// From a CSR on the device: `s` its shape (ell_shape_device), the skip and description by
// `decide` once the index width is known (ell_pack_device).
template <class V>
std::unique_ptr<Operator<V>> make_ell_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, int rows_per_thread,
                                           const EllDecisions& decide);
#endif

}  // namespace spmvkit
