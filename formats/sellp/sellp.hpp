// SELL-P (Anzt, Tomov, Dongarra; BiCGSTAB paper section 3.1, Figs. 3-5): sliced ELLPACK with
// slices of b rows, t threads a row and each slice's rows padded to a multiple of t; with an
// optional sorting window sigma (SELL-C-sigma, Kreutzer et al.): rows are sorted by length
// within windows of sigma rows before slicing, and the permutation is applied inside the
// format (results come back in the user's row order).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "formats/common/ell_pass.hpp"

namespace spmvkit {

struct SellpConfig {
  int slice_size = 32;      // b: rows a slice (a power of two, 1..1024)
  int threads_per_row = 1;  // t: threads a row (1, 2, 4, 8, 16 or 32); b*t <= 1024
  index_t sigma = 1;        // sorting window in rows: 1 (no sorting) or a multiple of b
};

// Host SELL-P data. Slice s holds rows s*b .. s*b+b-1 of the sorted order, in
// slice_chunks[s] chunks of b*t slots; entry j of the slice's row i is stored at
//   slice_ptr[s] + (j / t) * (b*t) + i * t + (j % t).
// MAGMA stores a chunk as (j % t) * b + i; we keep a row's t slots adjacent instead, so the t
// threads of a row are adjacent lanes of one warp and the paper's shared-memory fan-in becomes
// a shuffle reduction (accesses stay fully coalesced either way).
template <class V>
struct SellpData {
  index_t rows = 0;
  index_t cols = 0;
  SellpConfig config;
  index_t slices = 0;
  std::vector<std::int64_t> slice_ptr;  // slices + 1 (64-bit: padded slots may pass 2^31)
  std::vector<index_t> slice_chunks;    // slices: slice width / t
  std::vector<index_t> col_idx;         // -1 at padding
  std::vector<V> values;                // 0 at padding
  std::vector<index_t> row_length;      // slices * b, in slice order (0 past the last row)
  std::vector<index_t> perm;            // slice-order position -> user row; empty if unsorted
  std::int64_t stored = 0;              // entries (non-padding slots)

  std::int64_t padded_slots() const { return slice_ptr.empty() ? 0 : slice_ptr.back(); }
  std::size_t slot(index_t s, index_t i, index_t j) const {
    const std::int64_t t = config.threads_per_row;
    return static_cast<std::size_t>(slice_ptr[s] + (j / t) * (config.slice_size * t) + i * t +
                                    j % t);
  }
  index_t user_row(index_t position) const { return perm.empty() ? position : perm[position]; }
};

// The permutation of SELL-C-sigma: within each window of sigma rows, rows by length,
// longest first (stable: equal lengths keep their order). perm[position] = user row.
std::vector<index_t> sellp_sort_order(const std::vector<index_t>& lengths, index_t sigma);

// SellpData's layout of `config` over rows of these lengths, without the entries: perm (empty
// unsorted), row_length in slice order, slice_chunks and slice_ptr (sellp_pack's, and the
// device build's for a small matrix the host holds).
struct SellpSlices {
  index_t slices = 0;
  std::vector<index_t> perm, row_length, slice_chunks;
  std::vector<std::int64_t> slice_ptr;
};

// What the configuration rule's sorted counts (sellp_row_counts' prefetch) keep of the rows for
// the layout: each length's rank among the distinct lengths (ascending; -1 where none has it)
// and, for each window of `window` consecutive rows, how many of its rows have each rank
// (window w's count of rank r at counts[w * distinct + r]). Kept only where the counts are not
// much larger than the rows.
struct SellpWindowCounts {
  std::int64_t rows = 0;
  std::int64_t window = 0;
  std::int64_t distinct = 0;
  std::vector<index_t> rank;    // by length, 0..longest
  std::vector<index_t> counts;  // windows * distinct
};

// With `counts` (the rows' own, or null), a sorted layout whose sigma is a multiple of their
// window (or holds every row) is placed from them in one pass over the rows (no sort of its
// own); otherwise, and unsorted, from the lengths alone. The same layout either way.
SellpSlices sellp_slices(const std::vector<index_t>& lengths, const SellpConfig& config,
                         const SellpWindowCounts* counts = nullptr);

// Slots (stored entries + padding) that `config` gives rows of these lengths, without packing.
std::int64_t sellp_slots(const std::vector<index_t>& lengths, const SellpConfig& config);

// What the configuration rule reads of the rows: their count, their entries, and the slots of
// a configuration (sellp_slots, counted on the host from the lengths, sellp_row_counts, or on
// the device, sellp_slots_device; the rule asks for a handful of configurations). The t-rounded
// row lengths (the padding no sorting avoids) are the slots of SellpConfig{1, t, 1}.
struct SellpRowCounts {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::function<std::int64_t(const SellpConfig&)> slots;
  // Optional: the configurations the rule may ask for, told before it asks (the device counts
  // them all with one download where a round trip costs more than the counting).
  std::function<void(const std::vector<SellpConfig>&)> prefetch;
  // Filled by a prefetch that counted nested sorted windows on the host (else left empty): the
  // counts sellp_slices may place a sorted layout from.
  std::shared_ptr<SellpWindowCounts> windows;
};
SellpRowCounts sellp_row_counts(const std::vector<index_t>& lengths);

// The sorting window the rule picks for slices of b rows and t threads a row (see below).
index_t sellp_choose_sigma(const SellpRowCounts& rows, int slice_size, int threads_per_row);
inline index_t sellp_choose_sigma(const std::vector<index_t>& lengths, int slice_size,
                                  int threads_per_row) {
  return sellp_choose_sigma(sellp_row_counts(lengths), slice_size, threads_per_row);
}

// The default rule, from the row statistics:
//   t = the largest power of two <= mean row length / 16, in 1..32 (each thread of a row then
//       handles about 16 entries or more: long enough loops, few idle lanes);
//   b = 256 / t clamped to 8..32 (a slice is a warp or more of threads; b <= 32 keeps the
//       padding of a slice to its longest among few rows);
//   sigma = 1 when slicing without sorting pads at most 5% over the t-rounded row lengths (a
//       stencil); otherwise the smallest of 8b, 64b, 512b (capped at the row count) whose
//       slots are within 5% of the best of them and of sigma = 1 (small windows keep y/z
//       accesses local).
SellpConfig sellp_default_config(const SellpRowCounts& rows);
inline SellpConfig sellp_default_config(const std::vector<index_t>& lengths) {
  return sellp_default_config(sellp_row_counts(lengths));
}

// `windows`: the rule's window counts of a's rows (SellpRowCounts::windows), or null.
template <class V>
SellpData<V> sellp_pack(const Csr<V>& a, const SellpConfig& config,
                        const SellpWindowCounts* windows = nullptr);

// The byte model's view of a packed SELL-P matrix: its shape, and how many aligned groups of
// 4, 8 and 16 slots (the 32-byte sectors of 8-, 4- and 2-byte elements) and of b*t slots (the
// chunks) hold an entry. Counted on the host from col_idx (sellp_footprint) or on the device
// by the device build (sellp_cuda.hpp).
struct SellpFootprint {
  SellpConfig config;
  index_t slices = 0;
  std::int64_t padded_slots = 0;
  std::int64_t positions = 0;  // row_length's size: slices * b
  std::int64_t perm_rows = 0;  // perm's size: 0 unsorted
  std::int64_t used_groups_4 = 0;
  std::int64_t used_groups_8 = 0;
  std::int64_t used_groups_16 = 0;
  std::int64_t used_chunks = 0;
};
template <class V>
SellpFootprint sellp_footprint(const SellpData<V>& s);
// The same counts from the layout alone (sellp_slices of `config`), with no slot written: a
// row of length L fills the first L of its t-lane runs chunk by chunk, so a group of g <= t
// slots holds an entry in ceil(L / g) chunks of the row, a group of g = r*t slots (r rows of a
// chunk) in ceil(longest of the r rows / t), and every chunk of a slice holds one of its
// longest row's entries (so does every group of whole chunks, b*t <= g).
SellpFootprint sellp_footprint(const SellpSlices& layout, const SellpConfig& config);

// Byte model, sector-exact as ell_pass_bytes: value sectors holding an entry; column-index
// sectors (2-byte with `deltas`): all of them (sentinel: every slot of a slice is read) or
// those holding an entry (row_length); with deltas, 4 bytes a chunk for its base (all
// chunks, or those holding an entry); plus slice_ptr and slice_chunks, row_length
// (row_length mode), perm (sorted).
template <class V>
std::size_t sellp_bytes(const SellpData<V>& s, EllSkip skip, bool deltas = false);
template <class V>
EllSkip sellp_choose_skip(const SellpData<V>& s, bool deltas = false);
// The same from the footprint (the device build has no host arrays).
template <class V>
std::size_t sellp_bytes(const SellpFootprint& f, EllSkip skip, bool deltas);
template <class V>
EllSkip sellp_choose_skip(const SellpFootprint& f, bool deltas);

// 16-bit column deltas as for ELL (ColumnDeltas), one base per chunk (the b*t slots a
// slice's threads read together). Every slice holds whole chunks, so slot k's base is
// base[k / (b*t)]. Nothing when some chunk's columns span more than delta_max_span.
template <class V>
std::optional<ColumnDeltas> sellp_column_deltas(const SellpData<V>& s);

// OpenMP SELL-P: slices in parallel; results written to the user's rows.
template <class V>
void sellp_spmv_cpu(const SellpData<V>& s, const V* x, const V* y, V* z, V alpha, V beta);

// SELL-P as a registry format. Parameters (each overrides its part of the rule):
//   slice_size (b), threads_per_row (t), sigma, as in SellpConfig;
//   skip      auto | sentinel | row_length (as for ell);
//   index_bits CUDA: auto | 16 | 32 (as for ell);
//   max_fill  refuse (UnsupportedError) when slots > max_fill * nnz (default 64, >= 1).
FormatEntry sellp_format();

template <class V>
std::unique_ptr<Operator<V>> make_sellp_cpu(SellpData<V> s, OperatorInfo info);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_sellp_cuda(const SellpData<V>& s, EllSkip skip,
                                             const ColumnDeltas* deltas, OperatorInfo info);
#endif

}  // namespace spmvkit
