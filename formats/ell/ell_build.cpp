#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "formats/ell/ell.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/stats.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#endif

namespace spmvkit {

double ell_fill(index_t width, index_t rows, std::int64_t nnz) {
  if (nnz == 0) return 1.0;
  return static_cast<double>(width) * static_cast<double>(rows) / static_cast<double>(nnz);
}

namespace {

// The parameters, read once for the host and the device builds.
template <class V>
struct EllChoices {
  double max_fill = 3.0;
  int rows_per_thread = 1;
  std::optional<EllSkip> skip;
  std::optional<int> index_bits;
  explicit EllChoices(const Params& p)
      : max_fill(p.get_double("max_fill", 3.0)),
        rows_per_thread(ell_rows_per_thread_param<V>(p, "ell")),
        skip(ell_skip_param(p, "ell")),
        index_bits(index_bits_param(p, "ell")) {
    if (!std::isfinite(max_fill) || max_fill < 1.0)
      throw InputError("ell: max_fill must be a finite number >= 1, got " +
                       p.get_string("max_fill", ""));
  }
};

// UnsupportedError when padding to `width` stores over max_fill times the nonzeros.
double check_fill(index_t width, index_t rows, std::int64_t nnz, double max_fill) {
  const double fill = ell_fill(width, rows, nnz);
  if (fill > max_fill) {
    std::ostringstream os;
    os << "ell: padding every row to the longest (" << width << " entries, " << rows
       << " rows) would store " << fill << "x the " << nnz
       << " nonzeros, over max_fill=" << max_fill << " (use hyb, hec or sellp, or raise max_fill)";
    throw UnsupportedError(os.str());
  }
  return fill;
}

// `e` needs its shape only; `g` its row lengths' group maxima (the byte model).
template <class V>
OperatorInfo ell_info(const EllData<V>& e, const EllGroupMaxima& g, std::int64_t nnz, double fill,
                      EllSkip skip, bool deltas, int rows_per_thread, Backend b) {
  std::ostringstream details;
  details.precision(3);
  details << "width=" << e.width << ",pitch=" << e.pitch << ",fill=" << fill
          << ",skip=" << to_string(skip);
  if (b == Backend::cuda)
    details << ",rows_per_thread=" << rows_per_thread << ",index_bits=" << (deltas ? 16 : 32);
  return OperatorInfo{e.rows, e.cols, nnz,          ell_pass_bytes<V>(g, skip, deltas),
                      b,      "ell",  details.str()};
}

template <class V>
std::unique_ptr<Operator<V>> build_ell(const Csr<V>& a, const Params& p, Backend b) {
  const EllChoices<V> c(p);
  const index_t width = longest_row(a);
  const double fill = check_fill(width, a.rows, a.nnz(), c.max_fill);
  EllData<V> e = ell_pack(a, width);
  const std::optional<ColumnDeltas> deltas = ell_choose_deltas(e, c.index_bits, b, "ell");
  const EllGroupMaxima g = ell_group_maxima(e);
  const EllSkip skip = c.skip ? *c.skip : ell_choose_skip<V>(g, deltas.has_value());
  OperatorInfo info = ell_info(e, g, a.nnz(), fill, skip, deltas.has_value(), c.rows_per_thread, b);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_ell_cuda(e, skip, c.rows_per_thread, deltas ? &*deltas : nullptr,
                         std::move(info));
#endif
  return make_ell_cpu(std::move(e), std::move(info));
}

#if SPMVKIT_HAVE_CUDA
// The same operator from a CSR on the device: the longest row, the group maxima (the byte
// model and the skip rule) and whether 16-bit deltas fit come to the host in one download; the
// arrays are made on the device.
template <class V>
std::unique_ptr<Operator<V>> build_ell_device(const DeviceCsrView<V>& a, const Params& p) {
  const EllChoices<V> c(p);
  EllData<V> shape;
  shape.rows = a.rows;
  shape.cols = a.cols;
  shape.pitch = ell_pitch(a.rows);
  cuda::build_phase("shape");
  EllShape s = ell_shape_device(a, shape.pitch, -1, c.index_bits != 32);
  shape.width = s.g.width;
  shape.stored = a.nnz;
  const double fill = check_fill(shape.width, a.rows, a.nnz, c.max_fill);
  const EllDecisions decide{
      [&](bool deltas) { return c.skip ? *c.skip : ell_choose_skip<V>(s.g, deltas); },
      [&](EllSkip skip, bool deltas) {
        if (c.index_bits == 16 && shape.width > 0 && !deltas) ell_deltas_do_not_fit("ell");
        return ell_info(shape, s.g, a.nnz, fill, skip, deltas, c.rows_per_thread, Backend::cuda);
      },
      {}};
  return make_ell_cuda(a, s, shape.pitch, c.rows_per_thread, decide);
}
#endif

}  // namespace

FormatEntry ell_format() {
  FormatEntry e = make_format(
      "ell", "ELLPACK: rows padded to the longest, column-major, aligned (refuses over max_fill)",
      concat_params({real_param("max_fill", "3", 1, kNoLimit,
                                "refuse the matrix (unsupported) when padding stores more than "
                                "this many times its nonzeros")},
                    ell_pass_params()),
      [](const auto& a, const Params& p, Backend b) { return build_ell(a, p, b); });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) { return build_ell_device(a, p); });
#endif
  return e;
}

}  // namespace spmvkit
