#include "backend/cuda/host_mirror.hpp"

#include <cstdint>

namespace spmvkit::cuda {

namespace {
// This thread's registered row pointer: device start, host start, entries.
thread_local const index_t* mirror_device = nullptr;
thread_local const index_t* mirror_host = nullptr;
thread_local std::size_t mirror_n = 0;
}  // namespace

ScopedHostMirror::ScopedHostMirror(const index_t* device_row_ptr, const index_t* host_row_ptr,
                                   index_t rows)
    : saved_device_(mirror_device), saved_host_(mirror_host), saved_n_(mirror_n) {
  const bool small = rows >= 0 && rows <= kHostPlanRows && device_row_ptr && host_row_ptr;
  mirror_device = small ? device_row_ptr : nullptr;
  mirror_host = small ? host_row_ptr : nullptr;
  mirror_n = small ? static_cast<std::size_t>(rows) + 1 : 0;
}

ScopedHostMirror::~ScopedHostMirror() {
  mirror_device = saved_device_;
  mirror_host = saved_host_;
  mirror_n = saved_n_;
}

const index_t* host_row_ptr(const index_t* device, std::size_t n) {
  if (!mirror_device || !device) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(device);
  const auto start = reinterpret_cast<std::uintptr_t>(mirror_device);
  if (at < start || (at - start) % sizeof(index_t) != 0) return nullptr;
  const std::size_t offset = (at - start) / sizeof(index_t);
  if (offset > mirror_n || n > mirror_n - offset) return nullptr;
  return mirror_host + offset;
}

}  // namespace spmvkit::cuda
