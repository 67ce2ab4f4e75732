#include "spmvkit/vector.hpp"

#include <algorithm>
#include <limits>

#include "spmvkit/error.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif

namespace spmvkit {

template <class V>
Vector<V>::Vector(std::size_t n, Backend b) : size_(n), backend_(b) {
  if (b == Backend::cpu) {
    data_ = std::shared_ptr<V>(new V[n > 0 ? n : 1], std::default_delete<V[]>());
    return;
  }
#if SPMVKIT_HAVE_CUDA
  data_ = std::shared_ptr<V>(static_cast<V*>(cuda::device_alloc(std::max<std::size_t>(n, 1) * sizeof(V))),
                             [](V* p) { cuda::device_free(p); });
#else
  throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
}

template <class V>
Vector<V> Vector<V>::from_host(const std::vector<V>& values, Backend b) {
  Vector<V> v(values.size(), b);
  v.copy_from_host(values);
  return v;
}

template <class V>
void Vector<V>::copy_from_host(const std::vector<V>& values) {
  if (values.size() != size_)
    throw InputError("vector of " + std::to_string(values.size()) + " values copied into one of " +
                     std::to_string(size_));
  if (backend_ == Backend::cpu) {
    std::copy(values.begin(), values.end(), data_.get());
    return;
  }
#if SPMVKIT_HAVE_CUDA
  if (size_ > 0) cuda::copy_to_device(data_.get(), values.data(), size_ * sizeof(V));
#endif
}

template <class V>
std::vector<V> Vector<V>::to_host() const {
  std::vector<V> out(size_);
  if (backend_ == Backend::cpu) {
    std::copy(data_.get(), data_.get() + size_, out.begin());
    return out;
  }
#if SPMVKIT_HAVE_CUDA
  if (size_ > 0) cuda::copy_to_host(out.data(), data_.get(), size_ * sizeof(V));
#endif
  return out;
}

template <class V>
void Vector<V>::fill_nan() {
  if (backend_ == Backend::cpu) {
    std::fill(data_.get(), data_.get() + size_, std::numeric_limits<V>::quiet_NaN());
    return;
  }
#if SPMVKIT_HAVE_CUDA
  cuda::fill_bytes(data_.get(), 0xFF, size_ * sizeof(V));  // all-ones bits are a NaN
#endif
}

template <class V>
void Vector<V>::fill(V value) {
  if (backend_ == Backend::cpu) {
    std::fill(data_.get(), data_.get() + size_, value);
    return;
  }
  copy_from_host(std::vector<V>(size_, value));
}

template class Vector<float>;
template class Vector<double>;

}  // namespace spmvkit
