// The float64 reference: deliberately naive loops, the truth every backend is tested against.
#pragma once

#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

// z = alpha*A*x + beta*y in float64 (y not read when beta == 0).
template <class V>
std::vector<double> reference_spmv(const Csr<V>& a, const std::vector<double>& x,
                                   const std::vector<double>& y, double alpha, double beta);

// ||a - b||_2 / ||b||_2 (or ||a - b||_2 when b is zero); NaN anywhere gives +inf.
double relative_error(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace spmvkit
