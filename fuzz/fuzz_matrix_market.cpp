// libFuzzer target: the Matrix Market reader on arbitrary bytes. Built twice: as is
// (fuzz_matrix_market: plain text, and gzip when the bytes start with its magic) and with
// SPMVKIT_FUZZ_GZIP (fuzz_matrix_market_gz: the bytes gzip-compressed first, so mutations
// reach the parser through a valid gzip stream). Any outcome but a result or a spmvkit::Error
// is a finding: a crash, a sanitizer report, another exception, a hang or a memory blow-up.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/matrix_market.hpp"

namespace {

#ifdef SPMVKIT_FUZZ_GZIP
std::vector<unsigned char> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 1, Z_DEFAULT_STRATEGY);  // gzip wrapper, small state
  std::vector<unsigned char> out(deflateBound(&z, size));
  z.next_in = const_cast<std::uint8_t*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
#endif

// The input as a file the reader can open by path: an in-memory file (memfd), reused.
std::string as_file(const unsigned char* data, std::size_t size) {
  static const int fd = memfd_create("spmvkit_fuzz", 0);
  if (fd < 0) std::abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Refuse (InputError) what would need more than 32 MB instead of allocating it: larger inputs
  // only repeat O(rows) passes, which under the sanitizers take seconds (a timeout finding:
  // 44.7M empty rows took 11 s).
  setenv("SPMVKIT_HOST_MEMORY_LIMIT", "32M", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#ifdef SPMVKIT_FUZZ_GZIP
  const std::vector<unsigned char> bytes = gzip(data, size);
  const std::string path = as_file(bytes.data(), bytes.size());
#else
  const std::string path = as_file(data, size);
#endif
  try {
    const spmvkit::Csr<double> a = spmvkit::read_matrix_market(path);
    a.validate("fuzzed input");  // a matrix that reads must be a valid CSR
  } catch (const spmvkit::Error&) {
  }
  try {
    (void)spmvkit::read_matrix_market_vector(path);
  } catch (const spmvkit::Error&) {
  }
  return 0;
}
