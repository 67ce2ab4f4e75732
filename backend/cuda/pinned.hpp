// Page-locked host memory (cudaHostAlloc) that a stream can copy into asynchronously: how the
// merged solvers read their residual without a blocking copy. Owning, move-only.
#pragma once

#include <cstddef>
#include <utility>

#include "backend/cuda/cuda.hpp"

namespace spmvkit::cuda {

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) : n_(n) {
    void* p = nullptr;
    SPMVKIT_CUDA_CHECK(cudaHostAlloc(&p, (n > 0 ? n : 1) * sizeof(T), cudaHostAllocDefault));
    ptr_ = static_cast<T*>(p);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFreeHost(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  T& operator[](std::size_t i) { return ptr_[i]; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace spmvkit::cuda
