// A dense vector that knows where its memory lives (host for the CPU backend, device memory
// for the CUDA backend).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "spmvkit/backend.hpp"

namespace spmvkit {

template <class V>
class Vector {
 public:
  Vector() = default;
  Vector(std::size_t n, Backend b);  // contents unspecified
  static Vector from_host(const std::vector<V>& values, Backend b);

  std::vector<V> to_host() const;  // synchronises the backend's stream first
  void copy_from_host(const std::vector<V>& values);
  void fill_nan();  // poison: every element NaN
  void fill(V value);

  V* data() { return data_.get(); }
  const V* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  Backend backend() const { return backend_; }

 private:
  std::shared_ptr<V> data_;
  std::size_t size_ = 0;
  Backend backend_ = Backend::cpu;
};

}  // namespace spmvkit
