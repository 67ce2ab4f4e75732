#include "spmvkit/reference.hpp"

#include <cmath>
#include <limits>

namespace spmvkit {

template <class V>
std::vector<double> reference_spmv(const Csr<V>& a, const std::vector<double>& x,
                                   const std::vector<double>& y, double alpha, double beta) {
  std::vector<double> z(a.rows);
  for (index_t r = 0; r < a.rows; ++r) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      sum += static_cast<double>(a.values[k]) * x[a.col_idx[k]];
    z[r] = alpha * sum + (beta == 0.0 ? 0.0 : beta * y[r]);
  }
  return z;
}

double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return std::numeric_limits<double>::infinity();
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return norm > 0.0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

template std::vector<double> reference_spmv(const Csr<float>&, const std::vector<double>&,
                                            const std::vector<double>&, double, double);
template std::vector<double> reference_spmv(const Csr<double>&, const std::vector<double>&,
                                            const std::vector<double>&, double, double);

}  // namespace spmvkit
