// CSR on both backends: scalar (a thread a row), vector (a warp or sub-warp a row) and
// load-balanced (merge-path: rows + nonzeros split evenly, so one huge row cannot stall).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "formats/common/csr_kernels.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

enum class CsrKernel { scalar, vector, balanced };

FormatEntry csr_scalar_format();
FormatEntry csr_vector_format();
FormatEntry csr_balanced_format();

template <class V>
std::unique_ptr<Operator<V>> make_csr_cpu(const Csr<V>& a, CsrKernel kernel);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const Csr<V>& a, CsrKernel kernel, const Params& p);
// From a CSR on the device, copied there ...
template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const DeviceCsrView<V>& a, CsrKernel kernel,
                                           const Params& p);
// ... or kept where it is (`keep` holds its arrays: the registry's upload). csr_balanced keeps
// it with one column panel and no far split; with those it makes its own arrays.
template <class V>
std::unique_ptr<Operator<V>> make_csr_cuda(const DeviceCsrView<V>& a,
                                           const std::shared_ptr<const void>& keep,
                                           CsrKernel kernel, const Params& p);
#endif

}  // namespace spmvkit
