// Ordering spmvkit's CUDA stream with a stream the caller owns (CuPy's current stream, or one
// the user names): work on our stream starts after what the caller queued before it, and the
// caller's later work starts after ours, without blocking the host. On a build without CUDA
// these refuse device pointers (there is no device).
#pragma once

#include <cstdint>
#include <string>

namespace spmvkit::python {

// Throws InputError naming `what` unless `address` is device memory of the device spmvkit
// runs on (a host pointer, or memory of another GPU, would fault in a kernel).
void check_device_pointer(std::uintptr_t address, const std::string& what);
// Makes spmvkit's stream wait for the work queued so far on `user_stream` (0: the legacy
// default stream).
void wait_for_user_stream(std::uintptr_t user_stream);
// Makes `user_stream` wait for the work queued so far on spmvkit's stream.
void signal_user_stream(std::uintptr_t user_stream);
// Device-to-device copy of `bytes` on spmvkit's stream (asynchronous).
void copy_device(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes);
// Copies between device and host memory on spmvkit's stream; they return once the copy is done.
void copy_to_host(void* dst, std::uintptr_t src, std::size_t bytes);
void copy_to_device(std::uintptr_t dst, const void* src, std::size_t bytes);
// True while spmvkit's stream is being captured into a CUDA graph (work queued then is only
// recorded, not run, so the host must not wait for it or read its results).
bool stream_capturing();

}  // namespace spmvkit::python
