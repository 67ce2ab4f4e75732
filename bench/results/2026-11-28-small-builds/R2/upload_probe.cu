// Upload experiment (issue 24): host memcpy into pinned memory with 1-4 threads, DMA alone,
// thread wake latency, and whether a pageable copy on one thread blocks another's CUDA calls.
#include <atomic>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
using clk = std::chrono::steady_clock;
static double us(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }
template <class F> double med(int n, F f) { std::vector<double> t; for (int i = 0; i < n + 10; ++i) { auto a = clk::now(); f(); auto b = clk::now(); if (i >= 10) t.push_back(us(a, b)); } std::sort(t.begin(), t.end()); return t[t.size() / 2]; }
struct Spinner {  // threads spinning on a generation counter; each copies its share
  std::vector<std::thread> th; std::atomic<int> gen{0}, done{0}; std::atomic<bool> stop{false};
  unsigned char* dst = nullptr; const unsigned char* src = nullptr; size_t bytes = 0; int n = 0;
  explicit Spinner(int k) : n(k) {
    for (int i = 1; i < k; ++i) th.emplace_back([this, i] { int seen = 0; while (!stop) { int g = gen.load(std::memory_order_acquire); if (g == seen) { continue; } seen = g; part(i); done.fetch_add(1); } });
  }
  void part(int i) { size_t per = (bytes + n - 1) / n; size_t b = i * per, e = std::min(bytes, b + per); if (b < e) std::memcpy(dst + b, src + b, e - b); }
  void copy(unsigned char* d, const unsigned char* s, size_t b) { dst = d; src = s; bytes = b; done = 0; gen.fetch_add(1, std::memory_order_release); part(0); while (done.load() < n - 1) {} }
  ~Spinner() { stop = true; for (auto& t : th) t.join(); }
};
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const size_t MB = 1 << 20; size_t sizes[] = {MB / 4, 553 * 1024, 2 * MB};
  std::vector<unsigned char> host(8 * MB, 7); unsigned char* pin = nullptr; cudaHostAlloc((void**)&pin, 8 * MB, 0);
  unsigned char* d = nullptr; cudaMalloc(&d, 8 * MB);
  std::memset(pin, 1, 8 * MB);
  for (int k : {1, 2, 4, 8}) {
    Spinner sp(k);
    for (size_t n : sizes) {
      double c = med(100, [&] { sp.copy(pin, host.data(), n); });
      std::printf("memcpy to pinned %7zu B, %d threads (spinning): %6.1f us (%.1f GB/s)\n", n, k, c, n / c / 1e3);
    }
  }
  for (size_t n : sizes) {
    double dma = med(100, [&] { cudaMemcpyAsync(d, pin, n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); });
    double pg = med(100, [&] { cudaMemcpyAsync(d, host.data(), n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); });
    // pipelined: 4 pieces, copy piece i+1 while piece i transfers (one thread)
    double pipe = med(100, [&] { size_t p = (n + 3) / 4; for (size_t o = 0; o < n; o += p) { size_t m = std::min(p, n - o); std::memcpy(pin + o, host.data() + o, m); cudaMemcpyAsync(d + o, pin + o, m, cudaMemcpyHostToDevice, s); } cudaStreamSynchronize(s); });
    Spinner sp4(4);
    double par = med(100, [&] { sp4.copy(pin, host.data(), n); cudaMemcpyAsync(d, pin, n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); });
    std::printf("upload %7zu B: DMA from pinned %.1f us, pageable %.1f us, 1-thread pipelined x4 %.1f us, 4-thread copy + DMA %.1f us\n", n, dma, pg, pipe, par);
  }
  { // wake latency: condvar-sleeping worker
    std::mutex m; std::condition_variable cv; int gen = 0, ack = 0; bool stop = false; clk::time_point woke;
    std::thread w([&] { std::unique_lock<std::mutex> l(m); int seen = 0; while (true) { cv.wait(l, [&] { return gen != seen || stop; }); if (stop) break; seen = gen; woke = clk::now(); ack = gen; cv.notify_all(); } });
    std::vector<double> t;
    for (int i = 0; i < 200; ++i) { std::this_thread::sleep_for(std::chrono::microseconds(200)); clk::time_point a; { std::lock_guard<std::mutex> l(m); a = clk::now(); ++gen; } cv.notify_all(); std::unique_lock<std::mutex> l(m); cv.wait(l, [&] { return ack == gen; }); t.push_back(us(a, woke)); }
    { std::lock_guard<std::mutex> l(m); stop = true; } cv.notify_all(); w.join();
    std::sort(t.begin(), t.end()); std::printf("condvar wake latency: median %.1f us, p90 %.1f us\n", t[100], t[180]);
  }
  { // does a pageable copy on one thread block another's calls?
    float* q = nullptr; cudaEvent_t e; cudaEventCreate(&e);
    for (int what = 0; what < 3; ++what) {
      std::vector<double> t;
      for (int i = 0; i < 50; ++i) {
        std::atomic<bool> go{false};
        std::thread w([&] { go = true; cudaMemcpyAsync(d, host.data(), 2 * MB, cudaMemcpyHostToDevice, s); });
        while (!go) {}
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        auto a = clk::now();
        if (what == 0) cudaEventRecord(e, s);
        if (what == 1) { cudaMallocAsync((void**)&q, 4096, s); cudaFreeAsync(q, s); }
        if (what == 2) { void* p; cudaMalloc(&p, 4096); cudaFree(p); }
        t.push_back(us(a, clk::now()));
        w.join(); cudaStreamSynchronize(s);
      }
      std::sort(t.begin(), t.end());
      std::printf("during another thread's 2 MB pageable copy: %s took median %.1f us\n", what == 0 ? "cudaEventRecord (same stream)" : what == 1 ? "cudaMallocAsync+FreeAsync (same stream)" : "cudaMalloc+Free", t[25]);
    }
  }
  return 0;
}
