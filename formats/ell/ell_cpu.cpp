// ELL on the CPU: the shared OpenMP ELL pass (formats/common/ell_pass_cpu.cpp) over the matrix.
#include "backend/cpu/host_operator.hpp"
#include "formats/ell/ell.hpp"

namespace spmvkit {

template <class V>
std::unique_ptr<Operator<V>> make_ell_cpu(EllData<V> e, OperatorInfo info) {
  return std::make_unique<HostOperator<V, EllData<V>, &ell_spmv_cpu<V>>>(std::move(e),
                                                                      std::move(info));
}

#define SPMVKIT_INSTANTIATE(V) \
  template std::unique_ptr<Operator<V>> make_ell_cpu(EllData<V>, OperatorInfo);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
