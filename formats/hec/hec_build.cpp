// HEC host construction: eq. (1)'s width, the ELL/CSR split with diagonal positions, where
// p_r comes from, and the builder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "formats/hec/hec.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#endif
#include "spmvkit/error.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

std::string_view to_string(HecCsrKernel k) {
  return k == HecCsrKernel::scalar ? "scalar" : "balanced";
}

std::string hec_p_r_key(HecCsrKernel kernel, bool dbl) {
  return std::string(kernel == HecCsrKernel::scalar ? "hec.p_r" : "hec.p_r_balanced") +
         (dbl ? ".f64" : ".f32");
}

index_t hec_ell_width(const std::vector<std::int64_t>& histogram, index_t rows, double p_r) {
  if (histogram.empty() || rows == 0) return 0;
  const auto longest = static_cast<index_t>(histogram.size() - 1);
  // nz(0) is every entry; raising l by one moves the rows longer than l out of the CSR part
  // by one entry each: nz(l+1) = nz(l) - rows_longer(l).
  std::int64_t nz = 0;
  for (index_t len = 1; len <= longest; ++len) nz += histogram[len] * len;
  std::int64_t longer = rows;  // rows with length > l
  index_t best = 0;
  double best_w = p_r * static_cast<double>(nz);
  for (index_t l = 0; l < longest; ++l) {
    longer -= histogram[l];
    nz -= longer;
    const double w = static_cast<double>(l + 1) * rows + p_r * static_cast<double>(nz);
    if (w < best_w) {
      best_w = w;
      best = l + 1;
    }
  }
  return best;
}

template <class V>
HecData<V> hec_pack(const Csr<V>& a, index_t l) {
  HecData<V> h;
  h.ell = ell_pack(a, l);
  h.csr_row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t r = 0; r < a.rows; ++r)
    h.csr_row_ptr[r + 1] = h.csr_row_ptr[r] + std::max<index_t>(0, a.row_length(r) - l);
  const auto n = static_cast<std::size_t>(h.csr_row_ptr.back());
  h.csr_col_idx.resize(n);
  h.csr_values.resize(n);
  h.diag_pos.assign(static_cast<std::size_t>(a.rows), -1);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t begin = a.row_ptr[r], end = a.row_ptr[r + 1];
    index_t out = h.csr_row_ptr[r];
    for (std::int64_t k = std::int64_t{begin} + l; k < end; ++k, ++out) {
      h.csr_col_idx[out] = a.col_idx[k];
      h.csr_values[out] = a.values[k];
    }
    const index_t* first = a.col_idx.data() + begin;
    const index_t* last = a.col_idx.data() + end;
    const index_t* d = std::lower_bound(first, last, r);
    if (d != last && *d == r) h.diag_pos[r] = static_cast<index_t>(d - first);
  }
  return h;
}

namespace {

struct PrChoice {
  double value = hec_default_p_r;
  std::string source = "paper default";
};

// p_r for `kernel`: the p_r parameter (a user's explicit choice wins), else the calibration
// stored for this device, else the paper's typical value.
template <class V>
PrChoice choose_p_r(const Params& p, Backend b, HecCsrKernel kernel) {
  PrChoice c;
  if (p.has("p_r")) {
    c.value = p.get_double("p_r", hec_default_p_r);
    if (!std::isfinite(c.value) || c.value <= 0)
      throw InputError("hec: p_r must be a finite number > 0, got " + p.get_string("p_r", ""));
    c.source = "param";
    return c;
  }
  const std::string device = device_name(b);
  if (const auto stored = tuning_get(device, hec_p_r_key(kernel, sizeof(V) == 8))) {
    char* end = nullptr;
    const double v = std::strtod(stored->c_str(), &end);
    if (end != stored->c_str() && *end == '\0' && std::isfinite(v) && v > 0) {
      c.value = v;
      c.source = "calibrated";
    }
  }
  return c;
}

std::optional<HecCsrKernel> csr_kernel_param(const Params& p) {
  const std::string s = p.get_string("csr_kernel", "auto");
  if (s == "auto") return std::nullopt;
  if (s == "scalar") return HecCsrKernel::scalar;
  if (s == "balanced") return HecCsrKernel::balanced;
  throw InputError("hec: csr_kernel must be auto, scalar or balanced, got '" + s + "'");
}

// The parameters and the choices eq. (1) makes from the row-length histogram, once for the
// host and the device builds.
template <class V>
struct HecChoices {
  std::optional<HecCsrKernel> kernel_param;
  int rows_per_thread;
  std::optional<EllSkip> skip_param;
  std::optional<int> bits_param;
  bool width_param = false;
  index_t l = 0;
  HecCsrKernel kernel = HecCsrKernel::scalar;
  PrChoice pr;

  HecChoices(const Params& p, Backend b, const std::vector<std::int64_t>& hist, index_t rows)
      : kernel_param(csr_kernel_param(p)),
        rows_per_thread(ell_rows_per_thread_param<V>(p, "hec")),
        skip_param(ell_skip_param(p, "hec")),
        bits_param(index_bits_param(p, "hec")),
        width_param(p.has("ell_width")) {
    const index_t longest = hist.empty() ? 0 : static_cast<index_t>(hist.size() - 1);
    if (width_param) {
      const long long w = p.get_int("ell_width", 0);
      if (w < 0 || w > longest)
        throw InputError("hec: ell_width must be in 0.." + std::to_string(longest) +
                         " (the longest row), got " + std::to_string(w));
      l = static_cast<index_t>(w);
    }
    // The kernel and l depend on each other through p_r: solve eq. (1) with the scalar
    // kernel's p_r; if the CSR part then has a row too long for a thread, switch to the
    // balanced kernel and solve again with its p_r.
    kernel = kernel_param.value_or(HecCsrKernel::scalar);
    pr = choose_p_r<V>(p, b, kernel);
    if (!width_param) l = hec_ell_width(hist, rows, pr.value);
    if (!kernel_param && longest - l > hec_scalar_max_row) {
      kernel = HecCsrKernel::balanced;
      pr = choose_p_r<V>(p, b, kernel);
      if (!width_param) l = hec_ell_width(hist, rows, pr.value);
    }
  }

  // `ell` needs its shape only; `g` its row lengths' group maxima (the byte model).
  OperatorInfo info(const EllData<V>& ell, const EllGroupMaxima& g, std::int64_t nnz,
                    index_t csr_rows, std::int64_t csr_nnz, EllSkip skip, bool deltas,
                    Backend b) const {
    std::ostringstream details;
    details.precision(4);
    details << "ell_width=" << l << (width_param ? "(param)" : "") << ",p_r=" << pr.value << "("
            << pr.source << ")"
            << ",csr_kernel=" << to_string(kernel) << (kernel_param ? "" : "(auto)")
            << ",csr_rows=" << csr_rows << ",csr_nnz=" << csr_nnz << ",skip=" << to_string(skip);
    if (b == Backend::cuda)
      details << ",rows_per_thread=" << rows_per_thread << ",index_bits=" << (deltas ? 16 : 32);
    // CSR part as the device reads it: the rows that have entries (row id + offset each), the
    // entries, and for the balanced kernel one starting row per 32 entries.
    const std::size_t csr_bytes =
        static_cast<std::size_t>(csr_nnz) * (sizeof(index_t) + sizeof(V)) +
        (static_cast<std::size_t>(csr_rows) * 2 + 1) * sizeof(index_t) +
        (kernel == HecCsrKernel::balanced
             ? (static_cast<std::size_t>(csr_nnz) + 31) / 32 * sizeof(index_t)
             : 0);
    return OperatorInfo{
        ell.rows, ell.cols, nnz,          ell_pass_bytes<V>(g, skip, deltas) + csr_bytes,
        b,        "hec",    details.str()};
  }
};

template <class V>
std::unique_ptr<Operator<V>> build_hec(const Csr<V>& a, const Params& p, Backend b) {
  const HecChoices<V> c(p, b, length_histogram(row_lengths(a)), a.rows);
  HecData<V> h = hec_pack(a, c.l);
  const std::optional<ColumnDeltas> deltas = ell_choose_deltas(h.ell, c.bits_param, b, "hec");
  const EllGroupMaxima g = ell_group_maxima(h.ell);
  const EllSkip skip = c.skip_param ? *c.skip_param : ell_choose_skip<V>(g, deltas.has_value());
  index_t csr_rows = 0;
  for (index_t r = 0; r < a.rows; ++r) csr_rows += h.csr_row_ptr[r + 1] > h.csr_row_ptr[r];
  OperatorInfo info = c.info(h.ell, g, a.nnz(), csr_rows, h.csr_nnz(), skip, deltas.has_value(), b);
#if SPMVKIT_HAVE_CUDA
  if (b == Backend::cuda)
    return make_hec_cuda(h, skip, c.rows_per_thread, deltas ? &*deltas : nullptr, c.kernel,
                         std::move(info));
#endif
  return make_hec_cpu(std::move(h), std::move(info));
}

#if SPMVKIT_HAVE_CUDA
// The same operator from a CSR on the device: the row-length histogram (eq. (1), the CSR
// part's rows and entries) and the group maxima at l (the byte model and the skip rule) come
// to the host, small; the ELL part and the CSR part are made on the device. The diagonal
// positions (hec_pack's diag_pos, for host-side preconditioners) are not made: the CUDA
// operator does not keep them.
template <class V>
std::unique_ptr<Operator<V>> build_hec_device(const DeviceCsrView<V>& a, const Params& p) {
  EllData<V> shape;
  shape.rows = a.rows;
  shape.cols = a.cols;
  shape.pitch = ell_pitch(a.rows);
  cuda::build_phase("row_lengths");
  const std::vector<std::int64_t> hist = length_histogram_device(a);
  cuda::build_phase("width_rule");
  const HecChoices<V> c(p, Backend::cuda, hist, a.rows);
  shape.width = c.l;
  shape.stored = ell_stored(hist, c.l);
  const auto csr_rows = static_cast<index_t>(rows_longer(hist, c.l));
  cuda::build_phase("shape");
  EllShape s = ell_shape_device(a, shape.pitch, shape.width, c.bits_param != 32);
  const std::int64_t csr_nnz = a.nnz - shape.stored;
  const EllDecisions decide{
      [&](bool deltas) { return c.skip_param ? *c.skip_param : ell_choose_skip<V>(s.g, deltas); },
      [&](EllSkip skip, bool deltas) {
        if (c.bits_param == 16 && shape.width > 0 && !deltas) ell_deltas_do_not_fit("hec");
        return c.info(shape, s.g, a.nnz, csr_rows, csr_nnz, skip, deltas, Backend::cuda);
      },
      {}};
  return make_hec_cuda(a, s, shape.pitch, csr_rows, csr_nnz, c.rows_per_thread, c.kernel,
                       decide);
}
#endif

}  // namespace

#if !SPMVKIT_HAVE_CUDA
double calibrate_hec_pr() {
  throw UnsupportedError("calibrate_hec_pr: this build of spmvkit has no CUDA backend");
}
#endif

namespace {
// spmvkit tune hec: the p_r calibration (f64, scalar CSR part), stored for this device.
void tune_hec(const Params&, const std::vector<std::string>& matrices, std::ostream& out,
              std::ostream&) {
  if (!matrices.empty()) throw InputError("tune hec takes no MATRIX (it builds its own)");
  if (!cuda_available()) throw UnsupportedError("tuning needs a CUDA device");
  const double p_r = calibrate_hec_pr();
  char line[512];
  std::snprintf(line, sizeof line, "%s: hec p_r (f64, scalar CSR part) = %.3f, stored in %s\n",
                device_name(Backend::cuda).c_str(), p_r, tuning_file_path().c_str());
  out << line;
}
}  // namespace

FormatEntry hec_format() {
  FormatEntry e = make_format("hec",
                     "HEC: ELL part (width minimising l*n + p_r*nz(l)) + CSR part (thread a row, "
                     "or balanced)",
                     concat_params(
                         {real_param("p_r", "auto", 0, kNoLimit,
                                     "CSR-to-ELL cost ratio in w(l) = l*n + p_r*nz(l) (eq. 1); "
                                     "auto: this device's calibration, else the paper's value",
                                     true)
                              .or_auto(),
                          int_param("ell_width", "auto", 0, 2147483647,
                                    "ELL part width l (at most the longest row); auto: eq. (1)")
                              .or_auto(),
                          enum_param("csr_kernel", "auto", {"auto", "scalar", "balanced"},
                                     "CSR part kernel (its p_r sets l): a thread a row, or "
                                     "balanced tiles")},
                         ell_pass_params()),
                     [](const auto& a, const Params& p, Backend b) { return build_hec(a, p, b); });
#if SPMVKIT_HAVE_CUDA
  set_device_builder(e, [](const auto& a, const Params& p) { return build_hec_device(a, p); });
#endif
  e.tune = tune_hec;
  e.tune_summary = "HEC's p_r (cost of a CSR-part entry against an ELL entry)";
  return e;
}

template HecData<float> hec_pack(const Csr<float>&, index_t);
template HecData<double> hec_pack(const Csr<double>&, index_t);

}  // namespace spmvkit
