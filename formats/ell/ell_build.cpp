#include <algorithm>
#include <cmath>
#include <sstream>

#include "formats/ell/ell.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

template <class V>
index_t longest_row(const Csr<V>& a) {
  index_t longest = 0;
  for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
  return longest;
}

double ell_fill(index_t width, index_t rows, std::int64_t nnz) {
  if (nnz == 0) return 1.0;
  return static_cast<double>(width) * static_cast<double>(rows) / static_cast<double>(nnz);
}

namespace {

template <class V>
std::unique_ptr<Operator<V>> build_ell(const Csr<V>& a, const Params& p, Backend b) {
  const double max_fill = p.get_double("max_fill", 3.0);
  if (!std::isfinite(max_fill) || max_fill < 1.0)
    throw InputError("ell: max_fill must be a finite number >= 1, got " +
                     p.get_string("max_fill", ""));
  const int rows_per_thread = ell_rows_per_thread_param<V>(p, "ell");
  const std::optional<EllSkip> skip_param = ell_skip_param(p, "ell");
  const std::optional<int> bits_param = index_bits_param(p, "ell");

  const index_t width = longest_row(a);
  const double fill = ell_fill(width, a.rows, a.nnz());
  if (fill > max_fill) {
    std::ostringstream os;
    os << "ell: padding every row to the longest (" << width << " entries, " << a.rows
       << " rows) would store " << fill << "x the " << a.nnz()
       << " nonzeros, over max_fill=" << max_fill << " (use hyb, hec or sellp, or raise max_fill)";
    throw UnsupportedError(os.str());
  }
  EllData<V> e = ell_pack(a, width);
  const std::optional<ColumnDeltas> deltas = ell_choose_deltas(e, bits_param, b, "ell");
  const int index_bits = deltas ? 16 : 32;
  const EllSkip skip = skip_param ? *skip_param : ell_choose_skip(e, deltas.has_value());

  std::ostringstream details;
  details.precision(3);
  details << "width=" << width << ",pitch=" << e.pitch << ",fill=" << fill
          << ",skip=" << to_string(skip);
  if (b == Backend::cuda)
    details << ",rows_per_thread=" << rows_per_thread << ",index_bits=" << index_bits;
  OperatorInfo info{a.rows, a.cols, a.nnz(),      ell_pass_bytes(e, skip, deltas.has_value()),
                    b,      "ell",  details.str()};
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_ell_cuda(e, skip, rows_per_thread, deltas ? &*deltas : nullptr, std::move(info));
#endif
  return make_ell_cpu(std::move(e), std::move(info));
}

}  // namespace

FormatEntry ell_format() {
  return make_format(
      "ell", "ELLPACK: rows padded to the longest, column-major, aligned (refuses over max_fill)",
      concat_params({real_param("max_fill", "3", 1, kNoLimit,
                                "refuse the matrix (unsupported) when padding stores more than "
                                "this many times its nonzeros")},
                    ell_pass_params()),
      [](const auto& a, const Params& p, Backend b) { return build_ell(a, p, b); });
}

#define SPMVKIT_INSTANTIATE(V) template index_t longest_row(const Csr<V>&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
