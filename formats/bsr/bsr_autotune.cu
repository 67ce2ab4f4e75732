// Brute-force autotuning of the BSR kernels (paper 5.7): every candidate of the pruned search
// space (bsr_tuning_candidates) is checked and timed on a reservoir-like block matrix, per block
// size and precision; the best parameters per kernel and the best kernel go to the tuning store.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "formats/bsr/bsr_cuda.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/timing.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

namespace {

// The paper's SPE5-like reservoir structure: an n^3 grid of cells, each coupled to itself and
// its 6 face neighbours by a dense bs x bs block (7 blocks a block row inside the grid), n
// chosen so that the blocks hold about `target_values` values. Built straight as BSR.
template <class V>
Bsr<V> tuning_matrix(int bs, std::int64_t target_values) {
  const index_t n = reservoir_grid_for(bs, static_cast<double>(target_values));
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

std::string format_gbs(double gbs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", gbs);
  return buf;
}

struct Measured {
  BsrPolicy policy;
  double seconds = std::numeric_limits<double>::infinity();
};

// Tunes one block size and precision: every candidate checked and screened, the finalists and
// the first guess timed in full.
template <class V>
BsrTuning tune_block_size(int bs, const BsrAutotuneOptions& o, const std::string& device) {
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

  BsrTuning result;
  result.block_size = bs;
  result.value_bytes = value_bytes;
  result.block_rows = m.block_rows;
  result.values = static_cast<std::int64_t>(m.values.size());

  // The tma kernel runs on tiles cut for its tile size: cut them again when it changes; with
  // whole=1 it reads the values in its rotated chunk order.
  const auto use = [&](const BsrPolicy& p) {
    bsr::set_tma_rotated(d, m, p.reads_rotated_values());
    if (p.kernel != BsrKernel::tma) return;
    const index_t tile_blocks = bsr_tma_tile_blocks(bs, value_bytes, p.tile_kb);
    if (d.tma_tile_blocks != tile_blocks) bsr::set_tma_tiles(d, m.block_row_ptr, tile_blocks);
  };
  // z = alpha*A*x + beta*y on a sample of rows against the CPU kernel.
  const auto correct = [&](const BsrPolicy& p) {
    use(p);
    bsr::launch_bsr(d, p, x.data(), y.data(), z.data(), alpha, beta);
    cuda::copy_to_host(got.data(), z.data(), sample * sizeof(V));
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < sample; ++i) {
      const double e = static_cast<double>(got[i]) - static_cast<double>(ref[i]);
      diff += std::isfinite(e) ? e * e : std::numeric_limits<double>::infinity();
      norm += static_cast<double>(ref[i]) * ref[i];
    }
    return std::sqrt(diff / std::max(norm, 1e-300)) <= tol;
  };
  // Seconds per y = A*x: `warmup` applies, then the best of `rounds` rounds of `reps`.
  const auto time_applies = [&](const BsrPolicy& p, int warmup, int rounds, int reps) {
    use(p);
    for (int w = 0; w < warmup; ++w)
      bsr::launch_bsr(d, p, x.data(), static_cast<const V*>(nullptr), z.data(), V(1), V(0));
    // Rounds of `reps` applies, timed by the backend's one timer (spmvkit/timing.hpp).
    const std::vector<double> ms = time_runs(Backend::cuda, 0, rounds, [&] {
      for (int rep = 0; rep < reps; ++rep)
        bsr::launch_bsr(d, p, x.data(), static_cast<const V*>(nullptr), z.data(), V(1), V(0));
    });
    return 1e-3 * *std::min_element(ms.begin(), ms.end()) / reps;
  };
  const auto full_time = [&](const BsrPolicy& p) { return time_applies(p, 2, 3, o.repetitions); };

  // The first guess: the rule's kernel and parameters, fitted like any candidate.
  std::optional<BsrPolicy> first_guess;
  try {
    first_guess = fit_bsr_policy<V>(bsr_rule_policy(bsr_rule_kernel(bs), bs, value_bytes), bs);
    result.first_guess = *first_guess;
    if (correct(*first_guess)) {
      result.first_guess_ms = 1e3 * full_time(*first_guess);
      result.first_guess_gbs = bytes / result.first_guess_ms * 1e-6;
    } else if (log) {
      *log << "  WRONG RESULT first guess " << first_guess->to_params() << "\n";
    }
  } catch (const Error& e) {  // the rule's configuration does not fit this kernel build
    if (log) *log << "  first guess unusable: " << e.what() << "\n";
  }

  double best_overall = std::numeric_limits<double>::infinity();
  // The block sizes each kernel is tried at are those its candidate list is not empty for.
  for (BsrKernel kernel : {BsrKernel::k1, BsrKernel::k2, BsrKernel::k3, BsrKernel::tma}) {
    const std::vector<BsrPolicy> candidates = bsr_tuning_candidates(kernel, bs, value_bytes);
    if (candidates.empty()) continue;
    BsrKernelTuning k;
    k.kernel = kernel;
    std::set<std::string> seen;
    std::vector<Measured> screened;
    for (const BsrPolicy& candidate : candidates) {
      BsrPolicy p;
      try {
        p = fit_bsr_policy<V>(candidate, bs);
      } catch (const UnsupportedError&) {
        continue;  // too many registers for this thread-array size
      }
      if (!seen.insert(p.to_params()).second) continue;
      ++k.tried;
      bool right = false;
      try {
        right = correct(p);
      } catch (const UnsupportedError& e) {  // e.g. tma: no tiles for this tile size
        if (log) *log << "  skipped " << bsr_kernel_name(kernel) << " " << e.what() << "\n";
        continue;
      }
      if (!right) {
        ++k.wrong;
        if (log)
          *log << "  WRONG RESULT " << bsr_kernel_name(kernel) << " " << p.to_params() << "\n";
        continue;
      }
      screened.push_back(Measured{p, time_applies(p, 1, 1, o.screen_repetitions)});
    }
    std::sort(screened.begin(), screened.end(),
              [](const Measured& a, const Measured& b) { return a.seconds < b.seconds; });
    if (screened.size() > static_cast<std::size_t>(o.finalists))
      screened.resize(static_cast<std::size_t>(o.finalists));
    Measured best;
    for (const Measured& s : screened) {
      const bool is_first_guess = first_guess && result.first_guess_ms > 0 &&
                                  first_guess->kernel == kernel &&
                                  first_guess->to_params() == s.policy.to_params();
      const double seconds = is_first_guess ? 1e-3 * result.first_guess_ms : full_time(s.policy);
      if (seconds < best.seconds) best = Measured{s.policy, seconds};
    }
    // The first guess is a candidate of its kernel too: tuning never ends slower than it.
    if (first_guess && result.first_guess_ms > 0 && first_guess->kernel == kernel &&
        1e-3 * result.first_guess_ms < best.seconds)
      best = Measured{*first_guess, 1e-3 * result.first_guess_ms};
    if (!std::isfinite(best.seconds)) {
      if (log) *log << "  " << bsr_kernel_name(kernel) << ": no working candidate\n";
      result.kernels.push_back(k);
      continue;
    }
    k.best = best.policy;
    k.best.source = "tune";
    k.ms = 1e3 * best.seconds;
    k.gbs = bytes / best.seconds * 1e-9;
    const std::string key = bsr_tuning_key(kernel, bs, value_bytes);
    if (o.write_store) tuning_put(device, key, k.best.to_params() + ",gbs=" + format_gbs(k.gbs));
    if (log)
      *log << "  " << bsr_kernel_name(kernel) << ": " << k.tried << " tried, " << k.wrong
           << " wrong, best " << k.best.to_params() << " " << k.ms * 1e3 << " us "
           << format_gbs(k.gbs) << " GB/s\n";
    if (best.seconds < best_overall) {
      best_overall = best.seconds;
      result.best = static_cast<int>(result.kernels.size());
    }
    result.kernels.push_back(k);
  }
  if (result.best >= 0 && o.write_store) {
    const BsrKernelTuning& b = result.kernels[static_cast<std::size_t>(result.best)];
    tuning_put(device, bsr_kernel_key(bs, value_bytes),
               std::string("kernel=") + bsr_kernel_name(b.kernel) + ",gbs=" + format_gbs(b.gbs));
  }
  if (log)
    for (const BsrShippedLine& line : bsr_shipped_lines(bsr_device_family(device), result))
      *log << line.text() << "\n";
  return result;
}

}  // namespace

std::vector<BsrTuning> autotune_bsr(const BsrAutotuneOptions& options) {
  if (!cuda_available()) throw UnsupportedError("autotune_bsr: no CUDA device is available");
  if (options.repetitions < 1 || options.screen_repetitions < 1 || options.finalists < 1 ||
      options.target_values < 1)
    throw InputError(
        "autotune_bsr: repetitions, screen_repetitions, finalists and target_values must be "
        "positive");
  std::vector<int> sizes = options.block_sizes;
  if (sizes.empty())
    for (int bs = 1; bs <= 64; ++bs) sizes.push_back(bs);
  for (int bs : sizes)
    if (bs < 1 || bs > kBsrMaxBlockSize)
      throw InputError("autotune_bsr: block size " + std::to_string(bs) + " out of range");
  const std::string device = device_name(Backend::cuda);
  if (options.log) *options.log << "bsr autotune on " << device << "\n";
  std::vector<BsrTuning> results;
  for (int bs : sizes) {
    if (options.double_precision) results.push_back(tune_block_size<double>(bs, options, device));
    if (options.single_precision) results.push_back(tune_block_size<float>(bs, options, device));
  }
  return results;
}

}  // namespace spmvkit
