// The registry format `auto` (issue 25): measures the matrix's features, ranks the candidates by
// the cost model (model.hpp) and builds the best through the registry, never a format's insides.
// tune=1 times the model's top candidates on the backend instead and keeps the fastest; a choice
// so measured is cached in the tuning store under the matrix's fingerprint, device and
// precision, and reused by every later auto build of that matrix without measuring.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "select/model.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/timing.hpp"
#include "spmvkit/tuning.hpp"
#include "spmvkit/vector.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/build_profile.hpp"
#endif

namespace spmvkit {

namespace select {

// "auto/<rows>x<cols>/<nnz>/<hash>/<f32|f64>/<backend>": the tuning store's key of a matrix.
std::string cache_key(const Features& f, Backend b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "auto/%lldx%lld/%lld/%016llx/%s/%s",
                static_cast<long long>(f.rows), static_cast<long long>(f.cols),
                static_cast<long long>(f.nnz), static_cast<unsigned long long>(f.structure_hash),
                f.value_bytes == 8 ? "f64" : "f32", std::string(to_string(b)).c_str());
  return buf;
}

}  // namespace select

namespace {

// A phase of SPMVKIT_BUILD_PROFILE=1's build profile (CUDA builds; nothing otherwise).
void phase(const char* name) {
#if SPMVKIT_HAVE_CUDA
  cuda::build_phase(name);
#else
  (void)name;
#endif
}

using select::Choice;
using select::Features;
using select::Prediction;

// The chosen format's operator under the name `auto`, its details saying what was chosen and why.
template <class V>
class AutoOperator final : public Operator<V> {
 public:
  AutoOperator(std::unique_ptr<Operator<V>> inner, const std::string& details)
      : Operator<V>(inner->info()), inner_(std::move(inner)) {
    this->info_.format = "auto";
    this->info_.details = details;
  }
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    inner_->apply(x, y, z, alpha, beta);
  }

 private:
  std::unique_ptr<Operator<V>> inner_;
};

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// "bsr;block_size=4" <-> Prediction (the cached value).
std::string encode(const Prediction& p) { return p.format + ";" + p.params.to_string(); }
Prediction decode(const std::string& v) {
  Prediction p;
  const auto semi = v.find(';');
  p.format = v.substr(0, semi);
  if (semi != std::string::npos) p.params = Params::parse(v.substr(semi + 1));
  return p;
}

// The matrix as build_auto reads it: a host CSR on its backend, or a CSR in device memory
// (CUDA, checked by the registry once: the candidates are built from it without a second
// check and without a trip through the host). `keep` holds the device arrays where they are the
// registry's own upload of a host CSR: a pick that keeps a CSR (csr_scalar, csr_vector,
// csr_balanced, cuSPARSE ALG1/ALG2) reads them in place instead of copying them.
template <class V>
struct HostMatrix {
  const Csr<V>& a;
  Backend b;
  index_t rows() const { return a.rows; }
  index_t cols() const { return a.cols; }
  Features features() const { return select::measure_features(a, last_level_cache_bytes(b)); }
  std::unique_ptr<Operator<V>> build(const Prediction& p) const {
    return build_operator<V>(p.format, a, p.params, b);
  }
};
template <class V>
struct DeviceMatrix {
  const DeviceCsrView<V>& a;
  std::shared_ptr<const void> keep;  // null: the user's arrays (a pick copies them)
  static constexpr Backend b = Backend::cuda;
  index_t rows() const { return a.rows; }
  index_t cols() const { return a.cols; }
  Features features() const { return select::measure_features(a, last_level_cache_bytes(b)); }
  std::unique_ptr<Operator<V>> build(const Prediction& p) const {
    return build_operator_from_checked<V>(p.format, a, p.params, keep);
  }
};

// Times each of the first `count` ranked candidates (`reps` applies after 3 warm-up, median),
// returns the index of the fastest that built; times[i] = -1 for one that did not.
template <class V, class M>
std::size_t measure(const M& m, const std::vector<Prediction>& ranked, std::size_t count, int reps,
                    std::vector<double>& times) {
  auto x = Vector<V>::from_host(std::vector<V>(m.cols(), V(1)), m.b);
  Vector<V> z(m.rows(), m.b);
  std::size_t best = ranked.size();
  times.assign(std::min(count, ranked.size()), -1);
  for (std::size_t i = 0; i < times.size(); ++i) {
    try {
      auto op = m.build(ranked[i]);
      times[i] = median(
          time_applies(m.b, 3, reps, [&] { op->apply(x.data(), nullptr, z.data(), V(1), V(0)); }));
      if (best == ranked.size() || times[i] < times[best]) best = i;
    } catch (const UnsupportedError&) {
    }
  }
  return best;
}

template <class V, class M>
Operator<V>* build_auto(const M& m, const Params& p) {
  const Backend b = m.b;
  const auto t0 = std::chrono::steady_clock::now();
  const long long applies = p.get_int("applies", 0);
  const bool tune = p.get_bool("tune", false);
  const std::string device = device_name(b);
  phase("features");
  const Features f = m.features();
  phase("choose");
  Choice c = select::choose_with_store(f, b, device, applies);
  phase("pick");
  const double select_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string key = select::cache_key(f, b);
  std::string how = "model";
  std::string measured;
  if (applies == 0) {  // a cached measured choice is for SpMV time alone
    if (const auto cached = tuning_get(device, key)) {
      c.ranked.insert(c.ranked.begin(), decode(*cached));
      how = "cached measurement";
    } else if (tune) {
      std::vector<double> times;
      const std::size_t best =
          measure<V>(m, c.ranked, 3, static_cast<int>(p.get_int("reps", 20)), times);
      if (best < c.ranked.size()) {
        for (std::size_t i = 0; i < times.size(); ++i)
          measured += (measured.empty() ? "" : " ") + c.ranked[i].format + "=" +
                      (times[i] < 0 ? std::string("n/a") : ms(times[i]) + "ms");
        std::rotate(c.ranked.begin(), c.ranked.begin() + best, c.ranked.begin() + best + 1);
        tuning_put(device, key, encode(c.ranked.front()));
        how = "measured";
      }
    }
  }
  // The best candidate that builds (a format may refuse a matrix: ELL on a too-wide row).
  std::string refusals;
  for (const Prediction& pick : c.ranked) {
    std::unique_ptr<Operator<V>> op;
    try {
      op = m.build(pick);
    } catch (const UnsupportedError& e) {
      refusals += (refusals.empty() ? "" : "; ") + std::string(e.what());
      continue;
    }
    std::string d = "chosen=" + pick.format + " [" + op->info().details + "] by " + how;
    if (!measured.empty()) d += " (" + measured + ")";
    if (how == "model") {
      d += ": predicted " + ms(pick.spmv_ms) + " ms/SpMV, setup " + ms(pick.setup_ms) + " ms";
      if (c.ranked.size() > 1 && &pick == &c.ranked.front())
        d += "; next " + c.ranked[1].format + " " + ms(c.ranked[1].spmv_ms) + " ms";
    }
    d += "; " + c.why + "; selection " + ms(select_ms) + " ms";
    return new AutoOperator<V>(std::move(op), d);
  }
  throw UnsupportedError("auto: no candidate format could hold this matrix (" + refusals + ")");
}

// The matrices `spmvkit tune auto --model` measures when none is named: every generator's
// structures, on both sides of the L2 (1e6-6e7 nonzeros), from bench's auto-train suite (not its
// hold-outs); the reordering of CSR-3 on the large square ones is over max_setup_ms and skipped.
std::vector<std::string> model_training_set() {
  return {"random_2000000_2000000_20",  "random_4000000_1000000_10",  "powerlaw_1000000_5000",
          "powerlaw_3500000_3000",      "banded_3000000_16_16",       "stencil5_3500",
          "stencil27_130",              "convdiff2d_2500",            "reservoir_bs3_80",
          "reservoir_bs8_36",           "expand_bs3_powerlaw_400000", "expand_bs6_stencil7_60",
          "random_50000_50000_20",      "stencil7_60",                "powerlaw_200000",
          "banded_50000_20_10",         "reservoir_bs3_15",           "expand_bs4_stencil5_80"};
}

// `tune auto --model`, one matrix and precision: every candidate the model ranks timed (but
// those whose predicted setup is over `max_setup_ms`), a line each to `out`, and the matrix kept
// in the tuning store as one of this device's measured neighbours (model.hpp), its fastest as
// the matrix's measured choice.
template <class V>
void measure_model(const Csr<V>& a, const std::string& name, Backend b, int reps,
                   double max_setup_ms, std::ostream& out) {
  const std::string device = device_name(b);
  const Features f = select::measure_features(a, last_level_cache_bytes(b));
  const Choice c = select::choose_with_store(f, b, device, 0);
  const char* precision = sizeof(V) == 8 ? "f64" : "f32";
  std::vector<Prediction> timed;
  for (const Prediction& p : c.ranked) {
    if (p.setup_ms <= max_setup_ms) {
      timed.push_back(p);
      continue;
    }
    out << name << '\t' << precision << '\t' << p.format << "\tskipped: predicted setup "
        << ms(p.setup_ms) << " ms over --max-setup-ms\n";
  }
  std::vector<double> times;
  const std::size_t best = measure<V>(HostMatrix<V>{a, b}, timed, timed.size(), reps, times);
  if (best == timed.size()) throw UnsupportedError("tune auto --model: no candidate built " + name);
  std::vector<std::pair<std::string, double>> residuals;
  for (std::size_t i = 0; i < timed.size(); ++i) {
    const Prediction& p = timed[i];
    out << name << '\t' << precision << '\t' << p.format << "\tpredicted " << ms(p.spmv_ms)
        << " ms (linear " << ms(p.linear_ms) << ")\tmeasured "
        << (times[i] < 0 ? std::string("n/a (refused)") : ms(times[i]) + " ms") << "\n";
    if (times[i] > 0 && p.linear_ms > 0)
      residuals.emplace_back(p.format, std::log(times[i] / p.linear_ms));
  }
  const auto [key, value] = select::measured_record(f, b, name, residuals);
  tuning_put(device, key, value);
  tuning_put(device, select::cache_key(f, b), encode(timed[best]));
  out << name << '\t' << precision << "\tfastest " << timed[best].format << ", model's pick "
      << c.ranked.front().format << "; stored as a measured neighbour of " << device << "\n";
}

// `spmvkit tune auto MATRIX...`: the measured choice for each matrix, stored for later builds;
// with --model every candidate timed and the matrix kept as a measured neighbour (default: a
// generated set).
void tune_auto(const Params& options, const std::vector<std::string>& matrices, std::ostream& out,
               std::ostream& log) {
  const bool model = options.get_bool("model", false);
  if (matrices.empty() && !model)
    throw InputError("tune auto: name at least one MATRIX (or measure the model with --model)");
  if (!model && options.has("max_setup_ms"))
    throw InputError("tune auto: --max-setup-ms applies with --model only");
  const Backend b = cuda_available() ? Backend::cuda : Backend::cpu;
  const std::string precision = options.get_string("precision", "f64");
  const int reps = static_cast<int>(options.get_int("reps", 20));
  const double max_setup_ms = options.get_double("max_setup_ms", 5000);
  for (const std::string& name : matrices.empty() ? model_training_set() : matrices) {
    log << "tune auto" << (model ? " --model" : "") << ": " << name << "\n";
    const Csr<double> a = load_matrix(name);
    if (model) {
      if (precision != "f64") measure_model<float>(a.cast<float>(), name, b, reps, max_setup_ms, out);
      if (precision != "f32") measure_model<double>(a, name, b, reps, max_setup_ms, out);
      continue;
    }
    Params p;
    p.set("tune", "1").set("reps", std::to_string(reps));
    if (precision != "f64")
      out << name << "\tf32\t"
          << build_operator<float>("auto", a.cast<float>(), p, b)->info().details << "\n";
    if (precision != "f32")
      out << name << "\tf64\t" << build_operator<double>("auto", a, p, b)->info().details << "\n";
  }
}

}  // namespace

FormatEntry auto_format() {
  FormatEntry e = make_format(
      "auto",
      "picks the format and its parameters from the matrix's features (cost model; tune=1 "
      "measures the top candidates, cached by matrix fingerprint and device)",
      {int_param("applies", "0", 0, std::numeric_limits<int>::max(),
                 "expected applies (a solver's iterations): minimise setup + applies x SpMV; "
                 "0: SpMV time alone"),
       bool_param("tune", "false",
                  "time the model's top 3 candidates and keep the fastest (cached in the tuning "
                  "store, reused without measuring)"),
       int_param("reps", "20", 1, 10000, "tune=1: timed applies per candidate")},
      [](const auto& a, const Params& p, Backend b) {
        using V = std::decay_t<decltype(a.values[0])>;
        return build_auto<V>(HostMatrix<V>{a, b}, p);
      });
  // From a device CSR: the features read there (two small downloads) and the pick built by
  // its own device builder, so a matrix on the GPU never goes through the host.
  set_device_builder(e, [](const auto& a, const Params& p) {
    using V = std::decay_t<decltype(a.values[0])>;
    return build_auto<V>(DeviceMatrix<V>{a, nullptr}, p);
  });
  // From the registry's upload of a host CSR: a pick that keeps a CSR keeps that upload (no
  // second copy of the matrix on the device, nor the time to make it).
  set_device_keeper(e, [](const auto& a, const std::shared_ptr<const void>& keep, const Params& p) {
    using V = std::decay_t<decltype(a.values[0])>;
    return build_auto<V>(DeviceMatrix<V>{a, keep}, p);
  });
  select::prepare();
  e.tune = tune_auto;
  e.tune_summary =
      "measure the model's top candidates for MATRIX... and cache the choice; --model: time "
      "every candidate and keep the matrices as this device's measured neighbours";
  e.tune_options = {"precision", "reps", "model", "max_setup_ms"};
  return e;
}

}  // namespace spmvkit
