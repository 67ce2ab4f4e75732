// Matrix Market reading (.mtx, and .mtx.gz through zlib); writing: matrix_market_write.cpp.
//
// Speed: the file is read in large blocks (read(2), or gzread for gzip), each block is
// parsed in place up to its last complete line with std::from_chars, and the output arrays
// are reserved from the size line (capped by what the file's size can hold, so a lying
// header cannot make us allocate). No iostreams and no std::string per line.
//
// Strictness: every malformed input is an InputError "PATH:LINE: problem". Line 0 means the
// file as a whole (it cannot be opened, or is a directory); a file that ends early reports
// the line where the next entry was expected.
#include "spmvkit/matrix_market.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "core/matrix_market_reader.hpp"
#include "spmvkit/limits.hpp"

namespace spmvkit {

namespace {

using namespace mm;

// The general path of parse_index, kept out of the loop: a '+' sign, leading zeros, and
// every refusal with its reason.
__attribute__((noinline, cold)) index_t parse_index_slow(const Reader& in, const char*& p,
                                                         const char* lim, std::int64_t limit,
                                                         const char* what) {
  if (*p == '\n') in.fail_here(std::string("missing ") + what);
  const char* s = p;
  if (*s == '+') ++s;
  std::int64_t v = 0;
  const auto [q, ec] = std::from_chars(s, lim, v);
  const std::string range = " is out of range [1, " + std::to_string(limit) + "]";
  if (ec == std::errc::result_out_of_range)
    in.fail_here(std::string(what) + " " + token_at(p) + range);
  if (ec != std::errc() || !ends_token(*q) || (s != p && *s == '-'))
    in.fail_here(std::string(what) + " " + token_at(p) + " is not a whole number");
  if (v < 1 || v > limit) in.fail_here(std::string(what) + " " + std::to_string(v) + range);
  p = q;
  return static_cast<index_t>(v - 1);
}

// An index at p in [1, limit]; returns it 0-based and moves p past it. The common case
// (up to 18 plain digits, then a blank or the line end) is a digit loop: index parsing
// through from_chars was a sixth of the time in profiles of large files.
inline index_t parse_index(const Reader& in, const char*& p, const char* lim, std::int64_t limit,
                           const char* what) {
  const char* d = p;
  std::int64_t v = 0;
  while (static_cast<unsigned>(*d - '0') < 10u && d - p < 18) v = v * 10 + (*d++ - '0');
  if (d == p || !ends_token(*d) || v < 1 || v > limit)
    return parse_index_slow(in, p, lim, limit, what);
  p = d;
  return static_cast<index_t>(v - 1);
}

// A value at p (real or integer field); finite; moves p past it.
inline double parse_value(const Reader& in, const char*& p, const char* lim, Field field) {
  if (*p == '\n')
    in.fail_here("missing value (the field is " +
                 std::string(field == Field::real ? "real" : "integer") + ")");
  const char* s = p;
  if (*s == '+' && s[1] != '-' && s[1] != '+') ++s;  // from_chars takes no '+'
  double v = 0;
  const char* q = nullptr;
  if (field == Field::integer) {
    std::int64_t iv = 0;
    const auto r = std::from_chars(s, lim, iv);
    q = r.ptr;
    if (r.ec == std::errc::result_out_of_range)
      in.fail_here("integer value " + token_at(p) + " is out of range");
    if (r.ec != std::errc() || !ends_token(*q))
      in.fail_here("value " + token_at(p) + " is not an integer (the field is integer)");
    v = static_cast<double>(iv);
  } else {
    const auto r = std::from_chars(s, lim, v);
    q = r.ptr;
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow is an error; underflow (a denormal or a tiny value) rounds as strtod does.
      const std::string tok(s, static_cast<std::size_t>(q - s));
      v = std::strtod(tok.c_str(), nullptr);
      if (std::isinf(v)) in.fail_here("value " + token_at(p) + " overflows a double (non-finite)");
    } else if (r.ec != std::errc() || !ends_token(*q)) {
      in.fail_here("value " + token_at(p) + " is not a number");
    }
    if (!std::isfinite(v))
      in.fail_here("non-finite value " + token_at(p) + " (NaN and Inf are not allowed)");
  }
  p = q;
  return v;
}

// One coordinate entry "row col [value]" at p (value 1 for a pattern field); moves p past it.
struct Entry {
  index_t row, col;
  double value;
};
inline Entry parse_entry(const Reader& in, const char*& p, const char* lim, const Header& h) {
  Entry e{};
  e.row = parse_index(in, p, lim, h.rows, "row index");
  p = skip_blanks(p);
  e.col = parse_index(in, p, lim, h.cols, "column index");
  e.value = 1.0;
  if (h.field != Field::pattern) {
    p = skip_blanks(p);
    e.value = parse_value(in, p, lim, h.field);
  }
  return e;
}

inline void expect_line_end(const Reader& in, const char*& p) {
  p = skip_blanks(p);
  if (*p != '\n') in.fail_here("trailing garbage " + token_at(p) + " at the end of the line");
}

// Asks for transparent huge pages on a freshly reserved array: filling the COO of a large
// file otherwise spends a fifth of the read in 4 KiB page faults. Only a hint.
template <class T>
void advise_huge_pages(const std::vector<T>& v) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto first = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t begin = (first + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (first + v.capacity() * sizeof(T)) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)v;
#endif
}

// Entries the file can hold at most, from its size: bounds the first reservation.
std::uint64_t entries_file_can_hold(const Reader& in, Field field) {
  const std::uint64_t min_line = field == Field::pattern ? 4 : 6;
  const std::uint64_t text = in.file_bytes() * (in.gzip() ? kGzipRatioForReserve : 1);
  return text / min_line + 16;
}

void check_counts(const Reader& in, const Header& h, std::int64_t seen) {
  if (seen < h.entries)
    in.fail_here("file ends after " + std::to_string(seen) + " of the " +
                 std::to_string(h.entries) + " entries declared on line " +
                 std::to_string(h.size_line) + " (truncated file?)");
}

[[noreturn]] void fail_extra(const Reader& in, const Header& h) {
  in.fail_here("more entries than the " + std::to_string(h.entries) + " declared on line " +
               std::to_string(h.size_line));
}

}  // namespace

Coo<double> read_matrix_market_coo(const std::string& path, const ProgressFn& progress) {
  Reader in(path, progress);
  const Header h = in.read_header();
  if (h.format == Format::array)
    in.fail_at(1,
               "array (dense) format is not supported for matrices; store the matrix in "
               "coordinate format (array is read as a vector by read_matrix_market_vector)");

  Coo<double> coo;
  coo.rows = static_cast<index_t>(h.rows);
  coo.cols = static_cast<index_t>(h.cols);
  const bool mirrored = h.symmetry != Symmetry::general;
  const std::uint64_t stored = std::min<std::uint64_t>(static_cast<std::uint64_t>(h.entries),
                                                       entries_file_can_hold(in, h.field));
  const std::size_t reserve = static_cast<std::size_t>(stored * (mirrored ? 2 : 1));
  // The COO, then the CSR made from it (28 bytes an entry at the peak, and its row pointer):
  // a header of 2^31 - 1 rows is refused here, not by the allocator.
  check_host_memory(path, static_cast<double>(reserve) * 28.0 +
                              (static_cast<double>(h.rows) + 1) * sizeof(index_t));
  coo.row_idx.reserve(reserve);
  coo.col_idx.reserve(reserve);
  coo.values.reserve(reserve);
  advise_huge_pages(coo.row_idx);
  advise_huge_pages(coo.col_idx);
  advise_huge_pages(coo.values);

  const Symmetry symmetry = h.symmetry;
  const std::int64_t declared = h.entries;
  std::int64_t seen = 0;
  // Symmetric files store one triangle (either one is accepted); a file with entries on
  // both sides would be doubled by the expansion, so it is refused.
  std::int64_t lower_line = 0, upper_line = 0;
  in.for_each_data_line([&](const char* p, const char* lim) {
    if (seen == declared) fail_extra(in, h);
    ++seen;
    const auto [i, j, v] = parse_entry(in, p, lim, h);
    expect_line_end(in, p);
    coo.row_idx.push_back(i);
    coo.col_idx.push_back(j);
    coo.values.push_back(v);
    if (symmetry == Symmetry::general) return p;
    if (i == j) {
      if (symmetry == Symmetry::skew_symmetric)
        in.fail_here("diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                     ") in a skew-symmetric matrix (its diagonal is zero and is not stored)");
      return p;
    }
    if (i > j) {
      if (lower_line == 0) lower_line = in.line();
    } else if (upper_line == 0) {
      upper_line = in.line();
    }
    if (lower_line != 0 && upper_line != 0)
      in.fail_here("a symmetric file must store one triangle only, but line " +
                   std::to_string(std::min(lower_line, upper_line)) +
                   " is on the other side of the diagonal");
    coo.row_idx.push_back(j);
    coo.col_idx.push_back(i);
    coo.values.push_back(symmetry == Symmetry::skew_symmetric ? -v : v);
    return p;
  });
  check_counts(in, h, seen);
  in.report_done();
  return coo;
}

Csr<double> read_matrix_market(const std::string& path, const ProgressFn& progress) {
  Csr<double> a = to_csr(read_matrix_market_coo(path, progress), path);
  // Each entry was checked finite; duplicates summed can still overflow.
  for (index_t r = 0; r < a.rows; ++r)
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (!std::isfinite(a.values[k]))
        throw InputError(path + ": duplicate entries at (" + std::to_string(r + 1) + ", " +
                         std::to_string(a.col_idx[k] + 1) + ") sum to a non-finite value");
  return a;
}

std::vector<double> read_matrix_market_vector(const std::string& path) {
  Reader in(path, {});
  const Header h = in.read_header();
  if (h.rows != 1 && h.cols != 1)
    in.fail_at(h.size_line, "a vector file needs one column (or one row), not " +
                                std::to_string(h.rows) + " x " + std::to_string(h.cols));
  if (h.symmetry != Symmetry::general)
    in.fail_at(1, "a vector file must be general, not symmetric or skew-symmetric");
  const std::int64_t n = h.cols == 1 ? h.rows : h.cols;
  std::vector<double> v;
  std::int64_t seen = 0;
  const std::int64_t declared = h.entries;
  if (h.format == Format::array) {
    v.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
        static_cast<std::uint64_t>(n), entries_file_can_hold(in, Field::pattern))));
    in.for_each_data_line([&](const char* p, const char* lim) {
      if (seen == declared) fail_extra(in, h);
      ++seen;
      v.push_back(parse_value(in, p, lim, h.field));
      expect_line_end(in, p);
      return p;
    });
  } else {
    check_host_memory(path, static_cast<double>(n) * sizeof(double));  // before the dense vector
    v.assign(static_cast<std::size_t>(n), 0.0);
    in.for_each_data_line([&](const char* p, const char* lim) {
      if (seen == declared) fail_extra(in, h);
      ++seen;
      const auto [i, j, x] = parse_entry(in, p, lim, h);
      expect_line_end(in, p);
      v[static_cast<std::size_t>(h.cols == 1 ? i : j)] += x;  // duplicates summed
      return p;
    });
    for (double x : v)
      if (!std::isfinite(x))
        throw InputError(path + ": duplicate entries sum to a non-finite value");
  }
  check_counts(in, h, seen);
  return v;
}

}  // namespace spmvkit
