// Matrix features for format=auto (model.hpp): O(sampled rows + their nonzeros), not O(nnz).
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

std::uint64_t fnv1a(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// bs by core's detect_block_size: on the whole matrix when small, else on kBlockSampleRows rows
// in windows aligned to g = gcd(rows, cols, sampled row lengths), so every candidate bs is
// aligned (a sample: a matrix dense-blocked only where the sample looks is taken as blocked, and
// the BSR build then finds out; bench records the block size it used).
constexpr index_t kBlockSampleRows = 4096;

template <class V>
int block_size_of(const Csr<V>& a, const std::vector<index_t>& lengths) {
  if (a.nnz() <= (std::int64_t{1} << 16)) return detect_block_size(a);
  index_t g = std::gcd(a.rows, a.cols);
  for (index_t len : lengths) g = std::gcd(g, len);
  if (g < 2) return 1;
  Csr<V> s;
  s.cols = a.cols;  // row_ptr starts as {0}
  for (const auto& [r0, r1] : sample_windows(a.rows, g, kBlockSampleRows)) {
    if ((r1 - r0) % g != 0) continue;
    for (index_t r = r0; r < r1; ++r) {
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        s.col_idx.push_back(a.col_idx[k]);
        s.values.push_back(a.values[k]);
      }
      s.row_ptr.push_back(static_cast<index_t>(s.col_idx.size()));
    }
  }
  s.rows = static_cast<index_t>(s.row_ptr.size() - 1);
  const int bs = detect_block_size(s);
  return g % bs == 0 ? bs : 1;
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
  h = fnv1a(fnv1a(fnv1a(h, static_cast<std::uint64_t>(a.rows)), static_cast<std::uint64_t>(a.cols)),
            static_cast<std::uint64_t>(a.nnz()));
  std::vector<index_t> lengths;
  double slice_pad = 0;  // sum over sampled 32-row slices of 32 * slice max
  for (const auto& [r0, r1] : sample_windows(a.rows, 1)) {
    for (index_t s0 = r0; s0 < r1; s0 += 32) {
      index_t slice_max = 0;
      for (index_t r = s0; r < std::min(r1, s0 + 32); ++r) {
        const index_t len = a.row_ptr[r + 1] - a.row_ptr[r];
        lengths.push_back(len);
        slice_max = std::max(slice_max, len);
        h = fnv1a(h, static_cast<std::uint64_t>(a.row_ptr[r]));
      }
      slice_pad += 32.0 * slice_max;
      // The structure hash reads the slice's row pointers and one column index (a cache miss a
      // slice, not a row).
      const index_t k0 = a.row_ptr[s0], k1 = a.row_ptr[std::min(r1, s0 + 32)];
      if (k1 > k0) h = fnv1a(h, static_cast<std::uint64_t>(a.col_idx[k0 + (k1 - k0) / 2]));
    }
  }
  f.structure_hash = h;
  f.sampled_rows = static_cast<index_t>(lengths.size());
  if (a.rows == 0 || lengths.empty()) return f;
  const double n = static_cast<double>(lengths.size());
  f.row_mean = static_cast<double>(a.nnz()) / a.rows;
  double sq = 0;
  for (index_t len : lengths) {
    sq += (len - f.row_mean) * (len - f.row_mean);
    f.row_max = std::max(f.row_max, len);
  }
  f.row_variance = sq / n;
  const double scale = a.rows / n;  // sample -> whole matrix
  const double entry = sizeof(V) + 4.0;
  f.ell_bytes = static_cast<double>(a.rows) * f.row_max * entry;
  f.sellp_bytes = slice_pad * scale * entry + (a.rows / 32.0 + 1) * 4;
  // HEC's ELL width: min over l of w(l) = l*n + p_r*nz(l), p_r = 20 (HEC paper eq. (1)).
  std::sort(lengths.begin(), lengths.end());
  double best_w = 0, best_bytes = 0, above = 0;
  for (index_t v : lengths) above += v;
  std::size_t i = 0;
  for (index_t l = 0;; l = lengths[i]) {
    while (i < lengths.size() && lengths[i] <= l) above -= lengths[i++];
    const double over = above - static_cast<double>(lengths.size() - i) * l;  // entries past l
    const double w = l * n + 20.0 * over;
    if (l == 0 || w < best_w) {
      best_w = w;
      best_bytes = (l * n + over) * entry * scale + (over > 0 ? a.rows * 4.0 : 0);
    }
    if (i >= lengths.size()) break;
  }
  f.hybrid_bytes = best_bytes;
  f.block_size = block_size_of(a, lengths);
  return f;
}

template Features measure_features(const Csr<float>&, std::size_t);
template Features measure_features(const Csr<double>&, std::size_t);

}  // namespace spmvkit::select
