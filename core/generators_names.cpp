// Generator names (generators.hpp): parsing "kind_param_param" names, building whole matrices
// (generate_by_name) or one row range of them (generate_rows_by_name).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/generator_rows.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {

using namespace detail;

namespace {

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

bool is_generator_name(const std::string& name) {
  if (name.rfind("expand_bs", 0) == 0) return true;  // its inner name may be a path
  if (name.find('/') != std::string::npos || ends_with(name, ".mtx") || ends_with(name, ".mtx.gz"))
    return false;
  const std::string kind = name.substr(0, name.find('_'));
  return std::any_of(std::begin(kGeneratorKinds), std::end(kGeneratorKinds),
                     [&](const char* k) { return kind == k; });
}

namespace {

// expand_bsB_NAME: B and NAME (everything after the block size; it may hold '_' and '/').
std::pair<index_t, std::string> parse_expand(const std::string& who, const std::string& name) {
  const std::size_t cut = name.find('_', 7);
  if (cut == std::string::npos || cut + 1 == name.size())
    fail(who, "expected the form expand_bsB_NAME");
  return {parse_block_size(who, name.substr(7, cut - 7)), name.substr(cut + 1)};
}

// Rows [r0, r1) of the generated matrix `name` (r1 < 0: the whole matrix, with the whole
// matrix's checks) into `out`, its row count into global_rows and into unit the rows of one
// block row (a range must begin and end at multiples of it). With `lengths` (r1 >= 0): only
// the rows' lengths, there; `out` untouched. False, nothing made, when the rows cannot be
// made alone: an expand_bsB_ of a file.
bool named_rows(const std::string& name, index_t r0, index_t r1, Csr<double>& out,
                index_t& global_rows, index_t& unit, std::vector<index_t>* lengths = nullptr) {
  const std::string who = "generator '" + name + "'";
  unit = 1;
  if (name.rfind("expand_", 0) == 0) {
    const auto [bs, inner] = parse_expand(who, name);
    Csr<double> none;
    index_t inner_rows = 0, inner_unit = 1;
    if (!is_generator_name(inner) || !named_rows(inner, 0, 0, none, inner_rows, inner_unit))
      return false;
    if (bs < 1) fail(who, "block size must be >= 1 (got ", bs, ")");
    if (std::int64_t{inner_rows} * bs > kMaxIndex)
      fail(who, inner_rows, " rows times ", bs, " exceed 2^31 - 1");
    global_rows = inner_rows * bs;
    unit = inner_unit * bs;
    if (r1 >= 0) {
      check_row_range(who, r0, r1, global_rows);
      check_block_rows(who, r0, r1, unit);
    }
    if (lengths != nullptr) {
      // Row r of the expansion: bs times the length of inner row r / bs (expand_rows).
      std::vector<index_t> inner_lengths;
      named_rows(inner, r0 / bs, r1 / bs, none, inner_rows, inner_unit, &inner_lengths);
      lengths->resize(static_cast<std::size_t>(r1 - r0));
      for (index_t r = r0; r < r1; ++r) {
        const std::int64_t len = std::int64_t{inner_lengths[r / bs - r0 / bs]} * bs;
        if (len > kMaxIndex) fail(who, "row ", r, " holds more than 2^31 - 1 entries");
        (*lengths)[r - r0] = static_cast<index_t>(len);
      }
      return true;
    }
    Csr<double> a;
    named_rows(inner, r1 < 0 ? 0 : r0 / bs, r1 < 0 ? -1 : r1 / bs, a, inner_rows, inner_unit);
    out = expand_rows(a, r1 < 0 ? 0 : r0 / bs, inner_rows, bs, 1, r0, r1);
    return true;
  }
  const std::vector<std::string> parts = split(name, '_');
  const std::string& kind = parts[0];
  if (kind == "stencil5" || kind == "stencil9" || kind == "stencil7" || kind == "stencil27" ||
      kind == "convdiff2d" || kind == "convdiff3d") {
    const bool convdiff = kind[0] == 'c';
    if (convdiff)
      expect_parts(who, parts, 2, 3, (kind + "_N[_PE]").c_str());
    else
      expect_parts(who, parts, 2, 2, (kind + "_N").c_str());
    const index_t n = parse_index(who, "grid size", parts[1]);
    const int dims = convdiff ? kind[8] - '0' : kind == "stencil5" || kind == "stencil9" ? 2 : 3;
    if (convdiff) {
      const double pe = parts.size() == 3 ? parse_number(who, "Peclet number", parts[2]) : 1.0;
      out = convdiff_rows(kind + "_" + str(n), n, dims, pe, r0, r1, lengths);
    } else {
      out = stencil_rows(kind + "_" + str(n), n, dims, std::stoi(kind.substr(7)), r0, r1, lengths);
    }
    global_rows = static_cast<index_t>(std::pow(static_cast<double>(n), dims) + 0.5);
    return true;
  }
  if (kind == "reservoir") {
    expect_parts(who, parts, 3, 4, "reservoir_bsB_N[_K]");
    const index_t bs = parse_block_size(who, parts[1]);
    const index_t n = parse_index(who, "grid size", parts[2]);
    const double k = parts.size() == 4 ? parse_number(who, "coupling", parts[3]) : 1.0;
    out = reservoir_rows(n, bs, 1, k, r0, r1, lengths);
    global_rows = static_cast<index_t>(std::int64_t{n} * n * n * bs);
    unit = bs;
    return true;
  }
  if (kind == "powerlaw") {
    // Defaults from the benchmark's powerlaw_8000000: mean 12.5 (~100M nonzeros), rows up to
    // 200k entries (capped at rows for small sizes).
    expect_parts(who, parts, 2, 3, "powerlaw_ROWS[_MAXROW]");
    const index_t rows = parse_index(who, "rows", parts[1]);
    const index_t max_row =
        parts.size() == 3 ? parse_index(who, "max_row", parts[2]) : std::min<index_t>(200000, rows);
    out = powerlaw_rows(rows, 12.5, max_row, 1, r0, r1, lengths);
    global_rows = rows;
    return true;
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
    out = banded_rows(rows, half, per_row, 1, r0, r1, lengths);
    global_rows = rows;
    return true;
  }
  // kind == "random" (is_generator_name checked the kind)
  expect_parts(who, parts, 4, 4, "random_ROWS_COLS_PERROW");
  const index_t rows = parse_index(who, "rows", parts[1]);
  const index_t cols = parse_index(who, "cols", parts[2]);
  out = random_rows(rows, cols, parse_number(who, "per_row", parts[3]), 1, r0, r1, lengths);
  global_rows = rows;
  return true;
}

}  // namespace

bool generate_rows_by_name(const std::string& name, index_t row_begin, index_t row_end,
                           Csr<double>& out, index_t& global_rows, index_t* row_unit) {
  if (!is_generator_name(name)) return false;
  Csr<double> part;
  index_t rows = 0, unit = 1;
  // A query makes the empty range: the name and its parameters are checked all the same.
  if (!named_rows(name, row_end < 0 ? 0 : row_begin, row_end < 0 ? 0 : row_end, part, rows, unit))
    return false;
  global_rows = rows;
  if (row_unit != nullptr) *row_unit = unit;
  if (row_end >= 0) out = std::move(part);
  return true;
}

bool generate_row_lengths_by_name(const std::string& name, index_t row_begin, index_t row_end,
                                  std::vector<index_t>& lengths) {
  if (!is_generator_name(name)) return false;
  Csr<double> none;
  index_t rows = 0, unit = 1;
  // The range's checks (inside the whole matrix, whole block rows) as for its entries.
  if (!named_rows(name, 0, 0, none, rows, unit)) return false;
  const std::string who = "generator '" + name + "'";
  check_row_range(who, row_begin, row_end, rows);
  check_block_rows(who, row_begin, row_end, unit);
  std::vector<index_t> out;
  named_rows(name, row_begin, row_end, none, rows, unit, &out);
  lengths = std::move(out);
  return true;
}

Csr<double> generate_by_name(const std::string& name) {
  if (!is_generator_name(name)) fail(name, "not a generator name");
  Csr<double> a;
  index_t rows = 0, unit = 1;
  if (named_rows(name, 0, -1, a, rows, unit)) return a;
  // An expansion of a file (at some depth): the file is read whole.
  const auto [bs, inner] = parse_expand("generator '" + name + "'", name);
  return block_expand(is_generator_name(inner) ? generate_by_name(inner) : load_matrix(inner), bs);
}

}  // namespace spmvkit
