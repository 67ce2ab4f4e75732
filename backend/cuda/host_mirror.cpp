#include "backend/cuda/host_mirror.hpp"

#include <cstdint>

namespace spmvkit::cuda {

namespace {
thread_local ScopedHostMirror* live = nullptr;  // this thread's innermost scope
}  // namespace

ScopedHostMirror::ScopedHostMirror(const index_t* device_row_ptr, const index_t* host_row_ptr,
                                   index_t rows, const index_t* device_col_idx,
                                   const index_t* host_col_idx)
    : outer_(live) {
  live = this;
  if (rows < 0 || rows > kHostPlanRows || !device_row_ptr || !host_row_ptr) return;
  device_ = device_row_ptr;
  host_ = host_row_ptr;
  n_ = static_cast<std::size_t>(rows) + 1;
  if (device_col_idx && host_col_idx) {
    device_col_ = device_col_idx;
    host_col_ = host_col_idx;
  }
}

ScopedHostMirror::~ScopedHostMirror() { live = outer_; }

const index_t* host_row_ptr(const index_t* device, std::size_t n) {
  const ScopedHostMirror* m = live;
  if (!m || !m->device_ || !device) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(device);
  const auto start = reinterpret_cast<std::uintptr_t>(m->device_);
  if (at < start || (at - start) % sizeof(index_t) != 0) return nullptr;
  const std::size_t offset = (at - start) / sizeof(index_t);
  if (offset > m->n_ || n > m->n_ - offset) return nullptr;
  return m->host_ + offset;
}

const index_t* host_col_idx(const index_t* device) {
  const ScopedHostMirror* m = live;
  return m && device && device == m->device_col_ ? m->host_col_ : nullptr;
}

const std::vector<index_t>* host_lengths(const index_t* device_row_ptr, index_t rows) {
  ScopedHostMirror* m = live;
  if (!m || !m->device_ || device_row_ptr != m->device_ || rows < 0 ||
      static_cast<std::size_t>(rows) + 1 != m->n_)
    return nullptr;
  if (!m->lengths_made_) {
    m->lengths_.resize(static_cast<std::size_t>(rows));
    for (index_t r = 0; r < rows; ++r)
      m->lengths_[static_cast<std::size_t>(r)] = m->host_[r + 1] - m->host_[r];
    m->lengths_made_ = true;
  }
  return &m->lengths_;
}

}  // namespace spmvkit::cuda
