// The one place that knows every format.
#include "spmvkit/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "formats/bsr/bsr.hpp"
#include "formats/csr/csr.hpp"
#include "formats/csr3/csr3.hpp"
#include "formats/cusparse/cusparse.hpp"
#include "formats/eigen/eigen.hpp"
#include "formats/ell/ell.hpp"
#include "formats/hec/hec.hpp"
#include "formats/hyb/hyb.hpp"
#include "formats/sellp/sellp.hpp"
#include "formats/suraa/suraa.hpp"
#include "spmvkit/error.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/host_mirror.hpp"
#include "backend/cuda/upload_beside.hpp"
#endif

namespace spmvkit {

// select/auto_format.cpp: picks one of the formats below and builds it through this registry
// (declared here, not included: the registry stays below select/).
FormatEntry auto_format();

const std::vector<FormatEntry>& formats() {
  static const std::vector<FormatEntry> all = [] {
    std::vector<FormatEntry> list = {
        csr_scalar_format(),
        csr_vector_format(),
        csr_balanced_format(),
        ell_format(),
        hyb_format(),
        hec_format(),
        sellp_format(),
        csr3_format(),
        suraa_format(),
        suraa_static_format(),
        bsr_format(),
        bsr_balanced_format(),
        auto_format(),
        // cuSPARSE peers
        cusparse_csr_alg1_format(),
        cusparse_csr_alg2_format(),
        cusparse_coo_format(),
        cusparse_sell_format(),
        cusparse_bsr_format(),
        cusparse_bsrmv_format(),
    };
#if SPMVKIT_HAVE_EIGEN
    list.push_back(eigen_csr_format());  // the CPU peer, when the build found Eigen
#endif
    return list;
  }();
  return all;
}

const FormatEntry& find_format(std::string_view name) {
  std::string known;
  for (const auto& f : formats()) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw InputError("unknown format '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

// The format, its validated parameters, and the checks every build makes before any work.
const FormatEntry& checked_format(std::string_view format, const Params& params, Backend b,
                                  Params& valid) {
  const FormatEntry& f = find_format(format);
  valid = validate_params(f, params);
  if (!f.supports(b))
    throw UnsupportedError("format " + f.name + " has no " + std::string(to_string(b)) + " kernel");
  if (b == Backend::cuda && !cuda_compiled())
    throw UnsupportedError("this build of spmvkit has no CUDA backend");
  if (b == Backend::cuda && !cuda_available())
    throw UnsupportedError("no CUDA device is available");
  return f;
}

template <class V>
std::unique_ptr<Operator<V>> with_details(std::unique_ptr<Operator<V>> op, const FormatEntry& f,
                                          const Params& valid, Backend b) {
  op->add_details(effective_params(f, valid, b, op->info().details));
  return op;
}

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const Csr<V>& a,
                                            const Params& params, Backend b, BuildTiming* timing) {
  Params valid;
  const FormatEntry& f = checked_format(format, params, b, valid);
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
#if SPMVKIT_HAVE_CUDA
  // A format that builds on the device: the CSR up through pinned staging, then its builder.
  // The build's peak memory is counted above the uploaded CSR (the input of the build). The
  // cuSPARSE peers build from a host CSR as a cuSPARSE user would (their setup is what ours is
  // measured against); their device builders serve device arrays.
  // A format that keeps the CSR's arrays (device_keeper) is handed the uploaded ones; its
  // format bytes then count them.
  // Measurement switches, not settings: SPMVKIT_HOST_BUILD=1 builds through the host builders
  // instead; SPMVKIT_HOST_PLAN=0 keeps small builds from planning on the host's copy;
  // SPMVKIT_UPLOAD_BESIDE=0 uploads before the build instead of beside it.
  const auto env_flag = [](const char* name, bool fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) != "0" : fallback;
  };
  static const bool host_build = env_flag("SPMVKIT_HOST_BUILD", false);
  static const bool host_plan = env_flag("SPMVKIT_HOST_PLAN", true);
  static const bool upload_beside = env_flag("SPMVKIT_UPLOAD_BESIDE", true);
  if (b == Backend::cuda && f.builds_on_device() && !f.peer && !host_build) {
    // A small matrix's builder plans from the host's copy (host_mirror.hpp), so its upload is
    // queued by a worker thread meanwhile (upload_beside.hpp: the build's first use of the
    // stream waits for it); build_ms is then what the setup took beyond the upload's own time.
    // The worker is woken first (its wake-up beside the allocations below), once the clock of
    // the setup runs.
    const bool beside = upload_beside && host_plan && a.rows <= cuda::kHostPlanRows;
    synchronize(b);
    const auto t0 = clock::now();
    if (beside) cuda::prepare_upload_beside();
    std::unique_ptr<Operator<V>> op;
    std::size_t kept = 0;
    // Made before the upload: a trace's device times start from an idle stream.
    std::optional<cuda::BuildProfile> profile(f.name.c_str());
    profile->phase("upload");
    auto d = std::make_shared<cuda::OwnedDeviceCsr<V>>(beside ? cuda::device_csr_like(a)
                                                              : cuda::upload_csr(a));
    double upload_ms = ms_since(t0);
    std::optional<cuda::UploadBeside> upload;
    if (beside) upload.emplace(*d, a);
    const cuda::PeakBytes peak;
    {
      profile->phase("build");
      const cuda::ScopedHostMirror mirror(d->row_ptr.data(), host_plan ? a.row_ptr.data() : nullptr,
                                          a.rows, d->col_idx.data(), a.col_idx.data());
      if (f.keeps_device_csr()) {
        op = f.device_keeper<V>()(d->view(), d, valid);
        if (d.use_count() > 1) kept = d->row_ptr.bytes() + d->col_idx.bytes() + d->values.bytes();
      } else {
        op = f.device_builder<V>()(d->view(), valid);
      }
      profile->phase("details");
      op = with_details(std::move(op), f, valid, b);
    }
    profile.reset();
    if (upload) {
      upload->wait();
      upload_ms += upload->queued_ms();
    }
    synchronize(b);
    if (timing)  // before the upload goes (on return, unless the operator keeps it)
      *timing = {upload_ms, std::max(0.0, ms_since(t0) - upload_ms), peak.above_start(),
                 peak.in_use_above_start() + kept, true};
    return op;
  }
  std::optional<cuda::PeakBytes> scope;
  if (b == Backend::cuda) scope.emplace();
  const auto peak = [&] { return scope ? scope->above_start() : std::size_t{0}; };
  const auto held = [&] { return scope ? scope->in_use_above_start() : std::size_t{0}; };
#else
  const auto peak = [] { return std::size_t{0}; };
  const auto held = [] { return std::size_t{0}; };
#endif
  synchronize(b);
  const auto t0 = clock::now();
  auto op = with_details(f.builder<V>()(a, valid, b), f, valid, b);
  synchronize(b);
  if (timing) *timing = {-1.0, ms_since(t0), peak(), held(), false};
  return op;
}

namespace {

// build_operator from a device view, its check of the arrays made when `check`; a format that
// keeps a CSR reads the arrays in place where `keep` holds them.
template <class V>
std::unique_ptr<Operator<V>> build_from_view(std::string_view format, const DeviceCsrView<V>& a,
                                             const Params& params, bool check,
                                             const std::shared_ptr<const void>& keep = nullptr) {
  Params valid;
  const FormatEntry& f = checked_format(format, params, Backend::cuda, valid);
#if SPMVKIT_HAVE_CUDA
  cuda::BuildProfile profile(f.name.c_str());
  profile.phase("check_csr");
  if (check) cuda::check_device_csr(a);
  if (f.builds_on_device()) {
    auto op = with_details(keep && f.keeps_device_csr() ? f.device_keeper<V>()(a, keep, valid)
                                                        : f.device_builder<V>()(a, valid),
                           f, valid, Backend::cuda);
    // The builders queue their last kernels without waiting: the build is done, and the
    // caller's arrays are theirs again, once the stream is.
    profile.phase("finish");
    synchronize(Backend::cuda);
    return op;
  }
  profile.phase("host_build");
  // No device builder yet: through the host (a round trip, said so in the details).
  const Csr<V> host = cuda::download_csr(a);
  auto op = with_details(f.builder<V>()(host, valid, Backend::cuda), f, valid, Backend::cuda);
  op->add_details("built_on=host");
  return op;
#else
  (void)a;
  (void)f;
  (void)check;
  (void)keep;
  throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
}

}  // namespace

template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const DeviceCsrView<V>& a,
                                            const Params& params) {
  return build_from_view(format, a, params, true);
}

template <class V>
std::unique_ptr<Operator<V>> build_operator_from_checked(std::string_view format,
                                                         const DeviceCsrView<V>& a,
                                                         const Params& params,
                                                         const std::shared_ptr<const void>& keep) {
  return build_from_view(format, a, params, false, keep);
}

#define SPMVKIT_INSTANTIATE(V)                                                                    \
  template std::unique_ptr<Operator<V>> build_operator(std::string_view, const Csr<V>&,           \
                                                       const Params&, Backend, BuildTiming*);     \
  template std::unique_ptr<Operator<V>> build_operator(std::string_view, const DeviceCsrView<V>&, \
                                                       const Params&);                            \
  template std::unique_ptr<Operator<V>> build_operator_from_checked(                              \
      std::string_view, const DeviceCsrView<V>&, const Params&,                                   \
      const std::shared_ptr<const void>&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
