// The pinned staging upload of device_csr.hpp (a .cpp file: its host copies use OpenMP).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/pinned.hpp"

namespace spmvkit::cuda {

namespace {

// Staging: two pinned buffers of this many bytes; below it a plain (driver-staged) copy.
constexpr std::size_t kStageBytes = std::size_t{32} << 20;

// The pinned buffers serve every device (pinned memory is portable under unified
// addressing); an event belongs to the device that made it, so each device has its own pair
// (the multi-GPU BSR mode builds its parts on several GPUs in turn).
struct Staging {
  std::mutex m;
  PinnedBuffer<unsigned char> buffer[2];
  std::map<int, std::unique_ptr<Event[]>> copied;  // by device
};
Staging& staging() {
  static Staging* s = new Staging;  // kept for the process (pinned allocations are slow)
  return *s;
}

// Parallel host copy into pinned memory: one thread's memcpy runs well below the link rate.
void host_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  const std::int64_t pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < pieces; ++i) {
    const std::size_t off = static_cast<std::size_t>(i) * piece;
    std::memcpy(dst + off, src + off, std::min(piece, bytes - off));
  }
}

}  // namespace

void upload_staged(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (bytes < kStageBytes) {
    copy_to_device(dst, src, bytes);
    return;
  }
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.m);
  if (s.buffer[0].size() == 0)
    for (auto& b : s.buffer) b = PinnedBuffer<unsigned char>(kStageBytes);
  Context& ctx = Context::get();
  cudaStream_t stream = ctx.stream();
  std::unique_ptr<Event[]>& events = s.copied[ctx.device()];
  if (!events) events = std::make_unique<Event[]>(2);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  bool used[2] = {false, false};
  for (std::size_t off = 0, i = 0; off < bytes; off += kStageBytes, ++i) {
    const std::size_t n = std::min(kStageBytes, bytes - off);
    const std::size_t k = i % 2;
    // The buffer's previous transfer must be done before the host overwrites it; the other
    // buffer's transfer runs meanwhile.
    if (used[k]) SPMVKIT_CUDA_CHECK(cudaEventSynchronize(events[k].get()));
    host_copy(s.buffer[k].data(), from + off, n);
    SPMVKIT_CUDA_CHECK(
        cudaMemcpyAsync(to + off, s.buffer[k].data(), n, cudaMemcpyHostToDevice, stream));
    SPMVKIT_CUDA_CHECK(cudaEventRecord(events[k].get(), stream));
    used[k] = true;
  }
  SPMVKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace spmvkit::cuda
