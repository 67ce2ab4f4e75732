// Matrix Market header parsing (banner, comments, size line); the block reader is in
// matrix_market_reader.hpp.
#include "core/matrix_market_reader.hpp"

#include <charconv>
#include <cstdio>

namespace spmvkit::mm {

// Parses one size-line number at p (bounded by e); returns the position after it.
const char* parse_size(const Reader& in, std::int64_t line, const char* p, const char* e,
                       std::int64_t& value) {
  const auto [q, ec] = std::from_chars(p, e, value);
  if (ec == std::errc::result_out_of_range)
    in.fail_at(line, "size " + token_at(p) + " is too large (sizes must fit 32-bit indices, " +
                         "at most " + std::to_string(kIndexMax) + ")");
  if (ec != std::errc() || (q != e && !is_blank(*q)))
    in.fail_at(line, "size line holds " + token_at(p) + ", which is not a whole number");
  if (value < 0) in.fail_at(line, "negative size " + std::to_string(value) + " in the size line");
  return q;
}

Header Reader::read_header() {
  fill();
  while (!eof_ && end_ < 32) fill();  // reads from pipes may come in small pieces
  if (end_ == 0) fail_at(1, "empty file (expected a %%MatrixMarket banner)");
  if (end_ >= 3 && std::memcmp(buf_.get(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;  // UTF-8 BOM
  // Check the banner before looking for a whole line, so that a binary file fails at once.
  constexpr std::string_view kBanner = "%%MatrixMarket";
  const std::size_t have = std::min(end_ - pos_, kBanner.size());
  if (!iequals(std::string_view(buf_.get() + pos_, have), kBanner.substr(0, have)) ||
      have < kBanner.size())
    fail_at(1, "missing or misspelled %%MatrixMarket banner on the first line");

  std::string_view text;
  std::int64_t number = 0;
  next_line(text, number);
  text.remove_prefix(kBanner.size());
  if (!text.empty() && !is_blank(text[0])) fail_at(1, "misspelled %%MatrixMarket banner");
  std::string_view word[5];
  int words = 0;
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && is_blank(text[i])) ++i;
    if (i == text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !is_blank(text[j])) ++j;
    if (words == 4)
      fail_at(1, "unexpected '" + std::string(text.substr(i, j - i)) +
                     "' after the symmetry in the banner");
    word[words++] = text.substr(i, j - i);
    i = j;
  }
  if (words < 4)
    fail_at(1, "banner names " + std::to_string(words) +
                   " of 4 items (object format field symmetry), e.g. "
                   "'%%MatrixMarket matrix coordinate real general'");
  const auto quoted = [](std::string_view w) { return "'" + std::string(w) + "'"; };

  Header h;
  if (!iequals(word[0], "matrix"))
    fail_at(1, "unknown object " + quoted(word[0]) + " in the banner (expected matrix)");
  if (iequals(word[1], "coordinate"))
    h.format = Format::coordinate;
  else if (iequals(word[1], "array"))
    h.format = Format::array;
  else
    fail_at(1,
            "unknown format " + quoted(word[1]) + " in the banner (expected coordinate or array)");
  if (iequals(word[2], "real") || iequals(word[2], "double"))
    h.field = Field::real;
  else if (iequals(word[2], "integer"))
    h.field = Field::integer;
  else if (iequals(word[2], "pattern"))
    h.field = Field::pattern;
  else if (iequals(word[2], "complex"))
    fail_at(1, "complex field is not supported (spmvkit reads real matrices)");
  else
    fail_at(1, "unknown field " + quoted(word[2]) +
                   " in the banner (expected real, integer or pattern)");
  if (iequals(word[3], "general"))
    h.symmetry = Symmetry::general;
  else if (iequals(word[3], "symmetric"))
    h.symmetry = Symmetry::symmetric;
  else if (iequals(word[3], "skew-symmetric"))
    h.symmetry = Symmetry::skew_symmetric;
  else if (iequals(word[3], "hermitian"))
    fail_at(1,
            "hermitian symmetry is not supported (it needs complex values; spmvkit reads "
            "real matrices)");
  else
    fail_at(1, "unknown symmetry " + quoted(word[3]) +
                   " in the banner (expected general, symmetric or skew-symmetric)");
  // The Matrix Market rules (mmio.c, mm_is_valid): no pattern arrays, no pattern skew.
  if (h.field == Field::pattern && h.format == Format::array)
    fail_at(1, "invalid banner: the pattern field needs coordinate format");
  if (h.field == Field::pattern && h.symmetry == Symmetry::skew_symmetric)
    fail_at(1, "invalid banner: a pattern matrix cannot be skew-symmetric");

  // Comments and blank lines, then the size line.
  for (;;) {
    if (!next_line(text, number)) fail_at(line_, "file ends before the size line");
    const char* p = text.data();
    const char* e = p + text.size();
    while (p < e && is_blank(*p)) ++p;
    if (p == e || *p == '%') continue;
    h.size_line = number;
    const int expected = h.format == Format::coordinate ? 3 : 2;
    std::int64_t size[3] = {0, 0, 0};
    int count = 0;
    for (;;) {
      while (p < e && is_blank(*p)) ++p;
      if (p == e) break;
      if (count == expected)
        fail_at(number, "trailing " + token_at(p) + " after the " + std::to_string(expected) +
                            " numbers of the size line");
      p = parse_size(*this, number, p, e, size[count++]);
    }
    if (count < expected)
      fail_at(number, "size line has " + std::to_string(count) + " of " + std::to_string(expected) +
                          " numbers (" + (expected == 3 ? "rows columns entries" : "rows columns") +
                          ")");
    h.rows = size[0];
    h.cols = size[1];
    if (h.rows > kIndexMax || h.cols > kIndexMax)
      fail_at(number, "size " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                          " overflows 32-bit indices (at most " + std::to_string(kIndexMax) +
                          " rows and columns)");
    if (h.format == Format::coordinate) {
      h.entries = size[2];
      // Refused from the header, before allocating: a symmetric file may expand to twice
      // its stored entries, and the COO must stay within 32-bit offsets.
      const bool mirrored = h.symmetry != Symmetry::general;
      if (h.entries > (mirrored ? kIndexMax / 2 : kIndexMax))
        fail_at(number, std::to_string(h.entries) + " declared entries" +
                            (mirrored ? " (up to twice that after symmetric expansion)" : "") +
                            " overflow 32-bit indices (at most " + std::to_string(kIndexMax) +
                            " entries)");
    } else {
      h.entries = h.rows * h.cols;
    }
    return h;
  }
}

}  // namespace spmvkit::mm
