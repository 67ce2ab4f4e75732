// The multi-GPU BSR apply on CUDA (BSR paper section 5.6): x copied from the home GPU to
// every other GPU, each GPU's BSRMV on its own context stream, each y^_g copied to the home
// GPU, then the shuffle kernel there. Streams are ordered by events: every part waits for x,
// the home stream waits for every part.
#include <string>

#include "backend/cuda/cuda.hpp"
#include "dist/multigpu_state.hpp"

namespace spmvkit::dist {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

int visible_gpus() { return cuda_device_count(); }

DeviceScope::DeviceScope(int d) {
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&previous_));
  SPMVKIT_CUDA_CHECK(cudaSetDevice(d));
}
DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

template <class V>
struct MultiGpuCuda {
  int home = 0;
  std::vector<cuda::DeviceBuffer<V>> x, y_part;  // per part (unused for the home GPU)
  cuda::DeviceBuffer<V> y_hat;                   // on the home GPU
  cuda::DeviceBuffer<index_t> hat_to_row;
  std::unique_ptr<cuda::Event> x_ready;                  // on the home GPU
  std::vector<std::unique_ptr<cuda::Event>> part_done;  // each on its GPU
};

namespace {

// The shuffle (paper step 3): one thread per entry of y^; z[row] = alpha y^[i] + beta y[row]
// (y not read when beta == 0). Reads 4 + sizeof(V) (+ sizeof(V)) bytes, writes sizeof(V).
template <class V>
__global__ void shuffle_back(std::size_t n, const index_t* __restrict__ hat_to_row,
                             const V* __restrict__ y_hat, const V* y, V* z, V alpha, V beta) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const index_t r = hat_to_row[i];
  if (r < 0) return;
  const V ax = alpha * y_hat[i];
  z[r] = beta == V(0) ? ax : ax + beta * y[r];
}

// Lets `from` reach `to`'s memory directly (NVLink or PCIe peer to peer), so the copies of x
// and y^ do not go through the host; where the pair cannot, the copies still work, staged.
void enable_peer_access(int from, int to) {
  int can = 0;
  SPMVKIT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return;
  const DeviceScope on(from);
  const cudaError_t rc = cudaDeviceEnablePeerAccess(to, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled)
    cudaGetLastError();
  else
    SPMVKIT_CUDA_CHECK(rc);
  if (cuda::device_pool_enabled()) {
    // The stream-ordered pool's allocations do not follow cudaDeviceEnablePeerAccess: `from`
    // is given access to `to`'s pool itself.
    cudaMemPool_t pool = nullptr;
    SPMVKIT_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, to));
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = from;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    SPMVKIT_CUDA_CHECK(cudaMemPoolSetAccess(pool, &access, 1));
  }
}

}  // namespace

template <class V>
void multigpu_setup_cuda(MultiGpuState<V>& s) {
  auto c = std::make_shared<MultiGpuCuda<V>>();
  SPMVKIT_CUDA_CHECK(cudaGetDevice(&c->home));
  const int parts = static_cast<int>(s.parts.size());
  c->x.resize(static_cast<std::size_t>(parts));
  c->y_part.resize(c->x.size());
  c->part_done.resize(c->x.size());
  c->y_hat = cuda::DeviceBuffer<V>(s.hat_to_row.size());
  c->hat_to_row = cuda::DeviceBuffer<index_t>(s.hat_to_row);
  c->x_ready = std::make_unique<cuda::Event>();
  for (int g = 0; g < parts; ++g) {
    if (g == c->home || !s.parts[g]) continue;
    enable_peer_access(c->home, g);
    enable_peer_access(g, c->home);
    const DeviceScope on(g);
    c->x[g] = cuda::DeviceBuffer<V>(static_cast<std::size_t>(s.parts[g]->cols()));
    c->y_part[g] = cuda::DeviceBuffer<V>(s.part_rows[g]);
    c->part_done[g] = std::make_unique<cuda::Event>();
  }
  s.cuda = c;
}

template <class V>
void multigpu_apply_cuda(MultiGpuState<V>& s, const V* x, const V* y, V* z, V alpha, V beta) {
  MultiGpuCuda<V>& c = *s.cuda;
  const cudaStream_t home = cuda::Context::get(c.home).stream();
  SPMVKIT_CUDA_CHECK(cudaEventRecord(c.x_ready->get(), home));
  std::size_t offset = 0;
  for (std::size_t g = 0; g < s.parts.size(); ++g) {
    const std::size_t rows = s.part_rows[g];
    if (s.parts[g]) {
      if (static_cast<int>(g) == c.home) {
        s.parts[g]->apply(x, nullptr, c.y_hat.data() + offset, V(1), V(0));
      } else {
        const DeviceScope on(static_cast<int>(g));
        const cudaStream_t st = cuda::Context::get().stream();
        const std::size_t cols = static_cast<std::size_t>(s.parts[g]->cols());
        SPMVKIT_CUDA_CHECK(cudaStreamWaitEvent(st, c.x_ready->get(), 0));
        SPMVKIT_CUDA_CHECK(cudaMemcpyPeerAsync(c.x[g].data(), static_cast<int>(g), x, c.home,
                                               cols * sizeof(V), st));
        s.parts[g]->apply(c.x[g].data(), nullptr, c.y_part[g].data(), V(1), V(0));
        SPMVKIT_CUDA_CHECK(cudaMemcpyPeerAsync(c.y_hat.data() + offset, c.home, c.y_part[g].data(),
                                               static_cast<int>(g), rows * sizeof(V), st));
        SPMVKIT_CUDA_CHECK(cudaEventRecord(c.part_done[g]->get(), st));
      }
    }
    offset += rows;
  }
  for (std::size_t g = 0; g < s.parts.size(); ++g)
    if (c.part_done[g]) SPMVKIT_CUDA_CHECK(cudaStreamWaitEvent(home, c.part_done[g]->get(), 0));
  const std::size_t n = s.hat_to_row.size();
  if (n == 0) return;
  shuffle_back<<<cuda::grid_for(n, 256), 256, 0, home>>>(n, c.hat_to_row.data(), c.y_hat.data(),
                                                          y, z, alpha, beta);
  SPMVKIT_LAUNCH_CHECK();
}

template void multigpu_setup_cuda<float>(MultiGpuState<float>&);
template void multigpu_setup_cuda<double>(MultiGpuState<double>&);
template void multigpu_apply_cuda<float>(MultiGpuState<float>&, const float*, const float*,
                                         float*, float, float);
template void multigpu_apply_cuda<double>(MultiGpuState<double>&, const double*, const double*,
                                          double*, double, double);

}  // namespace spmvkit::dist
