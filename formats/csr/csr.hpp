// CSR on both backends: scalar (a thread a row), vector (a warp or sub-warp a row) and
// load-balanced (merge-path: rows + nonzeros split evenly, so one huge row cannot stall).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit {

enum class CsrKernel { scalar, vector, balanced };

FormatEntry csr_scalar_format();
FormatEntry csr_vector_format();
FormatEntry csr_balanced_format();

// Byte model shared by every CSR variant: row pointer, column indices and values, read once.
template <class V>
std::size_t csr_matrix_bytes(const Csr<V>& a) {
  return (static_cast<std::size_t>(a.rows) + 1) * sizeof(index_t) +
         static_cast<std::size_t>(a.nnz()) * (sizeof(index_t) + sizeof(V));
}

// OpenMP kernels, reusable by other formats' CPU paths.
// Row-parallel (static schedule over rows).
template <class V>
void csr_spmv_rows_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta);
// Merge-path over rows + nonzeros: balanced whatever the row lengths.
template <class V>
void csr_spmv_merge_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta);

// --- column panels (csr_panels.cpp): cache blocking of x for the balanced GPU kernel ---------
// The rule's constants (first fitted on an H100, bench/results): panels only when x exceeds
// min_x_fraction_of_l2 of the L2 and at least min_far_fraction of the entries lie outside an x
// window of l2 / window_divisor bytes around the diagonal; then panels of x at most
// panel_fraction_of_l2 of the L2 each.
struct CsrPanelRule {
  double min_x_fraction_of_l2 = 0.5;
  double min_far_fraction = 0.05;
  int window_divisor = 8;
  double panel_fraction_of_l2 = 0.4;
  int max_panels = 16;
};
// Share of the entries whose column is more than `window` away from the row's diagonal
// (scaled by cols/rows for rectangular matrices).
template <class V>
double csr_far_fraction(const Csr<V>& a, std::int64_t window);
// How many column panels the balanced kernel should use for `a` on a device with this L2.
template <class V>
int csr_choose_panels(const Csr<V>& a, std::size_t l2_bytes, const CsrPanelRule& rule = {});
// A split into `panels` CSR matrices over equal column ranges (global column indices kept):
// A = sum of the panels.
template <class V>
std::vector<Csr<V>> csr_column_panels(const Csr<V>& a, int panels);

template <class V>
std::unique_ptr<Operator<V>> make_csr_cpu(const Csr<V>& a, CsrKernel kernel);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const Csr<V>& a, CsrKernel kernel, const Params& p);
#endif

}  // namespace spmvkit
