// The registry's upload of a small host CSR, queued by a worker thread while the calling thread
// goes on with the build's host plan (host_mirror.hpp: the histogram, the rules, the tilings read
// the host's copy). A pageable upload keeps the host busy staging it (rajat01's 0.55 MB: ~60 us
// on the H100 machine, 35-45% of a small format's setup), so the two overlap instead of running
// one after the other (issue 24: "the transfer overlapped with the build where the format
// allows").
//
// Ordering: while an UploadBeside is alive, the calling thread's first use of the context stream
// (Context::stream(), Context::synchronize()) waits until the worker has queued every copy, so
// all the build queues runs after them in stream order. Allocation and free (stream-ordered
// themselves, on other buffers) do not wait. Not for a build that hands the arrays to another
// thread before it uses the stream.
#pragma once

#include "backend/cuda/device_csr.hpp"

namespace spmvkit::cuda {

// Wakes the worker ahead of an UploadBeside the caller is about to make (a sleeping thread
// takes ~18 us to wake on the H100 machine): call it first thing in a small build.
void prepare_upload_beside();

class UploadBeside {
 public:
  // Starts queuing a's arrays into d's (allocated by the caller, the sizes of a's) on the
  // worker; where the worker is busy (another thread's build) they are queued here and now.
  // Both d and a must outlive this object.
  template <class V>
  UploadBeside(OwnedDeviceCsr<V>& d, const Csr<V>& a);
  // Waits for the worker (a build that threw before it used the stream), errors dropped.
  ~UploadBeside();
  UploadBeside(const UploadBeside&) = delete;
  UploadBeside& operator=(const UploadBeside&) = delete;

  // Waits until the copies are queued; rethrows the worker's error (a CudaError).
  void wait();
  // How long queuing the copies took (ms, after wait()): the upload's host side, pageable
  // staging included.
  double queued_ms() const { return queued_ms_; }

 private:
  struct Copy {
    void* dst;
    const void* src;
    std::size_t bytes;
  };
  void start(const Copy (&copies)[3]);
  Copy copies_[3]{};  // read by the worker until wait()
  bool waited_ = false;
  bool on_worker_ = false;
  double queued_ms_ = 0;
  UploadBeside* outer_ = nullptr;  // the thread's pending upload before this one
};

}  // namespace spmvkit::cuda
