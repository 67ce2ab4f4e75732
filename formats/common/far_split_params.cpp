#include "formats/common/far_split_params.hpp"

namespace spmvkit {

ParamSpec csr_far_panels_param() {
  return int_param("far_panels", "auto", 0, 64,
                   "COO column panels for the entries outside the near band, after the CSR "
                   "pass; 0: no split; auto: split when x is over half the L2")
      .or_auto()
      .cuda();
}

ParamSpec csr_near_band_param() {
  return int_param("near_band", "auto", 0, 2147483647,
                   "columns either side of the diagonal kept in the CSR pass (far_panels); "
                   "auto: 8 MB of x each way")
      .or_auto()
      .cuda();
}

}  // namespace spmvkit
