// Matrix features for format=auto (model.hpp): O(rows) for the longest row, else O(sampled rows
// + their nonzeros), not O(nnz). The same code reads a host CSR in place, or a device CSR's
// sampled rows gathered to the host in two small downloads (SampledRows), so both give the
// same features, and the same choice, for the same matrix.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "select/model.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#endif

namespace spmvkit::select {

namespace {

constexpr index_t kWindow = 64;  // rows per sample window

// A host CSR's structure as the feature code reads it (not owned).
struct HostRows {
  index_t n_rows = 0, n_cols = 0;
  const index_t* row_ptr = nullptr;  // n_rows + 1 entries
  const index_t* col_idx = nullptr;
  index_t rows() const { return n_rows; }
  index_t cols() const { return n_cols; }
  std::int64_t nnz() const { return std::int64_t{row_ptr[n_rows]} - row_ptr[0]; }
  index_t ptr(index_t r) const { return row_ptr[r]; }
  // Row pointers [r, r + n), contiguous (the length sample reads its windows through it).
  const index_t* ptrs(index_t r, index_t n) const {
    (void)n;
    return row_ptr + r;
  }
  index_t col(std::int64_t k) const { return col_idx[k]; }
  // A hint that col(k) comes soon (never faults, even past the end).
  void prefetch_col(std::int64_t k) const { __builtin_prefetch(col_idx + k); }
  // Column indices [k, k + n), contiguous (the block test reads whole rows through it).
  const index_t* cols(std::int64_t k, std::int64_t n) const {
    (void)n;
    return col_idx + k;
  }
};

using Windows = std::vector<std::pair<index_t, index_t>>;
// Ranges [begin, end) of row pointers or entries (cuda::EntryRanges).
using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Windows of kWindow rows (start, end), evenly spaced, each starting at a multiple of `align`,
// `sample` rows in all, into w (emptied first); the whole matrix when it has no more rows.
const Windows& sample_windows(index_t rows, index_t align, index_t sample, Windows& w) {
  w.clear();
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
// half the sampling time). The row pointers go into four lanes, a row each in turn, joined at
// the end: one chain of steps had waited ~6 cycles a row, a fifth of the sampling pass.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}
constexpr int kHashLanes = 4;

// The sampled row lengths as a histogram: counts of the lengths up to kLengthCap (16 KB of
// counts, kept for the thread: fresh pages cost ~2 us each on the H100 host), the longer ones
// (a power law's few long rows) listed and sorted. Counted in the sampling pass itself: the
// lengths had been pushed into a list, sorted by a counting sort and read three more times
// (~70 instructions a row, most of a small matrix's selection). A 32-row slice of equal lengths
// (a stencil's, a block matrix's rows) is added at once, another slice's rows into four
// histograms in turn, summed by close(): a count incremented a row waited for its own last
// store when the next row had the same length (a third of reservoir_bs2_20's pass).
struct LengthSample {
  static constexpr index_t kLengthCap = 4096;
  static constexpr int kLanes = 4;
  static constexpr std::size_t kCounts = static_cast<std::size_t>(kLengthCap) + 1;
  std::vector<std::int64_t> count;   // kCounts entries, zero between uses
  std::vector<std::int32_t> lanes;   // kLanes x kCounts, zero between uses (at most 2^14 rows)
  std::vector<index_t> longer;
  std::int64_t n = 0;
  index_t cap_used = -1;  // the largest counted length up to kLengthCap, -1: none
  void clear() {
    if (count.size() != kCounts) {
      count.assign(kCounts, 0);
      lanes.assign(kLanes * kCounts, 0);
    } else {
      const std::size_t used = static_cast<std::size_t>(cap_used + 1);
      std::fill(count.begin(), count.begin() + used, 0);
      for (int l = 0; l < kLanes; ++l)
        std::fill_n(lanes.begin() + l * kCounts, used, 0);
    }
    longer.clear();
    n = 0;
    cap_used = -1;
  }
  // `times` rows of length len.
  void add(index_t len, std::int64_t times) {
    n += times;
    if (len <= kLengthCap) {
      count[static_cast<std::size_t>(len)] += times;
      cap_used = std::max(cap_used, len);
    } else {
      longer.insert(longer.end(), static_cast<std::size_t>(times), len);
    }
  }
  // The lengths of rows [0, rows) by their pointers ptr[0, rows], the longest `longest`.
  void add_each(const index_t* ptr, index_t rows, index_t longest) {
    n += rows;
    cap_used = std::max(cap_used, std::min(longest, kLengthCap));
    std::int32_t* c = lanes.data();
    if (longest <= kLengthCap) {
      index_t r = 0;
      for (; r + kLanes <= rows; r += kLanes)
        for (int l = 0; l < kLanes; ++l) ++c[l * kCounts + (ptr[r + l + 1] - ptr[r + l])];
      for (; r < rows; ++r) ++c[ptr[r + 1] - ptr[r]];
      return;
    }
    for (index_t r = 0; r < rows; ++r) {
      const index_t len = ptr[r + 1] - ptr[r];
      if (len <= kLengthCap)
        ++c[len];
      else
        longer.push_back(len);
    }
  }
  // Once every length is added: the histograms summed, the longer lengths in order.
  void close() {
    const std::size_t used = static_cast<std::size_t>(cap_used + 1);
    for (int l = 0; l < kLanes; ++l) {
      std::int32_t* c = lanes.data() + l * kCounts;
      for (std::size_t i = 0; i < used; ++i) {
        count[i] += c[i];
        c[i] = 0;
      }
    }
    std::sort(longer.begin(), longer.end());
  }
  // f(length, how many), lengths increasing (after close()).
  template <class F>
  void each(F&& f) const {
    for (index_t len = 0; len <= cap_used; ++len)
      if (const std::int64_t c = count[static_cast<std::size_t>(len)]; c > 0) f(len, c);
    for (std::size_t i = 0; i < longer.size();) {
      std::size_t j = i;
      while (j < longer.size() && longer[j] == longer[i]) ++j;
      f(longer[i], static_cast<std::int64_t>(j - i));
      i = j;
    }
  }
};

// A run of a device CSR's array gathered to the host: its values [begin, end) lie in the
// gathered store from `at` on.
struct Piece {
  std::int64_t begin = 0, end = 0;
  std::size_t at = 0;  // store[at, at + end - begin)
};

// The thread's buffers for the features, reused by every selection: fresh pages cost ~2 us
// each on the H100 host (0.3-0.6 ms a selection when the gathered store was allocated a call),
// and with the lists a selection made afresh it took 25-37 page faults at 1e8 nonzeros after a
// large build's frees had trimmed the heap (H200 host, 3727d80; none since).
struct Buffers {
  LengthSample lengths;
  std::vector<index_t> store;  // the values gathered from a device CSR (SampledRows)
  Windows windows, block_windows, scratch_windows;
  Ranges ranges, slices, missing;
  std::vector<Piece> ptr_pieces, mid_pieces, col_pieces, kept;
};
Buffers& buffers() {
  static thread_local Buffers b;
  return b;
}

// bs by core's detect_block_size on the whole matrix when small, else the same test (every
// aligned bs x bs block holding an entry is full) on kBlockSampleRows rows in windows aligned
// to g = gcd(rows, cols, sampled row lengths), read in place (a host CSR) or gathered (a device
// CSR): no array the size of the matrix. A matrix dense-blocked only where the sample looks is
// taken as blocked; the BSR build then finds out (bench records the block size it used).
constexpr index_t kBlockSampleRows = 1024;

// Distinct block columns (col / bs) of rows [r0, r0 + bs): the common case, every row holding
// the same sorted block columns, in one pass a row; rows of other sorted block columns merged
// (an arrow's dense row beside short ones: its block columns had been sorted with the others',
// 3.8 ms of arrow's features on this machine's core, 4.1 ms of auto's selection on the H200's
// host); any other in a sorted scratch copy.
template <class R>
std::size_t distinct_block_cols(const R& a, index_t r0, index_t bs, std::vector<index_t>& first,
                                std::vector<index_t>& scratch) {
  const auto increasing = [](const std::vector<index_t>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::greater_equal<index_t>()) == v.end();
  };
  // c / bs by a multiply and one correction (a division a block had been a tenth of the test).
  const double inv_bs = 1.0 / bs;
  const auto block_of = [bs, inv_bs](index_t c) {
    index_t q = static_cast<index_t>(c * inv_bs);
    if (std::int64_t{q} * bs > c) --q;
    if (std::int64_t{q} * bs + bs <= c) ++q;
    return q;
  };
  const auto row_blocks = [&](index_t r, std::vector<index_t>& out) {
    out.clear();
    const index_t begin = a.ptr(r), n = a.ptr(r + 1) - begin;
    const index_t* cols = a.cols(begin, n);
    // Strictly increasing columns (one pass without a branch): a block column's entries are
    // one run, stepped over whole where it fills the block, else ended by a binary search.
    // An entry at a time had been most of the block test (reservoir_bs20_8: 2/3 of its
    // features).
    index_t descents = 0;  // a sum, which the compiler vectorises (a flag's and it did not)
    for (index_t k = 1; k < n; ++k) descents += cols[k] <= cols[k - 1];
    if (descents == 0) {
      for (index_t k = 0; k < n;) {
        const index_t c = cols[k], bc = block_of(c);
        out.push_back(bc);
        // A full block: the next one bs entries on (the step waits for no load; the test is
        // the branch's).
        if (n - k >= bs && c == bc * bs && cols[k + bs - 1] - c == bs - 1) {
          k += bs;
          continue;
        }
        // At most hi - c entries lie in the block.
        const std::int64_t hi = std::int64_t{bc} * bs + bs;  // past the block's columns
        const index_t most = static_cast<index_t>(std::min<std::int64_t>(n - k, hi - c));
        k = static_cast<index_t>(std::lower_bound(cols + k + 1, cols + k + most, hi) - cols);
      }
      return;
    }
    index_t lo = 0, hi = 0;  // the columns of block column out.back(): a division a block
    for (index_t k = 0; k < n; ++k) {
      const index_t c = cols[k];
      if (!out.empty() && c >= lo && c < hi) continue;
      const index_t bc = c / bs;
      out.push_back(bc);
      lo = bc * bs;
      hi = lo + bs;
    }
  };
  row_blocks(r0, first);
  const bool first_sorted = increasing(first);
  bool same = first_sorted;
  index_t r = r0 + 1;
  for (; same && r < r0 + bs; ++r) {
    row_blocks(r, scratch);
    same = scratch == first;
  }
  if (same) return first.size();
  if (first_sorted && increasing(scratch)) {  // row r - 1 differs: merge from there
    std::vector<index_t> merged, next;
    std::set_union(first.begin(), first.end(), scratch.begin(), scratch.end(),
                   std::back_inserter(merged));
    bool sorted = true;
    for (; sorted && r < r0 + bs; ++r) {
      row_blocks(r, scratch);
      sorted = increasing(scratch);
      next.clear();
      std::set_union(merged.begin(), merged.end(), scratch.begin(), scratch.end(),
                     std::back_inserter(next));
      merged.swap(next);
    }
    if (sorted) return merged.size();
  }
  scratch.clear();
  const index_t begin = a.ptr(r0), n = a.ptr(r0 + bs) - begin;
  const index_t* cols = a.cols(begin, n);
  for (index_t k = 0; k < n; ++k) scratch.push_back(cols[k] / bs);
  std::sort(scratch.begin(), scratch.end());
  return static_cast<std::size_t>(std::unique(scratch.begin(), scratch.end()) - scratch.begin());
}

// g = gcd(rows, cols, sampled row lengths): the block sizes to try divide it. One gcd a
// distinct length (one a row had taken 0.2 ms of auto's selection, H100 host).
index_t block_gcd(index_t rows, index_t cols, const LengthSample& lengths) {
  index_t g = std::gcd(rows, cols);
  lengths.each([&](index_t len, std::int64_t) {
    if (g > 1) g = std::gcd(g, len);
  });
  return g;
}

// A block row of more entries than this (block size bs, `mean` entries a row rounded up) is
// passed over: an arrow's dense rows. Read once a candidate, expand_bs21_arrow's took 706 ms
// of selection (H100 host, 21e88f8).
std::int64_t longest_block_row(index_t bs, std::int64_t mean) {
  return std::max<std::int64_t>(std::int64_t{1} << 16, 64 * bs * mean);
}

// Column indices the block test reads at most: its windows are taken in order while their
// rows fit. 1,024 rows of reservoir_bs32_24 hold 885K entries, whose gather and test took
// 2 ms of auto's selection (H100).
constexpr std::int64_t kMaxBlockSampleEntries = std::int64_t{1} << 17;

// The block test's windows (kBlockSampleRows rows aligned to g >= 2) while the columns of the
// rows the test may read fit kMaxBlockSampleEntries (a row longer than every candidate's
// longest block row is in a block row the test passes over), into `windows`; `cols`, when
// given, gets those rows' entry ranges. The same for a host and a device CSR.
template <class R>
const Windows& block_test_windows(const R& a, index_t g, Ranges* cols, Windows& windows) {
  sample_windows(a.rows(), g, kBlockSampleRows, windows);
  const std::int64_t cap = longest_block_row(std::min<index_t>(g, 64), a.nnz() / a.rows() + 1);
  std::int64_t taken_entries = 0;
  std::size_t taken = 0;
  for (const auto& [r0, r1] : windows) {
    std::int64_t entries = 0;
    const std::size_t before = cols ? cols->size() : 0;
    for (index_t r = r0; r < r1; ++r) {
      const index_t b = a.ptr(r), e = a.ptr(r + 1);
      if (e - b > cap || e == b) continue;
      entries += e - b;
      if (cols) cols->emplace_back(b, e);
    }
    if (taken_entries + entries > kMaxBlockSampleEntries && taken > 0) {
      if (cols) cols->resize(before);
      break;
    }
    taken_entries += entries;
    ++taken;
  }
  windows.resize(taken);
  return windows;
}

// The sampled block test (above) on `windows`, aligned to g >= 2.
template <class R>
int sampled_block_size(const R& a, index_t g,
                       const std::vector<std::pair<index_t, index_t>>& windows) {
  std::vector<index_t> first, scratch;
  const std::int64_t mean = a.nnz() / a.rows() + 1;
  for (index_t bs = std::min<index_t>(g, 64); bs >= 2; --bs) {
    if (g % bs != 0) continue;
    bool dense = true;
    const std::int64_t longest = longest_block_row(bs, mean);
    for (const auto& [r0, r1] : windows) {
      for (index_t br = r0; dense && br + bs <= r1; br += bs) {
        const std::int64_t entries = a.ptr(br + bs) - a.ptr(br);
        if (entries > longest) continue;
        dense =
            static_cast<std::int64_t>(distinct_block_cols(a, br, bs, first, scratch)) * bs * bs ==
            entries;
      }
      if (!dense) break;
    }
    if (dense) return static_cast<int>(bs);
  }
  return 1;
}

// Every feature but the block size and the longest row, from the length sample's windows
// (sample_windows(rows, 1)) read through `a`; `lengths` gets the sampled row lengths.
template <class R>
Features sampled_features(const R& a, int value_bytes, std::size_t l2_bytes, index_t row_max,
                          LengthSample& lengths) {
  Features f;
  f.rows = a.rows();
  f.cols = a.cols();
  f.nnz = a.nnz();
  f.value_bytes = value_bytes;
  f.l2_bytes = l2_bytes;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  h = mix(mix(mix(h, static_cast<std::uint64_t>(f.rows)), static_cast<std::uint64_t>(f.cols)),
          static_cast<std::uint64_t>(f.nnz));
  std::uint64_t lane[kHashLanes];
  for (int l = 0; l < kHashLanes; ++l) lane[l] = mix(h, static_cast<std::uint64_t>(l));
  lengths.clear();
  double slice_pad = 0;   // sum over sampled 32-row slices of 32 * slice max
  double offset_sum = 0;  // over slices with entries: |middle entry's column - diagonal| / cols
  std::size_t offsets = 0;
  index_t sample_max = 0;
  const double diagonal = f.rows > 0 ? static_cast<double>(f.cols) / f.rows : 0.0;
  for (const auto& [r0, r1] : sample_windows(f.rows, 1, kSampleRows, buffers().windows)) {
    // The window's row pointers as one span (one lookup a window, not three a row).
    const index_t* ptr = a.ptrs(r0, r1 - r0 + 1);
    // The slices' middle columns asked for first: each is a cache miss of its own, and a
    // slice's work between two is too long for the core to overlap them (a small matrix's
    // features with the caches cold, this machine: rajat01 0.072 -> 0.042 ms, bcsstk13 0.032 ->
    // 0.016).
    for (index_t s0 = 0; s0 < r1 - r0; s0 += 32) {
      const index_t s1 = std::min(r1 - r0, s0 + 32);
      a.prefetch_col(ptr[s0] + (ptr[s1] - ptr[s0]) / 2);
    }
    for (index_t s0 = 0; s0 < r1 - r0; s0 += 32) {
      const index_t s1 = std::min(r1 - r0, s0 + 32);
      index_t slice_max = 0, slice_min = std::numeric_limits<index_t>::max();
      for (index_t r = s0; r < s1; ++r) {
        const index_t len = ptr[r + 1] - ptr[r];
        slice_max = std::max(slice_max, len);
        slice_min = std::min(slice_min, len);
      }
      if (slice_min == slice_max)
        lengths.add(slice_max, s1 - s0);
      else
        lengths.add_each(ptr + s0, s1 - s0, slice_max);
      index_t r = s0;
      for (; r + kHashLanes <= s1; r += kHashLanes)
        for (int l = 0; l < kHashLanes; ++l)
          lane[l] = mix(lane[l], static_cast<std::uint64_t>(ptr[r + l]));
      for (; r < s1; ++r) lane[0] = mix(lane[0], static_cast<std::uint64_t>(ptr[r]));
      slice_pad += 32.0 * slice_max;
      sample_max = std::max(sample_max, slice_max);
      // The structure hash reads the slice's row pointers and one column index (a cache miss a
      // slice, not a row).
      const index_t k0 = ptr[s0], k1 = ptr[s1];
      if (k1 > k0) {
        const index_t c = a.col(k0 + (k1 - k0) / 2);
        lane[0] = mix(lane[0], static_cast<std::uint64_t>(c));
        offset_sum += std::abs(c - 0.5 * (2 * r0 + s0 + s1) * diagonal);
        ++offsets;
      }
    }
  }
  lengths.close();
  for (int l = 0; l < kHashLanes; ++l) h = mix(h, lane[l]);
  f.structure_hash = h;
  f.diagonal_offset = offsets > 0 && f.cols > 0 ? offset_sum / offsets / f.cols : 0.0;
  f.sampled_rows = static_cast<index_t>(lengths.n);
  if (f.rows == 0 || lengths.n == 0) return f;
  const double n = static_cast<double>(lengths.n);
  f.row_mean = static_cast<double>(f.nnz) / f.rows;
  // Over every row, not the sample: expand_bs17_hangGlider_2 has 17 rows past 1,219 entries
  // among 28K (sampled max 221), and the walk down the longest row is what a row-per-thread or
  // -warp format waits for (csr_vector there took 0.176 ms, the fastest format 0.025). The
  // sample's when it holds every row (row_max < 0).
  f.row_max = row_max < 0 ? sample_max : row_max;
  const double scale = f.rows / n;  // sample -> whole matrix
  const double entry = value_bytes + 4.0;
  f.ell_bytes = static_cast<double>(f.rows) * f.row_max * entry;
  f.sellp_bytes = slice_pad * scale * entry + (f.rows / 32.0 + 1) * 4;
  // The variance about the whole matrix's mean, and HEC's ELL width: min over l of
  // w(l) = l*n + p_r*nz(l), p_r = 20 (HEC paper eq. (1)), l over 0 and the sampled lengths.
  double sq = 0, above = 0;
  std::int64_t left = lengths.n;  // lengths longer than l
  lengths.each([&](index_t len, std::int64_t c) {
    sq += c * ((len - f.row_mean) * (len - f.row_mean));
    above += static_cast<double>(len) * c;
  });
  f.row_variance = sq / n;
  double best_w = 0, best_bytes = 0;
  index_t best_l = 0;
  const auto consider = [&](index_t l) {
    const double over = above - static_cast<double>(left) * l;  // entries past l
    const double w = l * n + 20.0 * over;
    if (l == 0 || w < best_w) {
      best_w = w;
      best_l = l;
      best_bytes = (l * n + over) * entry * scale + (over > 0 ? f.rows * 4.0 : 0);
    }
  };
  bool zero_seen = false;
  lengths.each([&](index_t len, std::int64_t c) {
    if (!zero_seen && len > 0) consider(0);  // l = 0 first, with no length removed
    zero_seen = true;
    above -= static_cast<double>(len) * c;
    left -= c;
    consider(len);
  });
  f.hybrid_bytes = best_bytes;
  f.hybrid_width = best_l;
  return f;
}

// A matrix of at most this many entries has its block size by core's detect_block_size on the
// whole of it (a device CSR is downloaded whole).
constexpr std::int64_t kSmallNnz = std::int64_t{1} << 16;

#if SPMVKIT_HAVE_CUDA
// Sampled rows of a device CSR on the host, read through HostRows' interface: the row pointer
// over some row ranges, one column index a 32-row slice of the length sample (the structure
// hash's, col), and the column indices over the block test's rows (cols). A read outside what
// was gathered is the caller's defect (logic_error). Its lists are the thread's Buffers.
struct SampledRows {
  index_t n_rows = 0, n_cols = 0;
  std::int64_t n_nnz = 0;
  Buffers& buf;
  std::vector<Piece>&ptr_pieces, &mid_pieces, &col_pieces;  // each sorted by begin, disjoint
  // The gathered values (Buffers' store, its pages kept for the thread). Pieces index it (it
  // may move when it grows).
  std::vector<index_t>& store;
  std::size_t used = 0;

  explicit SampledRows(Buffers& b)
      : buf(b),
        ptr_pieces(b.ptr_pieces),
        mid_pieces(b.mid_pieces),
        col_pieces(b.col_pieces),
        store(b.store) {
    ptr_pieces.clear();
    mid_pieces.clear();
    col_pieces.clear();
  }
  index_t rows() const { return n_rows; }
  index_t cols() const { return n_cols; }
  std::int64_t nnz() const { return n_nnz; }
  index_t ptr(index_t r) const { return *find(ptr_pieces, ptr_at, r, "row pointer"); }
  index_t col(std::int64_t k) const { return *find(mid_pieces, mid_at, k, "column index"); }
  void prefetch_col(std::int64_t) const {}  // its columns are in the gathered store already
  const index_t* ptrs(index_t r, index_t n) const {
    return span(ptr_pieces, ptr_at, r, n, "row pointers");
  }
  const index_t* cols(std::int64_t k, std::int64_t n) const {
    return span(col_pieces, col_at, k, n, "column indices");
  }
  // Values [i, i + n) of one piece (nullptr for n <= 0).
  const index_t* span(const std::vector<Piece>& pieces, std::size_t& at, std::int64_t i,
                      std::int64_t n, const char* what) const {
    if (n <= 0) return nullptr;
    const index_t* first = find(pieces, at, i, what);
    if (i + n > pieces[at].end)
      throw std::logic_error(std::string("auto features: ") + what + " " + std::to_string(i) +
                             ".." + std::to_string(i + n) + " were not gathered in one piece");
    return first;
  }

  // The piece `at` (the last one read: the readers walk rows and entries in order) when it
  // holds i, else a binary search. A search every read had taken 3-5 ms of auto's selection on
  // the H100 host (the block test reads every column of its ~1,000 rows).
  const index_t* find(const std::vector<Piece>& pieces, std::size_t& at, std::int64_t i,
                      const char* what) const {
    if (at >= pieces.size() || i < pieces[at].begin || i >= pieces[at].end) {
      auto it = std::upper_bound(pieces.begin(), pieces.end(), i,
                                 [](std::int64_t v, const Piece& p) { return v < p.begin; });
      if (it == pieces.begin() || i >= (it - 1)->end)
        throw std::logic_error(std::string("auto features: ") + what + " " + std::to_string(i) +
                               " was not gathered");
      at = static_cast<std::size_t>(it - pieces.begin()) - 1;
    }
    return store.data() + pieces[at].at + static_cast<std::size_t>(i - pieces[at].begin);
  }
  mutable std::size_t ptr_at = 0, mid_at = 0, col_at = 0;

  // Room for n more values in store; their position.
  std::size_t take(std::size_t n) {
    if (used + n > store.size()) store.resize(std::max(used + n, 2 * store.size()));
    used += n;
    return used - n;
  }

  // `ranges` sorted and merged in place (overlapping or touching ranges joined, empty ones
  // dropped).
  static void merge(Ranges& ranges) {
    std::sort(ranges.begin(), ranges.end());
    std::size_t out = 0;
    for (const auto& r : ranges) {
      if (r.second <= r.first) continue;
      if (out > 0 && r.first <= ranges[out - 1].second)
        ranges[out - 1].second = std::max(ranges[out - 1].second, r.second);
      else
        ranges[out++] = r;
    }
    ranges.resize(out);
  }

  // Pieces for `ranges` (merged) whose values lie in store from `at` on, in order, added to out.
  static void add_pieces(const Ranges& ranges, std::size_t at, std::vector<Piece>& out) {
    for (const auto& [b, e] : ranges) {
      out.push_back({b, e, at});
      at += static_cast<std::size_t>(e - b);
    }
  }

  // `ranges` (merged here) of device `src` into `pieces`, by one download of the ones no piece
  // holds whole (none: no download). Such a range is gathered joined with the pieces it meets.
  void add(std::vector<Piece>& pieces, Ranges& ranges, const index_t* src) {
    merge(ranges);
    Ranges& missing = buf.missing;
    missing.clear();
    for (const auto& r : ranges) {
      auto it = std::upper_bound(pieces.begin(), pieces.end(), r.first,
                                 [](std::int64_t v, const Piece& p) { return v < p.begin; });
      if (it == pieces.begin() || r.second > (it - 1)->end) missing.push_back(r);
    }
    if (missing.empty()) return;
    std::vector<Piece>& kept = buf.kept;
    kept.clear();
    for (const Piece& p : pieces) {
      const bool meets = std::any_of(missing.begin(), missing.end(), [&](const auto& r) {
        return p.begin <= r.second && r.first <= p.end;
      });
      if (meets)
        missing.emplace_back(p.begin, p.end);
      else
        kept.push_back(p);
    }
    merge(missing);
    std::size_t n = 0;
    for (const auto& [b, e] : missing) n += static_cast<std::size_t>(e - b);
    const std::size_t at = take(n);
    cuda::gather_ranges(src, missing, store.data() + at);
    add_pieces(missing, at, kept);
    std::sort(kept.begin(), kept.end(),
              [](const Piece& x, const Piece& y) { return x.begin < y.begin; });
    pieces.swap(kept);
  }
};

// The block test's windows (sample_windows(rows, g, kBlockSampleRows)) for every g <= 64 that
// divides gcd(rows, cols), as block_gcd's g does, added to `ranges`: gathered with the length
// sample, the row pointers of the windows for the g found later (none where rows and cols are
// coprime). Window i of every g holds row i * rows / windows (it starts at most g - 1 rows
// before it and is at least g rows long), so window i over every g is one range: 16 ranges,
// not 16 a g (23 g's divide reservoir_bs7_66's rows; sorting their ranges with the length
// sample's took 0.05 ms of auto's selection, H200 host).
void add_block_rows_any_g(index_t rows, index_t cols, Ranges& ranges, Windows& scratch) {
  const index_t d = std::gcd(rows, cols);
  const std::size_t first = ranges.size();
  for (index_t g = 2; g <= 64; ++g) {
    if (d % g != 0) continue;
    const Windows& w = sample_windows(rows, g, kBlockSampleRows, scratch);
    if (ranges.size() == first) {
      for (const auto& [r0, r1] : w) ranges.emplace_back(r0, std::int64_t{r1} + 1);
      continue;
    }
    for (std::size_t i = 0; i < w.size(); ++i) {
      auto& r = ranges[first + i];
      r.first = std::min<std::int64_t>(r.first, w[i].first);
      r.second = std::max<std::int64_t>(r.second, std::int64_t{w[i].second} + 1);
    }
  }
}

#endif

// `v` at least n long once, its pages touched, then emptied (its capacity kept).
template <class T>
void touch(std::vector<T>& v, std::size_t n) {
  if (v.capacity() >= n) return;
  v.resize(n);
  v.clear();
}

}  // namespace

void prepare_features() {
  // Touched now (resize writes every element): the length histograms, the length sample's row
  // pointers with the block test's largest column gather, and the lists of a selection at
  // their largest: the length sample's windows; the block test's rows, a range each (16
  // windows of under 2 x kWindow rows aligned to g <= 64), which also bound the 32-row slices
  // and the pieces.
  Buffers& b = buffers();
  b.lengths.clear();
  const auto want = static_cast<std::size_t>(2 * kSampleRows + kMaxBlockSampleEntries);
  if (b.store.size() < want) b.store.resize(want);
  const auto windows = static_cast<std::size_t>(kSampleRows / kWindow);
  const auto rows = static_cast<std::size_t>(2 * kBlockSampleRows);
  for (Windows* w : {&b.windows, &b.block_windows, &b.scratch_windows}) touch(*w, windows);
  for (Ranges* r : {&b.ranges, &b.slices, &b.missing}) touch(*r, rows);
  for (std::vector<Piece>* p : {&b.ptr_pieces, &b.mid_pieces, &b.col_pieces, &b.kept})
    touch(*p, rows);
}

double Features::cv() const { return row_mean > 0 ? std::sqrt(row_variance) / row_mean : 0.0; }

namespace {

// measure_features from a host structure, for values of `value_bytes` bytes.
Features measure_host_features(const HostRows& rows, int value_bytes, std::size_t l2_bytes) {
  index_t longest = -1;  // the length sample's, where it holds every row
  if (rows.n_rows > kSampleRows) {
    longest = 0;
    for (index_t r = 0; r < rows.n_rows; ++r)
      longest = std::max(longest, rows.row_ptr[r + 1] - rows.row_ptr[r]);
  }
  Buffers& buf = buffers();
  LengthSample& lengths = buf.lengths;
  Features f = sampled_features(rows, value_bytes, l2_bytes, longest, lengths);
  if (f.rows == 0 || lengths.n == 0) return f;
  if (rows.nnz() <= kSmallNnz) {
    f.block_size = detect_block_size(rows.n_rows, rows.n_cols, rows.row_ptr, rows.col_idx);
    return f;
  }
  const index_t g = block_gcd(rows.n_rows, rows.n_cols, lengths);
  f.block_size =
      g < 2 ? 1
            : sampled_block_size(rows, g, block_test_windows(rows, g, nullptr, buf.block_windows));
  return f;
}

}  // namespace

template <class V>
Features measure_features(const Csr<V>& a, std::size_t l2_bytes) {
  return measure_host_features(HostRows{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data()},
                               static_cast<int>(sizeof(V)), l2_bytes);
}

template <class V>
Features measure_features(const DeviceCsrView<V>& a, std::size_t l2_bytes) {
#if SPMVKIT_HAVE_CUDA
  if (a.nnz <= kSmallNnz) {
    // The registry's upload of a small host matrix: its structure is still on the host
    // (host_mirror.hpp), read from there instead of downloaded (measure_features reads the
    // row pointer and the columns only, so the values stay out).
    const index_t* h = cuda::host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1);
    const index_t* hc = cuda::host_col_idx(a.col_idx);
    if (h && (hc || a.nnz == 0))
      return measure_host_features(HostRows{a.rows, a.cols, h, hc}, static_cast<int>(sizeof(V)),
                                   l2_bytes);
    return measure_features(cuda::download_csr(a), l2_bytes);
  }
  // Two round trips: 1, the length sample's row pointers with the block test's for any g <= 64
  // dividing gcd(rows, cols), one column index a 32-row slice (the hash's) and the longest row;
  // 2, the block test's column indices. A g over 64 adds one for its windows' row pointers.
  Buffers& buf = buffers();
  SampledRows s(buf);
  s.n_rows = a.rows;
  s.n_cols = a.cols;
  s.n_nnz = a.nnz;
  cuda::build_phase("features_sample");
  Ranges& ranges = buf.ranges;
  Ranges& slices = buf.slices;
  ranges.clear();
  slices.clear();
  add_block_rows_any_g(a.rows, a.cols, ranges, buf.scratch_windows);
  for (const auto& [r0, r1] : sample_windows(a.rows, 1, kSampleRows, buf.windows)) {
    ranges.emplace_back(r0, std::int64_t{r1} + 1);
    for (index_t s0 = r0; s0 < r1; s0 += 32) slices.emplace_back(s0, std::min(r1, s0 + 32));
  }
  SampledRows::merge(ranges);
  cuda::build_phase("features_gather");
  std::size_t n = slices.size() + 1;
  for (const auto& [b, e] : ranges) n += static_cast<std::size_t>(e - b);
  const std::size_t at = s.take(n);
  const index_t longest = cuda::sample_rows(a, ranges, slices, s.store.data() + at);
  SampledRows::add_pieces(ranges, at, s.ptr_pieces);
  std::size_t mid = at + n - 1 - slices.size();
  for (const auto& [s0, s1] : slices) {
    const index_t k0 = s.ptr(static_cast<index_t>(s0)), k1 = s.ptr(static_cast<index_t>(s1));
    if (k1 > k0) s.mid_pieces.push_back({k0 + (k1 - k0) / 2, k0 + (k1 - k0) / 2 + 1, mid});
    ++mid;
  }
  cuda::build_phase("features_sampled");
  LengthSample& lengths = buf.lengths;
  Features f = sampled_features(s, sizeof(V), l2_bytes, longest, lengths);
  if (f.rows == 0 || lengths.n == 0) return f;
  const index_t g = block_gcd(a.rows, a.cols, lengths);
  if (g < 2) return f;
  cuda::build_phase("features_block_rows");
  ranges.clear();
  for (const auto& [r0, r1] : sample_windows(a.rows, g, kBlockSampleRows, buf.scratch_windows))
    ranges.emplace_back(r0, std::int64_t{r1} + 1);
  s.add(s.ptr_pieces, ranges, a.row_ptr);
  ranges.clear();
  const Windows& block_windows = block_test_windows(s, g, &ranges, buf.block_windows);
  cuda::build_phase("features_block_cols");
  s.add(s.col_pieces, ranges, a.col_idx);
  cuda::build_phase("features_block_test");
  f.block_size = block_windows.empty() ? 1 : sampled_block_size(s, g, block_windows);
  return f;
#else
  (void)a;
  (void)l2_bytes;
  throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
}

template Features measure_features(const Csr<float>&, std::size_t);
template Features measure_features(const Csr<double>&, std::size_t);
template Features measure_features(const DeviceCsrView<float>&, std::size_t);
template Features measure_features(const DeviceCsrView<double>&, std::size_t);

}  // namespace spmvkit::select
