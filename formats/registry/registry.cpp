// The one place that knows every format.
#include "spmvkit/registry.hpp"

#include "formats/bsr/bsr.hpp"
#include "formats/csr/csr.hpp"
#include "formats/csr3/csr3.hpp"
#include "formats/cusparse/cusparse.hpp"
#include "formats/eigen/eigen.hpp"
#include "formats/ell/ell.hpp"
#include "formats/hec/hec.hpp"
#include "formats/hyb/hyb.hpp"
#include "formats/sellp/sellp.hpp"
#include "formats/suraa/suraa.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

// select/auto_format.cpp: picks one of the formats below and builds it through this registry
// (declared here, not included: the registry stays below select/).
FormatEntry auto_format();

const std::vector<FormatEntry>& formats() {
  static const std::vector<FormatEntry> all = [] {
    std::vector<FormatEntry> list = {
      csr_scalar_format(),
      csr_vector_format(),
      csr_balanced_format(),
      ell_format(),
      hyb_format(),
      hec_format(),
      sellp_format(),
      csr3_format(),
      suraa_format(),
      suraa_static_format(),
      bsr_format(),
      bsr_balanced_format(),
      auto_format(),
      // cuSPARSE peers
      cusparse_csr_alg1_format(),
      cusparse_csr_alg2_format(),
      cusparse_coo_format(),
      cusparse_sell_format(),
      cusparse_bsr_format(),
      cusparse_bsrmv_format(),
    };
#if SPMVKIT_HAVE_EIGEN
    list.push_back(eigen_csr_format());  // the CPU peer, when the build found Eigen
#endif
    return list;
  }();
  return all;
}

const FormatEntry& find_format(std::string_view name) {
  std::string known;
  for (const auto& f : formats()) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw InputError("unknown format '" + std::string(name) + "' (known: " + known + ")");
}

template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const Csr<V>& a,
                                            const Params& params, Backend b) {
  const FormatEntry& f = find_format(format);
  const Params valid = validate_params(f, params);
  if (!f.supports(b))
    throw UnsupportedError("format " + f.name + " has no " + std::string(to_string(b)) +
                           " kernel");
  if (b == Backend::cuda && !cuda_compiled())
    throw UnsupportedError("this build of spmvkit has no CUDA backend");
  if (b == Backend::cuda && !cuda_available())
    throw UnsupportedError("no CUDA device is available");
  std::unique_ptr<Operator<V>> op = f.builder<V>()(a, valid, b);
  op->add_details(effective_params(f, valid, b, op->info().details));
  return op;
}

template std::unique_ptr<Operator<float>> build_operator(std::string_view, const Csr<float>&,
                                                         const Params&, Backend);
template std::unique_ptr<Operator<double>> build_operator(std::string_view, const Csr<double>&,
                                                          const Params&, Backend);

}  // namespace spmvkit
