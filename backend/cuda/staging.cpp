// The pinned staging upload and download of device_csr.hpp (a .cpp file: its host copies use
// OpenMP).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

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

namespace {

// The calling thread's pinned buffer for queued uploads (upload_csr_queued), and the event
// recorded after the transfers that last read it (of `device`).
struct QueuedStaging {
  PinnedBuffer<unsigned char> buffer;
  cudaEvent_t read = nullptr;
  int device = -1;
  bool pending = false;
  ~QueuedStaging() {
    if (read) cudaEventDestroy(read);
  }
};
QueuedStaging& queued_staging() {
  static thread_local QueuedStaging s;
  return s;
}

}  // namespace

template <class V>
OwnedDeviceCsr<V> upload_csr_queued(const Csr<V>& a) {
  OwnedDeviceCsr<V> d = device_csr_like(a);
  const std::pair<void*, std::pair<const void*, std::size_t>> arrays[] = {
      {d.row_ptr.data(), {a.row_ptr.data(), d.row_ptr.bytes()}},
      {d.col_idx.data(), {a.col_idx.data(), d.col_idx.bytes()}},
      {d.values.data(), {a.values.data(), d.values.bytes()}}};
  constexpr std::size_t align = 256;
  std::size_t total = 0;
  for (const auto& [dst, src] : arrays) total += (src.second + align - 1) / align * align;
  if (total > kQueuedUploadBytes) return upload_csr(a);
  // The buffer free (its last transfers done: nearly always long since), on this device.
  QueuedStaging& s = queued_staging();
  if (s.pending) SPMVKIT_CUDA_CHECK(cudaEventSynchronize(s.read));
  s.pending = false;
  const int device = Context::get().device();
  if (s.device != device) {
    if (s.read) cudaEventDestroy(s.read);
    s.read = nullptr;
    SPMVKIT_CUDA_CHECK(cudaEventCreateWithFlags(&s.read, cudaEventDisableTiming));
    s.device = device;
  }
  if (s.buffer.size() < total) {
    constexpr std::size_t grain = std::size_t{1} << 20;
    s.buffer = PinnedBuffer<unsigned char>(
        std::max((total + grain - 1) / grain * grain, 2 * s.buffer.size()));
  }
  // Pieces of at most kPiece bytes: a piece's transfer runs beside the next one's copy (a
  // queued transfer costs the host ~2 us).
  constexpr std::size_t kPiece = std::size_t{256} << 10;
  cudaStream_t stream = Context::get().stream();
  unsigned char* at = s.buffer.data();
  for (const auto& [dst, src] : arrays) {
    const auto* from = static_cast<const unsigned char*>(src.first);
    for (std::size_t off = 0; off < src.second; off += kPiece) {
      const std::size_t n = std::min(kPiece, src.second - off);
      std::memcpy(at + off, from + off, n);
      SPMVKIT_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(dst) + off, at + off, n,
                                         cudaMemcpyHostToDevice, stream));
    }
    at += (src.second + align - 1) / align * align;
  }
  SPMVKIT_CUDA_CHECK(cudaEventRecord(s.read, stream));
  s.pending = true;
  return d;
}

template OwnedDeviceCsr<float> upload_csr_queued(const Csr<float>&);
template OwnedDeviceCsr<double> upload_csr_queued(const Csr<double>&);

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
