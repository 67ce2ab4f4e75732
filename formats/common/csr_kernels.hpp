// CSR pieces several formats use: the byte model, the OpenMP row-parallel and merge-path
// kernels, column panels and the near/far split (csr_balanced's options, SURAA's launch=tiles;
// their CUDA side: csr_balanced.cuh, csr_split.cuh).
#pragma once

#include <functional>

#include <cstdint>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

// Byte model shared by every CSR variant: row pointer, column indices and values, read once.
template <class V>
std::size_t csr_matrix_bytes(index_t rows, std::int64_t nnz) {
  return (static_cast<std::size_t>(rows) + 1) * sizeof(index_t) +
         static_cast<std::size_t>(nnz) * (sizeof(index_t) + sizeof(V));
}
template <class V>
std::size_t csr_matrix_bytes(const Csr<V>& a) {
  return csr_matrix_bytes<V>(a.rows, a.nnz());
}

// OpenMP kernels, reusable by other formats' CPU paths.
// Row-parallel (static schedule over rows).
template <class V>
void csr_spmv_rows_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta);
// Merge-path over rows + nonzeros: balanced whatever the row lengths.
template <class V>
void csr_spmv_merge_cpu(const Csr<V>& a, const V* x, const V* y, V* z, V alpha, V beta);

// --- column panels (csr_panels.cpp): cache blocking of x, csr_balanced's `panels` option ------
// A split into `panels` CSR matrices over equal column ranges (global column indices kept):
// A = sum of the panels.
template <class V>
std::vector<Csr<V>> csr_column_panels(const Csr<V>& a, int panels);

// --- near/far split: csr_balanced's `far_panels` option ---------------------------------------
// Entries within `band` columns of the diagonal (column r * cols / rows for row r) stay in a
// CSR matrix processed as usual; the others (far: their x gathers miss L2 when x is larger
// than it) go to COO lists, one per column panel of width ceil(cols / panels), each sorted by
// row then column, run one panel after the other so that a panel's slice of x stays in L2.
// Made on the GPU (csr_split.cuh); NearFarSplit is its result brought back to the host.
template <class V>
struct NearFarSplit {
  Csr<V> near;
  std::vector<index_t> far_ptr;  // panel p's entries: [far_ptr[p], far_ptr[p + 1])
  std::vector<index_t> far_row;
  std::vector<index_t> far_col;
  std::vector<V> far_val;
  std::int64_t far_row_segments = 0;  // distinct (panel, row) pairs: z entries the panels update
};
#if SPMVKIT_HAVE_CUDA
// Uploads `a`, splits it on the device and downloads the parts (tests).
template <class V>
NearFarSplit<V> csr_split_near_far(const Csr<V>& a, index_t band, int panels);
#endif
// How many entries of `a` lie outside the band (the far entries of csr_split_near_far).
template <class V>
std::int64_t csr_count_far(const Csr<V>& a, index_t band);

// The near/far options of a format (`far_panels`: auto or 0..64, `near_band`: columns, default
// 8 MB of x either side), read and checked; InputError names `who`. far_panels=auto: when x
// (cols values) is larger than half of `l2_bytes` and at least 1/20 of the entries lie outside
// the band, as many panels as it takes for a panel's slice of x to fit in half the L2. Measured
// on H100 (bench/results/2026-11-22-h100-far): powerlaw_8000000 (x 64 MB, 17.6% far) 0.86 ms with
// 3 panels against 1.00 ms without; 2 and 4 panels 0.87 and 0.88 ms.
struct FarSplitChoice {
  index_t band = 0;
  int panels = 0;  // 0: no split
  bool automatic = true;
};
template <class V>
FarSplitChoice csr_far_split_choice(const Csr<V>& a, const Params& p, const std::string& who,
                                    double l2_bytes);
// The same from the shape and a count of the far entries for a band (the device build counts
// them on the device).
FarSplitChoice csr_far_split_choice(index_t cols, std::int64_t nnz, std::size_t value_bytes,
                                    const Params& p, const std::string& who, double l2_bytes,
                                    const std::function<std::int64_t(index_t band)>& count_far);

}  // namespace spmvkit
