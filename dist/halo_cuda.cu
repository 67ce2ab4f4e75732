// The halo exchange on the GPU. The values to send are gathered by a kernel on the context
// stream; then either
// - MPI through pinned host buffers (no CUDA-aware MPI needed; several ranks may share a GPU):
//   an asynchronous copy to pinned memory and an event; finish() waits for the event, runs
//   the MPI exchange on the host while the local SpMV (queued after the copy) runs on the GPU,
//   and copies the ghosts back on the stream; or
// - NCCL: ncclSend / ncclRecv in one group on a side stream forked from the context stream,
//   beside the local SpMV; finish() joins it.
#include <functional>
#include <string>

#include "backend/cuda/cuda.hpp"
#include "backend/cuda/pinned.hpp"
#include "dist/halo.hpp"
#include "dist/mpi_types.hpp"

#if SPMVKIT_HAVE_NCCL
#include <nccl.h>
#endif

namespace spmvkit::dist {
namespace {

// One thread per value sent: send[i] = x[send_idx[i]]. Reads 4 + sizeof(V) bytes and writes
// sizeof(V) a value (the x reads are scattered).
template <class V>
__global__ void gather_send(std::size_t n, const index_t* __restrict__ idx, const V* __restrict__ x,
                            V* __restrict__ send) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) send[i] = x[idx[i]];
}

// The compressed halo part's result added where it belongs: z[rows[k]] += h[k], one thread a
// row reading ghosts. Reads 4 + 2 sizeof(V), writes sizeof(V) a row.
template <class V>
__global__ void add_at_rows(std::size_t n, const index_t* __restrict__ rows, const V* __restrict__ h,
                            V* z) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k < n) z[rows[k]] += h[k];
}

#if SPMVKIT_HAVE_NCCL
void check_nccl(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess) throw CommError(std::string(call) + ": " + ncclGetErrorString(rc));
}
template <class V>
ncclDataType_t nccl_type() {
  return sizeof(V) == 4 ? ncclFloat : ncclDouble;
}
#endif

}  // namespace

template <class V>
struct CudaHalo<V>::State {
  MPI_Comm comm;
  HaloPlan plan;
  Transport transport;
  cuda::DeviceBuffer<index_t> send_idx, halo_rows;
  cuda::DeviceBuffer<V> send, ghosts, halo_result;
  cuda::PinnedBuffer<V> send_host, ghost_host;
  cuda::Event packed;
  std::vector<MPI_Request> requests;
  cuda::DeviceBuffer<double> sums;
#if SPMVKIT_HAVE_NCCL
  ncclComm_t nccl = nullptr;
  std::unique_ptr<cuda::SideStreams> side;
#endif
};

template <class V>
CudaHalo<V>::CudaHalo(MPI_Comm comm, const HaloPlan& plan, Transport t,
                      const std::vector<index_t>& halo_rows)
    : s_(new State) {
  State& s = *s_;
  s.comm = comm;
  s.plan = plan;
  s.transport = t;
  if (!halo_rows.empty()) {
    s.halo_rows = cuda::DeviceBuffer<index_t>(halo_rows);
    s.halo_result = cuda::DeviceBuffer<V>(halo_rows.size());
  }
  s.send_idx = cuda::DeviceBuffer<index_t>(plan.send_idx);
  s.send = cuda::DeviceBuffer<V>(plan.send_idx.size());
  s.ghosts = cuda::DeviceBuffer<V>(static_cast<std::size_t>(plan.ghosts()));
  if (t == Transport::mpi) {
    s.send_host = cuda::PinnedBuffer<V>(plan.send_idx.size());
    s.ghost_host = cuda::PinnedBuffer<V>(static_cast<std::size_t>(plan.ghosts()));
    return;
  }
#if SPMVKIT_HAVE_NCCL
  // One NCCL communicator over the MPI ranks: rank 0's id broadcast by MPI.
  ncclUniqueId id;
  const int me = comm_rank(comm);
  if (me == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast");
  check_nccl(ncclCommInitRank(&s.nccl, comm_size(comm), id, me), "ncclCommInitRank");
  // High priority: NCCL's kernel (and the gather, the halo product) start as soon as SMs free
  // up instead of after the last block of the local SpMV queued beside them (measured on 4
  // H100s: at default priority the overlap hid 12 us of the exchange, docs/distributed.md).
  s.side = std::make_unique<cuda::SideStreams>(1, true);
  s.sums = cuda::DeviceBuffer<double>(64);
#else
  throw UnsupportedError("this build of spmvkit has no NCCL");
#endif
}

template <class V>
CudaHalo<V>::~CudaHalo() {
#if SPMVKIT_HAVE_NCCL
  if (s_ && s_->nccl) ncclCommDestroy(s_->nccl);
#endif
}

template <class V>
void CudaHalo<V>::start(const V* x) {
  State& s = *s_;
  // Nothing to exchange (one rank, or no coupling): queue nothing, so the operator stays
  // capturable in a CUDA graph (the merged solver's) and costs nothing over the local part.
  if (s.plan.send_idx.empty() && s.plan.ghosts() == 0) return;
  const cudaStream_t stream = cuda::Context::get().stream();
  const std::size_t n = s.plan.send_idx.size();
  auto gather = [&](cudaStream_t on) {
    if (n == 0) return;
    gather_send<<<cuda::grid_for(n, 256), 256, 0, on>>>(n, s.send_idx.data(), x, s.send.data());
    SPMVKIT_LAUNCH_CHECK();
  };
  if (s.transport == Transport::mpi) {
    gather(stream);
    if (n > 0)
      SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(s.send_host.data(), s.send.data(), n * sizeof(V),
                                         cudaMemcpyDeviceToHost, stream));
    SPMVKIT_CUDA_CHECK(cudaEventRecord(s.packed.get(), stream));
    return;
  }
#if SPMVKIT_HAVE_NCCL
  // The gather runs on the side stream too, so the local SpMV queued next starts at once.
  s.side->fork(stream);
  const cudaStream_t side = (*s.side)[0];
  gather(side);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t r = 0; r < s.plan.recv_counts.size(); ++r) {
    if (s.plan.recv_counts[r] > 0)
      check_nccl(ncclRecv(s.ghosts.data() + s.plan.recv_displs[r], s.plan.recv_counts[r],
                          nccl_type<V>(), static_cast<int>(r), s.nccl, side),
                 "ncclRecv");
    if (s.plan.send_counts[r] > 0)
      check_nccl(ncclSend(s.send.data() + s.plan.send_displs[r], s.plan.send_counts[r],
                          nccl_type<V>(), static_cast<int>(r), s.nccl, side),
                 "ncclSend");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
#endif
}

template <class V>
const V* CudaHalo<V>::finish() {
  State& s = *s_;
  if (s.plan.send_idx.empty() && s.plan.ghosts() == 0) return s.ghosts.data();
  const cudaStream_t stream = cuda::Context::get().stream();
  if (s.transport == Transport::mpi) {
    SPMVKIT_CUDA_CHECK(cudaEventSynchronize(s.packed.get()));
    post_exchange(s.comm, s.plan, s.send_host.data(), s.ghost_host.data(), s.requests);
    wait_exchange(s.requests);
    const std::size_t g = static_cast<std::size_t>(s.plan.ghosts());
    if (g > 0)
      SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(s.ghosts.data(), s.ghost_host.data(), g * sizeof(V),
                                         cudaMemcpyHostToDevice, stream));
  } else {
#if SPMVKIT_HAVE_NCCL
    s.side->join(stream);
#endif
  }
  return s.ghosts.data();
}

template <class V>
bool CudaHalo<V>::queue_after_exchange(const std::function<void(const V*)>& work) {
#if SPMVKIT_HAVE_NCCL
  State& s = *s_;
  if (s.transport != Transport::nccl || (s.plan.send_idx.empty() && s.plan.ghosts() == 0))
    return false;
  const cuda::StreamRedirect on_side((*s.side)[0]);
  work(s.ghosts.data());
  return true;
#else
  (void)work;
  return false;
#endif
}

template <class V>
V* CudaHalo<V>::halo_result() {
  return s_->halo_result.data();
}

template <class V>
void CudaHalo<V>::add_halo_result(V* z) {
  State& s = *s_;
  const std::size_t n = s.halo_rows.size();
  if (n == 0) return;
  add_at_rows<<<cuda::grid_for(n, 256), 256, 0, cuda::Context::get().stream()>>>(
      n, s.halo_rows.data(), s.halo_result.data(), z);
  SPMVKIT_LAUNCH_CHECK();
}

template <class V>
void CudaHalo<V>::allreduce(double* values, int count) {
#if SPMVKIT_HAVE_NCCL
  State& s = *s_;
  const cudaStream_t stream = cuda::Context::get().stream();
  if (static_cast<std::size_t>(count) > s.sums.size()) s.sums = cuda::DeviceBuffer<double>(count);
  SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(s.sums.data(), values, count * sizeof(double),
                                     cudaMemcpyHostToDevice, stream));
  allreduce_device(s.sums.data(), count);
  SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(values, s.sums.data(), count * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream));
  SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
  (void)values;
  (void)count;
  throw UnsupportedError("this build of spmvkit has no NCCL");
#endif
}

template <class V>
void CudaHalo<V>::allreduce_device(double* values, int count) {
#if SPMVKIT_HAVE_NCCL
  check_nccl(ncclAllReduce(values, values, count, ncclDouble, ncclSum, s_->nccl,
                           cuda::Context::get().stream()),
             "ncclAllReduce");
#else
  (void)values;
  (void)count;
  throw UnsupportedError("this build of spmvkit has no NCCL");
#endif
}

template class CudaHalo<float>;
template class CudaHalo<double>;

void select_device(MPI_Comm comm) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // no GPU: nothing to select (the CPU backend needs none)
    return;
  }
  MPI_Comm host;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
            "MPI_Comm_split_type");
  const int local = comm_rank(host);
  MPI_Comm_free(&host);
  SPMVKIT_CUDA_CHECK(cudaSetDevice(local % devices));
}

}  // namespace spmvkit::dist
