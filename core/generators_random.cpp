// Random-structure generators (generators.hpp): power-law, banded, uniform random and block
// expansion, built row by row (core/generator_rows.hpp) from counter-based random numbers.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/generator_rows.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {

using namespace detail;

namespace {

// A bijection of [0, n) drawn from the seed: a 4-round Feistel network over the next even
// power of two, cycle-walking back into range (each step stays a bijection, and at most 4x
// the domain means under 4 steps on average). Shuffles rows with no O(n) array and no serial
// Fisher-Yates pass.
class SeededPermutation {
 public:
  SeededPermutation(std::uint64_t n, std::uint64_t seed) : n_(n) {
    int bits = 0;
    while (bits < 62 && (std::uint64_t{1} << bits) < n) ++bits;
    half_bits_ = std::max(1, (bits + 1) / 2);
    mask_ = (std::uint64_t{1} << half_bits_) - 1;
    for (int k = 0; k < kRounds; ++k)
      keys_[k] = mix64(seed ^ mix64(static_cast<std::uint64_t>(Stream::permutation) * kGolden + k));
  }

  std::uint64_t operator()(std::uint64_t i) const {
    do i = feistel(i);
    while (i >= n_);
    return i;
  }

 private:
  static constexpr int kRounds = 4;
  std::uint64_t feistel(std::uint64_t i) const {
    std::uint64_t left = i >> half_bits_, right = i & mask_;
    for (int k = 0; k < kRounds; ++k) {
      const std::uint64_t f = mix64(right ^ keys_[k]) & mask_;
      left ^= f;
      std::swap(left, right);
    }
    return (left << half_bits_) | right;
  }

  std::uint64_t n_;
  int half_bits_ = 1;
  std::uint64_t mask_ = 1;
  std::uint64_t keys_[kRounds] = {};
};

// Most rows are short: insertion sort beats std::sort's dispatch there.
inline void sort_columns(index_t* first, index_t* last) {
  if (last - first > 32) {
    std::sort(first, last);
    return;
  }
  for (index_t* i = first + 1; i < last; ++i) {
    const index_t v = *i;
    index_t* j = i;
    for (; j > first && j[-1] > v; --j) *j = j[-1];
    *j = v;
  }
}

// Writes `count` distinct sorted columns of [lo, hi) to out, `forced` among them when
// forced >= 0 (it must lie in [lo, hi)). Dense requests (count >= width / 4) use selection
// sampling (Knuth's algorithm S: one pass, sorted by construction, O(width) <= 4 * count);
// sparse ones draw `draw(rng, round)` candidates, sort and drop duplicates, and draw again for
// the shortfall. `draw` must reach all of [lo, hi) by round 2 so the loop ends.
template <class Draw>
void distinct_columns(RowRng& rng, index_t lo, index_t hi, index_t forced, index_t count,
                      index_t* out, Draw draw) {
  const index_t width = hi - lo;
  if (count == 0) return;
  if (static_cast<std::int64_t>(count) * 4 >= width) {
    std::int64_t needed = count - (forced >= 0 ? 1 : 0);
    std::int64_t remaining = width - (forced >= 0 ? 1 : 0);
    index_t m = 0;
    for (index_t c = lo; c < hi; ++c) {
      if (c == forced) {
        out[m++] = c;
        continue;
      }
      if (static_cast<double>(remaining) * rng.uniform() < static_cast<double>(needed)) {
        out[m++] = c;
        --needed;
      }
      --remaining;
    }
    return;
  }
  index_t m = 0;
  if (forced >= 0) out[m++] = forced;
  for (int round = 0; m < count; ++round) {
    for (index_t k = m; k < count; ++k) out[k] = draw(rng, round);
    if (round == 0) {
      sort_columns(out, out + count);
    } else {  // the first m are sorted already
      sort_columns(out + m, out + count);
      std::inplace_merge(out, out + m, out + count);
    }
    m = static_cast<index_t>(std::unique(out, out + count) - out);
  }
}

// --- power law ------------------------------------------------------------------------------

// Zipf's law by rank: the k-th longest row (k = 0 first) has max_row * (k + 1)^-alpha entries,
// rounded, at least 1. Lengths are these expected order statistics rather than samples, so
// the longest row is exactly max_row and nnz lands within a fraction of a percent of target.
index_t zipf_length(double max_row, double alpha, std::int64_t rank) {
  const double len = std::round(max_row * std::pow(static_cast<double>(rank + 1), -alpha));
  return static_cast<index_t>(std::clamp(len, 1.0, max_row));
}

// Sum of zipf_length over ranks [0, rows): exact over the first ranks, the rest by the
// integral of max(1, M x^-alpha) (midpoint rule; the tail is smooth and its rounding averages
// out). O(1) in rows, so alpha can be found by bisection before any row is made.
double zipf_total(std::int64_t rows, double max_row, double alpha) {
  const std::int64_t head = std::min<std::int64_t>(rows, 4096);
  double total = 0;
  for (std::int64_t k = 0; k < head; ++k) total += zipf_length(max_row, alpha, k);
  if (head == rows) return total;
  const double lo = static_cast<double>(head) + 0.5, hi = static_cast<double>(rows) + 0.5;
  if (alpha < 1e-12) return total + max_row * (hi - lo);
  const double x1 = std::pow(max_row, 1.0 / alpha);  // where M x^-alpha falls to 1
  const double u = std::clamp(x1, lo, hi);
  const double power_part =
      std::abs(1.0 - alpha) < 1e-9
          ? max_row * std::log(u / lo)
          : max_row * (std::pow(u, 1.0 - alpha) - std::pow(lo, 1.0 - alpha)) / (1.0 - alpha);
  return total + power_part + (hi - u);
}

// Where the power-law generator puts a row's columns (see generate_powerlaw for why).
struct PowerlawLayout {
  double local_fraction = 0.75;   // share of off-diagonal draws inside the local window
  index_t min_half_window = 512;  // local window: row +- max(min_half_window,
  index_t window_per_entry = 8;   //                        window_per_entry * row length)
};
constexpr PowerlawLayout kPowerlawLayout{};

}  // namespace

// The BSR paper's experiment (section 6.1): each nonzero becomes a dense bs x bs block.
// Values v * (1 + u / 10), u uniform in [-1, 1) per entry, so blocks are not rank-one copies.
// Rows [r0, r1) of the expansion are made from rows [r0 / bs, r1 / bs) of the matrix, which
// `a` holds from its row a_first on (a_first = 0, a whole: block_expand).
Csr<double> detail::expand_rows(const Csr<double>& a, index_t a_first, index_t global_rows,
                                int block_size, std::uint64_t seed, index_t r0, index_t r1) {
  const std::string what = "block expansion (bs " + std::to_string(block_size) + ")";
  if (block_size < 1) fail(what, "block size must be >= 1 (got ", block_size, ")");
  const std::int64_t bs = block_size;
  if (global_rows * bs > kMaxIndex || a.cols * bs > kMaxIndex)
    fail(what, global_rows, " x ", a.cols, " times ", bs, " exceeds 2^31 - 1 rows or columns");
  const index_t b = block_size;
  if (r1 < 0) {
    if (static_cast<std::int64_t>(a.nnz()) * bs * bs > kMaxIndex)
      fail(what, a.nnz(), " nonzeros times ", bs * bs, " exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, static_cast<double>(a.rows) * bs,
                     static_cast<double>(a.nnz()) * bs * bs);
    r1 = global_rows * b;
  }
  check_row_range(what, r0, r1, global_rows * b);
  check_block_rows(what, r0, r1, b);
  if (r0 / b < a_first || r1 / b > a_first + a.rows)
    fail(what, "rows [", r0, ", ", r1, ") need rows the given part [", a_first, ", ",
         a_first + a.rows, ") lacks");
  auto length = [&](index_t r) { return a.row_length(r / b - a_first) * b; };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    const index_t i = r / b - a_first;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      for (index_t q = 0; q < b; ++q) {
        *col++ = a.col_idx[k] * b + q;
        *val++ = a.values[k] * (1.0 + 0.1 * rng.symmetric());
      }
  };
  return build_by_rows(what, r0, r1, a.cols * b, length, fill);
}

Csr<double> block_expand(const Csr<double>& a, int block_size, std::uint64_t seed) {
  return expand_rows(a, 0, a.rows, block_size, seed, 0, -1);
}

// SURAA's high-variance matrices (circuit simulation: Freescale1, FullChip, ASIC_680k; web and
// graph: in-2004, wb-edu, flickr): most rows short, a few rows (power and ground nets, hubs)
// with up to hundreds of thousands of entries.
//
// Row lengths: Zipf by rank (zipf_length), alpha chosen by bisection so that the total is
// rows * mean_row; the longest row has exactly max_row entries. Ranks are assigned to rows by
// a seeded permutation, so long rows are spread over the matrix instead of sitting together.
//
// Columns: every row holds its diagonal (circuit matrices and crawled web graphs have one,
// and Jacobi needs it); 3/4 of the other draws fall within a window around the diagonal
// (row +- max(512, 8 * length)), the rest uniformly over all columns. Purely uniform columns
// would turn every x access into a random gather over the whole vector (64 MB in double at
// 8M rows, more than an H100's L2), so every format would measure gather latency, not the
// matrix stream the formats differ on; real circuit and web matrices are not like that (node
// numbering and URL ordering give most entries locality, plus some far-reaching links). Rows
// longer than cols / 4 (only at small sizes) take uniform columns by selection sampling.
// Values uniform in [-1, 1).
Csr<double> detail::powerlaw_rows(index_t rows, double mean_row, index_t max_row,
                                  std::uint64_t seed, index_t r0, index_t r1,
                                  std::vector<index_t>* lengths_only) {
  const std::string what = "powerlaw_" + str(rows) + "_" + str(max_row);
  if (rows < 1) fail(what, "rows must be >= 1 (got ", rows, ")");
  if (max_row < 1 || max_row > rows)
    fail(what, "max_row must be in [1, rows = ", rows, "] (got ", max_row, ")");
  if (!(mean_row >= 1.0) || mean_row > max_row)
    fail(what, "mean_row must be in [1, max_row = ", max_row, "] (got ", mean_row, ")");
  const double target = mean_row * rows;
  if (r1 < 0) {
    if (target > static_cast<double>(kMaxIndex))
      fail(what, "about ", target, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, rows, target);
    r1 = rows;
  }
  check_row_range(what, r0, r1, rows);
  const double longest = max_row;
  // Every row has at least one entry and the longest has max_row: the least total is
  // max_row + rows - 1 (alpha -> infinity), the most rows * max_row (alpha = 0).
  if (target < longest + rows - 1)
    fail(what, "mean_row ", mean_row, " is too small: one row of ", max_row,
         " plus one entry in every other row already gives a mean of ",
         (longest + rows - 1) / rows);
  double lo = 0.0, hi = 64.0;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (zipf_total(rows, longest, mid) > target ? lo : hi) = mid;
  }
  const double alpha = 0.5 * (lo + hi);
  const SeededPermutation rank_of(static_cast<std::uint64_t>(rows), seed);
  auto length = [&](index_t r) {
    return zipf_length(longest, alpha,
                       static_cast<std::int64_t>(rank_of(static_cast<std::uint64_t>(r))));
  };
  const PowerlawLayout layout = kPowerlawLayout;
  const std::uint64_t local_threshold = static_cast<std::uint64_t>(layout.local_fraction * 65536);
  auto fill = [&](index_t r, index_t len, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    const std::int64_t half = std::max<std::int64_t>(
        layout.min_half_window, static_cast<std::int64_t>(layout.window_per_entry) * len);
    const index_t wlo = static_cast<index_t>(std::max<std::int64_t>(0, r - half));
    const index_t whi = static_cast<index_t>(std::min<std::int64_t>(rows, r + half + 1));
    // One 64-bit draw per candidate: its low 16 bits choose local or global, the 128-bit
    // product (dominated by the high bits) the column.
    auto draw = [&](RowRng& g, int round) {
      const std::uint64_t bits = g.next();
      if (round < 2 && (bits & 0xFFFF) < local_threshold)
        return wlo + RowRng::scale(bits, whi - wlo);
      return RowRng::scale(bits, rows);
    };
    distinct_columns(rng, 0, rows, r, len, col, draw);
    for (index_t k = 0; k < len; ++k) val[k] = rng.symmetric();
  };
  return build_by_rows(what, r0, r1, rows, length, fill, lengths_only);
}

Csr<double> generate_powerlaw(index_t rows, double mean_row, index_t max_row, std::uint64_t seed) {
  return powerlaw_rows(rows, mean_row, max_row, seed, 0, -1);
}

// Square, rows x rows. Row i holds its diagonal plus distinct columns drawn uniformly from
// [i - half_band, i + half_band] (clipped), min(per_row, window) entries in all. Off-diagonals
// uniform in [-1, 1), the diagonal equal to the row length: strictly diagonally dominant, so
// solver tests converge on it.
Csr<double> detail::banded_rows(index_t rows, index_t half_band, index_t per_row,
                                std::uint64_t seed, index_t r0, index_t r1,
                                std::vector<index_t>* lengths_only) {
  const std::string what = "banded_" + str(rows) + "_" + str(half_band) + "_" + str(per_row);
  if (rows < 0) fail(what, "rows must be >= 0 (got ", rows, ")");
  if (half_band < 0) fail(what, "half_band must be >= 0 (got ", half_band, ")");
  if (per_row < 1) fail(what, "per_row must be >= 1 (got ", per_row, ")");
  auto window = [rows, half_band](index_t r) {
    return std::pair<index_t, index_t>{
        static_cast<index_t>(std::max<std::int64_t>(0, std::int64_t{r} - half_band)),
        static_cast<index_t>(std::min<std::int64_t>(rows, std::int64_t{r} + half_band + 1))};
  };
  auto length = [&](index_t r) {
    const auto [lo, hi] = window(r);
    return std::min(per_row, hi - lo);
  };
  if (r1 < 0) {
    // Every row holds at least min(per_row, half_band + 1) entries: a size far past the index
    // limit is refused before the edge rows are counted one by one.
    if (static_cast<double>(rows) * std::min<double>(per_row, half_band + 1.0) >
        static_cast<double>(kMaxIndex))
      fail(what, "at least ",
           static_cast<double>(rows) * std::min<double>(per_row, half_band + 1.0),
           " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, rows,
                     static_cast<double>(rows) * std::min<double>(per_row, half_band + 1.0));
    // nnz before anything is allocated: full-width interior rows, clipped rows at both ends.
    const index_t edge = std::min(half_band, rows);
    const index_t interior_end = std::max(edge, static_cast<index_t>(rows - edge));
    std::int64_t nnz = std::int64_t{interior_end - edge} *
                       std::min<std::int64_t>(per_row, 2 * std::int64_t{half_band} + 1);
    for (index_t r = 0; r < edge; ++r) nnz += length(r);
    for (index_t r = interior_end; r < rows; ++r) nnz += length(r);
    if (nnz > kMaxIndex) fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, rows, static_cast<double>(nnz));
    r1 = rows;
  }
  check_row_range(what, r0, r1, rows);
  auto fill = [&](index_t r, index_t len, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    const auto [lo, hi] = window(r);
    distinct_columns(rng, lo, hi, r, len, col,
                     [lo = lo, hi = hi](RowRng& g, int) { return lo + g.below(hi - lo); });
    for (index_t k = 0; k < len; ++k)
      val[k] = col[k] == r ? static_cast<double>(len) : rng.symmetric();
  };
  return build_by_rows(what, r0, r1, rows, length, fill, lengths_only);
}

Csr<double> generate_banded(index_t rows, index_t half_band, index_t per_row, std::uint64_t seed) {
  return banded_rows(rows, half_band, per_row, seed, 0, -1);
}

// Erdos-Renyi-like: row lengths Poisson(per_row) (clamped to cols), distinct columns uniform
// over [0, cols), values uniform in [-1, 1).
Csr<double> detail::random_rows(index_t rows, index_t cols, double per_row, std::uint64_t seed,
                                index_t r0, index_t r1, std::vector<index_t>* lengths_only) {
  std::ostringstream name;
  name << "random_" << rows << "_" << cols << "_" << per_row;
  const std::string what = name.str();
  if (rows < 0 || cols < 0) fail(what, "negative size ", rows, " x ", cols);
  if (!(per_row >= 0.0) || per_row > cols)
    fail(what, "per_row must be in [0, cols = ", cols, "] (got ", per_row, ")");
  if (r1 < 0) {
    if (per_row * rows > static_cast<double>(kMaxIndex))
      fail(what, "about ", per_row * rows, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, rows, per_row * rows);
    r1 = rows;
  }
  check_row_range(what, r0, r1, rows);
  auto length = [&](index_t r) -> index_t {
    RowRng rng(seed, Stream::length, static_cast<std::uint64_t>(r));
    std::int64_t len = 0;
    if (per_row <= 64) {  // Knuth's product-of-uniforms Poisson sampler
      const double limit = std::exp(-per_row);
      for (double p = rng.uniform(); p > limit; p *= rng.uniform()) ++len;
    } else {  // normal approximation (Box-Muller), fine for large means
      const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      len = std::llround(std::max(0.0, per_row + std::sqrt(per_row) * z));
    }
    return static_cast<index_t>(std::min<std::int64_t>(len, cols));
  };
  auto fill = [&](index_t r, index_t len, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    distinct_columns(rng, 0, cols, -1, len, col, [cols](RowRng& g, int) { return g.below(cols); });
    for (index_t k = 0; k < len; ++k) val[k] = rng.symmetric();
  };
  return build_by_rows(what, r0, r1, cols, length, fill, lengths_only);
}

Csr<double> generate_random(index_t rows, index_t cols, double per_row, std::uint64_t seed) {
  return random_rows(rows, cols, per_row, seed, 0, -1);
}

}  // namespace spmvkit
