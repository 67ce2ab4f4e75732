// Brute-force autotuning of the BSR kernels (paper 5.7): every candidate of the pruned search
// space (bsr_tuning_candidates) is checked and timed on a reservoir-like block matrix, per block
// size and precision; the best parameters per kernel and the best kernel go to the tuning store.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "formats/bsr/bsr_cuda.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

namespace {

// The paper's SPE5-like reservoir structure: an n^3 grid of cells, each coupled to itself and
// its 6 face neighbours by a dense bs x bs block (7 blocks a block row inside the grid), n
// chosen so that the blocks hold about `target_values` values. Built straight as BSR.
template <class V>
Bsr<V> tuning_matrix(int bs, std::int64_t target_values) {
  const double cells = static_cast<double>(target_values) / (7.0 * bs * bs);
  const index_t n = std::max<index_t>(2, static_cast<index_t>(std::lround(std::cbrt(cells))));
  Bsr<V> m;
  m.block_size = bs;
  m.layout = BlockLayout::column_major;
  m.block_rows = m.block_cols = n * n * n;
  m.rows = m.cols = m.block_rows * bs;
  m.block_row_ptr.assign(1, 0);
  for (index_t z = 0; z < n; ++z)
    for (index_t y = 0; y < n; ++y)
      for (index_t x = 0; x < n; ++x) {
        const index_t cell = x + n * (y + n * z);
        const index_t neighbours[7] = {z > 0 ? cell - n * n : -1,    y > 0 ? cell - n : -1,
                                       x > 0 ? cell - 1 : -1,        cell,
                                       x + 1 < n ? cell + 1 : -1,    y + 1 < n ? cell + n : -1,
                                       z + 1 < n ? cell + n * n : -1};
        for (index_t c : neighbours)
          if (c >= 0) m.block_col_idx.push_back(c);
        m.block_row_ptr.push_back(static_cast<index_t>(m.block_col_idx.size()));
      }
  m.values.resize(m.block_col_idx.size() * static_cast<std::size_t>(bs) * bs);
  std::mt19937_64 rng(12345 + bs);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& v : m.values) v = static_cast<V>(dist(rng));
  m.nnz = static_cast<std::int64_t>(m.values.size());
  return m;
}

std::string device_family(const std::string& device) {
  for (const char* family : {"H200", "H100"})
    if (device.find(family) != std::string::npos) return family;
  return device;
}

std::string format_gbs(double gbs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", gbs);
  return buf;
}

struct Measured {
  BsrPolicy policy;
  double seconds = std::numeric_limits<double>::infinity();
};

template <class V>
void tune_block_size(int bs, const BsrAutotuneOptions& o, const std::string& device) {
  const int value_bytes = static_cast<int>(sizeof(V));
  const char* tag = value_bytes == 8 ? "f64" : "f32";
  std::ostream* log = o.log;
  const Bsr<V> m = tuning_matrix<V>(bs, o.target_values);
  bsr::DeviceBsr<V> d = bsr::upload_bsr(m, nullptr);

  std::mt19937_64 rng(777 + bs);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> xh(static_cast<std::size_t>(m.cols)), yh(static_cast<std::size_t>(m.rows));
  for (auto& v : xh) v = static_cast<V>(dist(rng));
  for (auto& v : yh) v = static_cast<V>(dist(rng));
  const V alpha = V(1.5), beta = V(-0.5);
  std::vector<V> ref(static_cast<std::size_t>(m.rows));
  bsr_spmv_cpu(m, nullptr, xh.data(), yh.data(), ref.data(), alpha, beta, static_cast<V*>(nullptr));
  const cuda::DeviceBuffer<V> x(xh), y(yh);
  cuda::DeviceBuffer<V> z(static_cast<std::size_t>(m.rows));
  const std::size_t sample = std::min<std::size_t>(ref.size(), std::size_t{1} << 16);
  std::vector<V> got(sample);
  const double tol = 64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(7.0 * bs + 1.0);

  // Bytes per apply for y = A*x: the matrix, x once, z written.
  const double bytes = static_cast<double>(bsr_matrix_bytes(m, nullptr)) +
                       static_cast<double>(m.cols + m.rows) * sizeof(V);
  if (log)
    *log << "bsr autotune: bs=" << bs << " " << tag << ", " << m.block_rows << " block rows, "
         << m.values.size() << " values\n";

  cudaStream_t stream = cuda::Context::get().stream();
  cuda::Event start, stop;
  Measured overall;
  std::vector<BsrKernel> kernels;
  if (bs <= 5) kernels.push_back(BsrKernel::k1);
  if (bs >= 4) kernels.push_back(BsrKernel::k2);
  if (bs >= 32) kernels.push_back(BsrKernel::k3);
  if (bs <= kBsrTmaMaxBlockSize) kernels.push_back(BsrKernel::tma);
  for (BsrKernel kernel : kernels) {
    Measured best;
    std::set<std::string> seen;
    int tried = 0, wrong = 0;
    for (const BsrPolicy& candidate : bsr_tuning_candidates(kernel, bs, value_bytes)) {
      BsrPolicy p;
      try {
        p = fit_bsr_policy<V>(candidate, bs);
      } catch (const UnsupportedError&) {
        continue;  // too many registers for this thread-array size
      }
      if (!seen.insert(p.to_params()).second) continue;
      ++tried;
      if (p.kernel == BsrKernel::tma)
        bsr::set_tma_tiles(d, m.block_row_ptr, bsr_tma_tile_blocks(bs, value_bytes, p.tile_kb));
      // Check: z = alpha*A*x + beta*y on a sample of rows against the CPU kernel.
      bsr::launch_bsr(d, p, x.data(), y.data(), z.data(), alpha, beta);
      cuda::copy_to_host(got.data(), z.data(), sample * sizeof(V));
      double diff = 0, norm = 0;
      for (std::size_t i = 0; i < sample; ++i) {
        const double e = static_cast<double>(got[i]) - static_cast<double>(ref[i]);
        diff += std::isfinite(e) ? e * e : std::numeric_limits<double>::infinity();
        norm += static_cast<double>(ref[i]) * ref[i];
      }
      if (!(std::sqrt(diff / std::max(norm, 1e-300)) <= tol)) {
        ++wrong;
        if (log)
          *log << "  WRONG RESULT " << bsr_kernel_name(kernel) << " " << p.to_params() << "\n";
        continue;
      }
      // Time y = A*x: two warm-up applies, then the best of three rounds.
      for (int w = 0; w < 2; ++w)
        bsr::launch_bsr(d, p, x.data(), static_cast<const V*>(nullptr), z.data(), V(1), V(0));
      double seconds = std::numeric_limits<double>::infinity();
      for (int round = 0; round < 3; ++round) {
        SPMVKIT_CUDA_CHECK(cudaEventRecord(start.get(), stream));
        for (int rep = 0; rep < o.repetitions; ++rep)
          bsr::launch_bsr(d, p, x.data(), static_cast<const V*>(nullptr), z.data(), V(1), V(0));
        SPMVKIT_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
        SPMVKIT_CUDA_CHECK(cudaEventSynchronize(stop.get()));
        float ms = 0;
        SPMVKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        seconds = std::min(seconds, 1e-3 * ms / o.repetitions);
      }
      if (seconds < best.seconds) best = Measured{p, seconds};
    }
    if (!std::isfinite(best.seconds)) {
      if (log) *log << "  " << bsr_kernel_name(kernel) << ": no working candidate\n";
      continue;
    }
    const std::string gbs = format_gbs(bytes / best.seconds * 1e-9);
    const std::string key = bsr_tuning_key(kernel, bs, value_bytes);
    if (o.write_store) tuning_put(device, key, best.policy.to_params() + ",gbs=" + gbs);
    if (log)
      *log << "  " << bsr_kernel_name(kernel) << ": " << tried << " tried, " << wrong
           << " wrong, best " << best.policy.to_params() << " " << best.seconds * 1e6 << " us "
           << gbs << " GB/s\n"
           << "  {\"" << device_family(device) << "\", \"" << key << "\", \""
           << best.policy.to_params() << "\"},  // " << gbs << " GB/s\n";
    if (best.seconds < overall.seconds) overall = best;
  }
  if (std::isfinite(overall.seconds)) {
    const std::string key = bsr_kernel_key(bs, value_bytes);
    const std::string value = std::string("kernel=") + bsr_kernel_name(overall.policy.kernel);
    if (o.write_store)
      tuning_put(device, key, value + ",gbs=" + format_gbs(bytes / overall.seconds * 1e-9));
    if (log)
      *log << "  {\"" << device_family(device) << "\", \"" << key << "\", \"" << value << "\"},\n";
  }
}

}  // namespace

void autotune_bsr(const BsrAutotuneOptions& options) {
  if (!cuda_available()) throw UnsupportedError("autotune_bsr: no CUDA device is available");
  if (options.repetitions < 1 || options.target_values < 1)
    throw InputError("autotune_bsr: repetitions and target_values must be positive");
  std::vector<int> sizes = options.block_sizes;
  if (sizes.empty())
    for (int bs = 1; bs <= 64; ++bs) sizes.push_back(bs);
  for (int bs : sizes)
    if (bs < 1 || bs > kBsrMaxBlockSize)
      throw InputError("autotune_bsr: block size " + std::to_string(bs) + " out of range");
  const std::string device = device_name(Backend::cuda);
  if (options.log) *options.log << "bsr autotune on " << device << "\n";
  for (int bs : sizes) {
    if (options.double_precision) tune_block_size<double>(bs, options, device);
    if (options.single_precision) tune_block_size<float>(bs, options, device);
  }
}

}  // namespace spmvkit
