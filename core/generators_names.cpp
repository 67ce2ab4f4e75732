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
  if (row_end >= 0) out = stencil_rows(name, n, dims, points, row_begin, row_end);
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
