// InputError with a message built from pieces: "WHAT: piece piece ...". Shared by the core
// files that validate user input (csr.cpp, the generators).
#pragma once

#include <sstream>
#include <string>

#include "spmvkit/error.hpp"

namespace spmvkit::detail {

template <class... Args>
[[noreturn]] void fail(const std::string& what, Args&&... args) {
  std::ostringstream os;
  os << what << ": ";
  (os << ... << args);
  throw InputError(os.str());
}

}  // namespace spmvkit::detail
