// libFuzzer target: the names and parameter strings the CLI takes from its arguments.
//   "p:TEXT"  Params::parse (--params values, key=value,key=value)
//   "r:TEXT"  parse_reorder_method (--reorder)
//   other     a matrix name: is_generator_name, then generate_by_name (stencils, reservoir,
//             powerlaw, banded, random, expand_bsB_NAME) under a 4 MB host-memory limit, so
//             absurd sizes must be refused by the limit checks, not allocated.
// Names holding '/' or ".." are not opened (the fuzzer must not read the machine's files).
// Any outcome but a result or a spmvkit::Error is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/params.hpp"
#include "spmvkit/reorder.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SPMVKIT_HOST_MEMORY_LIMIT", "4M", 1);
  setenv("SPMVKIT_MATRICES", SPMVKIT_FUZZ_MATRICES, 1);  // bare names: the bundled matrices
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (text.rfind("p:", 0) == 0) {
      const spmvkit::Params p = spmvkit::Params::parse(text.substr(2));
      (void)spmvkit::Params::parse(p.to_string());  // what it prints, it reads back
    } else if (text.rfind("r:", 0) == 0) {
      (void)spmvkit::parse_reorder_method(text.substr(2));
    } else if (spmvkit::is_generator_name(text) && text.find('/') == std::string::npos &&
               text.find("..") == std::string::npos) {
      spmvkit::generate_by_name(text).validate("generated");
    }
  } catch (const spmvkit::Error&) {
  }
  return 0;
}
