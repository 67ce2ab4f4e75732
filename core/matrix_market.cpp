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

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include "spmvkit/error.hpp"
#include "spmvkit/limits.hpp"

namespace spmvkit {

namespace {

constexpr std::int64_t kIndexMax = std::numeric_limits<index_t>::max();  // 2^31 - 1
// Reads (read(2) or gzread) fill a buffer of this size; large enough that the per-block
// work (syscall, moving the partial last line, progress report) vanishes against parsing.
constexpr std::size_t kBlockBytes = std::size_t{8} << 20;
// A line longer than this is not Matrix Market text (binary data, a wrong file).
constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
// Shortest data lines: "1 1\n" (pattern) and "1 1 1\n"; they bound how many entries a file
// of a given size can hold. gzip text is assumed to compress at most this much when sizing
// the first reservation (beyond it the arrays simply grow).
constexpr std::uint64_t kGzipRatioForReserve = 64;

// "PATH:LINE: problem"; line 0 means the file as a whole and is left out ("PATH: problem").
[[noreturn]] void fail(const std::string& path, std::int64_t line, const std::string& problem) {
  throw InputError(path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + problem);
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool ends_token(char c) { return is_blank(c) || c == '\n'; }

// Lines handed to the parsers always end in '\n', which stops these scans.
inline const char* skip_blanks(const char* p) {
  while (is_blank(*p)) ++p;
  return p;
}

// The token at p for a message: up to the next blank, printable, shortened.
std::string token_at(const char* p) {
  std::string out;
  for (; !ends_token(*p) && out.size() < 40; ++p)
    out += std::isprint(static_cast<unsigned char>(*p)) ? *p : '?';
  if (!ends_token(*p)) out += "...";
  return "'" + out + "'";
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
  Format format = Format::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  // declared data lines (rows * cols for array)
  std::int64_t size_line = 0;
};

// A Matrix Market file read in blocks: the header through next_line, the data through
// for_each_data_line. Owns the descriptor / gzFile.
class Reader {
 public:
  Reader(const std::string& path, const ProgressFn& progress) : path_(path), progress_(progress) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path_, 0, std::string("cannot open file: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      fail(path_, 0, std::string("cannot stat file: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail(path_, 0, "is a directory, not a Matrix Market file");
    file_bytes_ = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
    // gzip is recognised by its magic bytes (1f 8b), whatever the file is called.
    unsigned char magic[2] = {0, 0};
    if (::pread(fd_, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      gz_ = gzdopen(fd_, "rb");
      if (gz_ == nullptr) fail(path_, 0, "cannot open gzip stream");
      fd_ = -1;  // gzclose closes it
      // zlib's input buffer: 1 MB, or the file's size for a small file (at least 8 KB).
      gzbuffer(gz_, file_bytes_ > 0 ? static_cast<unsigned>(std::clamp<std::uint64_t>(
                                          file_bytes_, 8u << 10, 1u << 20))
                                    : 1u << 20);
    }
    // A small file gets a small buffer (it grows for a longer line): no 8 MB allocation to
    // read a few lines. gzip text is sized by kGzipRatioForReserve.
    const std::uint64_t expected = gz_ ? file_bytes_ * kGzipRatioForReserve : file_bytes_ + 2;
    cap_ = file_bytes_ > 0 ? static_cast<std::size_t>(std::clamp<std::uint64_t>(
                                 expected, std::uint64_t{4} << 10, kBlockBytes))
                           : kBlockBytes;
    buf_.reset(new char[cap_]);
  }
  ~Reader() {
    if (gz_ != nullptr) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const std::string& path() const { return path_; }
  std::int64_t line() const { return line_; }
  bool gzip() const { return gz_ != nullptr; }
  std::uint64_t file_bytes() const { return file_bytes_; }
  [[noreturn]] void fail_at(std::int64_t line, const std::string& problem) const {
    fail(path_, line, problem);
  }
  // For errors inside for_each_data_line: the line being parsed.
  [[noreturn]] void fail_here(const std::string& problem) const {
    // A bad last line that lacks its '\n' is most likely a file cut short: say so.
    if (unterminated_ && line_start_ != nullptr &&
        std::memchr(line_start_, '\n', static_cast<std::size_t>(buf_.get() + end_ - line_start_)) ==
            buf_.get() + end_ - 1)
      fail(path_, line_, problem + " (the file ends inside this line: truncated?)");
    fail(path_, line_, problem);
  }

  Header read_header();

  // Calls parse(p, lim) for every data line (not blank, not a comment); p points at the
  // first non-blank character, the line ends in '\n' before lim, and parse returns the
  // position of that '\n'.
  template <class Parse>
  void for_each_data_line(Parse&& parse) {
    for (;;) {
      const char* lim = complete_lines_end();
      const char* p = buf_.get() + pos_;
      if (p == lim) break;
      while (p < lim) {
        line_start_ = p;
        const char* q = skip_blanks(p);
        if (*q == '%')
          q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(lim - q)));
        else if (*q != '\n')
          q = parse(q, lim);
        p = q + 1;
        ++line_;
      }
      pos_ = static_cast<std::size_t>(p - buf_.get());
      line_start_ = nullptr;
      report_progress();
    }
  }

  void report_done() {
    if (progress_) progress_(1.0);
  }

 private:
  // The next line (without '\n') and its number; false at the end of the file.
  bool next_line(std::string_view& text, std::int64_t& number) {
    const char* lim = complete_lines_end();
    const char* p = buf_.get() + pos_;
    if (p == lim) return false;
    const char* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(lim - p)));
    text = std::string_view(p, static_cast<std::size_t>(nl - p));
    number = line_++;
    pos_ = static_cast<std::size_t>(nl + 1 - buf_.get());
    return true;
  }

  // End of the complete lines in the buffer, reading more as needed; equals the current
  // position only at the end of the file. After the end of the file the last line is given
  // a '\n' if it lacked one, so every line the parsers see ends in '\n'.
  const char* complete_lines_end() {
    for (;;) {
      if (eof_) return buf_.get() + end_;
      if (end_ > pos_) {
        const void* nl = ::memrchr(buf_.get() + pos_, '\n', end_ - pos_);
        if (nl != nullptr) return static_cast<const char*>(nl) + 1;
      }
      fill();
    }
  }

  // Moves the unparsed partial line (no '\n' in it) to the front and appends the next block.
  void fill() {
    const std::size_t len = end_ - pos_;
    if (len > kMaxLineBytes)
      fail_here("line is longer than " + std::to_string(kMaxLineBytes >> 20) +
                " MiB (not a Matrix Market text file?)");
    if (pos_ > 0) {
      std::memmove(buf_.get(), buf_.get() + pos_, len);
      pos_ = 0;
      end_ = len;
    }
    if (cap_ - end_ < cap_ / 2) {  // a long line: keep reads large
      std::unique_ptr<char[]> bigger(new char[2 * cap_]);
      std::memcpy(bigger.get(), buf_.get(), end_);
      buf_ = std::move(bigger);
      cap_ *= 2;
    }
    const std::size_t got = read_some(buf_.get() + end_, cap_ - end_ - 1);  // 1 byte for '\n'
    end_ += got;
    if (got == 0) {
      eof_ = true;
      if (end_ > pos_ && buf_[end_ - 1] != '\n') {
        buf_[end_++] = '\n';
        unterminated_ = true;
      }
    }
  }

  std::size_t read_some(char* dst, std::size_t n) {
    if (gz_ != nullptr) {
      const int got = gzread(gz_, dst, static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)));
      int code = Z_OK;
      const char* msg = gzerror(gz_, &code);
      if (got < 0 || (code != Z_OK && code != Z_BUF_ERROR))
        fail_here(std::string("corrupt gzip data (") + (msg ? msg : "zlib error") + ")");
      if (got == 0 && code == Z_BUF_ERROR) fail_here("gzip data ends early: the file is truncated");
      read_bytes_ += static_cast<std::uint64_t>(got);
      return static_cast<std::size_t>(got);
    }
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) {
        read_bytes_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
      }
      if (errno != EINTR) fail_here(std::string("read error: ") + std::strerror(errno));
    }
  }

  void report_progress() {
    if (!progress_ || file_bytes_ == 0) return;
    // Plain files: bytes parsed. gzip: compressed bytes consumed (zlib's own offset).
    const double done = gz_ != nullptr ? static_cast<double>(gzoffset(gz_))
                                       : static_cast<double>(read_bytes_ - (end_ - pos_));
    const double fraction = done / static_cast<double>(file_bytes_);
    if (fraction < 1.0) progress_(std::max(0.0, fraction));
  }

  std::string path_;
  ProgressFn progress_;
  int fd_ = -1;
  gzFile gz_ = nullptr;
  std::uint64_t file_bytes_ = 0;
  std::uint64_t read_bytes_ = 0;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  std::size_t pos_ = 0;  // first unparsed byte
  std::size_t end_ = 0;  // end of the data in buf_
  bool eof_ = false;
  bool unterminated_ = false;         // the last line had no '\n' (one was added)
  const char* line_start_ = nullptr;  // the data line being parsed, for messages
  std::int64_t line_ = 1;             // number of the line starting at pos_
};

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
