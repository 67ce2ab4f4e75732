#include "backend/cuda/cuda.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "spmvkit/error.hpp"

namespace spmvkit::cuda {

namespace {
std::string where(const char* call, const char* file, int line) {
  std::ostringstream os;
  os << " in " << call << " at " << file << ":" << line;
  return os.str();
}
}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear a sticky non-fatal error so later calls are not poisoned
  throw CudaError(std::string("CUDA error ") + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ")" + where(call, file, line));
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  throw CusparseError(std::string("cuSPARSE error ") + cusparseGetErrorName(status) + " (" +
                      cusparseGetErrorString(status) + ")" + where(call, file, line));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CusparseError(std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                      cublasGetStatusString(status) + ")" + where(call, file, line));
}

Context::Context(int device) : device_(device) {
  SPMVKIT_CUDA_CHECK(cudaSetDevice(device));
  SPMVKIT_CUDA_CHECK(cudaGetDeviceProperties(&props_, device));
  SPMVKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  SPMVKIT_CUSPARSE_CHECK(cusparseCreate(&cusparse_));
  SPMVKIT_CUSPARSE_CHECK(cusparseSetStream(cusparse_, stream_));
  SPMVKIT_CUBLAS_CHECK(cublasCreate(&cublas_));
  SPMVKIT_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
}

Context::~Context() {
  // Process teardown: errors here cannot be reported, so they are ignored.
  if (cublas_) cublasDestroy(cublas_);
  if (cusparse_) cusparseDestroy(cusparse_);
  if (stream_) cudaStreamDestroy(stream_);
}

Context& Context::get() {
  int device = 0;
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&device));
  return get(device);
}

Context& Context::get(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<Context>> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = contexts[device];
  if (!slot) slot.reset(new Context(device));
  SPMVKIT_CUDA_CHECK(cudaSetDevice(device));
  return *slot;
}

void Context::synchronize() const { SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

SideStreams::SideStreams(int count) {
  try {
    SPMVKIT_CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
    for (int i = 0; i < count; ++i) {
      cudaStream_t s = nullptr;
      SPMVKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams_.push_back(s);
      cudaEvent_t e = nullptr;
      SPMVKIT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      done_.push_back(e);
    }
  } catch (...) {
    release();
    throw;
  }
}

SideStreams::~SideStreams() { release(); }

void SideStreams::release() noexcept {
  // Destruction cannot report errors; queued work still completes (cudaStreamDestroy and
  // cudaEventDestroy return at once and release the handles when the work is done).
  for (cudaEvent_t e : done_) cudaEventDestroy(e);
  for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  if (forked_) cudaEventDestroy(forked_);
  done_.clear();
  streams_.clear();
  forked_ = nullptr;
}

void SideStreams::fork(cudaStream_t origin) const {
  if (streams_.empty()) return;
  SPMVKIT_CUDA_CHECK(cudaEventRecord(forked_, origin));
  for (cudaStream_t s : streams_) SPMVKIT_CUDA_CHECK(cudaStreamWaitEvent(s, forked_, 0));
}

void SideStreams::join(cudaStream_t origin) const {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    SPMVKIT_CUDA_CHECK(cudaEventRecord(done_[i], streams_[i]));
    SPMVKIT_CUDA_CHECK(cudaStreamWaitEvent(origin, done_[i], 0));
  }
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    std::ostringstream os;
    os << "CUDA error " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status)
       << ") allocating " << bytes << " bytes of device memory";
    throw CudaError(os.str());
  }
  return p;
}

void device_free(void* p) noexcept {
  if (p) cudaFree(p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  auto& ctx = Context::get();
  SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, ctx.stream()));
  ctx.synchronize();
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  auto& ctx = Context::get();
  SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  SPMVKIT_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, Context::get().stream()));
}

void fill_bytes(void* dst, int byte, std::size_t bytes) {
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(dst, byte, bytes, Context::get().stream()));
}

L2SetAside::L2SetAside(std::size_t bytes) {
  const cudaDeviceProp& props = Context::get().props();
  SPMVKIT_CUDA_CHECK(cudaDeviceGetLimit(&previous_, cudaLimitPersistingL2CacheSize));
  bytes_ = previous_;
  const std::size_t want =
      std::min(bytes, static_cast<std::size_t>(std::max(props.persistingL2CacheMaxSize, 0)));
  if (want > previous_) {
    SPMVKIT_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
    SPMVKIT_CUDA_CHECK(cudaDeviceGetLimit(&bytes_, cudaLimitPersistingL2CacheSize));
  }
}

L2SetAside::~L2SetAside() {
  // Errors cannot be thrown from here; the next checked call reports a sticky one.
  cudaCtxResetPersistingL2Cache();
  if (bytes_ != previous_) cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_);
}

L2PersistWindow::L2PersistWindow(cudaStream_t stream, const void* ptr, std::size_t bytes,
                                 std::size_t setaside, bool reset)
    : stream_(stream), reset_(reset) {
  if (ptr == nullptr || bytes == 0 || setaside == 0) return;
  const auto max_window =
      static_cast<std::size_t>(std::max(Context::get().props().accessPolicyMaxWindowSize, 0));
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.base_ptr = const_cast<void*>(ptr);
  v.accessPolicyWindow.num_bytes = std::min(bytes, max_window);
  v.accessPolicyWindow.hitRatio = static_cast<float>(std::min(
      1.0, static_cast<double>(setaside) / static_cast<double>(v.accessPolicyWindow.num_bytes)));
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  SPMVKIT_CUDA_CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v));
  active_ = true;
}

L2PersistWindow::~L2PersistWindow() {
  if (!active_) return;
  // Errors cannot be thrown from here; the next checked call reports a sticky one.
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.num_bytes = 0;
  cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v);
  if (reset_) cudaCtxResetPersistingL2Cache();
}

}  // namespace spmvkit::cuda
