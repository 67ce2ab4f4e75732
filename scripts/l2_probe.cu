// How fast the L2 serves an SM's loads, for reading kernel profiles against (a probe, not part of
// the library): `nvcc -arch=sm_90 -o l2_probe scripts/l2_probe.cu && ./l2_probe`.
//   stream: every block reads a buffer of `mb` MB (L2-resident) with coalesced 16-byte loads.
//   gather: every thread loads doubles at random positions of the buffer (one 32-byte sector a
//           load, as csr_balanced's x gathers that miss L1), 8 loads in flight a thread.
// Prints, per buffer size, the bytes served a second and (gather) the sectors a second.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                         \
  do {                                                                      \
    cudaError_t status_ = (call);                                           \
    if (status_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

__global__ void stream_kernel(const double2* __restrict__ a, std::size_t n, int passes,
                              double* sink) {
  double s = 0;
  for (int p = 0; p < passes; ++p)
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
      const double2 v = __ldcg(a + i);  // L2, not L1
      s += v.x + v.y;
    }
  if (s == 12345.678) *sink = s;  // keeps the loads
}

__global__ void gather_kernel(const double* __restrict__ a, unsigned mask, int rounds,
                              double* sink) {
  unsigned h = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u + 12345u;
  double s = 0;
  for (int r = 0; r < rounds; ++r) {
    double v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      h = h * 1664525u + 1013904223u;
      v[i] = __ldg(a + ((h >> 4) & mask));
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) s += v[i];
  }
  if (s == 12345.678) *sink = s;
}

template <class F>
float time_ms(F&& launch) {
  cudaEvent_t b, e;
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventCreate(&e));
  launch();  // warm-up
  std::vector<float> t;
  for (int i = 0; i < 11; ++i) {
    CHECK(cudaEventRecord(b));
    launch();
    CHECK(cudaEventRecord(e));
    CHECK(cudaEventSynchronize(e));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, b, e));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, L2 %d MB, %d SMs\n", prop.name, prop.l2CacheSize >> 20,
              prop.multiProcessorCount);
  double* sink;
  CHECK(cudaMalloc(&sink, sizeof(double)));
  const int blocks = prop.multiProcessorCount * 8, threads = 256;
  for (int mb : {4, 8, 16, 32, 256}) {  // powers of two: gathers mask the index
    const std::size_t bytes = std::size_t(mb) << 20;
    double* a;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMemset(a, 0, bytes));
    const std::size_t n2 = bytes / sizeof(double2);
    const int passes = std::max(1, 2048 / mb);
    const float ts = time_ms([&] {
      stream_kernel<<<blocks, threads>>>(reinterpret_cast<const double2*>(a), n2, passes, sink);
    });
    const double stream_tbs = double(bytes) * passes / (ts * 1e-3) / 1e12;
    const int rounds = 64;
    const float tg = time_ms([&] {
      gather_kernel<<<blocks * 4, threads>>>(a, unsigned(bytes / sizeof(double)) - 1, rounds, sink);
    });
    const double loads = double(blocks) * 4 * threads * rounds * 8;
    std::printf("%4d MB: stream %.2f TB/s | gather %.1f G sectors/s = %.2f TB/s of sectors\n", mb,
                stream_tbs, loads / (tg * 1e-3) / 1e9, loads * 32 / (tg * 1e-3) / 1e12);
    CHECK(cudaFree(a));
  }
  CHECK(cudaGetLastError());
  return 0;
}
