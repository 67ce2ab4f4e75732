// After a small CSR's pageable upload (rajat01's 27 KB + 173 KB + 346 KB) queued by another
// thread, what four small table uploads (27, 27, 1, 2 KB) cost the caller: pageable
// cudaMemcpyAsync, or memcpy into pinned memory + cudaMemcpyAsync; each call timed, and the
// stream's completion. Also on an idle stream with no upload before. Medians of 200, us.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
using clk = std::chrono::steady_clock;
static double us(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemPool_t pool; cudaDeviceGetDefaultMemPool(&pool, 0);
  unsigned long long keep = 1ull << 30; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  const size_t csr[3] = {27336, 173000, 346000}, tab[4] = {27392, 27392, 856, 1720};
  std::vector<char> hcsr[3], htab[4];
  for (int i = 0; i < 3; ++i) hcsr[i].assign(csr[i], 1);
  for (int i = 0; i < 4; ++i) htab[i].assign(tab[i], 2);
  void* dcsr[3]; void* dtab[4];
  for (int i = 0; i < 3; ++i) cudaMalloc(&dcsr[i], csr[i]);
  for (int i = 0; i < 4; ++i) cudaMalloc(&dtab[i], tab[i]);
  char* pinned; cudaHostAlloc(&pinned, 1 << 20, cudaHostAllocDefault);
  cudaFree(0);
  for (int mode = 0; mode < 6; ++mode) {
    // mode: 0 pageable after worker upload, 1 pinned after worker upload, 2 pageable idle,
    // 3 pinned idle, 4 pageable after worker + 20 us host work, 5 pinned after worker + 20 us.
    const bool pin = mode % 2 == 1, after = mode < 2 || mode >= 4;
    std::vector<double> t[6];
    for (int rep = 0; rep < 220; ++rep) {
      cudaStreamSynchronize(s);
      if (after) {
        std::thread w([&] { for (int i = 0; i < 3; ++i) cudaMemcpyAsync(dcsr[i], hcsr[i].data(), csr[i], cudaMemcpyHostToDevice, s); });
        w.join();
        if (mode >= 4) { auto t0 = clk::now(); while (us(t0, clk::now()) < 20) {} }
      }
      const auto t0 = clk::now();
      clk::time_point m[4];
      size_t off = 0;
      for (int i = 0; i < 4; ++i) {
        if (pin) { std::memcpy(pinned + off, htab[i].data(), tab[i]);
          cudaMemcpyAsync(dtab[i], pinned + off, tab[i], cudaMemcpyHostToDevice, s); off += (tab[i] + 255) / 256 * 256; }
        else cudaMemcpyAsync(dtab[i], htab[i].data(), tab[i], cudaMemcpyHostToDevice, s);
        m[i] = clk::now();
      }
      cudaStreamSynchronize(s);
      const auto t1 = clk::now();
      if (rep < 20) continue;
      t[0].push_back(us(t0, m[0])); for (int i = 1; i < 4; ++i) t[i].push_back(us(m[i - 1], m[i]));
      t[4].push_back(us(t0, m[3])); t[5].push_back(us(t0, t1));
    }
    const char* names[6] = {"pageable after upload", "pinned after upload", "pageable idle", "pinned idle", "pageable after upload+20us", "pinned after upload+20us"};
    std::printf("%-28s", names[mode]);
    const char* cols[6] = {"t1", "t2", "t3", "t4", "calls", "done"};
    for (int c = 0; c < 6; ++c) { std::sort(t[c].begin(), t[c].end()); std::printf(" %s %.1f", cols[c], t[c][t[c].size() / 2]); }
    std::printf("\n");
  }
}
