#include "backend/cuda/cuda.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "backend/cuda/cublas_api.hpp"
#include "backend/cuda/device_csr.hpp"
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
  throw CusparseError(std::string("cuBLAS error ") + cublas_api().get_status_name(status) + " (" +
                      cublas_api().get_status_string(status) + ")" + where(call, file, line));
}

Context::Context(int device) : device_(device) {
  SPMVKIT_CUDA_CHECK(cudaSetDevice(device));
  SPMVKIT_CUDA_CHECK(cudaGetDeviceProperties(&props_, device));
  SPMVKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  current_ = stream_;
  if (device_pool_enabled()) {
    // The pool keeps freed memory for reuse across syncs (the default threshold, 0, hands it
    // back to the device at every sync, so each allocation is a driver call again, and a
    // finite one hands back the excess at the next sync, inside whatever runs then). It goes
    // back when an allocation runs out, or by release_cached_device_memory().
    cudaMemPool_t pool = nullptr;
    SPMVKIT_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t keep = UINT64_MAX;
    SPMVKIT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  SPMVKIT_CUSPARSE_CHECK(cusparseCreate(&cusparse_));
  SPMVKIT_CUSPARSE_CHECK(cusparseSetStream(cusparse_, stream_));
  SPMVKIT_CUBLAS_CHECK(cublas_api().create(&cublas_));
  SPMVKIT_CUBLAS_CHECK(cublas_api().set_stream(cublas_, stream_));
  prepare_sampling();
}

Context::~Context() {
  // Process teardown: errors here cannot be reported, so they are ignored.
  if (cublas_) cublas_api().destroy(cublas_);
  if (cusparse_) cusparseDestroy(cusparse_);
  if (stream_) cudaStreamDestroy(stream_);
}

Context& Context::get() {
  int device = 0;
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&device));
  return get(device);
}

namespace {
// Cleared when the contexts go at process teardown: a buffer freed after that is freed
// without its context (device_free).
std::atomic<bool> contexts_alive{true};
struct Contexts {
  std::mutex mutex;
  std::map<int, std::unique_ptr<Context>> by_device;
  ~Contexts() { contexts_alive = false; }
};
Contexts& contexts() {
  static Contexts c;
  return c;
}
}  // namespace

Context* Context::existing(int device) {
  if (!contexts_alive) return nullptr;
  Contexts& all = contexts();
  std::lock_guard<std::mutex> lock(all.mutex);
  const auto it = all.by_device.find(device);
  return it == all.by_device.end() ? nullptr : it->second.get();
}

Context& Context::get(int device) {
  // cuBLAS is loaded before the first context: its own teardown then runs after the contexts'
  // destructors (which destroy its handles), as when it was linked at start.
  static const CublasApi& blas_loaded_first = cublas_api();
  (void)blas_loaded_first;
  Contexts& all = contexts();
  std::lock_guard<std::mutex> lock(all.mutex);
  auto& contexts = all.by_device;
  auto& slot = contexts[device];
  if (!slot) slot.reset(new Context(device));
  SPMVKIT_CUDA_CHECK(cudaSetDevice(device));
  return *slot;
}

namespace {
thread_local std::uint64_t waits = 0;
}  // namespace

std::uint64_t stream_waits() { return waits; }

void Context::synchronize() const {
  ++waits;
  SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream()));  // stream(): after a pending upload
}

void Context::use_stream(cudaStream_t s) {
  SPMVKIT_CUSPARSE_CHECK(cusparseSetStream(cusparse_, s));
  SPMVKIT_CUBLAS_CHECK(cublas_api().set_stream(cublas_, s));
  current_ = s;
}

StreamRedirect::StreamRedirect(cudaStream_t s) : ctx_(Context::get()), previous_(ctx_.stream()) {
  ctx_.use_stream(s);
}
StreamRedirect::~StreamRedirect() {
  try {
    ctx_.use_stream(previous_);
  } catch (...) {
    // A destructor cannot throw; setting a valid handle's stream does not fail in practice.
  }
}

namespace {
// Side streams and their events, kept for the process by device and priority once made: an
// operator that makes its side streams at each build (SURAA's launches) had paid a stream's
// creation and destruction, ~6.5 us on the H100 host, for each (issue 24). A lane is one
// SideStreams' at a time; one handed back may still have work queued, which only orders it
// before the next owner's.
struct LanePool {
  std::mutex m;
  std::map<std::pair<int, bool>, std::vector<std::pair<cudaStream_t, cudaEvent_t>>> lanes;
  std::map<int, std::vector<cudaEvent_t>> events;  // the fork events
};
LanePool& lane_pool() {
  static LanePool* p = new LanePool;  // never destroyed: its streams outlive no context use
  return *p;
}
}  // namespace

SideStreams::SideStreams(int count, bool high_priority) : high_priority_(high_priority) {
  int device = 0;
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&device));
  device_ = device;
  LanePool& pool = lane_pool();
  try {
    {
      const std::lock_guard<std::mutex> lock(pool.m);
      auto& free_events = pool.events[device];
      if (!free_events.empty()) {
        forked_ = free_events.back();
        free_events.pop_back();
      }
      auto& free_lanes = pool.lanes[{device, high_priority}];
      while (static_cast<int>(streams_.size()) < count && !free_lanes.empty()) {
        streams_.push_back(free_lanes.back().first);
        done_.push_back(free_lanes.back().second);
        free_lanes.pop_back();
      }
    }
    if (!forked_) SPMVKIT_CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
    int least = 0, greatest = 0;
    if (high_priority && static_cast<int>(streams_.size()) < count)
      SPMVKIT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    while (static_cast<int>(streams_.size()) < count) {
      cudaStream_t s = nullptr;
      SPMVKIT_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
      cudaEvent_t e = nullptr;
      const cudaError_t made = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
      if (made != cudaSuccess) cudaStreamDestroy(s);  // a lane is a stream with its event
      SPMVKIT_CUDA_CHECK(made);
      streams_.push_back(s);
      done_.push_back(e);
    }
  } catch (...) {
    release();
    throw;
  }
}

SideStreams::~SideStreams() { release(); }

void SideStreams::release() noexcept {
  // Back to the pool (queued work still completes in its stream's order).
  LanePool& pool = lane_pool();
  const std::lock_guard<std::mutex> lock(pool.m);
  auto& free_lanes = pool.lanes[{device_, high_priority_}];
  for (std::size_t i = 0; i < streams_.size(); ++i) free_lanes.emplace_back(streams_[i], done_[i]);
  if (forked_) pool.events[device_].push_back(forked_);
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

namespace {
// What device_alloc has handed out and not taken back: live bytes, their high-water mark since
// the last reset_device_peak, and each pointer's size (cudaFree does not say).
struct AllocLedger {
  std::mutex m;
  struct Entry {
    std::size_t bytes;
    int device;  // >= 0: from that device's pool (freed on its context's stream); -1: cudaMalloc
  };
  std::unordered_map<void*, Entry> sizes;
  std::size_t live = 0, peak = 0;
};
AllocLedger& ledger() {
  static AllocLedger* l = new AllocLedger;  // never destroyed: buffers may outlive statics
  return *l;
}
}  // namespace

std::vector<ReleaseHook>& release_hooks() {
  static std::vector<ReleaseHook>* hooks = new std::vector<ReleaseHook>;  // never destroyed
  return *hooks;
}

void add_release_hook(ReleaseHook hook) { release_hooks().push_back(hook); }

bool device_pool_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("SPMVKIT_DEVICE_POOL");
    return e == nullptr || std::string(e) != "0";
  }();
  return on;
}

namespace {
// Whether work queued on `s` now would be captured into a graph: the pool is then left alone
// (a stream-ordered allocation or free there would become a node owned by the graph).
bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(s, &status) != cudaSuccess || status != cudaStreamCaptureStatusNone;
}

// The current device's context when the pool serves allocations, else null.
Context* pool_context() {
  if (!device_pool_enabled()) return nullptr;
  Context& c = Context::get();
  return capturing(c.stream_unwaited()) ? nullptr : &c;
}

cudaError_t allocate(void** p, std::size_t bytes, Context* c) {
  return c ? cudaMallocAsync(p, bytes, c->stream_unwaited()) : cudaMalloc(p, bytes);
}

// Hands what `device`'s pool keeps for reuse back to the device, once its queued work is done.
cudaError_t trim_pool(int device) {
  cudaError_t status = cudaDeviceSynchronize();
  cudaMemPool_t pool = nullptr;
  if (status == cudaSuccess) status = cudaDeviceGetDefaultMemPool(&pool, device);
  return status == cudaSuccess ? cudaMemPoolTrimTo(pool, 0) : status;
}
}  // namespace

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  Context* c = pool_context();
  cudaError_t status = allocate(&p, bytes, c);
  if (status == cudaErrorMemoryAllocation) {
    bool freed = false;
    for (ReleaseHook hook : release_hooks()) freed = hook() || freed;
    if (c) {  // memory the pool keeps for reuse goes back to the device
      cudaGetLastError();
      trim_pool(c->device());
      freed = true;
    }
    if (freed) {
      cudaGetLastError();
      status = allocate(&p, bytes, c);
    }
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    std::ostringstream os;
    os << "CUDA error " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status)
       << ") allocating " << bytes << " bytes of device memory";
    throw CudaError(os.str());
  }
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  l.sizes[p] = {bytes, c ? c->device() : -1};
  l.live += bytes;
  l.peak = std::max(l.peak, l.live);
  return p;
}

void release_cached_device_memory() {
  if (device_pool_enabled()) SPMVKIT_CUDA_CHECK(trim_pool(Context::get().device()));
}

void device_free(void* p) noexcept {
  if (!p) return;
  int device = -1;
  {
    AllocLedger& l = ledger();
    std::lock_guard<std::mutex> lock(l.m);
    const auto it = l.sizes.find(p);
    if (it != l.sizes.end()) {
      l.live -= it->second.bytes;
      device = it->second.device;
      l.sizes.erase(it);
    }
  }
  // A pool allocation goes back in its device's stream order (after the work queued on the
  // context's stream, which every use of the buffer is ordered before); no device sync.
  Context* c = device >= 0 ? Context::existing(device) : nullptr;
  if (c && !capturing(c->stream_unwaited()))
    cudaFreeAsync(p, c->stream_unwaited());
  else
    cudaFree(p);
}

std::size_t device_bytes_in_use() {
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  return l.live;
}

PeakBytes::PeakBytes() {
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  start_ = l.live;
  outer_peak_ = l.peak;
  l.peak = l.live;
}

PeakBytes::~PeakBytes() {
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  l.peak = std::max(l.peak, outer_peak_);  // an enclosing PeakBytes still sees its own peak
}

std::size_t PeakBytes::in_use_above_start() const {
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  return l.live > start_ ? l.live - start_ : 0;
}

std::size_t PeakBytes::above_start() const {
  AllocLedger& l = ledger();
  std::lock_guard<std::mutex> lock(l.m);
  return l.peak - start_;
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

void copy_to_device_async(void* dst, const void* src, std::size_t bytes) {
  SPMVKIT_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, Context::get().stream()));
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  SPMVKIT_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, Context::get().stream()));
}

void fill_bytes(void* dst, int byte, std::size_t bytes) {
  SPMVKIT_CUDA_CHECK(cudaMemsetAsync(dst, byte, bytes, Context::get().stream()));
}

}  // namespace spmvkit::cuda
