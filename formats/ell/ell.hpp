// ELL (ELLPACK/ITPACK, HEC paper section 2.1, Fig. 1): every row padded to the same width,
// stored column-major with an aligned column stride (the pitch) so that the threads of a warp,
// one a row, read consecutive addresses at every slot. HYB and HEC reuse this file's packing,
// byte model and kernels for their ELL part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit {

// Columns start on 128-byte boundaries for float and int32 (and 256 for double): the pitch is
// the row count rounded up to this many elements. 32 also keeps the pitch a multiple of every
// rows-per-thread vector width (2 for double, 4 for float).
constexpr index_t ell_pitch_align = 32;

// How an ELL pass avoids paying for padding:
// - sentinel: padding slots hold column -1; every column index up to the width is read, the
//   value and x only where the index is valid. Cheapest when there is little padding (a
//   stencil's boundary rows).
// - row_length: a per-row length array bounds each thread's loop; padding is never read, at
//   the price of the length array (4 bytes a row). Cheapest for irregular rows.
enum class EllSkip { sentinel, row_length };
std::string_view to_string(EllSkip s);

// Host ELL data. Slot k of row r lives at k * pitch + r (column-major).
template <class V>
struct EllData {
  index_t rows = 0;
  index_t cols = 0;
  index_t width = 0;               // slots a row
  std::int64_t pitch = 0;          // rows rounded up to ell_pitch_align
  std::vector<index_t> col_idx;    // width * pitch, -1 at padding
  std::vector<V> values;           // width * pitch, 0 at padding
  std::vector<index_t> row_length; // pitch entries: non-padding slots of each row (0 past rows)
  std::int64_t stored = 0;         // non-padding slots (sum of row_length)

  std::size_t slot(index_t k, index_t r) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(pitch) +
           static_cast<std::size_t>(r);
  }
  std::int64_t padded_slots() const { return static_cast<std::int64_t>(width) * pitch; }
};

// Row lengths of `a`, and their histogram: hist[L] = rows with exactly L entries
// (size = longest row + 1; {rows} for a matrix without entries, {} for no rows).
template <class V>
std::vector<index_t> row_lengths(const Csr<V>& a);
std::vector<std::int64_t> length_histogram(const std::vector<index_t>& lengths);

// Packs the first min(row length, width) entries of every row of `a` (all of them when width
// is the longest row). OpenMP-parallel over blocks of rows.
template <class V>
EllData<V> ell_pack(const Csr<V>& a, index_t width);

// Byte model of one ELL pass, sector-exact: the 32-byte DRAM sectors of col_idx / values /
// row_length the kernel touches under `skip` (a sector is read when any slot in it is; a
// sentinel pass reads every column-index sector up to the width). x, y, z not included.
template <class V>
std::size_t ell_pass_bytes(const EllData<V>& e, EllSkip skip);

// The skip rule: the mode with the smaller byte model (sentinel on ties and when width == 0).
template <class V>
EllSkip ell_choose_skip(const EllData<V>& e);

// Parses the `skip` parameter: empty for "auto" (or absent: the rule decides), else sentinel |
// row_length. InputError naming `format` on any other value.
std::optional<EllSkip> ell_skip_param(const Params& p, const std::string& format);

// Parses `rows_per_thread` (1 or ell_vector_rows<V>(), the default); InputError otherwise.
template <class V>
int ell_rows_per_thread_param(const Params& p, const std::string& format);

// The OpenMP ELL pass: z = alpha * ELL * x + beta * y on every row (y unread when beta == 0).
template <class V>
void ell_spmv_cpu(const EllData<V>& e, const V* x, const V* y, V* z, V alpha, V beta);

// ELL as a registry format. Parameters:
//   max_fill        refuse (UnsupportedError) when width * rows > max_fill * nnz (default 3,
//                   CUSP's limit for its ELL conversion); must be >= 1.
//   rows_per_thread CUDA: rows a thread handles with one vector load per slot: 1, or the
//                   16-byte vector width (2 for double, 4 for float; the default).
//   skip            auto | sentinel | row_length (see EllSkip).
FormatEntry ell_format();

// The longest row of `a` and ELL's fill check (shared with the tests).
template <class V>
index_t longest_row(const Csr<V>& a);
// width * rows / nnz (1 when nnz == 0): the memory factor ELL's padding costs.
double ell_fill(index_t width, index_t rows, std::int64_t nnz);

template <class V>
std::unique_ptr<Operator<V>> make_ell_cpu(EllData<V> e, OperatorInfo info);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_ell_cuda(const EllData<V>& e, EllSkip skip, int rows_per_thread,
                                           OperatorInfo info);
#endif

// 16-byte vector width in rows for V: 2 (double) or 4 (float).
template <class V>
constexpr int ell_vector_rows() {
  return static_cast<int>(16 / sizeof(V));
}

}  // namespace spmvkit
