// cuSPARSE wrapped as registry formats, so the peers run through the same tests and
// benchmark path as our kernels: CSR (SpMV ALG1, ALG2), COO, sliced ELL, BSR (generic SpMV
// and legacy bsrmv).
#pragma once

#include <memory>

#include "spmvkit/device_csr.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

enum class CusparsePeer { csr_alg1, csr_alg2, coo, sell, bsr, bsrmv };

FormatEntry cusparse_csr_alg1_format();
FormatEntry cusparse_csr_alg2_format();
FormatEntry cusparse_coo_format();
FormatEntry cusparse_sell_format();
FormatEntry cusparse_bsr_format();
FormatEntry cusparse_bsrmv_format();

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_cusparse(const Csr<V>& a, CusparsePeer peer, const Params& p);
// CSR ALG1, ALG2 and COO from a CSR in device memory (the registry's device builder): its arrays
// copied, or read in place while the operator holds `keep` (the registry's device keeper).
template <class V>
std::unique_ptr<Operator<V>> make_cusparse_from_device(
    const DeviceCsrView<V>& a, CusparsePeer peer,
    const std::shared_ptr<const void>& keep = nullptr);
#endif

}  // namespace spmvkit
