// HEC (Liu, Yu, Chen, Hsieh, Shao, "Sparse matrix-vector multiplication on NVIDIA GPU"): a
// hybrid of an ELL part (each row's first l entries, column-major, aligned) and a CSR part
// (the rest, row-major). l minimises eq. (1), w(l) = l*n + p_r*nz(l). The product is the ELL
// pass, then the CSR part added into z (Algorithm 1).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/common/ell_pass.hpp"

namespace spmvkit {

// The CSR-part kernel: `scalar` is the paper's (a thread a row, section 2.2); `balanced`
// is ours: warps take equal tiles of the CSR part's entries and reduce them by row with a
// warp segmented reduction, so one very long row cannot stall the pass.
enum class HecCsrKernel { scalar, balanced };
std::string_view to_string(HecCsrKernel k);

// Where an entry of an HEC matrix lives.
enum class HecPart { none, ell, csr };
struct HecLocation {
  HecPart part = HecPart::none;
  std::size_t index = 0;  // into ell.col_idx/values (ell) or csr_col_idx/csr_values (csr)
};

template <class V>
struct HecData {
  EllData<V> ell;                    // the first min(length, l) entries of each row
  std::vector<index_t> csr_row_ptr;  // CSR part over all rows: rows + 1 offsets
  std::vector<index_t> csr_col_idx;  // the entries past l, sorted by column within a row
  std::vector<V> csr_values;
  // The paper keeps each row's diagonal locatable for ILU-type preconditioners (section 2.1):
  // diag_pos[i] = rank of entry (i, i) among row i's entries in column order (so ELL slot
  // diag_pos[i] when < l, else CSR-part entry diag_pos[i] - l of row i), -1 when the row has
  // no stored diagonal. Entries before it are the strictly lower part, after it the upper.
  std::vector<index_t> diag_pos;

  index_t csr_nnz() const { return csr_row_ptr.empty() ? 0 : csr_row_ptr.back(); }
  // Where row i's entry of rank `pos` (in column order) is stored.
  HecLocation locate(index_t i, index_t pos) const {
    if (pos < 0) return {};
    if (pos < ell.width) return {HecPart::ell, ell.slot(pos, i)};
    return {HecPart::csr, static_cast<std::size_t>(csr_row_ptr[i] + (pos - ell.width))};
  }
  HecLocation diagonal(index_t i) const { return locate(i, diag_pos[i]); }
};

// HEC paper eq. (1): the l in 0..longest row minimising w(l) = l*n + p_r*nz(l), where n is the
// row count and nz(l) = sum over rows of max(0, length - l) is what the CSR part would hold
// (the smallest such l on ties). `histogram[L]` = rows with exactly L entries.
index_t hec_ell_width(const std::vector<std::int64_t>& histogram, index_t rows, double p_r);

// Splits `a` at l (ell_pack + the CSR part) and locates the diagonals.
template <class V>
HecData<V> hec_pack(const Csr<V>& a, index_t l);

// The auto rule for the CSR kernel: the paper's thread-a-row kernel while the CSR part's
// longest row is at most this many entries, else the balanced kernel.
constexpr index_t hec_scalar_max_row = 32;

// The paper's typical p_r (section 2.1, from Bell & Garland), used when neither a p_r
// parameter nor a calibration for this device is there.
constexpr double hec_default_p_r = 20.0;

// Tuning-store key of the calibrated p_r: "hec.p_r.f64", "hec.p_r.f32" (the paper's scalar
// CSR kernel) and "hec.p_r_balanced.f64", "hec.p_r_balanced.f32" (the balanced one).
std::string hec_p_r_key(HecCsrKernel kernel, bool dbl);

// The OpenMP HEC product: the ELL pass, then the CSR part added row by row.
template <class V>
void hec_spmv_cpu(const HecData<V>& h, const V* x, const V* y, V* z, V alpha, V beta);

// Measures p_r on the current CUDA device: a calibration matrix of 2^22 rows x 16 entries
// (banded columns; 805 MB in double, far over the 50 MB L2) is built on the device as an ELL
// part and as a CSR part; each pass is timed with CUDA events (median of 25 runs after 5
// warm-up runs), and p_r = (time per CSR-part entry) / (time per ELL entry), for the scalar
// and the balanced CSR kernel, in double and float. Stores the four values with tuning_put
// under device_name(Backend::cuda) and hec_p_r_key(); returns the scalar double p_r.
// UnsupportedError without CUDA or a GPU.
double calibrate_hec_pr();

// HEC as a registry format. Parameters:
//   p_r          override the relative cost of a CSR-part entry (> 0); otherwise the
//                calibrated value for this device and kernel, else the paper's 20
//   ell_width    override l (0 .. longest row)
//   csr_kernel   auto | scalar | balanced (auto: scalar while the CSR part's rows are at
//                most hec_scalar_max_row entries)
//   rows_per_thread, skip, index_bits: as for ell (the ELL pass).
FormatEntry hec_format();

template <class V>
std::unique_ptr<Operator<V>> make_hec_cpu(HecData<V> h, OperatorInfo info);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_hec_cuda(const HecData<V>& h, EllSkip skip, int rows_per_thread,
                                           const ColumnDeltas* deltas, HecCsrKernel kernel,
                                           OperatorInfo info);
// From a CSR on the device: `s` the ELL part's shape at l (ell_shape_device), its skip and the
// description by `decide` once its index width is known (ell_pack_device); csr_rows /
// csr_nnz: the rows with entries past l and those entries.
template <class V>
std::unique_ptr<Operator<V>> make_hec_cuda(const DeviceCsrView<V>& a, EllShape& s,
                                           std::int64_t pitch, index_t csr_rows,
                                           std::int64_t csr_nnz, int rows_per_thread,
                                           HecCsrKernel kernel, const EllDecisions& decide);
#endif

}  // namespace spmvkit
