// The multi-GPU BSR operator's state, shared by its host side (multigpu.cpp) and its CUDA
// side (multigpu_cuda.cu).
#pragma once

#include <memory>
#include <vector>

#include "spmvkit/operator.hpp"

namespace spmvkit::dist {

template <class V>
struct MultiGpuCuda;

template <class V>
struct MultiGpuState {
  std::vector<std::unique_ptr<Operator<V>>> parts;  // part g on GPU g (null when it has no rows)
  std::vector<std::size_t> part_rows;               // rows of y^ each part computes
  std::vector<index_t> hat_to_row;                  // y^ position -> row of y (-1: padding)
  std::vector<V> y_hat_host;                        // CPU backend
  std::shared_ptr<MultiGpuCuda<V>> cuda;            // CUDA backend
};

#if SPMVKIT_HAVE_CUDA
int cuda_device_count();
// Makes device d current for its lifetime, then restores the previous one.
class DeviceScope {
 public:
  explicit DeviceScope(int d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};
template <class V>
void multigpu_setup_cuda(MultiGpuState<V>& s);
template <class V>
void multigpu_apply_cuda(MultiGpuState<V>& s, const V* x, const V* y, V* z, V alpha, V beta);
#endif

}  // namespace spmvkit::dist
