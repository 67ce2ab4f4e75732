#include "backend/cuda/host_mirror.hpp"

#include <cstdint>

namespace spmvkit::cuda {

namespace {
// This thread's registered build: the row pointer's device and host starts and entries, the
// column indices' device and host starts.
thread_local const index_t* mirror_device = nullptr;
thread_local const index_t* mirror_host = nullptr;
thread_local std::size_t mirror_n = 0;
thread_local const index_t* mirror_device_col = nullptr;
thread_local const index_t* mirror_host_col = nullptr;
}  // namespace

ScopedHostMirror::ScopedHostMirror(const index_t* device_row_ptr, const index_t* host_row_ptr,
                                   index_t rows, const index_t* device_col_idx,
                                   const index_t* host_col_idx)
    : saved_{mirror_device, mirror_host, mirror_device_col, mirror_host_col}, saved_n_(mirror_n) {
  const bool small = rows >= 0 && rows <= kHostPlanRows && device_row_ptr && host_row_ptr;
  mirror_device = small ? device_row_ptr : nullptr;
  mirror_host = small ? host_row_ptr : nullptr;
  mirror_n = small ? static_cast<std::size_t>(rows) + 1 : 0;
  const bool cols = small && device_col_idx && host_col_idx;
  mirror_device_col = cols ? device_col_idx : nullptr;
  mirror_host_col = cols ? host_col_idx : nullptr;
}

ScopedHostMirror::~ScopedHostMirror() {
  mirror_device = static_cast<const index_t*>(saved_[0]);
  mirror_host = static_cast<const index_t*>(saved_[1]);
  mirror_device_col = static_cast<const index_t*>(saved_[2]);
  mirror_host_col = static_cast<const index_t*>(saved_[3]);
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

const index_t* host_col_idx(const index_t* device) {
  return device && device == mirror_device_col ? mirror_host_col : nullptr;
}

}  // namespace spmvkit::cuda
