#include "formats/csr/csr.hpp"

namespace spmvkit {

namespace {

template <class V>
std::unique_ptr<Operator<V>> build_csr(const Csr<V>& a, const Params& p, Backend b,
                                       CsrKernel kernel) {
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return make_csr_cuda(a, kernel, p);
#endif
  (void)p;
  (void)b;
  return make_csr_cpu(a, kernel);
}

}  // namespace

FormatEntry csr_scalar_format() {
  return make_format("csr_scalar", "CSR, one thread per row", {},
                     [](const auto& a, const Params& p, Backend b) {
                       return build_csr(a, p, b, CsrKernel::scalar);
                     });
}

FormatEntry csr_vector_format() {
  return make_format(
      "csr_vector",
      "CSR, a warp or power-of-two sub-warp per row (chosen from the mean row length)",
      {"threads_per_row"}, [](const auto& a, const Params& p, Backend b) {
        return build_csr(a, p, b, CsrKernel::vector);
      });
}

FormatEntry csr_balanced_format() {
  return make_format(
      "csr_balanced",
      "CSR, nnz-split tiles (one huge row cannot stall); options: column panels "
      "(panels=N), far entries in COO column panels (far_panels=N, near_band=B)",
      {"items_per_thread", "block_threads", "panels", "far_panels", "near_band", "long_row_finish"},
      [](const auto& a, const Params& p, Backend b) {
        return build_csr(a, p, b, CsrKernel::balanced);
      });
}

}  // namespace spmvkit
