// Matrix generators (generators.hpp): the structures the papers evaluate on, built straight
// into CSR in two parallel passes over rows (lengths, then each row's entries in place). Memory
// is the CSR itself plus O(rows); every row's content is a function of (seed, row) only, so
// the result is identical for any OpenMP thread count or schedule.
#include "spmvkit/generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "core/fail.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/limits.hpp"

namespace spmvkit {

namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

using detail::fail;

// --- counter-based random numbers -----------------------------------------------------------

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom number
// generators"): a bijective 64-bit mix.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// What a stream of numbers is for: a row's length and its entries use separate streams, so
// the length pass and the fill pass each re-derive their numbers independently.
enum class Stream : std::uint64_t { length = 1, entries = 2, permutation = 3 };

// A splitmix64 stream keyed by (seed, purpose, row): no state is shared between rows, so a
// row's numbers do not depend on which thread makes it or when.
class RowRng {
 public:
  RowRng(std::uint64_t seed, Stream stream, std::uint64_t row)
      : state_(mix64(seed ^ mix64(row * kGolden + static_cast<std::uint64_t>(stream)))) {}

  std::uint64_t next() {
    state_ += kGolden;
    return mix64(state_);
  }
  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // [-1, 1).
  double symmetric() { return 2.0 * uniform() - 1.0; }
  // [0, n) by a 64x64 -> 128-bit multiply (Lemire); the bias, below n / 2^64, is irrelevant.
  index_t below(index_t n) { return scale(next(), n); }
  static index_t scale(std::uint64_t bits, index_t n) {
    return static_cast<index_t>(
        (static_cast<unsigned __int128>(bits) * static_cast<std::uint64_t>(n)) >> 64);
  }

 private:
  std::uint64_t state_;
};

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

// Host memory for a CSR of `rows` rows and about `nnz` entries, refused (InputError naming
// `what`) before anything is built when the process may not take that much (spmvkit/limits.hpp).
void check_csr_memory(const std::string& what, double rows, double nnz) {
  check_host_memory(what, (rows + 1) * sizeof(index_t) + nnz * (sizeof(index_t) + sizeof(double)));
}

// --- the row-by-row builder -----------------------------------------------------------------

// Pass 1 (parallel): row_ptr[r + 1] = length(r). Scan in 64 bits, refusing nnz > 2^31 - 1
// before anything of nnz size is allocated. Pass 2 (parallel, dynamic so a few very long rows
// do not serialise a chunk): fill(r, length, cols, vals) writes row r's sorted entries.
template <class Length, class Fill>
Csr<double> build_by_rows(const std::string& what, index_t rows, index_t cols, Length length,
                          Fill fill) {
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  check_host_memory(what, (static_cast<double>(rows) + 1) * sizeof(index_t));
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  index_t* row_ptr = a.row_ptr.data();
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < rows; ++r) row_ptr[r + 1] = length(r);
  std::int64_t total = 0;
  for (index_t r = 0; r < rows; ++r) {
    total += row_ptr[r + 1];
    if (total > kMaxIndex)
      fail(what, "more than 2^31 - 1 nonzeros (the 32-bit index limit); choose a smaller size");
    row_ptr[r + 1] = static_cast<index_t>(total);
  }
  check_host_memory(what, static_cast<double>(total) * (sizeof(index_t) + sizeof(double)) +
                              (static_cast<double>(rows) + 1) * sizeof(index_t));
  // Zeroing (and faulting in) the two arrays is a large share of the time: do them at once.
#pragma omp parallel sections
  {
#pragma omp section
    a.col_idx.resize(static_cast<std::size_t>(total));
#pragma omp section
    a.values.resize(static_cast<std::size_t>(total));
  }
  index_t* col = a.col_idx.data();
  double* val = a.values.data();
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < rows; ++r)
    fill(r, row_ptr[r + 1] - row_ptr[r], col + row_ptr[r], val + row_ptr[r]);
  return a;
}

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

// --- stencils -------------------------------------------------------------------------------

struct Offset {
  int dz, dy, dx;
};

// The stencil's neighbour offsets in increasing column order (lexicographic in dz, dy, dx).
std::vector<Offset> stencil_offsets(int dims, int points) {
  std::vector<Offset> offsets;
  const int zr = dims == 3 ? 1 : 0;
  const bool box = (dims == 2 && points == 9) || (dims == 3 && points == 27);
  for (int dz = -zr; dz <= zr; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (box || std::abs(dz) + std::abs(dy) + std::abs(dx) <= 1) offsets.push_back({dz, dy, dx});
  return offsets;
}

// Rows [r0, r1) of the stencil matrix (all of them when r1 < 0), with global columns: a
// distributed run generates each rank's rows alone, and only that part must fit 32 bits.
Csr<double> stencil(const std::string& what, index_t n, int dims, int points, index_t r0 = 0,
                    index_t r1 = -1) {
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (std::pow(static_cast<double>(n), dims) > static_cast<double>(kMaxIndex))
    fail(what, n, "^", dims, " rows exceed 2^31 - 1");
  const bool part = r1 >= 0;
  // Closed forms: box stencils (3n - 2)^d, stars (2d + 1) n^d - 2d n^(d-1).
  const std::int64_t nn = n;
  const bool box = points == 9 || points == 27;
  const std::int64_t nnz = dims == 2 ? (box ? (3 * nn - 2) * (3 * nn - 2) : 5 * nn * nn - 4 * nn)
                                     : (box ? (3 * nn - 2) * (3 * nn - 2) * (3 * nn - 2)
                                            : 7 * nn * nn * nn - 6 * nn * nn);
  if (!part && nnz > kMaxIndex)
    fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  if (!part) check_csr_memory(what, std::pow(static_cast<double>(n), dims), static_cast<double>(nnz));
  const index_t nz = dims == 3 ? n : 1;
  const index_t rows = static_cast<index_t>(nn * nn * nz);
  if (!part) r1 = rows;
  if (r0 < 0 || r0 > r1 || r1 > rows)
    fail(what, "row range [", r0, ", ", r1, ") outside the ", rows, " rows");
  const std::vector<Offset> offsets = stencil_offsets(dims, points);
  const double diagonal = points - 1;
  // Each offset's column shift, and per row only the grid coordinates are computed.
  std::vector<index_t> shift;
  for (const Offset& o : offsets) shift.push_back((o.dz * n + o.dy) * n + o.dx);
  auto inside = [n, nz](const Offset& o, index_t x, index_t y, index_t z) {
    return static_cast<unsigned>(x + o.dx) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(y + o.dy) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(z + o.dz) < static_cast<unsigned>(nz);
  };
  const std::size_t count = offsets.size();
  auto length = [&](index_t i) {
    const index_t r = r0 + i;
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    index_t len = 0;
    for (std::size_t k = 0; k < count; ++k) len += inside(offsets[k], x, y, z) ? 1 : 0;
    return len;
  };
  auto fill = [&](index_t i, index_t, index_t* col, double* val) {
    const index_t r = r0 + i;
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    for (std::size_t k = 0; k < count; ++k)
      if (inside(offsets[k], x, y, z)) {
        *col++ = r + shift[k];
        *val++ = shift[k] == 0 ? diagonal : -1.0;
      }
  };
  return build_by_rows(what, r1 - r0, rows, length, fill);
}

std::string str(std::int64_t v) { return std::to_string(v); }

// Convection-diffusion -laplace(u) + c . grad(u) on an n^d grid (d = 2, 3), wind c along
// (1, ..., 1), first-order upwind differences, scaled by h^2. With the cell Peclet number
// pe = c h / 2 each row holds: diagonal 2d + 2 d pe, upwind neighbours -1 - 2 pe, downwind
// neighbours -1. An M-matrix, weakly diagonally dominant, nonsymmetric for pe > 0: the
// large realistic test systems of BiCGSTAB (the merged-kernels paper's motivation).
Csr<double> convection_diffusion(const std::string& what, index_t n, int dims, double pe) {
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (!(pe >= 0) || !std::isfinite(pe)) fail(what, "Peclet number must be >= 0 (got ", pe, ")");
  if (std::pow(static_cast<double>(n), dims) > static_cast<double>(kMaxIndex))
    fail(what, n, "^", dims, " rows exceed 2^31 - 1");
  const std::int64_t nn = n;
  const std::int64_t nnz = dims == 2 ? 5 * nn * nn - 4 * nn : 7 * nn * nn * nn - 6 * nn * nn;
  if (nnz > kMaxIndex) fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  check_csr_memory(what, std::pow(static_cast<double>(n), dims), static_cast<double>(nnz));
  const index_t nz = dims == 3 ? n : 1;
  const index_t rows = static_cast<index_t>(nn * nn * nz);
  const std::vector<Offset> offsets = stencil_offsets(dims, dims == 2 ? 5 : 7);
  std::vector<index_t> shift;
  for (const Offset& o : offsets) shift.push_back((o.dz * n + o.dy) * n + o.dx);
  auto inside = [n, nz](const Offset& o, index_t x, index_t y, index_t z) {
    return static_cast<unsigned>(x + o.dx) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(y + o.dy) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(z + o.dz) < static_cast<unsigned>(nz);
  };
  const std::size_t count = offsets.size();
  const double diagonal = 2.0 * dims * (1.0 + pe);
  auto length = [&](index_t r) {
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    index_t len = 0;
    for (std::size_t k = 0; k < count; ++k) len += inside(offsets[k], x, y, z) ? 1 : 0;
    return len;
  };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    for (std::size_t k = 0; k < count; ++k)
      if (inside(offsets[k], x, y, z)) {
        *col++ = r + shift[k];
        // The wind blows towards +x, +y, +z: the upwind neighbours are the negative shifts.
        *val++ = shift[k] == 0 ? diagonal : shift[k] < 0 ? -1.0 - 2.0 * pe : -1.0;
      }
  };
  return build_by_rows(what, rows, rows, length, fill);
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

// --- name parsing ---------------------------------------------------------------------------

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A non-negative decimal integer that fits index_t, or InputError naming `field`.
index_t parse_index(const std::string& name, const std::string& field, const std::string& text) {
  if (text.empty() || text.size() > 10 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    fail(name, field, " '", text, "' is not a non-negative integer below 2^31");
  const std::int64_t v = std::stoll(text);
  if (v > kMaxIndex) fail(name, field, " ", text, " exceeds 2^31 - 1");
  return static_cast<index_t>(v);
}

double parse_number(const std::string& name, const std::string& field, const std::string& text) {
  char* end = nullptr;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) ||
      !std::all_of(text.begin(), text.end(),
                   [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    fail(name, field, " '", text, "' is not a non-negative number");
  return v;
}

// "bsB" -> B.
index_t parse_block_size(const std::string& name, const std::string& text) {
  if (text.rfind("bs", 0) != 0) fail(name, "expected 'bsB' (block size), got '", text, "'");
  return parse_index(name, "block size", text.substr(2));
}

void expect_parts(const std::string& name, const std::vector<std::string>& parts, std::size_t least,
                  std::size_t most, const char* form) {
  if (parts.size() < least || parts.size() > most) fail(name, "expected the form ", form);
}

const char* const kGeneratorKinds[] = {"stencil5",  "stencil9",   "stencil7",   "stencil27",
                                       "reservoir", "convdiff2d", "convdiff3d", "powerlaw",
                                       "banded",    "random",     "expand"};

}  // namespace

// --- public generators ----------------------------------------------------------------------

Csr<double> generate_stencil_2d(index_t n, int points) {
  const std::string what = "stencil" + std::to_string(points) + "_" + str(n);
  if (points != 5 && points != 9) fail(what, "a 2D stencil has 5 or 9 points (got ", points, ")");
  return stencil(what, n, 2, points);
}

Csr<double> generate_stencil_3d(index_t n, int points) {
  const std::string what = "stencil" + std::to_string(points) + "_" + str(n);
  if (points != 7 && points != 27) fail(what, "a 3D stencil has 7 or 27 points (got ", points, ")");
  return stencil(what, n, 3, points);
}

Csr<double> generate_convdiff_2d(index_t n, double peclet) {
  return convection_diffusion("convdiff2d_" + str(n), n, 2, peclet);
}

Csr<double> generate_convdiff_3d(index_t n, double peclet) {
  return convection_diffusion("convdiff3d_" + str(n), n, 3, peclet);
}

// 7 n^3 blocks of bs^2 values: n for about `values` of them.
index_t reservoir_grid_for(int block_size, double values) {
  const double cells = values / (7.0 * block_size * block_size);
  return std::max<index_t>(2, static_cast<index_t>(std::lround(std::cbrt(cells))));
}

// The BSR paper's SPE5 reservoir case (section 6.4: a 3D grid, 7-point connectivity, dense
// 7 x 7 blocks because every component at a cell couples to every component at its
// neighbours, section 2). Off-diagonal entries are uniform in [-1, 1); each diagonal entry is
// 1 + the sum of |off-diagonals| in its row, so the matrix is strictly diagonally dominant and
// Jacobi / BiCGSTAB converge. Not symmetric (as spe5Ref_dpdp). `coupling` scales the
// off-diagonals inside a cell's own block (the diagonal follows): above 1, a cell's
// components are coupled more strongly than cells are to each other, as in real reservoir
// systems, which is what block-Jacobi exploits and scalar Jacobi cannot.
Csr<double> generate_reservoir(index_t n, int block_size, std::uint64_t seed, double coupling) {
  const std::string what = "reservoir_bs" + std::to_string(block_size) + "_" + str(n);
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (!(coupling > 0) || !std::isfinite(coupling))
    fail(what, "coupling must be a finite number > 0 (got ", coupling, ")");
  if (block_size < 1) fail(what, "block size must be >= 1 (got ", block_size, ")");
  const double rows_d = std::pow(static_cast<double>(n), 3) * block_size;
  if (rows_d > static_cast<double>(kMaxIndex))
    fail(what, n, "^3 * ", block_size, " rows exceed 2^31 - 1");
  const std::int64_t nn = n, bs = block_size;
  const std::int64_t nnz = bs * bs * (7 * nn * nn * nn - 6 * nn * nn);
  if (nnz > kMaxIndex) fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  check_csr_memory(what, rows_d, static_cast<double>(nnz));
  const index_t rows = static_cast<index_t>(nn * nn * nn * bs);
  const index_t plane = n * n;
  // The 7-point neighbours of cell c, in increasing order.
  auto neighbours = [n, plane](index_t c, index_t* out) {
    const index_t x = c % n, y = (c / n) % n, z = c / plane;
    int m = 0;
    if (z > 0) out[m++] = c - plane;
    if (y > 0) out[m++] = c - n;
    if (x > 0) out[m++] = c - 1;
    out[m++] = c;
    if (x + 1 < n) out[m++] = c + 1;
    if (y + 1 < n) out[m++] = c + n;
    if (z + 1 < n) out[m++] = c + plane;
    return m;
  };
  const index_t b = block_size;
  auto length = [&](index_t r) {
    index_t cells[7];
    return neighbours(r / b, cells) * b;
  };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    index_t cells[7];
    const int m = neighbours(r / b, cells);
    double off_sum = 0;
    double* diagonal = nullptr;
    for (int k = 0; k < m; ++k)
      for (index_t q = 0; q < b; ++q) {
        *col = cells[k] * b + q;
        if (*col == r) {
          diagonal = val;
        } else {
          *val = rng.symmetric() * (cells[k] == r / b ? coupling : 1.0);
          off_sum += std::abs(*val);
        }
        ++col;
        ++val;
      }
    *diagonal = 1.0 + off_sum;
  };
  return build_by_rows(what, rows, rows, length, fill);
}

// The BSR paper's experiment (section 6.1): each nonzero becomes a dense bs x bs block.
// Values v * (1 + u / 10), u uniform in [-1, 1) per entry, so blocks are not rank-one copies.
Csr<double> block_expand(const Csr<double>& a, int block_size, std::uint64_t seed) {
  const std::string what = "block expansion (bs " + std::to_string(block_size) + ")";
  if (block_size < 1) fail(what, "block size must be >= 1 (got ", block_size, ")");
  const std::int64_t bs = block_size;
  if (a.rows * bs > kMaxIndex || a.cols * bs > kMaxIndex)
    fail(what, a.rows, " x ", a.cols, " times ", bs, " exceeds 2^31 - 1 rows or columns");
  if (static_cast<std::int64_t>(a.nnz()) * bs * bs > kMaxIndex)
    fail(what, a.nnz(), " nonzeros times ", bs * bs, " exceed 2^31 - 1 (the 32-bit index limit)");
  check_csr_memory(what, static_cast<double>(a.rows) * bs, static_cast<double>(a.nnz()) * bs * bs);
  const index_t b = block_size;
  auto length = [&](index_t r) { return a.row_length(r / b) * b; };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    const index_t i = r / b;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      for (index_t q = 0; q < b; ++q) {
        *col++ = a.col_idx[k] * b + q;
        *val++ = a.values[k] * (1.0 + 0.1 * rng.symmetric());
      }
  };
  return build_by_rows(what, a.rows * b, a.cols * b, length, fill);
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
Csr<double> generate_powerlaw(index_t rows, double mean_row, index_t max_row, std::uint64_t seed) {
  const std::string what = "powerlaw_" + str(rows) + "_" + str(max_row);
  if (rows < 1) fail(what, "rows must be >= 1 (got ", rows, ")");
  if (max_row < 1 || max_row > rows)
    fail(what, "max_row must be in [1, rows = ", rows, "] (got ", max_row, ")");
  if (!(mean_row >= 1.0) || mean_row > max_row)
    fail(what, "mean_row must be in [1, max_row = ", max_row, "] (got ", mean_row, ")");
  const double target = mean_row * rows;
  if (target > static_cast<double>(kMaxIndex))
    fail(what, "about ", target, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  const double longest = max_row;
  check_csr_memory(what, rows, target);
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
  return build_by_rows(what, rows, rows, length, fill);
}

// Square, rows x rows. Row i holds its diagonal plus distinct columns drawn uniformly from
// [i - half_band, i + half_band] (clipped), min(per_row, window) entries in all. Off-diagonals
// uniform in [-1, 1), the diagonal equal to the row length: strictly diagonally dominant, so
// solver tests converge on it.
Csr<double> generate_banded(index_t rows, index_t half_band, index_t per_row, std::uint64_t seed) {
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
  // Every row holds at least min(per_row, half_band + 1) entries: a size far past the index
  // limit is refused before the edge rows are counted one by one.
  if (static_cast<double>(rows) * std::min<double>(per_row, half_band + 1.0) >
      static_cast<double>(kMaxIndex))
    fail(what, "at least ", static_cast<double>(rows) * std::min<double>(per_row, half_band + 1.0),
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
  auto fill = [&](index_t r, index_t len, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    const auto [lo, hi] = window(r);
    distinct_columns(rng, lo, hi, r, len, col,
                     [lo = lo, hi = hi](RowRng& g, int) { return lo + g.below(hi - lo); });
    for (index_t k = 0; k < len; ++k)
      val[k] = col[k] == r ? static_cast<double>(len) : rng.symmetric();
  };
  return build_by_rows(what, rows, rows, length, fill);
}

// Erdos-Renyi-like: row lengths Poisson(per_row) (clamped to cols), distinct columns uniform
// over [0, cols), values uniform in [-1, 1).
Csr<double> generate_random(index_t rows, index_t cols, double per_row, std::uint64_t seed) {
  std::ostringstream name;
  name << "random_" << rows << "_" << cols << "_" << per_row;
  const std::string what = name.str();
  if (rows < 0 || cols < 0) fail(what, "negative size ", rows, " x ", cols);
  if (!(per_row >= 0.0) || per_row > cols)
    fail(what, "per_row must be in [0, cols = ", cols, "] (got ", per_row, ")");
  if (per_row * rows > static_cast<double>(kMaxIndex))
    fail(what, "about ", per_row * rows, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  check_csr_memory(what, rows, per_row * rows);
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
  return build_by_rows(what, rows, cols, length, fill);
}

// --- names ----------------------------------------------------------------------------------

bool is_generator_name(const std::string& name) {
  if (name.rfind("expand_bs", 0) == 0) return true;  // its inner name may be a path
  if (name.find('/') != std::string::npos || ends_with(name, ".mtx") || ends_with(name, ".mtx.gz"))
    return false;
  const std::string kind = name.substr(0, name.find('_'));
  return std::any_of(std::begin(kGeneratorKinds), std::end(kGeneratorKinds),
                     [&](const char* k) { return kind == k; });
}

bool generate_rows_by_name(const std::string& name, index_t row_begin, index_t row_end,
                           Csr<double>& out, index_t& global_rows) {
  const std::vector<std::string> parts = split(name, '_');
  const std::string& kind = parts[0];
  if (kind != "stencil5" && kind != "stencil9" && kind != "stencil7" && kind != "stencil27")
    return false;
  const std::string who = "generator '" + name + "'";
  expect_parts(who, parts, 2, 2, (kind + "_N").c_str());
  const index_t n = parse_index(who, "grid size", parts[1]);
  const int points = std::stoi(kind.substr(7));
  const int dims = points == 5 || points == 9 ? 2 : 3;
  if (std::pow(static_cast<double>(n), dims) > static_cast<double>(kMaxIndex))
    fail(who, n, "^", dims, " rows exceed 2^31 - 1");
  global_rows = static_cast<index_t>(std::pow(static_cast<double>(n), dims) + 0.5);
  if (row_end >= 0) out = stencil(name, n, dims, points, row_begin, row_end);
  return true;
}

Csr<double> generate_by_name(const std::string& name) {
  if (!is_generator_name(name)) fail(name, "not a generator name");
  const std::string who = "generator '" + name + "'";
  if (name.rfind("expand_", 0) == 0) {
    // expand_bsB_NAME: NAME is everything after the block size (it may hold '_' and '/').
    const std::size_t cut = name.find('_', 7);
    if (cut == std::string::npos || cut + 1 == name.size())
      fail(who, "expected the form expand_bsB_NAME");
    const index_t bs = parse_block_size(who, name.substr(7, cut - 7));
    const std::string inner = name.substr(cut + 1);
    return block_expand(is_generator_name(inner) ? generate_by_name(inner) : load_matrix(inner),
                        bs);
  }
  const std::vector<std::string> parts = split(name, '_');
  const std::string& kind = parts[0];
  if (kind == "stencil5" || kind == "stencil9" || kind == "stencil7" || kind == "stencil27") {
    expect_parts(who, parts, 2, 2, (kind + "_N").c_str());
    const index_t n = parse_index(who, "grid size", parts[1]);
    const int points = std::stoi(kind.substr(7));
    return points == 5 || points == 9 ? generate_stencil_2d(n, points)
                                      : generate_stencil_3d(n, points);
  }
  if (kind == "convdiff2d" || kind == "convdiff3d") {
    expect_parts(who, parts, 2, 3, (kind + "_N[_PE]").c_str());
    const index_t n = parse_index(who, "grid size", parts[1]);
    const double pe = parts.size() == 3 ? parse_number(who, "Peclet number", parts[2]) : 1.0;
    return kind == "convdiff2d" ? generate_convdiff_2d(n, pe) : generate_convdiff_3d(n, pe);
  }
  if (kind == "reservoir") {
    expect_parts(who, parts, 3, 4, "reservoir_bsB_N[_K]");
    const index_t bs = parse_block_size(who, parts[1]);
    const double k = parts.size() == 4 ? parse_number(who, "coupling", parts[3]) : 1.0;
    return generate_reservoir(parse_index(who, "grid size", parts[2]), bs, 1, k);
  }
  if (kind == "powerlaw") {
    // Defaults from the benchmark's powerlaw_8000000: mean 12.5 (~100M nonzeros), rows up to
    // 200k entries (capped at rows for small sizes).
    expect_parts(who, parts, 2, 3, "powerlaw_ROWS[_MAXROW]");
    const index_t rows = parse_index(who, "rows", parts[1]);
    const index_t max_row =
        parts.size() == 3 ? parse_index(who, "max_row", parts[2]) : std::min<index_t>(200000, rows);
    return generate_powerlaw(rows, 12.5, max_row);
  }
  if (kind == "banded") {
    expect_parts(who, parts, 3, 4, "banded_ROWS_HALFBAND[_PERROW]");
    const index_t rows = parse_index(who, "rows", parts[1]);
    const index_t half = parse_index(who, "half band", parts[2]);
    // Default: the full band, at most 16 entries a row.
    const index_t per_row =
        parts.size() == 4
            ? parse_index(who, "per_row", parts[3])
            : static_cast<index_t>(std::min<std::int64_t>(16, 2 * std::int64_t{half} + 1));
    return generate_banded(rows, half, per_row);
  }
  // kind == "random"
  expect_parts(who, parts, 4, 4, "random_ROWS_COLS_PERROW");
  const index_t rows = parse_index(who, "rows", parts[1]);
  const index_t cols = parse_index(who, "cols", parts[2]);
  return generate_random(rows, cols, parse_number(who, "per_row", parts[3]));
}

}  // namespace spmvkit
