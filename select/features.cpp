// Matrix features for format=auto (model.hpp): O(rows) for the longest row, else O(sampled rows
// + their nonzeros), not O(nnz).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "select/model.hpp"
#include "spmvkit/stats.hpp"

namespace spmvkit::select {

namespace {

constexpr index_t kWindow = 64;  // rows per sample window

// Windows of kWindow rows (start, end), evenly spaced, each starting at a multiple of `align`,
// `sample` rows in all; the whole matrix when it has no more rows.
std::vector<std::pair<index_t, index_t>> sample_windows(index_t rows, index_t align,
                                                        index_t sample = kSampleRows) {
  std::vector<std::pair<index_t, index_t>> w;
  if (rows <= sample) {
    w.emplace_back(0, rows);
    return w;
  }
  const index_t count = sample / kWindow;
  const double step = static_cast<double>(rows) / count;
  for (index_t i = 0; i < count; ++i) {
    index_t start = static_cast<index_t>(i * step) / align * align;
    const index_t len = (kWindow + align - 1) / align * align;
    w.emplace_back(start, std::min<index_t>(rows, start + len));
  }
  return w;
}

// The structure hash's step: one multiply a value (a byte-wise FNV-1a cost 8 a row pointer,
// half the sampling time).
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

// `lengths` in increasing order: a counting sort when the longest is short (the common case),
// else std::sort.
void sort_lengths(std::vector<index_t>& lengths, index_t max_len) {
  if (max_len > 4 * static_cast<index_t>(lengths.size())) {
    std::sort(lengths.begin(), lengths.end());
    return;
  }
  std::vector<index_t> count(static_cast<std::size_t>(max_len) + 1, 0);
  for (index_t len : lengths) ++count[len];
  auto out = lengths.begin();
  for (index_t len = 0; len <= max_len; ++len) out = std::fill_n(out, count[len], len);
}

// bs by core's detect_block_size on the whole matrix when small, else the same test (every
// aligned bs x bs block holding an entry is full) on kBlockSampleRows rows in windows aligned
// to g = gcd(rows, cols, sampled row lengths), read in place: no copy of the sample, no array
// the size of the matrix. A matrix dense-blocked only where the sample looks is taken as
// blocked; the BSR build then finds out (bench records the block size it used).
constexpr index_t kBlockSampleRows = 1024;

// Distinct block columns (col / bs) of rows [r0, r0 + bs): the common case, every row holding
// the same sorted block columns, in one pass a row; any other in a sorted scratch copy.
template <class V>
std::size_t distinct_block_cols(const Csr<V>& a, index_t r0, index_t bs,
                                std::vector<index_t>& first, std::vector<index_t>& scratch) {
  const auto row_blocks = [&](index_t r, std::vector<index_t>& out) {
    out.clear();
    index_t lo = 0, hi = 0;  // the columns of block column out.back(): a division a block
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t c = a.col_idx[k];
      if (!out.empty() && c >= lo && c < hi) continue;
      const index_t bc = c / bs;
      out.push_back(bc);
      lo = bc * bs;
      hi = lo + bs;
    }
  };
  row_blocks(r0, first);
  bool same = std::is_sorted(first.begin(), first.end());
  for (index_t r = r0 + 1; same && r < r0 + bs; ++r) {
    row_blocks(r, scratch);
    same = scratch == first;
  }
  if (same) return first.size();
  scratch.clear();
  for (index_t k = a.row_ptr[r0]; k < a.row_ptr[r0 + bs]; ++k) scratch.push_back(a.col_idx[k] / bs);
  std::sort(scratch.begin(), scratch.end());
  return static_cast<std::size_t>(std::unique(scratch.begin(), scratch.end()) - scratch.begin());
}

template <class V>
int block_size_of(const Csr<V>& a, const std::vector<index_t>& lengths) {
  if (a.nnz() <= (std::int64_t{1} << 16)) return detect_block_size(a);
  index_t g = std::gcd(a.rows, a.cols);
  for (index_t len : lengths) g = std::gcd(g, len);
  if (g < 2) return 1;
  const auto windows = sample_windows(a.rows, g, kBlockSampleRows);
  std::vector<index_t> first, scratch;
  const std::int64_t mean = a.nnz() / a.rows + 1;
  for (index_t bs = std::min<index_t>(g, 64); bs >= 2; --bs) {
    if (g % bs != 0) continue;
    bool dense = true;
    // A block row far longer than the mean (an arrow's dense rows) is passed over: read once
    // a candidate, expand_bs21_arrow's took 706 ms of selection (H100 host, 21e88f8).
    const std::int64_t longest = std::max<std::int64_t>(std::int64_t{1} << 16, 64 * bs * mean);
    for (const auto& [r0, r1] : windows) {
      for (index_t br = r0; dense && br + bs <= r1; br += bs) {
        const std::int64_t entries = a.row_ptr[br + bs] - a.row_ptr[br];
        if (entries > longest) continue;
        dense = static_cast<std::int64_t>(distinct_block_cols(a, br, bs, first, scratch)) *
                    bs * bs == entries;
      }
      if (!dense) break;
    }
    if (dense) return static_cast<int>(bs);
  }
  return 1;
}

}  // namespace

double Features::cv() const { return row_mean > 0 ? std::sqrt(row_variance) / row_mean : 0.0; }

template <class V>
Features measure_features(const Csr<V>& a, std::size_t l2_bytes) {
  Features f;
  f.rows = a.rows;
  f.cols = a.cols;
  f.nnz = a.nnz();
  f.value_bytes = sizeof(V);
  f.l2_bytes = l2_bytes;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  h = mix(mix(mix(h, static_cast<std::uint64_t>(a.rows)), static_cast<std::uint64_t>(a.cols)),
            static_cast<std::uint64_t>(a.nnz()));
  std::vector<index_t> lengths;
  lengths.reserve(static_cast<std::size_t>(std::min<index_t>(a.rows, kSampleRows + kWindow)));
  double slice_pad = 0;  // sum over sampled 32-row slices of 32 * slice max
  for (const auto& [r0, r1] : sample_windows(a.rows, 1)) {
    for (index_t s0 = r0; s0 < r1; s0 += 32) {
      index_t slice_max = 0;
      for (index_t r = s0; r < std::min(r1, s0 + 32); ++r) {
        const index_t len = a.row_ptr[r + 1] - a.row_ptr[r];
        lengths.push_back(len);
        slice_max = std::max(slice_max, len);
        h = mix(h, static_cast<std::uint64_t>(a.row_ptr[r]));
      }
      slice_pad += 32.0 * slice_max;
      // The structure hash reads the slice's row pointers and one column index (a cache miss a
      // slice, not a row).
      const index_t k0 = a.row_ptr[s0], k1 = a.row_ptr[std::min(r1, s0 + 32)];
      if (k1 > k0) h = mix(h, static_cast<std::uint64_t>(a.col_idx[k0 + (k1 - k0) / 2]));
    }
  }
  f.structure_hash = h;
  f.sampled_rows = static_cast<index_t>(lengths.size());
  if (a.rows == 0 || lengths.empty()) return f;
  const double n = static_cast<double>(lengths.size());
  f.row_mean = static_cast<double>(a.nnz()) / a.rows;
  double sq = 0;
  for (index_t len : lengths) sq += (len - f.row_mean) * (len - f.row_mean);
  // Over every row, not the sample: expand_bs17_hangGlider_2 has 17 rows past 1,219 entries
  // among 28K (sampled max 221), and the walk down the longest row is what a row-per-thread or
  // -warp format waits for (csr_vector there took 0.176 ms, the fastest format 0.025).
  f.row_max = longest_row(a);
  f.row_variance = sq / n;
  const double scale = a.rows / n;  // sample -> whole matrix
  const double entry = sizeof(V) + 4.0;
  f.ell_bytes = static_cast<double>(a.rows) * f.row_max * entry;
  f.sellp_bytes = slice_pad * scale * entry + (a.rows / 32.0 + 1) * 4;
  // HEC's ELL width: min over l of w(l) = l*n + p_r*nz(l), p_r = 20 (HEC paper eq. (1)).
  sort_lengths(lengths, f.row_max);
  double best_w = 0, best_bytes = 0, above = 0;
  index_t best_l = 0;
  for (index_t v : lengths) above += v;
  std::size_t i = 0;
  for (index_t l = 0;; l = lengths[i]) {
    while (i < lengths.size() && lengths[i] <= l) above -= lengths[i++];
    const double over = above - static_cast<double>(lengths.size() - i) * l;  // entries past l
    const double w = l * n + 20.0 * over;
    if (l == 0 || w < best_w) {
      best_w = w;
      best_l = l;
      best_bytes = (l * n + over) * entry * scale + (over > 0 ? a.rows * 4.0 : 0);
    }
    if (i >= lengths.size()) break;
  }
  f.hybrid_bytes = best_bytes;
  f.hybrid_width = best_l;
  f.block_size = block_size_of(a, lengths);
  return f;
}

template Features measure_features(const Csr<float>&, std::size_t);
template Features measure_features(const Csr<double>&, std::size_t);

}  // namespace spmvkit::select
