// Helpers for format-specific tests: matrices with chosen row lengths, and a check of one
// format with explicit parameters against the float64 reference on every runnable backend
// (the registry suite covers default parameters; these cover the non-default ones).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit::testing {

inline std::vector<Backend> runnable_backends() {
  std::vector<Backend> b{Backend::cpu};
  if (cuda_available()) b.push_back(Backend::cuda);
  return b;
}

// Row r holds length(r) distinct random columns of [0, cols) (capped at cols), values in
// [-1, 1).
inline Csr<double> matrix_with_lengths(index_t rows, index_t cols,
                                       const std::function<index_t(index_t)>& length,
                                       std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(1, 0);
  std::vector<index_t> row;
  for (index_t r = 0; r < rows; ++r) {
    const index_t len = std::min(length(r), cols);
    row.clear();
    if (len * 2 > cols) {  // dense-ish: keep each column with the right odds, then trim
      for (index_t c = 0; c < cols; ++c) row.push_back(c);
      std::shuffle(row.begin(), row.end(), rng);
      row.resize(static_cast<std::size_t>(len));
    } else {
      while (static_cast<index_t>(row.size()) < len) {
        row.push_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols)));
        if (static_cast<index_t>(row.size()) == len) {
          std::sort(row.begin(), row.end());
          row.erase(std::unique(row.begin(), row.end()), row.end());
        }
      }
    }
    std::sort(row.begin(), row.end());
    for (index_t c : row) {
      a.col_idx.push_back(c);
      a.values.push_back(val(rng));
    }
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
  }
  a.validate("test matrix");
  return a;
}

// Builds `format` with `params` on `backend` in precision V and checks y = A*x (y poisoned),
// z = alpha*A*x + beta*y and y = alpha*A*x + beta*y in place against the float64 reference.
template <class V>
void expect_spmv_matches(const std::string& format, const Csr<double>& a64, const Params& params,
                         Backend backend) {
  SCOPED_TRACE(format + " [" + params.to_string() + "] on " + std::string(to_string(backend)) +
               (sizeof(V) == 8 ? " f64" : " f32"));
  const Csr<V> a = a64.cast<V>();
  const auto op = build_operator<V>(format, a, params, backend);
  expect_operator_matches(*op, a, backend,
                          test_seed() ^ std::hash<std::string>{}(format + params.to_string()));
}

// expect_spmv_matches in float and double on every runnable backend.
inline void expect_spmv_matches_everywhere(const std::string& format, const Csr<double>& a,
                                           const Params& params) {
  for (Backend b : runnable_backends()) {
    expect_spmv_matches<float>(format, a, params, b);
    expect_spmv_matches<double>(format, a, params, b);
  }
}

// Building `format` with the bad value in `params` must fail as an InputError about the value:
// a registry "unknown parameter" error would mean the option was never read, and would make a
// bad-value test pass for the wrong reason.
inline void expect_bad_value(const std::string& format, const Csr<double>& a, const char* params,
                             Backend backend) {
  try {
    build_operator<double>(format, a, Params::parse(params), backend);
    ADD_FAILURE() << format << " [" << params << "] built without an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("unknown parameter"), std::string::npos)
        << format << " [" << params << "]: " << e.what();
  }
}

}  // namespace spmvkit::testing
