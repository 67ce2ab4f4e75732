// Internal to the Matrix Market reader (core/matrix_market*.cpp): the block reader and
// the header parser. Not part of the public API.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "spmvkit/error.hpp"
#include "spmvkit/matrix_market.hpp"

namespace spmvkit::mm {

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
[[noreturn]] inline void fail(const std::string& path, std::int64_t line,
                              const std::string& problem) {
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
inline std::string token_at(const char* p) {
  std::string out;
  for (; !ends_token(*p) && out.size() < 40; ++p)
    out += std::isprint(static_cast<unsigned char>(*p)) ? *p : '?';
  if (!ends_token(*p)) out += "...";
  return "'" + out + "'";
}

inline bool iequals(std::string_view a, std::string_view b) {
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
                       std::int64_t& value);

}  // namespace spmvkit::mm
