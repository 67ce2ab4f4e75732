// y = A*x with an installed spmvkit: a 1D Laplacian, built as the balanced CSR format.
#include <spmvkit/registry.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  spmvkit::Coo<double> coo;
  const int n = 1000;
  coo.rows = coo.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j : {i - 1, i, i + 1})
      if (j >= 0 && j < n) {
        coo.row_idx.push_back(i);
        coo.col_idx.push_back(j);
        coo.values.push_back(i == j ? 2.0 : -1.0);
      }
  const auto a = spmvkit::to_csr(coo);
  const auto op = spmvkit::build_operator<double>("csr_balanced", a);
  std::vector<double> x(n, 1.0), y(n, -7.0);
  op->apply(x.data(), nullptr, y.data(), 1.0, 0.0);
  // A * ones = 1 at both ends, 0 inside.
  double err = std::abs(y[0] - 1) + std::abs(y[n - 1] - 1);
  for (int i = 1; i < n - 1; ++i) err += std::abs(y[i]);
  std::printf("consumer: |A*1 - expected| = %g\n", err);
  return err == 0.0 ? 0 : 1;
}
