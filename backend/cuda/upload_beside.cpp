// UploadBeside's worker: one thread for the process, made on first use, one upload at a time.
#include "backend/cuda/upload_beside.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <mutex>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace spmvkit::cuda {

namespace {

using clock = std::chrono::steady_clock;

// Queues the copies on the current device's context stream (pageable sources: the driver
// stages them before each call returns).
template <class Copies>
double queue_copies(const Copies& copies) {
  const auto t0 = clock::now();
  for (const auto& c : copies) upload_staged(c.dst, c.src, c.bytes, false);
  return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
}

struct Job {
  int device = 0;
  const void* copies = nullptr;  // const UploadBeside::Copy[3], read by queue_copies
  double (*run)(const void*) = nullptr;
  bool done = true;
  double ms = 0;
  std::exception_ptr error;
};

// The caller's wait for the worker, and the worker's wait for a job after a wake-up ahead of it,
// spin at most this long before they sleep: a sleeping thread took ~18 us to wake on the H100
// machine (a condition variable's notify, median; 27 us p90), once for the worker to start a
// small build's upload and once more for the build to go on after it, against ~56 us for the
// upload itself. The spins run inside a build only.
constexpr std::chrono::microseconds kCallerSpin{2000}, kWorkerSpin{300};

// A spin's step: a pause, then the CPU offered to any other thread that waits for it. Where the
// OS puts the caller and the worker on one CPU, a spin without the yield holds it until the
// scheduler takes it away: with both held to one CPU (taskset, H100 machine), Groebner_id2003_aug's
// 0.17-0.20 ms upload took 0.47-0.50 ms, and 0.18 ms with the yield. Series of builds whose
// upload ran 2-3x slow while cuSPARSE's, built between them, did not had been seen on all 16
// CPUs too.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  std::this_thread::yield();
}

class Worker {
 public:
  static Worker& get() {
    static Worker* w = new Worker;  // never joined: the process may end with it waiting
    return *w;
  }

  // Wakes the worker for a job about to be handed over: it then waits for it spinning, so that
  // its wake-up runs beside the caller's preparations.
  void wake_ahead() {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (claimed_) return;
      ++ahead_;
    }
    cv_.notify_all();
  }

  // Hands a job over; false while another's is not yet waited for (the caller then queues its
  // own copies).
  bool submit(int device, const void* copies, double (*run)(const void*)) {
    std::lock_guard<std::mutex> lock(m_);
    if (claimed_) return false;
    claimed_ = true;
    job_ = Job{device, copies, run, false, 0, nullptr};
    done_.store(false, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    cv_.notify_all();
    return true;
  }

  // Waits for the job handed over (by the one submit that returned true since the last wait);
  // its time, or its error rethrown. The worker is free again after it.
  double wait() {
    const auto t0 = clock::now();
    while (!done_.load(std::memory_order_acquire) && clock::now() - t0 < kCallerSpin) cpu_relax();
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return job_.done; });
    claimed_ = false;
    if (job_.error) std::rethrow_exception(std::exchange(job_.error, nullptr));
    return job_.ms;
  }

 private:
  Worker() : thread_([this] { loop(); }) { thread_.detach(); }

  void loop() {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "spmvkit-upload");  // for ps, top and /proc
#endif
    std::unique_lock<std::mutex> lock(m_);
    unsigned long long seen = 0, seen_ahead = 0;
    for (;;) {
      cv_.wait(lock, [&] { return generation_.load() != seen || ahead_ != seen_ahead; });
      seen_ahead = ahead_;
      if (generation_.load() == seen) {  // woken ahead: the job comes soon
        lock.unlock();
        const auto t0 = clock::now();
        while (generation_.load(std::memory_order_acquire) == seen &&
               clock::now() - t0 < kWorkerSpin)
          cpu_relax();
        lock.lock();
        if (generation_.load() == seen) continue;
      }
      seen = generation_.load();
      Job job = job_;
      lock.unlock();
      double ms = 0;
      std::exception_ptr error;
      try {
        Context::get(job.device);  // the caller's device, for this thread too
        ms = job.run(job.copies);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      job_.ms = ms;
      job_.error = error;
      job_.done = true;
      done_.store(true, std::memory_order_release);
      cv_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  Job job_;
  bool claimed_ = false;  // a job handed over and not yet waited for
  std::atomic<unsigned long long> generation_{0};
  unsigned long long ahead_ = 0;  // wake-ups ahead of a job
  std::atomic<bool> done_{true};  // job_.done, read without the lock by the caller's spin
  std::thread thread_;
};

thread_local UploadBeside* pending = nullptr;  // this thread's innermost unwaited upload

}  // namespace

thread_local bool upload_pending = false;

void wait_for_pending_upload() {
  if (pending) pending->wait();
}

void prepare_upload_beside() { Worker::get().wake_ahead(); }

template <class V>
UploadBeside::UploadBeside(OwnedDeviceCsr<V>& d, const Csr<V>& a) {
  const Copy copies[3] = {{d.row_ptr.data(), a.row_ptr.data(), d.row_ptr.bytes()},
                          {d.col_idx.data(), a.col_idx.data(), d.col_idx.bytes()},
                          {d.values.data(), a.values.data(), d.values.bytes()}};
  start(copies);
}

void UploadBeside::start(const Copy (&copies)[3]) {
  const auto run = [](const void* p) { return queue_copies(*static_cast<const Copy(*)[3]>(p)); };
  // The copies' descriptions outlive the job: kept in this object.
  std::copy(std::begin(copies), std::end(copies), std::begin(copies_));
  on_worker_ = Worker::get().submit(Context::get().device(), &copies_, run);
  if (!on_worker_) {  // busy: queued here, nothing pending
    queued_ms_ = queue_copies(copies_);
    waited_ = true;
    return;
  }
  outer_ = pending;
  pending = this;
  upload_pending = true;
}

void UploadBeside::wait() {
  if (waited_) return;
  waited_ = true;
  // This thread is no longer waiting on this upload, whatever the worker reports.
  pending = outer_;
  upload_pending = pending != nullptr;
  queued_ms_ = Worker::get().wait();
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
