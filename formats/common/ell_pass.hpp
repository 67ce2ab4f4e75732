// The ELL pass (ELLPACK/ITPACK, HEC paper section 2.1, Fig. 1), shared by ELL, HYB, HEC and
// SELL-P: every row padded to the same width, stored column-major with an aligned column stride
// (the pitch) so that the threads of a warp, one a row, read consecutive addresses at every
// slot; the packing, byte model, parameters and the OpenMP pass (the CUDA pass:
// ell_pass_cuda.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/params.hpp"

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
  index_t width = 0;                // slots a row
  std::int64_t pitch = 0;           // rows rounded up to ell_pitch_align
  std::vector<index_t> col_idx;     // width * pitch, -1 at padding
  std::vector<V> values;            // width * pitch, 0 at padding
  std::vector<index_t> row_length;  // pitch entries: non-padding slots of each row (0 past rows)
  std::int64_t stored = 0;          // non-padding slots (sum of row_length)

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
// The same histogram from its non-empty buckets: distinct[i] (ascending) held by count[i] rows,
// as a run-length encoding of the sorted lengths gives them (the device build).
std::vector<std::int64_t> length_histogram_from_runs(const std::vector<index_t>& distinct,
                                                     const std::vector<index_t>& count);
// From a histogram: the entries an ELL part of `width` slots keeps (sum of min(length, width))
// and the rows longer than `width` (those with entries past it).
std::int64_t ell_stored(const std::vector<std::int64_t>& histogram, index_t width);
std::int64_t rows_longer(const std::vector<std::int64_t>& histogram, index_t width);

// rows rounded up to ell_pitch_align: EllData::pitch.
std::int64_t ell_pitch(index_t rows);
// Packs the first min(row length, width) entries of every row of `a` (all of them when width
// is the longest row). OpenMP-parallel over blocks of rows.
template <class V>
EllData<V> ell_pack(const Csr<V>& a, index_t width);

// What the byte model reads of an ELL part's row lengths (row_length, at most the width): for
// groups of G consecutive rows, the group's longest row summed over the groups, i.e. the
// (slot, group) pairs holding an entry, for each G the model uses: 4 and 8 (the rows whose
// double or float values, or 4-byte indices, share a 32-byte sector), 16 (2-byte deltas) and
// 256 (the rows whose delta bases share a sector). Counted on the host from row_length
// (ell_group_maxima) or on the device from the row pointer (ell_group_maxima_device).
constexpr std::array<index_t, 4> ell_model_groups = {4, 8, 16, 256};
struct EllGroupMaxima {
  index_t rows = 0;
  index_t width = 0;
  std::array<std::int64_t, 4> sum{};  // sum[i]: groups of ell_model_groups[i] rows
  std::int64_t of(index_t group) const;
};
// From `rows` row lengths (each taken as at most width).
EllGroupMaxima ell_group_maxima(const std::vector<index_t>& row_length, index_t rows,
                                index_t width);
template <class V>
EllGroupMaxima ell_group_maxima(const EllData<V>& e) {
  return ell_group_maxima(e.row_length, e.rows, e.width);
}

// Byte model of one ELL pass, sector-exact: the 32-byte DRAM sectors of the column indices,
// values and row_length the kernel touches under `skip` (a sector is read when any slot in it
// is; a sentinel pass reads every column-index sector up to the width); with `deltas`, 2-byte
// indices plus the 4-byte bases (see ColumnDeltas). x, y, z not included.
template <class V>
std::size_t ell_pass_bytes(const EllGroupMaxima& g, EllSkip skip, bool deltas = false);
template <class V>
std::size_t ell_pass_bytes(const EllData<V>& e, EllSkip skip, bool deltas = false) {
  return ell_pass_bytes<V>(ell_group_maxima(e), skip, deltas);
}

// The skip rule: the mode with the smaller byte model (sentinel on ties and when width == 0).
template <class V>
EllSkip ell_choose_skip(const EllGroupMaxima& g, bool deltas = false);
template <class V>
EllSkip ell_choose_skip(const EllData<V>& e, bool deltas = false) {
  return ell_choose_skip<V>(ell_group_maxima(e), deltas);
}

// Parses the `skip` parameter: empty for "auto" (or absent: the rule decides), else sentinel |
// row_length. InputError naming `format` on any other value.
std::optional<EllSkip> ell_skip_param(const Params& p, const std::string& format);
// The ELL pass's kernel parameters, declared once for every format that runs the pass:
// rows_per_thread, skip and index_bits (ell_pass_params), or some of them.
ParamSpec ell_rows_per_thread_spec();
ParamSpec ell_skip_spec();
ParamSpec ell_index_bits_spec();
std::vector<ParamSpec> ell_pass_params();

// Column indices on the device are 32-bit, or (our addition, not the papers') 16-bit deltas:
// the slots that one warp reads together (an ELL slot of a group of ell_delta_group rows; a
// SELL-P chunk) share a 32-bit base, their smallest column, and each stores col - base as an
// unsigned 16-bit delta (delta_padding at padding). That fits whenever those columns span at
// most delta_max_span, as in any stencil or banded matrix (whatever its size): 2 bytes an
// entry plus 4 bytes a group instead of 4 bytes an entry, about 10.1 bytes a double entry
// instead of 12.
constexpr std::uint16_t delta_padding = 0xFFFF;
constexpr std::int64_t delta_max_span = 0xFFFE;
constexpr index_t ell_delta_group = 32;
// Whether every group's columns span at most delta_max_span whatever the matrix holds: its
// columns are indices 0 .. cols - 1 (every matrix of at most 65,535 columns, all the small
// real ones among them), so the deltas fit without a column being read.
constexpr bool deltas_always_fit(index_t cols) { return cols - 1 <= delta_max_span; }
struct ColumnDeltas {
  std::vector<index_t> base;         // ELL: slot k of group g at k * (pitch / 32) + g
  std::vector<std::uint16_t> delta;  // the same layout as col_idx
};
// e's deltas, or nothing when some group's columns span more than delta_max_span.
template <class V>
std::optional<ColumnDeltas> ell_column_deltas(const EllData<V>& e);
// Parses `index_bits`: empty for "auto" (or absent), else 16 | 32. InputError otherwise.
std::optional<int> index_bits_param(const Params& p, const std::string& format);
// The deltas to upload for e on backend b, or nothing for 32-bit indices: nothing on the CPU
// (the OpenMP kernels read col_idx); on CUDA, per index_bits (auto: deltas when they fit).
// UnsupportedError when index_bits=16 is asked and they do not fit.
template <class V>
std::optional<ColumnDeltas> ell_choose_deltas(const EllData<V>& e, std::optional<int> param,
                                              Backend b, const std::string& format);

// Parses `rows_per_thread` (1 or ell_vector_rows<V>(), the default); InputError otherwise.
template <class V>
int ell_rows_per_thread_param(const Params& p, const std::string& format);

#if SPMVKIT_HAVE_CUDA
// ELL from a CSR on the device (ell_build_cuda.cu), with only small summaries coming to the
// host, each function one download (a small build is made of its ~12 us round trips, H100):
// the row-length histogram (length_histogram(row_lengths(a)), exact: counted into bins on the
// device, or past 8,191 the lengths sorted and run-length encoded there, only the distinct
// lengths and their counts downloaded, at most about sqrt(2 nnz) pairs; a second download for a
// row longer than 511); and the ELL part's shape at `width` (at the longest row where
// width < 0): the longest row, the group maxima of min(length, width) (ell_group_maxima's
// sums) and, when `fit_deltas`, whether 16-bit column deltas fit (ell_column_deltas's rule).
// For a small matrix the host holds (backend/cuda/host_mirror.hpp) the shape is counted there
// without a download, and a delta fit too long for the host is left to the pack
// (fit_pending): the pack's one download answers it.
template <class V>
std::vector<std::int64_t> length_histogram_device(const DeviceCsrView<V>& a);
struct EllShape {
  index_t longest = 0;       // at most the width asked
  EllGroupMaxima g;          // g.width: the width asked, or the longest row
  bool deltas_fit = false;   // asked, g.width > 0, and every delta group fits
  bool fit_pending = false;  // asked and not yet known: make_*_cuda's pack finds out
};
template <class V>
EllShape ell_shape_device(const DeviceCsrView<V>& a, std::int64_t pitch, index_t width,
                          bool fit_deltas);
// What a device builder decides once the ELL part's index width is known (the pack calls it,
// before packing, or after it where the fit was pending): the skip for 16-bit deltas or 32-bit
// indices, and the operator's description (which may throw: index_bits=16 where they do not fit).
// `meanwhile` (may be empty): what the builder queues once the pack is launched and before the
// pack waits for its fit (HYB's and HEC's tails: their host steps run beside the pack's kernels).
struct EllDecisions {
  std::function<EllSkip(bool deltas)> skip;
  std::function<OperatorInfo(EllSkip skip, bool deltas)> info;
  std::function<void()> meanwhile;
};
#endif
// index_bits=16 asked where the deltas do not fit: UnsupportedError naming `format`.
[[noreturn]] void ell_deltas_do_not_fit(const std::string& format);

// The OpenMP ELL pass: z = alpha * ELL * x + beta * y on every row (y unread when beta == 0).
template <class V>
void ell_spmv_cpu(const EllData<V>& e, const V* x, const V* y, V* z, V alpha, V beta);

// 16-byte vector width in rows for V: 2 (double) or 4 (float).
template <class V>
constexpr int ell_vector_rows() {
  return static_cast<int>(16 / sizeof(V));
}

}  // namespace spmvkit
