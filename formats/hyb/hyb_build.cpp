// HYB host construction: Bell & Garland's width rule, the ELL/COO split and the builder.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "formats/hyb/hyb.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#endif
#include "spmvkit/error.hpp"

namespace spmvkit {

index_t hyb_ell_width(const std::vector<std::int64_t>& histogram, index_t rows,
                      double relative_speed, std::int64_t breakeven_rows) {
  if (histogram.empty() || rows == 0) return 0;
  const auto longest = static_cast<index_t>(histogram.size() - 1);
  std::int64_t longer = rows;  // rows with length > k
  for (index_t k = 0; k < longest; ++k) {
    longer -= histogram[k];
    if (relative_speed * static_cast<double>(longer) < static_cast<double>(rows) ||
        longer < breakeven_rows)
      return k;
  }
  return longest;
}

template <class V>
HybData<V> hyb_pack(const Csr<V>& a, index_t width) {
  HybData<V> h;
  h.ell = ell_pack(a, width);
  // COO offsets: a prefix sum of each row's overflow past the width.
  std::vector<std::int64_t> offset(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t r = 0; r < a.rows; ++r)
    offset[r + 1] = offset[r] + std::max<index_t>(0, a.row_length(r) - width);
  const auto n = static_cast<std::size_t>(offset.back());
  h.coo_row.resize(n);
  h.coo_col.resize(n);
  h.coo_values.resize(n);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < a.rows; ++r) {
    std::int64_t out = offset[r];
    for (std::int64_t k = std::int64_t{a.row_ptr[r]} + width; k < a.row_ptr[r + 1]; ++k, ++out) {
      h.coo_row[out] = r;
      h.coo_col[out] = a.col_idx[k];
      h.coo_values[out] = a.values[k];
    }
  }
  return h;
}

namespace {

// The parameters, read once for the host and the device builds.
template <class V>
struct HybChoices {
  double relative_speed;
  long long breakeven;
  int rows_per_thread;
  std::optional<EllSkip> skip;
  std::optional<int> index_bits;
  explicit HybChoices(const Params& p)
      : relative_speed(p.get_double("relative_speed", 3.0)),
        breakeven(p.get_int("breakeven_rows", 4096)),
        rows_per_thread(ell_rows_per_thread_param<V>(p, "hyb")),
        skip(ell_skip_param(p, "hyb")),
        index_bits(index_bits_param(p, "hyb")) {
    if (!std::isfinite(relative_speed) || relative_speed <= 0)
      throw InputError("hyb: relative_speed must be a finite number > 0, got " +
                       p.get_string("relative_speed", ""));
    if (breakeven < 0)
      throw InputError("hyb: breakeven_rows must be >= 0, got " + std::to_string(breakeven));
  }
};

// The ELL part's width from the row-length histogram: the rule, or ell_width.
template <class V>
index_t hyb_width(const std::vector<std::int64_t>& hist, index_t rows, const HybChoices<V>& c,
                  const Params& p, bool* overridden) {
  const index_t longest = hist.empty() ? 0 : static_cast<index_t>(hist.size() - 1);
  index_t width = hyb_ell_width(hist, rows, c.relative_speed, c.breakeven);
  *overridden = p.has("ell_width");
  if (*overridden) {
    const long long w = p.get_int("ell_width", width);
    if (w < 0 || w > longest)
      throw InputError("hyb: ell_width must be in 0.." + std::to_string(longest) +
                       " (the longest row), got " + std::to_string(w));
    width = static_cast<index_t>(w);
  }
  return width;
}

// `ell` needs its shape and stored count only; `g` its row lengths' group maxima (the byte
// model).
template <class V>
OperatorInfo hyb_info(const EllData<V>& ell, const EllGroupMaxima& g, std::int64_t nnz,
                      std::int64_t coo_nnz, bool overridden, EllSkip skip, bool deltas,
                      int rows_per_thread, Backend b) {
  std::ostringstream details;
  details << "ell_width=" << ell.width << (overridden ? "(param)" : "")
          << ",ell_nnz=" << ell.stored << ",coo_nnz=" << coo_nnz << ",skip=" << to_string(skip);
  if (b == Backend::cuda)
    details << ",rows_per_thread=" << rows_per_thread << ",index_bits=" << (deltas ? 16 : 32);
  const std::size_t bytes = ell_pass_bytes<V>(g, skip, deltas) +
                            static_cast<std::size_t>(coo_nnz) * (2 * sizeof(index_t) + sizeof(V));
  return OperatorInfo{ell.rows, ell.cols, nnz, bytes, b, "hyb", details.str()};
}

template <class V>
std::unique_ptr<Operator<V>> build_hyb(const Csr<V>& a, const Params& p, Backend b) {
  const HybChoices<V> c(p);
  bool overridden = false;
  const index_t width = hyb_width(length_histogram(row_lengths(a)), a.rows, c, p, &overridden);
  HybData<V> h = hyb_pack(a, width);
  const std::optional<ColumnDeltas> deltas = ell_choose_deltas(h.ell, c.index_bits, b, "hyb");
  const EllGroupMaxima g = ell_group_maxima(h.ell);
  const EllSkip skip = c.skip ? *c.skip : ell_choose_skip<V>(g, deltas.has_value());
  OperatorInfo info = hyb_info(h.ell, g, a.nnz(), h.coo_nnz(), overridden, skip, deltas.has_value(),
                               c.rows_per_thread, b);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_hyb_cuda(h, skip, c.rows_per_thread, deltas ? &*deltas : nullptr,
                         std::move(info));
#endif
  return make_hyb_cpu(std::move(h), std::move(info));
}

#if SPMVKIT_HAVE_CUDA
// The same from a CSR on the device: the row-length histogram (for the width rule and the
// ELL part's entry count) and the group maxima at that width (the byte model and the skip
// rule) come to the host, small; the ELL part and the COO tail are made on the device.
template <class V>
std::unique_ptr<Operator<V>> build_hyb_device(const DeviceCsrView<V>& a, const Params& p) {
  const HybChoices<V> c(p);
  EllData<V> shape;
  shape.rows = a.rows;
  shape.cols = a.cols;
  shape.pitch = ell_pitch(a.rows);
  cuda::build_phase("row_lengths");
  const std::vector<std::int64_t> hist = length_histogram_device(a);
  cuda::build_phase("width_rule");
  bool overridden = false;
  shape.width = hyb_width(hist, a.rows, c, p, &overridden);
  shape.stored = ell_stored(hist, shape.width);
  cuda::build_phase("shape");
  EllShape s = ell_shape_device(a, shape.pitch, shape.width, c.index_bits != 32);
  const std::int64_t coo_nnz = a.nnz - shape.stored;
  const EllDecisions decide{
      [&](bool deltas) { return c.skip ? *c.skip : ell_choose_skip<V>(s.g, deltas); },
      [&](EllSkip skip, bool deltas) {
        if (c.index_bits == 16 && shape.width > 0 && !deltas) ell_deltas_do_not_fit("hyb");
        return hyb_info(shape, s.g, a.nnz, coo_nnz, overridden, skip, deltas, c.rows_per_thread,
                        Backend::cuda);
      },
      {}};
  return make_hyb_cuda(a, s, shape.pitch, coo_nnz, c.rows_per_thread, decide);
}
#endif

}  // namespace

FormatEntry hyb_format() {
  FormatEntry e = make_format(
      "hyb",
      "HYB: ELL part (Bell & Garland width rule) + COO part (warp segmented "
      "reduction)",
      concat_params(
          {int_param("ell_width", "auto", 0, 2147483647,
                     "ELL part width (at most the longest row); auto: Bell & Garland's rule")
               .or_auto(),
           real_param("relative_speed", "3", 0, kNoLimit,
                      "how many times faster ELL is than COO per entry (the width rule)", true),
           int_param("breakeven_rows", "4096", 0, 2147483647,
                     "rows a column of the ELL part must fill to pay (the width rule)")},
          ell_pass_params()),
      [](const auto& a, const Params& p, Backend b) { return build_hyb(a, p, b); });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) { return build_hyb_device(a, p); });
#endif
  return e;
}

template HybData<float> hyb_pack(const Csr<float>&, index_t);
template HybData<double> hyb_pack(const Csr<double>&, index_t);

}  // namespace spmvkit
