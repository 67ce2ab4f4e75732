// HYB host construction: Bell & Garland's width rule, the ELL/COO split and the builder.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "formats/hyb/hyb.hpp"
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

template <class V>
std::unique_ptr<Operator<V>> build_hyb(const Csr<V>& a, const Params& p, Backend b) {
  const double relative_speed = p.get_double("relative_speed", 3.0);
  if (!std::isfinite(relative_speed) || relative_speed <= 0)
    throw InputError("hyb: relative_speed must be a finite number > 0, got " +
                     p.get_string("relative_speed", ""));
  const long long breakeven = p.get_int("breakeven_rows", 4096);
  if (breakeven < 0)
    throw InputError("hyb: breakeven_rows must be >= 0, got " + std::to_string(breakeven));
  const int rows_per_thread = ell_rows_per_thread_param<V>(p, "hyb");
  const std::optional<EllSkip> skip_param = ell_skip_param(p, "hyb");
  const std::optional<int> bits_param = index_bits_param(p, "hyb");

  const std::vector<index_t> lengths = row_lengths(a);
  const std::vector<std::int64_t> hist = length_histogram(lengths);
  const index_t longest = hist.empty() ? 0 : static_cast<index_t>(hist.size() - 1);
  index_t width = hyb_ell_width(hist, a.rows, relative_speed, breakeven);
  const bool overridden = p.has("ell_width");
  if (overridden) {
    const long long w = p.get_int("ell_width", width);
    if (w < 0 || w > longest)
      throw InputError("hyb: ell_width must be in 0.." + std::to_string(longest) +
                       " (the longest row), got " + std::to_string(w));
    width = static_cast<index_t>(w);
  }

  HybData<V> h = hyb_pack(a, width);
  const std::optional<ColumnDeltas> deltas = ell_choose_deltas(h.ell, bits_param, b, "hyb");
  const int index_bits = deltas ? 16 : 32;
  const EllSkip skip = skip_param ? *skip_param : ell_choose_skip(h.ell, deltas.has_value());
  std::ostringstream details;
  details << "ell_width=" << width << (overridden ? "(param)" : "") << ",ell_nnz=" << h.ell.stored
          << ",coo_nnz=" << h.coo_nnz() << ",skip=" << to_string(skip);
  if (b == Backend::cuda)
    details << ",rows_per_thread=" << rows_per_thread << ",index_bits=" << index_bits;
  const std::size_t bytes =
      ell_pass_bytes(h.ell, skip, deltas.has_value()) +
      static_cast<std::size_t>(h.coo_nnz()) * (2 * sizeof(index_t) + sizeof(V));
  OperatorInfo info{a.rows, a.cols, a.nnz(), bytes, b, "hyb", details.str()};
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_hyb_cuda(h, skip, rows_per_thread, deltas ? &*deltas : nullptr, std::move(info));
#endif
  return make_hyb_cpu(std::move(h), std::move(info));
}

}  // namespace

FormatEntry hyb_format() {
  return make_format(
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
}

template HybData<float> hyb_pack(const Csr<float>&, index_t);
template HybData<double> hyb_pack(const Csr<double>&, index_t);

}  // namespace spmvkit
