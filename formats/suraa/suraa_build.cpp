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

}  // namespace

FormatEntry suraa_format() {
  return make_format(
      "suraa",
      "SURAA as the paper runs it: rows sorted by length, Freedman-Diaconis segments, long rows "
      "by dynamic parallelism (a child grid a row); slower than suraa_static on every matrix "
      "measured on an H100",
      suraa_params(),
      [](const auto& a, const Params& p, Backend b) { return build_suraa(a, p, b, true); });
}

FormatEntry suraa_static_format() {
  return make_format(
      "suraa_static",
      "SURAA with the dynamic-parallelism group replaced by a static kernel (blocks per long "
      "row decided at setup): rows in the paper's groups, balanced tiles, one launch; the "
      "faster SURAA",
      suraa_params(),
      [](const auto& a, const Params& p, Backend b) { return build_suraa(a, p, b, false); });
}

}  // namespace spmvkit
