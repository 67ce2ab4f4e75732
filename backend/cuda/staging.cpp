// The pinned staging upload and download of device_csr.hpp (a .cpp file: its host copies use
// OpenMP).
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

// Staging: two pinned buffers of this many bytes. An upload of at least kStageMin bytes goes
// through them in pieces of at most kStageBytes, at least four pieces where it is under four
// buffers' worth (the host copy of one piece overlaps the transfer of the one before); below
// kStageMin a plain (driver-staged) upload. A pageable upload of csr3's 29 MB perm ran at
// ~6 GB/s on the H100 host (4.7 ms, issue 24); from 256 KB to 8 MB pageable uploads ran
// 6.6-12.2 GB/s, faster than a one-threaded copy into pinned memory and its transfer (5.8-9.0
// GB/s; F2, scripts/api_cost_probe.cu), so the staging starts at 4 MB.
constexpr std::size_t kStageBytes = std::size_t{32} << 20;
constexpr std::size_t kStageMin = std::size_t{4} << 20;
// Downloads in pieces of this many bytes (the copy out of one buffer overlaps the transfer into
// the other); below it a plain (pageable, driver-staged) download. A pageable download ran at
// ~1.9 GB/s on the H100 host (csr_balanced's row pointer, issue 24).
constexpr std::size_t kDownloadPiece = std::size_t{4} << 20;

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
// One piece is copied by the calling thread (waking a passive team costs tens of us).
void host_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  const std::int64_t pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (pieces > 1)
  for (std::int64_t i = 0; i < pieces; ++i) {
    const std::size_t off = static_cast<std::size_t>(i) * piece;
    std::memcpy(dst + off, src + off, std::min(piece, bytes - off));
  }
}

// The buffers allocated (once) and this device's events, under s.m.
const std::unique_ptr<Event[]>& ready(Staging& s) {
  if (s.buffer[0].size() == 0)
    for (auto& b : s.buffer) b = PinnedBuffer<unsigned char>(kStageBytes);
  std::unique_ptr<Event[]>& events = s.copied[Context::get().device()];
  if (!events) events = std::make_unique<Event[]>(2);
  return events;
}

}  // namespace

void upload_staged(void* dst, const void* src, std::size_t bytes, bool wait) {
  if (bytes == 0) return;
  if (bytes < kStageMin) {
    if (wait)
      copy_to_device(dst, src, bytes);
    else
      copy_to_device_async(dst, src, bytes);
    return;
  }
  constexpr std::size_t page = 4096;
  const std::size_t piece =
      std::min(kStageBytes, std::max(kStageMin, (bytes / 4 + page - 1) / page * page));
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.m);
  cudaStream_t stream = Context::get().stream();
  const std::unique_ptr<Event[]>& events = ready(s);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  bool used[2] = {false, false};
  for (std::size_t off = 0, i = 0; off < bytes; off += piece, ++i) {
    const std::size_t n = std::min(piece, bytes - off);
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

void download_staged(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (bytes < kDownloadPiece) {
    copy_to_host(dst, src, bytes);
    return;
  }
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.m);
  cudaStream_t stream = Context::get().stream();
  const std::unique_ptr<Event[]>& events = ready(s);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  std::size_t pending_off[2] = {0, 0}, pending_n[2] = {0, 0};  // what each buffer holds
  auto copy_out = [&](std::size_t k) {
    if (pending_n[k] == 0) return;
    SPMVKIT_CUDA_CHECK(cudaEventSynchronize(events[k].get()));
    host_copy(to + pending_off[k], s.buffer[k].data(), pending_n[k]);
    pending_n[k] = 0;
  };
  for (std::size_t off = 0, i = 0; off < bytes; off += kDownloadPiece, ++i) {
    const std::size_t n = std::min(kDownloadPiece, bytes - off);
    const std::size_t k = i % 2;
    // The buffer's previous piece goes out to dst first; the other buffer's transfer runs
    // meanwhile.
    copy_out(k);
    SPMVKIT_CUDA_CHECK(
        cudaMemcpyAsync(s.buffer[k].data(), from + off, n, cudaMemcpyDeviceToHost, stream));
    SPMVKIT_CUDA_CHECK(cudaEventRecord(events[k].get(), stream));
    pending_off[k] = off;
    pending_n[k] = n;
  }
  const std::size_t pieces = (bytes + kDownloadPiece - 1) / kDownloadPiece;
  copy_out(pieces % 2);  // the older of the two last pieces first
  copy_out((pieces + 1) % 2);
}

}  // namespace spmvkit::cuda
