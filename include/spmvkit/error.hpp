// Errors: every failure the library reports is an exception derived from spmvkit::Error.
#pragma once

#include <stdexcept>
#include <string>

namespace spmvkit {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad user data: a malformed file (message carries file:line), wrong sizes, bad values.
class InputError : public Error {
 public:
  using Error::Error;
};

// A format that cannot hold this matrix (ELL too wide, block size that does not fit...),
// or a backend this build does not have.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// A CUDA runtime / driver failure: status text, call, file and line.
class CudaError : public Error {
 public:
  using Error::Error;
};

// A cuSPARSE or cuBLAS failure: status text, call, file and line.
class CusparseError : public Error {
 public:
  using Error::Error;
};

}  // namespace spmvkit
