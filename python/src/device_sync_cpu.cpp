// The build without CUDA: no device memory exists, so no device pointer is accepted.
#include "python/src/device_sync.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::python {

void check_device_pointer(std::uintptr_t address, const std::string& what) {
  if (address != 0) throw InputError(what + ": device memory, but this build has no CUDA backend");
}
void wait_for_user_stream(std::uintptr_t) {}
void signal_user_stream(std::uintptr_t) {}
void copy_device(std::uintptr_t, std::uintptr_t, std::size_t bytes) {
  if (bytes > 0) throw UnsupportedError("device copy: this build has no CUDA backend");
}
void copy_to_host(void*, std::uintptr_t, std::size_t bytes) {
  if (bytes > 0) throw UnsupportedError("device copy: this build has no CUDA backend");
}
void copy_to_device(std::uintptr_t, const void*, std::size_t bytes) {
  if (bytes > 0) throw UnsupportedError("device copy: this build has no CUDA backend");
}
bool stream_capturing() { return false; }

}  // namespace spmvkit::python
