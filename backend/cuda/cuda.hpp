// The CUDA backend's internals: checked calls, the per-device context (stream, cuSPARSE and
// cuBLAS handles, properties) and RAII device buffers. Only code under backend/cuda/ calls
// cudaMalloc/cudaFree or creates handles; formats use DeviceBuffer and Context.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t status, const char* call,
                                       const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

}  // namespace spmvkit::cuda

#define SPMVKIT_CUDA_CHECK(call)                                                   \
  do {                                                                             \
    const cudaError_t spmvkit_status_ = (call);                                    \
    if (spmvkit_status_ != cudaSuccess)                                            \
      ::spmvkit::cuda::throw_cuda_error(spmvkit_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define SPMVKIT_CUSPARSE_CHECK(call)                                                   \
  do {                                                                                 \
    const cusparseStatus_t spmvkit_status_ = (call);                                   \
    if (spmvkit_status_ != CUSPARSE_STATUS_SUCCESS)                                    \
      ::spmvkit::cuda::throw_cusparse_error(spmvkit_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define SPMVKIT_CUBLAS_CHECK(call)                                                   \
  do {                                                                               \
    const cublasStatus_t spmvkit_status_ = (call);                                   \
    if (spmvkit_status_ != CUBLAS_STATUS_SUCCESS)                                    \
      ::spmvkit::cuda::throw_cublas_error(spmvkit_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: reports launch-configuration errors at the launch site.
#define SPMVKIT_LAUNCH_CHECK() SPMVKIT_CUDA_CHECK(cudaGetLastError())

namespace spmvkit::cuda {

// Whether this thread has an upload queued by UploadBeside's worker that it has not waited for
// (upload_beside.hpp), and the wait for it.
extern thread_local bool upload_pending;
void wait_for_pending_upload();

// One per device: the stream all spmvkit work is queued on, library handles bound to it, and
// the device's properties. Created on first use; lives for the process.
class Context {
 public:
  static Context& get();            // the current device's context
  static Context& get(int device);  // a given device's context (multi-GPU)
  // That device's context if it was made and the process is not tearing down, else null; the
  // current device stays as it is.
  static Context* existing(int device);

  int device() const { return device_; }
  // The stream spmvkit queues on: the context's own, or the one a StreamRedirect names. Waits
  // first for an upload this thread left to the worker (upload_beside.hpp), so that what the
  // caller queues runs after it.
  cudaStream_t stream() const {
    if (upload_pending) wait_for_pending_upload();
    return current_;
  }
  // The same without that wait: for stream-ordered allocation and free, which need not.
  cudaStream_t stream_unwaited() const { return current_; }
  // The library handles, bound to the same stream: what they queue runs after such an upload too
  // (a cuSPARSE peer reading the registry's upload preprocesses it at once).
  cusparseHandle_t cusparse() const {
    if (upload_pending) wait_for_pending_upload();
    return cusparse_;
  }
  cublasHandle_t cublas() const {
    if (upload_pending) wait_for_pending_upload();
    return cublas_;
  }
  const cudaDeviceProp& props() const { return props_; }
  int sm_count() const { return props_.multiProcessorCount; }
  void synchronize() const;

  Context(const Context&) = delete;
  friend class StreamRedirect;
  Context& operator=(const Context&) = delete;
  ~Context();

 private:
  explicit Context(int device);
  int device_ = 0;
  cudaStream_t stream_ = nullptr, current_ = nullptr;
  void use_stream(cudaStream_t s);  // current_ and the library handles' stream
  cusparseHandle_t cusparse_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cudaDeviceProp props_{};
};

// While alive, the current device's context queues on `s` instead of its stream (its library
// handles too): an operator applied inside runs there. The caller orders `s` with the context
// stream (SideStreams' fork and join). Not for concurrent use by several host threads.
class StreamRedirect {
 public:
  explicit StreamRedirect(cudaStream_t s);
  ~StreamRedirect();
  StreamRedirect(const StreamRedirect&) = delete;
  StreamRedirect& operator=(const StreamRedirect&) = delete;

 private:
  Context& ctx_;
  cudaStream_t previous_;
};

// An owning CUDA event (timing, stream ordering).
class Event {
 public:
  Event() { SPMVKIT_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Raw allocation, for DeviceBuffer and Vector. Throws CudaError naming the size on failure.
// When an allocation runs out of memory it first calls the release hooks (memory kept for reuse,
// such as the solvers' per-thread workspaces), hands the pool's kept memory back to the device,
// and tries once more.
void* device_alloc(std::size_t bytes);
// Whether device_alloc draws on the device's stream-ordered pool (cudaMallocAsync on the
// context's stream, freed in that stream's order; freed memory kept for reuse and handed back
// to the device when an allocation runs out) instead of cudaMalloc/cudaFree: on unless
// SPMVKIT_DEVICE_POOL=0. A cudaMalloc + cudaFree pair took ~70 us on the H100 host, the pool's
// 0.7 us (scripts/api_cost_probe.cu); a small matrix's build makes several.
bool device_pool_enabled();
// Hands what the current device's pool keeps for reuse back to the device, after the device's
// queued work (cudaMemGetInfo then counts it free); for code beside spmvkit that allocates
// device memory on its own.
void release_cached_device_memory();
// A function that frees the calling thread's memory kept for reuse and not in use, returning
// true when it freed any. Registered once (at static initialisation), never removed.
using ReleaseHook = bool (*)();
void add_release_hook(ReleaseHook hook);
void device_free(void* p) noexcept;
// The bytes device_alloc has handed out and not freed (cuSPARSE's and the driver's own
// allocations not included).
std::size_t device_bytes_in_use();
// The high-water mark of device_bytes_in_use over this object's life, above its value when the
// object was made (a build's peak device memory). Nests; not for concurrent builds.
class PeakBytes {
 public:
  PeakBytes();
  ~PeakBytes();
  PeakBytes(const PeakBytes&) = delete;
  PeakBytes& operator=(const PeakBytes&) = delete;
  std::size_t above_start() const;
  std::size_t in_use_above_start() const;  // what is still held now (a built format's size)

 private:
  std::size_t start_ = 0, outer_peak_ = 0;
};
// How many times this thread has waited for a context stream (Context::synchronize, and so
// every copy_to_host/copy_to_device): the build profile prints it a phase.
std::uint64_t stream_waits();
void copy_to_device(void* dst, const void* src, std::size_t bytes);    // on the stream, then sync
void copy_to_host(void* dst, const void* src, std::size_t bytes);      // on the stream, then sync
void copy_on_device(void* dst, const void* src, std::size_t bytes);    // async on the stream
// Queued on the stream, not waited for: from pinned memory `src` must stay unchanged until the
// stream is synchronised; from pageable memory the driver has staged it when this returns.
void copy_to_device_async(void* dst, const void* src, std::size_t bytes);
void fill_bytes(void* dst, int byte, std::size_t bytes);               // async on the stream

// An owning, move-only device array of n elements of T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) ptr_ = static_cast<T*>(device_alloc(n_ * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    upload(host.data(), host.size());
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      device_free(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { device_free(ptr_); }

  void upload(const T* host, std::size_t n) {
    if (n > 0) copy_to_device(ptr_, host, n * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_ > 0) copy_to_host(h.data(), ptr_, n_ * sizeof(T));
    return h;
  }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// Streams that run work beside a stream the caller owns (the context stream), with the
// fork/join events that keep them ordered with it: fork(origin) makes every side stream wait
// for the work queued on `origin` so far; join(origin) makes `origin` wait for everything
// queued on the side streams. Work queued between the two is thus ordered after earlier and
// before later work on `origin`. Its streams and events (non-blocking / without timing, of the
// current device) come from a pool kept for the process and go back to it with the object.
class SideStreams {
 public:
  // high_priority: the streams get the device's greatest priority, so their blocks are
  // dispatched ahead of a large kernel's pending ones on the origin (a halo exchange then
  // runs beside the local SpMV instead of after its last block).
  explicit SideStreams(int count, bool high_priority = false);
  ~SideStreams();
  SideStreams(const SideStreams&) = delete;
  SideStreams& operator=(const SideStreams&) = delete;

  int size() const { return static_cast<int>(streams_.size()); }
  cudaStream_t operator[](int i) const { return streams_[static_cast<std::size_t>(i)]; }
  void fork(cudaStream_t origin) const;
  void join(cudaStream_t origin) const;

 private:
  void release() noexcept;
  int device_ = 0;
  bool high_priority_ = false;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> done_;  // one per side stream, recorded by join
  cudaEvent_t forked_ = nullptr;   // recorded on the origin by fork
};

// Grid size for a 1D launch of `work` items, `per_block` items a block.
inline unsigned grid_for(std::size_t work, std::size_t per_block) {
  const std::size_t g = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(g == 0 ? 1 : g);
}

// A device copy of host `h`, queued on the context stream without a wait (a build's small
// tables, where a synchronous upload would be one more round trip): a host-to-device
// cudaMemcpyAsync from pageable memory returns once the driver has staged the source (CUDA's
// "API synchronization behavior"), so `h` may change or go at once.
template <class T>
DeviceBuffer<T> queued_upload(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  if (!h.empty()) copy_to_device_async(d.data(), h.data(), d.bytes());
  return d;
}

}  // namespace spmvkit::cuda
