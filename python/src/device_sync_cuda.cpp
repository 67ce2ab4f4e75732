#include <cuda_runtime.h>

#include "backend/cuda/cuda.hpp"
#include "python/src/device_sync.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit::python {

void check_device_pointer(std::uintptr_t address, const std::string& what) {
  if (address == 0) return;  // an empty array
  cudaPointerAttributes attr{};
  SPMVKIT_CUDA_CHECK(cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(address)));
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw InputError(what + ": not device memory (pass a NumPy array, or a CuPy array)");
  const int device = cuda::Context::get().device();
  if (attr.device != device)
    throw InputError(what + ": on GPU " + std::to_string(attr.device) + ", spmvkit runs on GPU " +
                     std::to_string(device));
}

namespace {
// An event recorded on `from`, waited for by `to`; the event may be destroyed at once (CUDA
// keeps it alive until the wait is resolved).
void order(cudaStream_t from, cudaStream_t to) {
  cuda::Event done;
  SPMVKIT_CUDA_CHECK(cudaEventRecord(done.get(), from));
  SPMVKIT_CUDA_CHECK(cudaStreamWaitEvent(to, done.get(), 0));
}
}  // namespace

void wait_for_user_stream(std::uintptr_t user_stream) {
  order(reinterpret_cast<cudaStream_t>(user_stream), cuda::Context::get().stream());
}

void signal_user_stream(std::uintptr_t user_stream) {
  order(cuda::Context::get().stream(), reinterpret_cast<cudaStream_t>(user_stream));
}

void copy_device(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes) {
  if (bytes > 0)
    cuda::copy_on_device(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
}

void copy_to_host(void* dst, std::uintptr_t src, std::size_t bytes) {
  if (bytes > 0) cuda::copy_to_host(dst, reinterpret_cast<const void*>(src), bytes);
}

void copy_to_device(std::uintptr_t dst, const void* src, std::size_t bytes) {
  if (bytes > 0) cuda::copy_to_device(reinterpret_cast<void*>(dst), src, bytes);
}

bool stream_capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SPMVKIT_CUDA_CHECK(cudaStreamIsCapturing(cuda::Context::get().stream(), &status));
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace spmvkit::python
