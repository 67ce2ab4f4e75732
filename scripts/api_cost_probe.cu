// What the CUDA runtime calls a small build is made of cost on this host and GPU (issue 24):
// cudaMalloc + cudaFree, cudaMallocAsync + cudaFreeAsync from the device's pool (release
// threshold raised), a launch + stream sync, a small download, pageable and pinned uploads of
// 0.25-8 MB; then the host side alone of the calls a build queues (no waits), and a host loop
// over 6,833 row lengths. Medians of 200 (50 for the uploads) after 20 warm-ups, microseconds.
//   nvcc -arch=sm_90 -std=c++17 -O2 -o p scripts/api_cost_probe.cu && ./p
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

__global__ void touch(char* p, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = 1;
}

template <class F>
double median_us(int reps, F f) {
  std::vector<double> t;
  for (int i = 0; i < reps + 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (i >= 20) t.push_back(us);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s\n", p.name);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaMemPool_t pool;
  CK(cudaDeviceGetDefaultMemPool(&pool, 0));
  std::uint64_t keep = std::uint64_t{1} << 30;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  const std::size_t sizes[] = {8, 64 << 10, 1 << 20, 4 << 20, 16 << 20};
  for (std::size_t n : sizes) {
    void* q = nullptr;
    const double m = median_us(200, [&] {
      cudaMalloc(&q, n);
      cudaFree(q);
    });
    const double ma = median_us(200, [&] {
      cudaMallocAsync(&q, n, s);
      cudaFreeAsync(q, s);
    });
    // With a kernel touching it and a stream sync, as a build uses a buffer.
    const double mt = median_us(200, [&] {
      cudaMalloc(&q, n);
      touch<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(static_cast<char*>(q), n);
      cudaStreamSynchronize(s);
      cudaFree(q);
    });
    const double mat = median_us(200, [&] {
      cudaMallocAsync(&q, n, s);
      touch<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(static_cast<char*>(q), n);
      cudaStreamSynchronize(s);
      cudaFreeAsync(q, s);
    });
    std::printf("alloc+free %9zu B: cudaMalloc %7.1f us, pool %6.1f us; with a launch+sync: %7.1f / %7.1f us\n",
                n, m, ma, mt, mat);
  }
  char* d = nullptr;
  CK(cudaMalloc(&d, 64 << 20));
  std::printf("launch + sync: %.1f us\n", median_us(200, [&] {
                touch<<<1, 32, 0, s>>>(d, 32);
                cudaStreamSynchronize(s);
              }));
  std::uint64_t h8 = 0;
  std::printf("8-byte download (cudaMemcpyAsync + sync): %.1f us\n", median_us(200, [&] {
                cudaMemcpyAsync(&h8, d, 8, cudaMemcpyDeviceToHost, s);
                cudaStreamSynchronize(s);
              }));
  std::printf("launch + 8-byte download + sync: %.1f us\n", median_us(200, [&] {
                touch<<<1, 32, 0, s>>>(d, 32);
                cudaMemcpyAsync(&h8, d, 8, cudaMemcpyDeviceToHost, s);
                cudaStreamSynchronize(s);
              }));
  std::printf("memsetAsync + launch + 8-byte download + sync: %.1f us\n", median_us(200, [&] {
                cudaMemsetAsync(d, 0, 64, s);
                touch<<<1, 32, 0, s>>>(d, 32);
                cudaMemcpyAsync(&h8, d, 8, cudaMemcpyDeviceToHost, s);
                cudaStreamSynchronize(s);
              }));
  const std::size_t up[] = {256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20};
  std::vector<char> host(8 << 20, 3);
  char* pinned = nullptr;
  CK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), 8 << 20, cudaHostAllocDefault));
  for (std::size_t n : up) {
    const double pg = median_us(50, [&] {
      cudaMemcpyAsync(d, host.data(), n, cudaMemcpyHostToDevice, s);
      cudaStreamSynchronize(s);
    });
    const double pn = median_us(50, [&] {
      std::memcpy(pinned, host.data(), n);
      cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s);
      cudaStreamSynchronize(s);
    });
    const double pd = median_us(50, [&] {
      cudaMemcpyAsync(host.data(), d, n, cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
    });
    std::printf("upload %8zu B: pageable %7.1f us (%.1f GB/s), memcpy to pinned + pinned %7.1f us (%.1f GB/s); pageable download %7.1f us\n",
                n, pg, n / pg / 1e3, pn, n / pn / 1e3, pd);
  }
  // The host's side alone of what a small build queues: 100 calls back to back, no sync inside,
  // per call (the queue drained after each sample): what a host plan pays beside the device.
  const auto per_call_us = [&](auto f) {
    return median_us(50, [&] {
             for (int i = 0; i < 100; ++i) f();
           }) / 100.0;
  };
  const auto drained = [&](auto f) {
    std::vector<double> t;
    for (int k = 0; k < 70; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) f();
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      cudaStreamSynchronize(s);
      if (k >= 20) t.push_back(us / 100.0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  int dev = 0;
  std::printf("host side: cudaGetDevice %.3f us, cudaSetDevice (same) %.3f us\n",
              per_call_us([&] { cudaGetDevice(&dev); }), per_call_us([&] { cudaSetDevice(dev); }));
  std::printf("host side: launch %.2f us, cudaMemsetAsync %.2f us, pool alloc+free %.2f us\n",
              drained([&] { touch<<<1, 32, 0, s>>>(d, 32); }),
              drained([&] { cudaMemsetAsync(d, 0, 64, s); }), drained([&] {
                void* q = nullptr;
                cudaMallocAsync(&q, 4096, s);
                cudaFreeAsync(q, s);
              }));
  cudaEvent_t ev;
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  std::printf("host side: cudaEventRecord %.2f us, cudaStreamCreate+Destroy %.2f us\n",
              drained([&] { cudaEventRecord(ev, s); }), median_us(200, [&] {
                cudaStream_t t;
                cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
                cudaStreamDestroy(t);
              }));
  for (std::size_t n : {std::size_t{256}, std::size_t{4} << 10, std::size_t{32} << 10,
                        std::size_t{128} << 10}) {
    const double pg = drained([&] { cudaMemcpyAsync(d, host.data(), n, cudaMemcpyHostToDevice, s); });
    const double pn = drained([&] { cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s); });
    std::printf("host side: upload call %7zu B pageable %.2f us, pinned %.2f us\n", n, pg, pn);
  }
  // Host loops of a plan: a pass over 6,833 row lengths (rajat01's rows) into a kept vector, and
  // into a fresh one (its page faults).
  std::vector<int> ptr(6834), len(6833);
  for (int i = 0; i <= 6833; ++i) ptr[i] = 6 * i + (i % 7);
  std::printf("host loop: 6,833 row lengths %.2f us (kept vector), %.2f us (fresh vector)\n",
              median_us(200, [&] {
                for (int i = 0; i < 6833; ++i) len[i] = ptr[i + 1] - ptr[i];
                asm volatile("" : : "r"(len.data()) : "memory");
              }),
              median_us(200, [&] {
                std::vector<int> fresh(6833);
                for (int i = 0; i < 6833; ++i) fresh[i] = ptr[i + 1] - ptr[i];
                asm volatile("" : : "r"(fresh.data()) : "memory");
              }));
  return 0;
}
