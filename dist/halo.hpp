// The halo exchange's plan (who sends which owned values to whom) and, in the CUDA build, its
// GPU side: the gather of the values to send, and their trip either through pinned host
// buffers and MPI, or through NCCL (ncclSend / ncclRecv in a group), beside the local SpMV.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "dist/dist.hpp"

namespace spmvkit::dist {

// Counts and displacements per rank (every vector has comm_size entries); the ghosts arrive
// ordered by global column, so the values from rank r fill [recv_displs[r], + recv_counts[r]).
struct HaloPlan {
  std::vector<int> recv_counts, recv_displs, send_counts, send_displs;
  std::vector<index_t> send_idx;  // owned (local) column of each value sent, grouped by rank
  index_t ghosts() const { return recv_displs.empty() ? 0 : recv_displs.back() + recv_counts.back(); }
};

// Posts the receives into `ghosts` and the sends from `send` (already packed): MPI requests
// for every rank with a non-zero count, appended to `requests`.
template <class V>
void post_exchange(MPI_Comm comm, const HaloPlan& plan, const V* send, V* ghosts,
                   std::vector<MPI_Request>& requests);
void wait_exchange(std::vector<MPI_Request>& requests);

#if SPMVKIT_HAVE_CUDA
// The CUDA side of one operator's exchange. start() queues the gather of the values to send
// on the context stream and begins their transfer; finish() returns the device array of
// ghost values, ready on the context stream. The caller queues the local SpMV between them.
// With `halo_rows` (the compressed halo operator's rows), halo_result() is where that
// operator writes and add_halo_result(z) adds it into z at those rows (on the stream).
template <class V>
class CudaHalo {
 public:
  CudaHalo(MPI_Comm comm, const HaloPlan& plan, Transport t,
           const std::vector<index_t>& halo_rows = {});
  ~CudaHalo();
  void start(const V* x);
  // NCCL: queues work(ghosts) on the exchange's side stream after the ghosts arrive (the
  // context stream redirected there while it queues), so it runs beside the local SpMV and
  // finish() joins it; false, queuing nothing, for MPI or an empty exchange.
  bool queue_after_exchange(const std::function<void(const V*)>& work);
  const V* finish();
  V* halo_result();
  void add_halo_result(V* z);
  // NCCL transport: sums over the ranks through ncclAllReduce: host values (waits), or device
  // values in place on the context stream (queued, no wait).
  void allreduce(double* values, int count);
  void allreduce_device(double* values, int count);

 private:
  struct State;
  std::unique_ptr<State> s_;
};
#endif

// Makes the CUDA device of this rank current: its rank among the ranks of its host, modulo
// the visible GPUs (several ranks share a GPU when there are more ranks than GPUs). No-op
// without CUDA.
void select_device(MPI_Comm comm);

}  // namespace spmvkit::dist
