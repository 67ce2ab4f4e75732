// UploadBeside's pool: a few threads for the process, made on first use, one upload at a time.
#include "backend/cuda/upload_beside.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <iterator>
#include <mutex>
#include <thread>
#include <utility>

#include "backend/cuda/pinned.hpp"

namespace spmvkit::cuda {

namespace {

using clock = std::chrono::steady_clock;

double now_ms() {
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Pieces of at most this many bytes: small enough that the pool's threads share a small
// matrix's arrays, large enough that the ~2 us of queuing a transfer stays a small part.
constexpr std::size_t kPiece = std::size_t{64} << 10;

// One upload's pieces, taken by whoever comes first (pool threads and the calling thread).
struct Job {
  const UploadBeside::Piece* pieces = nullptr;
  int count = 0;
  int device = 0;
  cudaStream_t stream = nullptr;
  std::atomic<int> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;

  // Copies and queues pieces until none is left.
  void run() {
    for (int i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      const UploadBeside::Piece& p = pieces[i];
      try {
        std::memcpy(p.staging, p.src, p.bytes);
        SPMVKIT_CUDA_CHECK(
            cudaMemcpyAsync(p.dst, p.staging, p.bytes, cudaMemcpyHostToDevice, stream));
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
};

class Pool {
 public:
  static Pool& get() {
    static Pool* p = new Pool;  // never joined: the process may end with its threads waiting
    return *p;
  }

  // Hands the job to the pool's threads; false while another's is not yet finished (the caller
  // then queues its own copies).
  bool submit(Job* job) {
    std::lock_guard<std::mutex> lock(m_);
    if (job_ != nullptr || active_ > 0) return false;
    job_ = job;
    ++generation_;
    cv_.notify_all();
    return true;
  }

  // The caller's share: the pieces left, then no new taker, then the takers' last pieces.
  void finish(Job* job) {
    job->run();
    std::unique_lock<std::mutex> lock(m_);
    job_ = nullptr;
    done_.wait(lock, [&] { return active_ == 0; });
  }

 private:
  Pool() {
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    const unsigned n = std::min(4u, cores - 1);
    for (unsigned i = 0; i < n; ++i) std::thread([this] { loop(); }).detach();
  }

  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    unsigned long long seen = generation_;
    for (;;) {
      cv_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      Job* job = job_;
      if (job == nullptr) continue;  // finished before this thread woke
      ++active_;
      lock.unlock();
      cudaSetDevice(job->device);  // the caller's device, for this thread too
      job->run();
      lock.lock();
      if (--active_ == 0) done_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_, done_;
  Job* job_ = nullptr;
  int active_ = 0;  // threads inside a job
  unsigned long long generation_ = 0;
};

// The calling thread's pinned staging buffer, and the event recorded after the transfers that
// last read it (of `device`).
struct Staging {
  PinnedBuffer<unsigned char> buffer;
  cudaEvent_t read = nullptr;
  int device = -1;
  bool pending = false;
  ~Staging() {
    if (read) cudaEventDestroy(read);
  }
};
Staging& thread_staging() {
  static thread_local Staging s;
  return s;
}

thread_local UploadBeside* pending = nullptr;  // this thread's innermost unwaited upload
thread_local Job* pending_job = nullptr;        // its job on the pool

}  // namespace

thread_local bool upload_pending = false;

void wait_for_pending_upload() {
  if (pending) pending->wait();
}

template <class V>
UploadBeside::UploadBeside(OwnedDeviceCsr<V>& d, const Csr<V>& a) {
  const Copy copies[3] = {{d.row_ptr.data(), a.row_ptr.data(), d.row_ptr.bytes()},
                          {d.col_idx.data(), a.col_idx.data(), d.col_idx.bytes()},
                          {d.values.data(), a.values.data(), d.values.bytes()}};
  start(copies);
}

void UploadBeside::start(const Copy (&copies)[3]) {
  start_ms_ = now_ms();
  const auto inline_copies = [&] {
    for (const Copy& c : copies) upload_staged(c.dst, c.src, c.bytes, false);
    queued_ms_ = now_ms() - start_ms_;
    waited_ = true;
  };
  constexpr std::size_t align = 256;
  std::size_t total = 0;
  for (const Copy& c : copies) total += (c.bytes + align - 1) / align * align;
  // One upload at a time on a thread's staging buffer (a nested one is queued here).
  if (total > kQueuedUploadBytes || pending != nullptr) return inline_copies();
  Staging& s = thread_staging();
  if (s.pending) SPMVKIT_CUDA_CHECK(cudaEventSynchronize(s.read));
  s.pending = false;
  const int device = Context::get().device();
  if (s.device != device) {
    if (s.read) cudaEventDestroy(s.read);
    s.read = nullptr;
    SPMVKIT_CUDA_CHECK(cudaEventCreateWithFlags(&s.read, cudaEventDisableTiming));
    s.device = device;
  }
  if (s.buffer.size() < total) {
    constexpr std::size_t grain = std::size_t{1} << 20;
    s.buffer = PinnedBuffer<unsigned char>(
        std::max((total + grain - 1) / grain * grain, 2 * s.buffer.size()));
  }
  unsigned char* at = s.buffer.data();
  for (const Copy& c : copies) {
    for (std::size_t off = 0; off < c.bytes; off += kPiece)
      pieces_.push_back({static_cast<unsigned char*>(c.dst) + off,
                         static_cast<const unsigned char*>(c.src) + off, at + off,
                         std::min(kPiece, c.bytes - off)});
    at += (c.bytes + align - 1) / align * align;
  }
  auto job = std::make_unique<Job>();
  job->pieces = pieces_.data();
  job->count = static_cast<int>(pieces_.size());
  job->device = device;
  job->stream = Context::get().stream_unwaited();
  on_pool_ = Pool::get().submit(job.get());
  if (!on_pool_) {  // busy: this thread copies them all now
    job->run();
    if (job->error) std::rethrow_exception(job->error);
    SPMVKIT_CUDA_CHECK(cudaEventRecord(s.read, job->stream));
    s.pending = true;
    queued_ms_ = now_ms() - start_ms_;
    waited_ = true;
    return;
  }
  outer_ = pending;
  pending = this;
  pending_job = job.release();
  upload_pending = true;
}

void UploadBeside::wait() {
  if (waited_) return;
  waited_ = true;
  // This thread is no longer waiting on this upload, whatever the pieces report.
  pending = outer_;
  upload_pending = pending != nullptr;
  const std::unique_ptr<Job> job(std::exchange(pending_job, nullptr));
  Pool::get().finish(job.get());
  queued_ms_ = now_ms() - start_ms_;
  if (job->error) std::rethrow_exception(job->error);
  Staging& s = thread_staging();
  SPMVKIT_CUDA_CHECK(cudaEventRecord(s.read, job->stream));
  s.pending = true;
}

UploadBeside::~UploadBeside() {
  try {
    wait();
  } catch (...) {
  }
}

template UploadBeside::UploadBeside(OwnedDeviceCsr<float>&, const Csr<float>&);
template UploadBeside::UploadBeside(OwnedDeviceCsr<double>&, const Csr<double>&);

}  // namespace spmvkit::cuda
