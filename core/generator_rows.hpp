// Shared by the generator files (generators_grid.cpp, generators_random.cpp,
// generators_names.cpp): counter-based random numbers keyed by row and the row-by-row CSR
// builder. Every row's content is a function of (seed, row) only, so the result is identical
// for any OpenMP thread count or schedule, and any row range can be made alone.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/fail.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/limits.hpp"

namespace spmvkit::detail {

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

inline std::string str(std::int64_t v) { return std::to_string(v); }

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

// Host memory for a CSR of `rows` rows and about `nnz` entries, refused (InputError naming
// `what`) before anything is built when the process may not take that much (spmvkit/limits.hpp).
inline void check_csr_memory(const std::string& what, double rows, double nnz) {
  check_host_memory(what, (rows + 1) * sizeof(index_t) + nnz * (sizeof(index_t) + sizeof(double)));
}

// A row range [r0, r1) of a matrix with `rows` rows, or InputError.
inline void check_row_range(const std::string& what, index_t r0, index_t r1, index_t rows) {
  if (r0 < 0 || r0 > r1 || r1 > rows)
    fail(what, "row range [", r0, ", ", r1, ") outside the ", rows, " rows");
}

// A row range of a matrix made of whole bs x bs blocks must begin and end at block rows.
inline void check_block_rows(const std::string& what, index_t r0, index_t r1, index_t bs) {
  if (r0 % bs != 0 || r1 % bs != 0)
    fail(what, "row range [", r0, ", ", r1, ") must begin and end at block rows (multiples of ", bs,
         ")");
}

// --- the row-by-row builder -----------------------------------------------------------------

// Fewer rows than this are made by one thread: starting a parallel region costs more (a
// distributed run's small parts, the tests' many small ranges on a loaded machine).
constexpr index_t kParallelRows = 4096;

// The lengths of rows [r0, r1) alone (build_by_rows' pass 1): length(r) for each, in parallel.
template <class Length>
std::vector<index_t> row_lengths(const std::string& what, index_t r0, index_t r1, Length length) {
  const index_t rows = r1 - r0;
  check_host_memory(what, static_cast<double>(rows) * sizeof(index_t));
  std::vector<index_t> out(static_cast<std::size_t>(rows));
  index_t* len = out.data();
#pragma omp parallel for schedule(static) if (rows >= kParallelRows)
  for (index_t i = 0; i < rows; ++i) len[i] = length(r0 + i);
  return out;
}

// Rows [r0, r1) of a matrix with `cols` columns (global row numbers r passed to length and
// fill; the result's row i is row r0 + i). With `lengths_only`, only their lengths, there
// (row_lengths), and an empty result: nothing of nonzero size is made. Pass 1 (parallel):
// row_ptr[i + 1] = length(r). Scan
// in 64 bits, refusing nnz > 2^31 - 1 before anything of nnz size is allocated. Pass 2
// (parallel, dynamic so a few very long rows do not serialise a chunk): fill(r, length, cols,
// vals) writes row r's sorted entries.
template <class Length, class Fill>
Csr<double> build_by_rows(const std::string& what, index_t r0, index_t r1, index_t cols,
                          Length length, Fill fill, std::vector<index_t>* lengths_only = nullptr) {
  Csr<double> a;
  if (lengths_only != nullptr) {
    *lengths_only = row_lengths(what, r0, r1, length);
    return a;
  }
  const index_t rows = r1 - r0;
  a.rows = rows;
  a.cols = cols;
  check_host_memory(what, (static_cast<double>(rows) + 1) * sizeof(index_t));
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  index_t* row_ptr = a.row_ptr.data();
  const bool parallel = rows >= kParallelRows;
#pragma omp parallel for schedule(static) if (parallel)
  for (index_t i = 0; i < rows; ++i) row_ptr[i + 1] = length(r0 + i);
  std::int64_t total = 0;
  for (index_t i = 0; i < rows; ++i) {
    total += row_ptr[i + 1];
    if (total > kMaxIndex)
      fail(what, "more than 2^31 - 1 nonzeros (the 32-bit index limit); choose a smaller size");
    row_ptr[i + 1] = static_cast<index_t>(total);
  }
  check_host_memory(what, static_cast<double>(total) * (sizeof(index_t) + sizeof(double)) +
                              (static_cast<double>(rows) + 1) * sizeof(index_t));
  // Zeroing (and faulting in) the two arrays is a large share of the time: do them at once.
#pragma omp parallel sections if (parallel)
  {
#pragma omp section
    a.col_idx.resize(static_cast<std::size_t>(total));
#pragma omp section
    a.values.resize(static_cast<std::size_t>(total));
  }
  index_t* col = a.col_idx.data();
  double* val = a.values.data();
#pragma omp parallel for schedule(dynamic, 1024) if (parallel)
  for (index_t i = 0; i < rows; ++i)
    fill(r0 + i, row_ptr[i + 1] - row_ptr[i], col + row_ptr[i], val + row_ptr[i]);
  return a;
}

// --- row ranges (generate_rows_by_name) -----------------------------------------------------

// Rows [r0, r1) of each generator (r1 < 0: the whole matrix, with the whole matrix's size
// checks), global columns: only the range must hold fewer than 2^31 nonzeros. Validation and
// values as the public generators'; the rows are those of the whole matrix, bit for bit.
// With `lengths_only` (and r1 >= 0): only the rows' lengths, there (build_by_rows).
Csr<double> stencil_rows(const std::string& what, index_t n, int dims, int points, index_t r0 = 0,
                         index_t r1 = -1, std::vector<index_t>* lengths_only = nullptr);
Csr<double> convdiff_rows(const std::string& what, index_t n, int dims, double peclet,
                          index_t r0 = 0, index_t r1 = -1,
                          std::vector<index_t>* lengths_only = nullptr);
Csr<double> reservoir_rows(index_t n, int block_size, std::uint64_t seed, double coupling,
                           index_t r0, index_t r1, std::vector<index_t>* lengths_only = nullptr);
Csr<double> powerlaw_rows(index_t rows, double mean_row, index_t max_row, std::uint64_t seed,
                          index_t r0, index_t r1, std::vector<index_t>* lengths_only = nullptr);
Csr<double> banded_rows(index_t rows, index_t half_band, index_t per_row, std::uint64_t seed,
                        index_t r0, index_t r1, std::vector<index_t>* lengths_only = nullptr);
Csr<double> random_rows(index_t rows, index_t cols, double per_row, std::uint64_t seed, index_t r0,
                        index_t r1, std::vector<index_t>* lengths_only = nullptr);
// Rows [r0, r1) of block_expand(A, block_size) for A of global_rows rows, `a` holding A's rows
// [a_first, a_first + a.rows) (global columns), at least [r0 / block_size, r1 / block_size).
Csr<double> expand_rows(const Csr<double>& a, index_t a_first, index_t global_rows, int block_size,
                        std::uint64_t seed, index_t r0, index_t r1);

}  // namespace spmvkit::detail
