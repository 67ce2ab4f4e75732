// The registry's upload of a small host CSR, queued beside the build's host plan (host_mirror.hpp:
// the histogram, the rules, the tilings read the host's copy). The arrays go in pieces: each
// piece copied into the calling thread's pinned staging buffer and its transfer queued at once.
// A pool of a few threads takes pieces while the calling thread plans, and the calling thread
// takes the pieces left when it first needs the stream. On the H100 machine a 0.55 MB pageable
// upload kept one thread ~56 us, a sleeping thread took ~18 us to wake, a thread's copy of the
// same bytes into pinned memory ~17-50 us, the transfer from there ~20 us, and while a pageable
// copy ran the driver held up the other threads' calls on the stream (an allocation there waited
// ~64 us); pinned pieces are queued in ~2 us each (issue 24, scripts/api_cost_probe.cu).
//
// Ordering: while an UploadBeside is alive, the calling thread's first use of the context stream
// (Context::stream(), Context::synchronize()) waits until every piece is queued, so all the build
// queues runs after them in stream order. Allocation and free (stream-ordered themselves, on
// other buffers) do not wait. Not for a build that hands the arrays to another thread before it
// uses the stream.
#pragma once

#include <cstddef>
#include <vector>

#include "backend/cuda/device_csr.hpp"

namespace spmvkit::cuda {

// At most this many bytes go through the pinned pieces (a larger upload is queued from pageable
// memory by the calling thread).
inline constexpr std::size_t kQueuedUploadBytes = std::size_t{4} << 20;

class UploadBeside {
 public:
  // Starts queuing a's arrays into d's (allocated by the caller, the sizes of a's). Where the
  // pool is busy (another thread's build) or the arrays are larger than kQueuedUploadBytes, they
  // are queued here and now from pageable memory. Both d and a must outlive this object.
  template <class V>
  UploadBeside(OwnedDeviceCsr<V>& d, const Csr<V>& a);
  // Waits for the pieces (a build that threw before it used the stream), errors dropped.
  ~UploadBeside();
  UploadBeside(const UploadBeside&) = delete;
  UploadBeside& operator=(const UploadBeside&) = delete;

  // Takes the pieces left, then waits until every piece is queued; rethrows a piece's error (a
  // CudaError).
  void wait();
  // How long queuing took (ms, after wait()): from the start until the last piece was queued.
  double queued_ms() const { return queued_ms_; }

  struct Piece {
    void* dst;
    const void* src;
    unsigned char* staging;
    std::size_t bytes;
  };

 private:
  struct Copy {
    void* dst;
    const void* src;
    std::size_t bytes;
  };
  void start(const Copy (&copies)[3]);
  std::vector<Piece> pieces_;
  bool waited_ = false;
  bool on_pool_ = false;
  double queued_ms_ = 0;
  double start_ms_ = 0;  // steady clock, ms
  UploadBeside* outer_ = nullptr;  // the thread's pending upload before this one
};

}  // namespace spmvkit::cuda
