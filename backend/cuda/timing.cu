// CUDA event timing and the read-bandwidth ceiling kernel.
#include <functional>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "spmvkit/timing.hpp"

namespace spmvkit::cuda {

namespace {

// Read-only pass: 16-byte loads, grid-stride, four independent loads in flight per thread.
// Bytes moved: exactly `n` * 16 read; one value per block written (negligible).
__global__ void read_ceiling_kernel(const double2* __restrict__ data, std::size_t n,
                                    double* __restrict__ sink) {
  double acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const double2 a = __ldg(data + i), b = __ldg(data + i + stride),
                  c = __ldg(data + i + 2 * stride), d = __ldg(data + i + 3 * stride);
    acc += a.x + a.y + b.x + b.y + c.x + c.y + d.x + d.y;
  }
  for (; i < n; i += stride) {
    const double2 a = __ldg(data + i);
    acc += a.x + a.y;
  }
  if (acc == -1.0) sink[blockIdx.x] = acc;  // never true for the data written; keeps loads
}

__global__ void fill_kernel(double2* data, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    data[i] = make_double2(static_cast<double>(i & 15), 1.0);
}

}  // namespace

std::vector<double> time_runs_cuda(int warmup, int reps, const std::function<void()>& fn) {
  auto& ctx = Context::get();
  for (int i = 0; i < warmup; ++i) fn();
  ctx.synchronize();
  std::vector<Event> start(reps), stop(reps);
  for (int i = 0; i < reps; ++i) {
    SPMVKIT_CUDA_CHECK(cudaEventRecord(start[i].get(), ctx.stream()));
    fn();
    SPMVKIT_CUDA_CHECK(cudaEventRecord(stop[i].get(), ctx.stream()));
  }
  ctx.synchronize();
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    float t = 0;
    SPMVKIT_CUDA_CHECK(cudaEventElapsedTime(&t, start[i].get(), stop[i].get()));
    ms[i] = t;
  }
  return ms;
}

double read_bandwidth_gbs_cuda(std::size_t bytes) {
  auto& ctx = Context::get();
  const std::size_t n = bytes / sizeof(double2);
  DeviceBuffer<double2> data(n);
  const int threads = 256;
  const unsigned max_blocks = static_cast<unsigned>(ctx.sm_count()) * 16;
  DeviceBuffer<double> sink(max_blocks);
  fill_kernel<<<max_blocks, threads, 0, ctx.stream()>>>(data.data(), n);
  SPMVKIT_LAUNCH_CHECK();
  // The ceiling is the best of a few grid sizes (the fastest plain read we can do).
  double best_ms = 0;
  for (unsigned per_sm : {4u, 8u, 16u}) {
    const unsigned blocks = static_cast<unsigned>(ctx.sm_count()) * per_sm;
    const double ms = median(time_runs_cuda(3, 20, [&] {
      read_ceiling_kernel<<<blocks, threads, 0, ctx.stream()>>>(data.data(), n, sink.data());
      SPMVKIT_LAUNCH_CHECK();
    }));
    if (best_ms == 0 || ms < best_ms) best_ms = ms;
  }
  return static_cast<double>(n * sizeof(double2)) / (best_ms * 1e-3) / 1e9;
}

}  // namespace spmvkit::cuda
