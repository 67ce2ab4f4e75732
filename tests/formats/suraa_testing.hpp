// Small matrices and options shared by the SURAA tests (suraa_test.cpp, suraa_plan_test.cpp).
#pragma once

#include <numeric>
#include <vector>

#include "formats/suraa/suraa.hpp"
#include "spmvkit/csr.hpp"

namespace spmvkit::suraa_testing {

// A matrix from explicit column lists (values 1).
inline Csr<double> from_rows(const std::vector<std::vector<index_t>>& rows, index_t cols) {
  std::vector<index_t> rp{0}, ci;
  for (const auto& r : rows) {
    ci.insert(ci.end(), r.begin(), r.end());
    rp.push_back(static_cast<index_t>(ci.size()));
  }
  std::vector<double> v(ci.size(), 1.0);
  return make_csr<double>(static_cast<index_t>(rows.size()), cols, rp, ci, v, "test");
}

// A matrix whose row r has lengths[r] entries in columns 0.. (cols >= max length).
inline Csr<double> from_lengths(const std::vector<index_t>& lengths, index_t cols) {
  std::vector<std::vector<index_t>> rows;
  for (index_t len : lengths) {
    std::vector<index_t> r(static_cast<std::size_t>(len));
    std::iota(r.begin(), r.end(), 0);
    rows.push_back(r);
  }
  return from_rows(rows, cols);
}

inline SuraaOptions no_fallback() {
  SuraaOptions o;
  o.low_variance_cv = 0;
  return o;
}

}  // namespace spmvkit::suraa_testing
