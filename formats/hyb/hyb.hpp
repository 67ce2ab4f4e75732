// HYB (Bell & Garland; HEC paper section 2.1, Fig. 2): an ELL part holding each row's first
// `width` entries (the regular part) and a COO part holding the rest, sorted by row.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "formats/common/ell_pass.hpp"

namespace spmvkit {

template <class V>
struct HybData {
  EllData<V> ell;                // first min(length, width) entries of each row
  std::vector<index_t> coo_row;  // the remaining entries, sorted by (row, column)
  std::vector<index_t> coo_col;
  std::vector<V> coo_values;

  std::int64_t coo_nnz() const { return static_cast<std::int64_t>(coo_values.size()); }
};

// Bell & Garland's ELL width (as CUSP's compute_optimal_entries_per_row): ELL column k+1 is
// kept while the rows that fill it (length > k) number at least rows / relative_speed (ELL
// is relative_speed times faster per entry than COO, so a column a third full still pays at
// relative_speed = 3) and at least breakeven_rows (below that, a column cannot fill the GPU).
// `histogram[L]` = rows with exactly L entries (length_histogram()).
index_t hyb_ell_width(const std::vector<std::int64_t>& histogram, index_t rows,
                      double relative_speed, std::int64_t breakeven_rows);

// Splits `a` at `width`: the ELL part (ell_pack) and the COO part.
template <class V>
HybData<V> hyb_pack(const Csr<V>& a, index_t width);

// The OpenMP HYB product: the ELL pass writes z, the COO part is added in even chunks (rows
// split between two chunks are added atomically).
template <class V>
void hyb_spmv_cpu(const HybData<V>& h, const V* x, const V* y, V* z, V alpha, V beta);

// HYB as a registry format. Parameters:
//   ell_width       override the ELL width (0 .. longest row)
//   relative_speed  Bell & Garland's ELL-over-COO speed ratio (default 3, > 0)
//   breakeven_rows  Bell & Garland's minimum rows filling an ELL column (default 4096, >= 0)
//   rows_per_thread, skip, index_bits: as for ell (the ELL pass).
FormatEntry hyb_format();

template <class V>
std::unique_ptr<Operator<V>> make_hyb_cpu(HybData<V> h, OperatorInfo info);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_hyb_cuda(const HybData<V>& h, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, OperatorInfo info);
// From a CSR on the device: `s` the ELL part's shape (ell_shape_device, at its width), its
// skip and the description by `decide` once its index width is known (ell_pack_device).
template <class V>
std::unique_ptr<Operator<V>> make_hyb_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, std::int64_t coo_nnz,
                                           int rows_per_thread, const EllDecisions& decide);
#endif

}  // namespace spmvkit
