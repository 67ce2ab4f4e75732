// BSR builder: balanced-BSR segments (paper 5.5), the balancing rule, and
// the registry entries `bsr` and `bsr_balanced`.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>

#include "formats/bsr/bsr.hpp"
#include "formats/bsr/bsr_mapping.hpp"
#include "formats/common/csr_tiles.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "formats/bsr/bsr_cuda.hpp"
#endif
#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"

namespace spmvkit {

BsrSegments make_bsr_segments(const std::vector<index_t>& block_row_ptr, index_t lambda) {
  if (lambda < 1) throw InputError("bsr: lambda must be >= 1, got " + std::to_string(lambda));
  BsrSegments s;
  s.lambda = lambda;
  const index_t block_rows = static_cast<index_t>(block_row_ptr.size()) - 1;
  s.segment_block_ptr.reserve(block_row_ptr.size());
  s.segment_out.reserve(static_cast<std::size_t>(block_rows));
  for (index_t br = 0; br < block_rows; ++br) {
    const index_t begin = block_row_ptr[br];
    const index_t len = block_row_ptr[br + 1] - begin;
    if (len <= lambda) {
      s.segment_out.push_back(br);
      s.segment_block_ptr.push_back(block_row_ptr[br + 1]);
      continue;
    }
    const index_t n = bsr_row_segments(len, lambda);
    const index_t slot0 = s.segment_ptr.back();
    for (index_t q = 0; q < n; ++q) {
      s.segment_out.push_back(-(slot0 + q + 1));
      s.segment_block_ptr.push_back(begin + bsr_segment_end(len, n, q));
    }
    s.split_rows.push_back(br);
    s.segment_ptr.push_back(slot0 + n);
    s.max_split = std::max(s.max_split, n);
  }
  return s;
}

BsrRowStats bsr_row_stats(const std::vector<index_t>& block_row_ptr) {
  const auto block_rows = static_cast<index_t>(block_row_ptr.size()) - 1;
  std::int64_t sum = 0, sum2 = 0;
  index_t max_len = 0;
  for (index_t br = 0; br < block_rows; ++br) {
    const index_t len = block_row_ptr[br + 1] - block_row_ptr[br];
    max_len = std::max(max_len, len);
    sum += len;
    sum2 += static_cast<std::int64_t>(len) * len;
  }
  return bsr_row_stats(block_rows, sum, sum2, max_len);
}

// Integer sums (exact: sum2 <= max_len * nnzb < 2^62), so that the host and the device, which
// add in different orders, get the same mean and cv.
BsrRowStats bsr_row_stats(index_t block_rows, std::int64_t sum, std::int64_t sum2,
                          index_t max_len) {
  BsrRowStats st;
  st.block_rows = block_rows;
  if (block_rows <= 0) return st;
  st.max_len = max_len;
  st.mean = static_cast<double>(sum) / block_rows;
  const double var = std::max(0.0, static_cast<double>(sum2) / block_rows - st.mean * st.mean);
  st.cv = st.mean > 0 ? std::sqrt(var) / st.mean : 0.0;
  return st;
}

index_t bsr_choose_lambda(int block_size, const BsrRowStats& stats) {
  return block_size >= 5 && stats.mean <= 8.0 ? 16 : 32;
}

bool bsr_balance_pays(const BsrRowStats& stats, index_t lambda) {
  return stats.max_len > 2 * static_cast<std::int64_t>(lambda) && stats.cv >= 1.0;
}

std::optional<index_t> bsr_k3_lambda(const BsrRowStats& stats, int block_size, int nb,
                                     std::int64_t resident) {
  if (stats.max_len <= kBsrK3SplitFrom || resident <= 0 || nb < 1) return std::nullopt;
  const double thread_blocks = stats.mean * stats.block_rows * ((block_size + nb - 1) / nb);
  const double waves = 2 * thread_blocks / static_cast<double>(resident);
  if (waves >= kBsrK3FewWaves) return std::nullopt;
  index_t lambda = 4;
  while (lambda * 2 <= waves) lambda *= 2;
  if (stats.max_len <= 2 * static_cast<std::int64_t>(lambda)) return std::nullopt;
  return lambda;
}

namespace {

// What the byte model and the details take of segments made on the host or on the device.
struct SegmentShape {
  index_t segments = 0;
  index_t split_rows = 0;
};

// bsr_matrix_bytes from the shape: the segment arrays hold segments + 1 (segment_block_ptr),
// segments (segment_out), split_rows (split_rows) and split_rows + 1 (segment_ptr) indices.
template <class V>
std::size_t matrix_bytes(std::int64_t nnzb, int block_size, index_t block_rows,
                         const SegmentShape* segments) {
  std::size_t bytes = static_cast<std::size_t>(nnzb) *
                      (static_cast<std::size_t>(block_size) * block_size * sizeof(V) +
                       sizeof(index_t));
  if (segments)
    bytes += 2 * (static_cast<std::size_t>(segments->segments) + segments->split_rows + 1) *
             sizeof(index_t);
  else
    bytes += (static_cast<std::size_t>(block_rows) + 1) * sizeof(index_t);
  return bytes;
}

SegmentShape shape_of(const BsrSegments& s) {
  return SegmentShape{s.segments(), static_cast<index_t>(s.split_rows.size())};
}

}  // namespace

template <class V>
std::size_t bsr_matrix_bytes(std::int64_t nnzb, int block_size, index_t block_rows,
                             const BsrSegments* segments) {
  const SegmentShape shape = segments ? shape_of(*segments) : SegmentShape{};
  return matrix_bytes<V>(nnzb, block_size, block_rows, segments ? &shape : nullptr);
}

template <class V>
std::size_t bsr_matrix_bytes(const Bsr<V>& m, const BsrSegments* segments) {
  return bsr_matrix_bytes<V>(m.nnzb(), m.block_size, m.block_rows, segments);
}

namespace {

std::string fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// The parameters and the kernel policy, read once for the host and the device builds (the
// block size is known: given, or detected on the host or on the device).
struct BsrChoices {
  const char* format;
  int bs = 1;
  int balanced = -1;  // 1 always, 0 never, -1 by the rule
  bool lambda_given = false;
  index_t lambda_param = 0;
  BsrPolicy policy;
  bool rows_given = false;    // n_brows_ta among the parameters (bsr_fit_rows leaves it)
  bool kernel_given = false;  // kernel or any kernel field among them (the kernel stays)
  std::string device;         // the CUDA device's name (empty on the CPU)

  // balanced: 1 always, 0 never, -1 by the `balanced` parameter, else the rule.
  template <class V>
  static BsrChoices read(const Params& p, Backend b, const char* format, int balanced,
                         const std::function<int()>& detect) {
    BsrChoices c;
    c.format = format;
    const long long bs_param = p.get_int("block_size", 0);
    if (p.has("block_size") && (bs_param < 1 || bs_param > kBsrMaxBlockSize))
      throw InputError(std::string(format) + ": block_size must be in 1.." +
                       std::to_string(kBsrMaxBlockSize) + ", got " + std::to_string(bs_param));
    // No block_size: the detected one (1 when the matrix has no dense block structure; BSR
    // with 1x1 blocks is then CSR run by K1 as a warp per row).
    c.bs = p.has("block_size") ? static_cast<int>(bs_param) : detect();
    if (balanced < 0 && p.get_string("balanced", "auto") != "auto")
      balanced = p.get_bool("balanced", false) ? 1 : 0;
    c.balanced = balanced;
    const long long lambda_param = p.get_int("lambda", 0);
    if (p.has("lambda") && (lambda_param < 1 || lambda_param > (1 << 30)))
      throw InputError(std::string(format) + ": lambda must be >= 1, got " +
                       std::to_string(lambda_param));
    c.lambda_given = p.has("lambda");
    c.lambda_param = static_cast<index_t>(lambda_param);

    // Kernel parameters are checked on every backend, so that a bad value fails the same way
    // whether or not this run has a GPU.
    const int value_bytes = static_cast<int>(sizeof(V));
    if (b == Backend::cuda) c.device = device_name(Backend::cuda);
    c.policy = choose_bsr_policy(c.device, c.bs, value_bytes, p);
    c.rows_given = p.has("n_brows_ta");
    c.kernel_given = p.has("kernel");
    for (const std::string& field : bsr_policy_fields()) c.kernel_given |= p.has(field);
#if SPMVKIT_HAVE_CUDA
    if (b == Backend::cuda) c.policy = fit_bsr_policy<V>(c.policy, c.bs);
#endif
    return c;
  }

  // Lambda and whether to balance (`balanced` settled) from the block-row statistics, and K2
  // fitted to them (bsr_fit_rows: tma, or its rows an array); the info from the shape.
  template <class V>
  index_t choose_lambda(const BsrRowStats& stats, Backend b) {
#if SPMVKIT_HAVE_CUDA
    if (b == Backend::cuda) {
      std::function<BsrPolicy()> tma;
      if (!kernel_given && bs >= kBsrTmaFromRowsRule && bs <= kBsrTmaMaxBlockSize)
        tma = [this] {
          return fit_bsr_policy<V>(
              bsr_kernel_policy(device, BsrKernel::tma, bs, static_cast<int>(sizeof(V))), bs);
        };
      policy = bsr_fit_rows(policy, stats, bsr_device_sm_count(), tma, rows_given);
    }
#endif
    index_t lambda = lambda_given ? lambda_param : bsr_choose_lambda(bs, stats);
#if SPMVKIT_HAVE_CUDA
    // The occupancy asked only where a row is long enough for the rule to split it.
    if (b == Backend::cuda && policy.kernel == BsrKernel::k3 && !lambda_given &&
        stats.max_len > kBsrK3SplitFrom) {
      if (const auto l = bsr_k3_lambda(stats, bs, policy.nb, bsr_k3_resident<V>(policy))) {
        lambda = *l;
        if (balanced < 0) balanced = 1;
      }
    }
#endif
    if (balanced < 0) balanced = bsr_balance_pays(stats, lambda) ? 1 : 0;
    if (b == Backend::cuda && policy.kernel == BsrKernel::tma) {
      // Every kernel row must fit in one tma tile: longer block rows become segments.
      const index_t cap = bsr_tma_tile_blocks(bs, static_cast<int>(sizeof(V)), policy.tile_kb);
      if (stats.max_len > cap) balanced = 1;
      lambda = std::min(lambda, cap);
    }
    return lambda;
  }

  template <class V>
  OperatorInfo info(index_t rows, index_t cols, std::int64_t nnz, std::int64_t nnzb,
                    index_t block_rows, double fill_ratio, const SegmentShape* segments,
                    index_t lambda, Backend b) const {
    OperatorInfo info;
    info.rows = rows;
    info.cols = cols;
    info.nnz = nnz;
    info.matrix_bytes = matrix_bytes<V>(nnzb, bs, block_rows, segments);
    info.backend = b;
    info.format = format;
    info.details = "bs=" + std::to_string(bs);
    if (b == Backend::cuda) {
      info.details +=
          ",kernel=" + std::string(bsr_kernel_name(policy.kernel)) + "," + policy.to_params();
      if (policy.kernel == BsrKernel::k2)  // paper eq. (2a), (2b)
        info.details += ",ept_max=" + std::to_string(bsr::k2_ept_max(bs, policy.n_tg)) +
                        ",threshold=" + std::to_string(bsr::k2_threshold(bs, policy.n_tg));
      info.details += ",tuning=" + policy.source;
    } else {
      info.details += ",layout=col";
    }
    info.details += ",fill=" + fixed3(fill_ratio) + ",balanced=" + (balanced ? "1" : "0");
    if (segments)
      info.details += ",lambda=" + std::to_string(lambda) +
                      ",segments=" + std::to_string(segments->segments) +
                      ",split_rows=" + std::to_string(segments->split_rows);
    return info;
  }
};

template <class V>
std::unique_ptr<Operator<V>> build_bsr(const Csr<V>& a, const Params& p, Backend b,
                                       const char* format, int balanced) {
  BsrChoices c =
      BsrChoices::read<V>(p, b, format, balanced, [&a] { return detect_block_size(a); });
  Bsr<V> m = csr_to_bsr(a, c.bs, BlockLayout::column_major);
  const index_t lambda = c.choose_lambda<V>(bsr_row_stats(m.block_row_ptr), b);
  std::optional<BsrSegments> segments;
  if (c.balanced) segments = make_bsr_segments(m.block_row_ptr, lambda);
  const SegmentShape shape = segments ? shape_of(*segments) : SegmentShape{};
  OperatorInfo info = c.info<V>(a.rows, a.cols, a.nnz(), m.nnzb(), m.block_rows, m.fill_ratio(),
                                segments ? &shape : nullptr, lambda, b);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_bsr_cuda(m, segments ? &*segments : nullptr, c.policy, std::move(info));
#endif
  return make_bsr_cpu(std::move(m), std::move(segments), std::move(info));
}

#if SPMVKIT_HAVE_CUDA
// The same operator from a CSR on the device: block detection, the BSR arrays, the block-row
// statistics of the balancing rule, the segments and the tma tiles made there
// (bsr_blocks_cuda.hpp, bsr_cuda.hpp), from the block row pointer there; a few counts come to
// the host.
template <class V>
std::unique_ptr<Operator<V>> build_bsr_device(const DeviceCsrView<V>& a, const Params& p,
                                              const char* format, int balanced) {
  cuda::build_phase("block_size");
  bool detected = false;  // a detected block size is one of full blocks: not checked again
  BsrChoices c = BsrChoices::read<V>(p, Backend::cuda, format, balanced, [&] {
    detected = true;
    return detect_block_size_device(a);
  });
  // The balancing statistics, lambda and the segments, from a block row pointer.
  index_t lambda = 0;
  std::optional<DeviceBsrSegments> segments;
  const auto plan = [&](const index_t* block_row_ptr, index_t block_rows) {
    cuda::build_phase("segments");
    lambda = c.choose_lambda<V>(bsr_row_stats_device(block_row_ptr, block_rows), Backend::cuda);
    if (c.balanced)
      segments = make_bsr_segments_device(block_row_ptr, block_rows, lambda, bsr::kSlackBytes);
  };
  // Block size 1 of a small matrix from the host: its block row pointer is the CSR's, which
  // the host holds (host_mirror.hpp): planned from it first (beside the upload, whose wait
  // comes with the conversion's first use of the stream); the tiles read it there too.
  const index_t* h = c.bs == 1
                         ? cuda::host_row_ptr(a.row_ptr, static_cast<std::size_t>(a.rows) + 1)
                         : nullptr;
  if (h) plan(a.row_ptr, a.rows);
  cuda::build_phase("blocks");
  DeviceBsrBlocks<V> m = csr_to_bsr_device(a, c.bs, bsr::kSlackBytes, detected);
  std::optional<cuda::ScopedHostMirror> blocks_mirror;
  if (h && m.block_rows == a.rows) blocks_mirror.emplace(m.row_ptr.data(), h, m.block_rows);
  if (!h) plan(m.row_ptr.data(), m.block_rows);
  // Segments made on the host: the tma tile walk over them reads the host's copy.
  std::optional<cuda::ScopedHostMirror> segments_mirror;
  if (segments && !segments->host_block_ptr.empty())
    segments_mirror.emplace(segments->segment_block_ptr.data(), segments->host_block_ptr.data(),
                            segments->segments);
  const SegmentShape shape =
      segments ? SegmentShape{segments->segments, segments->n_split} : SegmentShape{};
  cuda::build_phase("device_layout");
  OperatorInfo info = c.info<V>(a.rows, a.cols, a.nnz, m.nnzb(), m.block_rows, m.fill_ratio(),
                                segments ? &shape : nullptr, lambda, Backend::cuda);
  return make_bsr_cuda(std::move(m), segments ? &*segments : nullptr, c.policy, std::move(info));
}
#endif

}  // namespace

// The balanced CSR kernel's greedy rule over kernel rows (csr_tiles.hpp's balanced_tile_end, with
// blocks for nonzeros), where no row is longer than a tile; the device builder cuts the same
// tiles there (bsr_setup_cuda.cu).
std::vector<index_t> bsr_tma_tiles(const std::vector<index_t>& row_ptr, index_t cap_blocks,
                                   index_t cap_rows) {
  const auto rows = static_cast<index_t>(row_ptr.size()) - 1;
  for (index_t r = 0; r < rows; ++r)
    if (balanced_long_row(row_ptr.data(), r, cap_blocks)) return {};
  std::vector<index_t> tiles{0};
  for (index_t r = 0; r < rows;) {
    r = balanced_tile_end(row_ptr.data(), r, rows, cap_blocks, cap_rows);
    tiles.push_back(r);
  }
  return tiles;
}

template <class V>
std::vector<V> bsr_tma_rotated_values(const Bsr<V>& m) {
  const int chunks = bsr_tma_rotation_chunks(m.block_size, static_cast<int>(sizeof(V)));
  if (chunks == 1) return m.values;
  const std::size_t block = static_cast<std::size_t>(m.block_size) * m.block_size;
  const std::size_t chunk = block / static_cast<std::size_t>(chunks);  // values a chunk
  std::vector<V> out(m.values.size());
  const auto blocks = static_cast<std::int64_t>(m.values.size() / block);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const int r = bsr_tma_rotation(k, chunks);
    const V* src = m.values.data() + k * block;
    V* dst = out.data() + k * block;
    for (int j = 0; j < chunks; ++j)
      std::copy(src + j * chunk, src + (j + 1) * chunk, dst + ((j + r) % chunks) * chunk);
  }
  return out;
}

namespace {

std::vector<ParamSpec> bsr_params(bool with_balanced) {
  std::vector<ParamSpec> specs = {
      int_param("block_size", "auto", 1, kBsrMaxBlockSize,
                "bs: rows and columns of a dense block; auto: detected (1 without block "
                "structure)")
          .or_auto(),
      enum_param("kernel", "auto", {"k1", "k2", "k3", "tma"},
                 "K1/K2/K3 (paper; K1: bs <= 5, K2: bs <= 128) or tma (bs <= 9); auto: this "
                 "device's tuning, else the rule")
          .or_auto()
          .cuda()};
  // The kernel policy's fields (BsrPolicy, bsr_policy_fields()), each for its kernels only
  // (naming another kernel's is an error); the kernel's joint restrictions (Table I,
  // validate_bsr_policy) are checked at the build, on every backend.
  const std::vector<ParamSpec> fields = {
      int_param("n_ta", "auto", 1, 32, "K1, K2: thread arrays a thread block (N_ta)"),
      int_param("n_brows_ta", "auto", 1, 31,
                "K1, K2: consecutive block rows a thread array (N_brows_ta)"),
      int_param("n_tg", "auto", 1, 32, "K2 (a power of two <= bs), K3: thread groups (N_tg)"),
      int_choice("ilp", "auto", {1, 2, 4, 8},
                 "K1: block rows in flight; K2 (1, 2, 4): blocks a pipeline stage"),
      int_choice("vec", "auto", {1, 2, 4},
                 "K2: block rows a thread = values a vector load (divides bs, <= 16 bytes)"),
      int_choice("pack", "auto", {0, 1},
                 "K2: 1 = thread arrays back to back across warps, 0 = padded to whole warps"),
      int_param("nb", "auto", 1, 1024, "K3: working-set height, <= bs (threads along x)"),
      int_param("ept", "auto", 1, kBsrK3MaxEpt, "K3: elements a thread (a thread group's slice)"),
      int_param("stages", "auto", 2, 4, "tma: tiles in flight a thread block"),
      int_choice("tile_kb", "auto", {4, 8, 16, 32, 48}, "tma: KB of block values a tile"),
      int_choice("threads", "auto", {128, 256, 512}, "tma: threads a thread block"),
      int_choice("whole", "auto", {0, 1, 2},
                 "tma: 1 = whole block rows an item, 0 = one output row, 2 = part rows (bs 6..9)"),
      int_choice("lanes", "auto", {0, 1, 2, 4, 8, 16, 32},
                 "tma: threads sharing an item; 0: from the tile's rows")};
  for (const ParamSpec& field : fields) {
    ParamSpec s = field.or_auto().cuda();
    s.meaning += "; auto: tuned, else the rule's";
    specs.push_back(s);
  }
  if (with_balanced)
    specs.push_back(bool_param("balanced", "auto",
                               "split long block rows (bsr_balanced); auto: when block-row "
                               "lengths vary widely")
                        .or_auto());
  specs.push_back(int_param("lambda", "auto", 1, 1 << 30,
                            "balanced: block rows longer than this are split; auto: from the "
                            "block-row lengths")
                      .or_auto());
  return specs;
}

}  // namespace

FormatEntry bsr_format() {
  FormatEntry e = make_format("bsr",
                     "BSR, dense bs x bs blocks (bs detected or block_size=); K1/K2/K3 (paper) and "
                     "tma (bs <= 9) kernels, autotuned per bs; "
                     "balanced when block-row lengths vary widely",
                     bsr_params(true), [](const auto& a, const Params& p, Backend b) {
                       return build_bsr(a, p, b, "bsr", -1);
                     });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) {
    return build_bsr_device(a, p, "bsr", -1);
  });
#endif
  e.tune = tune_bsr;
  e.tune_summary =
      "brute-force search of the BSR kernels' parameters per block size (paper 5.7); prints a "
      "table and the lines for formats/bsr/bsr_tuning_defaults.cpp";
  e.tune_options = bsr_tune_options();
  return e;
}

FormatEntry bsr_balanced_format() {
  FormatEntry e = make_format(
      "bsr_balanced",
      "balanced BSR: block rows longer than lambda split into segments, plus a reduction kernel",
      bsr_params(false), [](const auto& a, const Params& p, Backend b) {
        return build_bsr(a, p, b, "bsr_balanced", 1);
      });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) {
    return build_bsr_device(a, p, "bsr_balanced", 1);
  });
#endif
  return e;
}

#define SPMVKIT_INSTANTIATE(V)                                   \
  template std::vector<V> bsr_tma_rotated_values(const Bsr<V>&); \
  template std::size_t bsr_matrix_bytes(const Bsr<V>&, const BsrSegments*);   \
  template std::size_t bsr_matrix_bytes<V>(std::int64_t, int, index_t, const BsrSegments*);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
