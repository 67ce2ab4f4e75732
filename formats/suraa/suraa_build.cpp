#include "formats/suraa/suraa.hpp"

namespace spmvkit {

namespace {

template <class V>
std::unique_ptr<Operator<V>> build_suraa(const Csr<V>& a, const Params& p, Backend b,
                                         bool dynamic) {
  const SuraaOptions o = suraa_options(p, dynamic);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return make_suraa_cuda(a, o);
#endif
  (void)b;
  return make_suraa_cpu(a, o);
}

// The device builder: the setup from a CSR already on the device (make_suraa_cuda).
FormatEntry on_device(FormatEntry e, bool dynamic) {
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [dynamic](const auto& a, const Params& p) {
    return make_suraa_cuda(a, suraa_options(p, dynamic));
  });
#else
  (void)dynamic;
#endif
  return e;
}

}  // namespace

FormatEntry suraa_format() {
  return on_device(make_format(
      "suraa",
      "SURAA as the paper runs it: rows sorted by length, Freedman-Diaconis segments, long rows "
      "by dynamic parallelism (a child grid a row); slower than suraa_static on every matrix "
      "measured on an H100",
      suraa_params(),
      [](const auto& a, const Params& p, Backend b) { return build_suraa(a, p, b, true); }),
      true);
}

FormatEntry suraa_static_format() {
  return on_device(make_format(
      "suraa_static",
      "SURAA with the dynamic-parallelism group replaced by a static kernel (blocks per long "
      "row decided at setup): rows in the paper's groups, balanced tiles, one launch; the "
      "faster SURAA",
      suraa_params(),
      [](const auto& a, const Params& p, Backend b) { return build_suraa(a, p, b, false); }),
      false);
}

}  // namespace spmvkit
