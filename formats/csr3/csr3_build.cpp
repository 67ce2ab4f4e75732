// CSR-3 host build (reordering, grouping, long rows) and the registry entry.
#include <chrono>
#include <cstdint>
#include <sstream>

#include "formats/common/csr_kernels.hpp"
#include "formats/csr3/csr3_tune.hpp"
#include "spmvkit/generators.hpp"
#include "formats/csr3/csr3.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/reorder.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/device_csr.hpp"
#endif

namespace spmvkit {

namespace {

// Profile: sum over rows of (i - first column), counting only columns left of the diagonal;
// what the `auto` reorder compares (a shorter profile = rows closer to their columns).
template <class V>
std::int64_t profile(const Csr<V>& a) {
  std::int64_t p = 0;
  for (index_t i = 0; i < a.rows; ++i)
    if (a.row_length(i) > 0 && a.col_idx[a.row_ptr[i]] < i) p += i - a.col_idx[a.row_ptr[i]];
  return p;
}

template <class V>
std::unique_ptr<Operator<V>> build_csr3_operator(const Csr<V>& a, const Params& p, Backend b) {
  const Csr3Params params = csr3_choose(a, p);
  Csr3<V> host = build_csr3(a, params, p.has("reorder"));
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda) return make_csr3_cuda(std::move(host));
#endif
  (void)b;
  return make_csr3_cpu(std::move(host));
}

}  // namespace

std::vector<index_t> csr3_uniform_ptr(index_t count, index_t group) {
  const index_t groups = csr3_groups(count, group);
  std::vector<index_t> ptr(static_cast<std::size_t>(groups) + 1);
  for (index_t g = 0; g < groups; ++g)
    ptr[g] = static_cast<index_t>(static_cast<std::int64_t>(g) * group);
  ptr[groups] = count;
  return ptr;
}

std::vector<Csr3LongChunk> csr3_long_chunks(const std::vector<index_t>& row_ptr,
                                            const std::vector<index_t>& long_rows) {
  std::vector<Csr3LongChunk> chunks;
  index_t slots = 0;
  for (std::size_t i = 0; i < long_rows.size(); ++i) {
    const index_t row = long_rows[i];
    const index_t begin = row_ptr[row], end = row_ptr[row + 1];
    const index_t count = csr3_long_row_chunks(end - begin);
    for (index_t c = 0; c < count; ++c)
      chunks.push_back(csr3_long_chunk(row, begin, end, static_cast<index_t>(i), slots, c));
    slots += count;
  }
  return chunks;
}

namespace {

// The reordering that runs: none for a rectangular matrix (noted in f, or UnsupportedError
// when reorder was asked for explicitly) or an empty one.
template <class V>
Csr3Reorder effective_reorder(Csr3<V>& f, index_t rows, index_t cols, bool reorder_explicit) {
  Csr3Reorder reorder = f.params.reorder;
  if (reorder != Csr3Reorder::none && rows != cols) {
    if (reorder_explicit)
      throw UnsupportedError("csr3: reorder needs a square matrix (got " + std::to_string(rows) +
                             "x" + std::to_string(cols) + ")");
    f.reorder_note = "rectangular: not reordered";
    reorder = Csr3Reorder::none;
  }
  if (rows == 0) reorder = Csr3Reorder::none;
  return reorder;
}

// Once f.perm is final: the parameters that actually run (the note says why when they differ).
template <class V>
void csr3_settle_params(Csr3<V>& f) {
  if (f.perm.empty()) {
    f.params.reorder = Csr3Reorder::none;
    f.params.permute_x = false;
  }
}

// Once f.csr's row pointer and f.perm are final (host build): the parameters that actually
// run, the super-row pointers and the long rows.
template <class V>
void csr3_finish(Csr3<V>& f) {
  csr3_settle_params(f);
  f.sup_row_ptr = csr3_uniform_ptr(f.csr.rows, f.params.super_row_size);
  f.sup_sup_row_ptr = csr3_uniform_ptr(f.super_rows(), f.params.super_super_row_size);
  for (index_t i = 0; i < f.csr.rows; ++i)
    if (csr3_is_long_row(f.csr.row_length(i), f.params.long_row_threshold))
      f.long_rows.push_back(i);
}

}  // namespace

template <class V>
Csr3<V> build_csr3(const Csr<V>& a, const Csr3Params& params, bool reorder_explicit) {
  csr3_validate(params);
  using clock = std::chrono::steady_clock;
  Csr3<V> f;
  f.params = params;
  f.user_cols = a.cols;
  const Csr3Reorder reorder = effective_reorder(f, a.rows, a.cols, reorder_explicit);

  const auto t0 = clock::now();
  if (reorder != Csr3Reorder::none) {
    f.perm =
        reorder_order(a, reorder == Csr3Reorder::rcm ? ReorderMethod::rcm : ReorderMethod::band);
    const bool need_sym = params.permute_x || reorder == Csr3Reorder::auto_;
    Csr<V> sym = need_sym ? permute_symmetric(a, f.perm) : Csr<V>{};
    if (reorder == Csr3Reorder::auto_ &&
        !(static_cast<double>(profile(sym)) < 0.75 * static_cast<double>(profile(a)))) {
      f.perm.clear();
      f.reorder_note = "auto: banding gave no gain, not reordered";
      f.csr = a;
    } else {
      if (reorder == Csr3Reorder::auto_) f.reorder_note = "auto: banding kept";
      f.csr = params.permute_x ? std::move(sym) : permute_rows(a, f.perm);
    }
  } else {
    f.csr = a;
  }
  f.reorder_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  csr3_finish(f);
  return f;
}

namespace {

#if SPMVKIT_HAVE_CUDA
// The same operator from a CSR on the device. The ordering stays on the host (timed apart, as
// reorder_ms and its own phase: the matrix downloaded, Band-k/RCM computed there); everything
// after it is made on the device from the CSR there (make_csr3_cuda: perm uploaded, the rows
// permuted, the long rows and their chunks found). reorder=auto and permute_x (a symmetric
// permutation, columns re-sorted) take the host build whole, then upload.
template <class V>
std::unique_ptr<Operator<V>> build_csr3_device(const DeviceCsrView<V>& a, const Params& p) {
  const Csr3Params params = csr3_choose(a.rows, a.nnz, p);
  csr3_validate(params);
  Csr3<V> f;
  f.params = params;
  f.user_cols = a.cols;
  const Csr3Reorder reorder = effective_reorder(f, a.rows, a.cols, p.has("reorder"));
  if (reorder == Csr3Reorder::auto_ || (reorder != Csr3Reorder::none && params.permute_x)) {
    cuda::build_phase("host_build");
    return make_csr3_cuda(build_csr3(cuda::download_csr(a), params, p.has("reorder")));
  }
  f.csr.rows = a.rows;
  f.csr.cols = a.cols;
  if (reorder != Csr3Reorder::none) {
    cuda::build_phase("reorder_on_host");
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    f.perm = reorder_order(cuda::download_csr(a),
                           reorder == Csr3Reorder::rcm ? ReorderMethod::rcm : ReorderMethod::band);
    f.reorder_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  }
  csr3_settle_params(f);
  return make_csr3_cuda(a, std::move(f));
}
#endif

}  // namespace

template <class V>
Csr3Summary Csr3<V>::summary() const {
  Csr3Summary s;
  s.params = params;
  s.rows = csr.rows;
  s.cols = csr.cols;
  s.user_cols = user_cols;
  s.nnz = csr.nnz();
  s.long_rows = long_rows.size();
  s.reordered = !perm.empty();
  s.reorder_ms = reorder_ms;
  s.reorder_note = reorder_note;
  return s;
}

template <class V>
std::size_t Csr3Summary::matrix_bytes() const {
  std::size_t bytes = csr_matrix_bytes<V>(rows, nnz) + long_rows * sizeof(index_t);
  if (reordered) {
    bytes += static_cast<std::size_t>(rows) * sizeof(index_t);  // z[perm[i]], y[perm[i]]
    if (params.permute_x)  // the gather: perm again, x copy written then read by the kernel
      bytes += static_cast<std::size_t>(cols) * (sizeof(index_t) + 2 * sizeof(V));
  }
  return bytes;
}

std::string Csr3Summary::details() const {
  std::ostringstream s;
  s << params.to_string() << ",super_rows=" << super_rows()
    << ",super_super_rows=" << super_super_rows() << ",long_rows=" << long_rows
    << ",reorder_ms=" << reorder_ms;
  if (!reorder_note.empty()) s << ",note=" << reorder_note;
  return s.str();
}

namespace {
// spmvkit tune csr3 [MATRIX...]: the search over the training matrices (default: a generated
// set), the fitted rule printed.
void tune_csr3(const Params&, const std::vector<std::string>& matrices, std::ostream& out,
               std::ostream& log) {
  if (!cuda_available()) throw UnsupportedError("tuning needs a CUDA device");
  std::vector<Csr3TuneMatrix> set;
  const auto names = matrices.empty() ? csr3_training_set() : matrices;
  for (const auto& name : names) set.push_back({name, load_matrix(name)});
  Csr3TuneOptions options;
  options.log = &log;
  csr3_print_tune(csr3_tune(set, options), out);
}
}  // namespace

FormatEntry csr3_format() {
  FormatEntry e = make_format(
      "csr3",
      "CSR-3 (CSR-k GPU paper): super-rows and super-super-rows, a block per super-super-row, "
      "serial or parallel inner loop, own Band-k/RCM ordering",
      {enum_param("rule", "hopper", {"paper", "hopper"},
                  "where the defaults below come from: the paper's table, or one measured on "
                  "Hopper (by nonzeros a row)"),
       enum_param("kernel", "auto", {"serial", "parallel"},
                  "inner loop over a row: serial, or block_x lanes a row; auto: the rule's")
           .or_auto()
           .cuda(),
       int_param("super_row_size", "auto", 1, 65536, "rows a super-row; auto: the rule's")
           .or_auto(),
       int_param("super_super_row_size", "auto", 1, 65536,
                 "super-rows a super-super-row (a block); auto: the rule's")
           .or_auto(),
       int_param("block_x", "auto", 1, 1024,
                 "block x: lanes a row (parallel: a power of two <= 32); x*y*z a multiple of 32, "
                 "<= 1024; auto: the rule's")
           .or_auto()
           .cuda(),
       int_param("block_y", "auto", 1, 1024, "block y: rows of a super-row at once; auto: the "
                 "rule's")
           .or_auto()
           .cuda(),
       int_param("block_z", "auto", 1, 64, "block z: super-rows at once; auto: the rule's")
           .or_auto()
           .cuda(),
       enum_param("reorder", "band", {"none", "rcm", "band", "auto"},
                  "row ordering before the split: none, RCM, Band-k, or auto (Band-k kept "
                  "when it shrinks the profile by >= 25%)"),
       bool_param("permute_x", "false", "renumber the columns too (x permuted at each apply)"),
       int_param("long_row", "auto", 0, 2147483647,
                 "rows longer than this go to long-row blocks; 0: off; auto: max(64, 8 x the "
                 "mean row length)")
           .or_auto()},
      [](const auto& a, const Params& p, Backend b) { return build_csr3_operator(a, p, b); });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) { return build_csr3_device(a, p); });
#endif
  e.tune = tune_csr3;
  e.tune_summary = "brute-force search of CSR-3 sizes and block shapes; prints a fitted rule";
  return e;
}

#define SPMVKIT_INSTANTIATE(V)                                         \
  template Csr3<V> build_csr3(const Csr<V>&, const Csr3Params&, bool); \
  template struct Csr3<V>;                                             \
  template std::size_t Csr3Summary::matrix_bytes<V>() const;
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
