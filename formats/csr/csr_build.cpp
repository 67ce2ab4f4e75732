#include "formats/csr/csr.hpp"

#include "formats/common/far_split_params.hpp"

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

// The device builders: scalar and vector copy the CSR on the device, balanced splits or copies
// it there and tiles it there (csr_cuda.cu); from the registry's own upload all three keep its
// arrays instead of copying them (balanced: one column panel, no far split).
FormatEntry on_device(FormatEntry e, CsrKernel kernel) {
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [kernel](const auto& a, const Params& p) {
    return make_csr_cuda(a, kernel, p);
  });
  set_device_keeper(e, [kernel](const auto& a, const std::shared_ptr<const void>& keep,
                                const Params& p) { return make_csr_cuda(a, keep, kernel, p); });
#else
  (void)kernel;
#endif
  return e;
}

}  // namespace

FormatEntry csr_scalar_format() {
  return on_device(make_format("csr_scalar", "CSR, one thread per row", {},
                               [](const auto& a, const Params& p, Backend b) {
                                 return build_csr(a, p, b, CsrKernel::scalar);
                               }),
                   CsrKernel::scalar);
}

FormatEntry csr_vector_format() {
  FormatEntry e = make_format(
      "csr_vector",
      "CSR, a warp or power-of-two sub-warp per row (chosen from the mean row length)",
      {int_choice("threads_per_row", "auto", {1, 2, 4, 8, 16, 32},
                  "threads a row; auto: the mean row length rounded up to a power of two in "
                  "2..32")
           .or_auto()
           .cuda()},
      [](const auto& a, const Params& p, Backend b) {
        return build_csr(a, p, b, CsrKernel::vector);
      });
  return on_device(std::move(e), CsrKernel::vector);
}

FormatEntry csr_balanced_format() {
  FormatEntry e = make_format(
      "csr_balanced",
      "CSR, nnz-split tiles (one huge row cannot stall); options: column panels "
      "(panels=N), far entries in COO column panels (far_panels=N, near_band=B)",
      {int_choice("items_per_thread", "8", {4, 8, 16}, "nonzeros a thread takes in a tile").cuda(),
       int_choice("block_threads", "128", {128, 256}, "threads a block").cuda(),
       enum_param("row_sum", "groups", {"groups", "scan"},
                  "how a tile sums its rows: groups of threads a row, or each thread its own "
                  "products in order with a block scan across threads")
           .cuda(),
       int_param("panels", "1", 1, 64, "column panels (cache blocking of x); 1: none").cuda(),
       csr_far_panels_param(), csr_near_band_param(),
       enum_param("long_row_finish", "fixup", {"fixup", "last_slice"},
                  "how a row spanning tiles is summed: a fix-up pass, or by its last tile")
           .cuda()},
      [](const auto& a, const Params& p, Backend b) {
        return build_csr(a, p, b, CsrKernel::balanced);
      });
  return on_device(std::move(e), CsrKernel::balanced);
}

}  // namespace spmvkit
