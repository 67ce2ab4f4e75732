// What a format declares to the registry: its name, backends, builder and parameter schema.
// Format headers include this (not the registry's list), so the formats stand side by side
// below formats/registry.
#pragma once

#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/device_csr.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

enum class ParamType { integer, real, enumeration, boolean };
const char* to_string(ParamType t);

// One parameter of a format: everything `spmvkit formats`, the validation before a build and
// the tuners need to know about it.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::integer;
  std::string fallback;             // the default as text; "auto": chosen at build time
  std::vector<std::string> values;  // enumeration: the values; integer: the allowed values
                                    // when not a plain range
  double min = 0, max = 0;          // integer/real: inclusive range (when `values` is empty)
  bool min_open = false;            // real: `min` itself is excluded (> min)
  bool accepts_auto = false;        // integer/real/boolean: "auto" = the default rule
  bool cuda_only = false;           // the CPU kernel does not use it (said so in details)
  std::string meaning;              // one line

  // "4, 8, 16", "1..64", "> 0", "auto or 0..64", "true, false"
  std::string allowed() const;
  // Empty when `value` is allowed, else a one-line reason naming the parameter, the value and
  // what is allowed.
  std::string check(const std::string& value) const;
  // Values to try in a sweep: every enumerated value, or the ends of the range and the default
  // (and "auto").
  std::vector<std::string> sweep() const;

  ParamSpec or_auto() const {
    ParamSpec c = *this;
    c.accepts_auto = true;
    return c;
  }
  ParamSpec cuda() const {
    ParamSpec c = *this;
    c.cuda_only = true;
    return c;
  }
};

inline constexpr double kNoLimit = std::numeric_limits<double>::infinity();

// Integer in [min, max].
ParamSpec int_param(std::string name, std::string fallback, long long min, long long max,
                    std::string meaning);
// Integer from a list ("items_per_thread": 4, 8, 16).
ParamSpec int_choice(std::string name, std::string fallback, std::initializer_list<int> values,
                     std::string meaning);
// Finite number in [min, max] (or (min, max] with min_open).
ParamSpec real_param(std::string name, std::string fallback, double min, double max,
                     std::string meaning, bool min_open = false);
ParamSpec enum_param(std::string name, std::string fallback, std::vector<std::string> values,
                     std::string meaning);
// 1/0/true/false/on/off/yes/no.
ParamSpec bool_param(std::string name, std::string fallback, std::string meaning);

// `a` followed by `b` (a format's own parameters, then a shared kernel's).
inline std::vector<ParamSpec> concat_params(std::vector<ParamSpec> a,
                                            const std::vector<ParamSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A format's own measured tuning on this device (`spmvkit tune NAME`), stored in the tuning
// file the format reads when it builds: `options` are the command's tuning options given
// (key=value, keys from FormatEntry::tune_options), `matrices` training matrices by name
// (may be empty: the format's own set); results go to `out`, progress to `log`.
using TuneFn = std::function<void(const Params& options, const std::vector<std::string>& matrices,
                                  std::ostream& out, std::ostream& log)>;

template <class V>
using BuildFn =
    std::function<std::unique_ptr<Operator<V>>(const Csr<V>&, const Params&, Backend)>;

// A CUDA builder from a CSR already on the device (the parameters validated): the format's
// arrays made there, no host round trip. Formats without one are built on the host.
template <class V>
using DeviceBuildFn =
    std::function<std::unique_ptr<Operator<V>>(const DeviceCsrView<V>&, const Params&)>;

// Optional beside it: the same operator from a CSR the registry uploaded for this build, whose
// arrays it may keep instead of copying (`keep` holds them for as long as the operator holds
// it): the formats whose arrays are the CSR's (csr_scalar, csr_vector, csr_balanced, and the
// cuSPARSE CSR peers, which the registry keeps on their host builder: only auto's pick reaches
// theirs), and auto, which hands the upload to a pick that keeps it.
template <class V>
using DeviceKeepFn = std::function<std::unique_ptr<Operator<V>>(
    const DeviceCsrView<V>&, const std::shared_ptr<const void>& keep, const Params&)>;

struct FormatEntry {
  std::string name;                 // registry name (CLI flags, JSON, tests)
  std::string summary;              // one line for --help and docs
  bool peer = false;                // a vendor library (cuSPARSE) wrapped as a format
  bool cpu = true;                  // has an OpenMP kernel
  bool cuda = true;                 // has CUDA kernels
  std::vector<ParamSpec> schema;    // the parameters it accepts, declared once
  std::vector<std::string> params;  // their names (from the schema)
  BuildFn<float> build_f32;
  BuildFn<double> build_f64;
  DeviceBuildFn<float> device_build_f32;  // empty: the CUDA operator is built on the host
  DeviceBuildFn<double> device_build_f64;
  DeviceKeepFn<float> device_keep_f32;  // empty: the device builder (which copies) serves
  DeviceKeepFn<double> device_keep_f64;
  TuneFn tune;                            // empty: nothing to tune
  std::string tune_summary;               // one line for `spmvkit tune --help`
  std::vector<std::string> tune_options;  // the option keys `tune` reads

  template <class V>
  const BuildFn<V>& builder() const {
    if constexpr (std::is_same_v<V, float>)
      return build_f32;
    else
      return build_f64;
  }
  template <class V>
  const DeviceBuildFn<V>& device_builder() const {
    if constexpr (std::is_same_v<V, float>)
      return device_build_f32;
    else
      return device_build_f64;
  }
  template <class V>
  const DeviceKeepFn<V>& device_keeper() const {
    if constexpr (std::is_same_v<V, float>)
      return device_keep_f32;
    else
      return device_keep_f64;
  }
  bool builds_on_device() const { return static_cast<bool>(device_build_f64); }
  bool keeps_device_csr() const { return static_cast<bool>(device_keep_f64); }
  bool supports(Backend b) const { return b == Backend::cpu ? cpu : cuda; }
  const ParamSpec* param(const std::string& key) const {
    for (const auto& s : schema)
      if (s.name == key) return &s;
    return nullptr;
  }
};

// Makes an entry from one generic builder `fn(const Csr<V>&, const Params&, Backend)`. The
// builder sees parameters already validated against `schema` (Params getters cannot fail on
// them; an "auto" integer/real/boolean arrives absent).
template <class Fn>
FormatEntry make_format(std::string name, std::string summary, std::vector<ParamSpec> schema,
                        Fn fn, bool cpu = true, bool cuda = true, bool peer = false) {
  FormatEntry e;
  e.name = std::move(name);
  e.summary = std::move(summary);
  e.schema = std::move(schema);
  for (const auto& s : e.schema) e.params.push_back(s.name);
  e.cpu = cpu;
  e.cuda = cuda;
  e.peer = peer;
  e.build_f32 = [fn](const Csr<float>& a, const Params& p, Backend b) {
    return std::unique_ptr<Operator<float>>(fn(a, p, b));
  };
  e.build_f64 = [fn](const Csr<double>& a, const Params& p, Backend b) {
    return std::unique_ptr<Operator<double>>(fn(a, p, b));
  };
  return e;
}

// Gives `e` a device builder from one generic `fn(const DeviceCsrView<V>&, const Params&)`.
template <class Fn>
void set_device_builder(FormatEntry& e, Fn fn) {
  e.device_build_f32 = [fn](const DeviceCsrView<float>& a, const Params& p) {
    return std::unique_ptr<Operator<float>>(fn(a, p));
  };
  e.device_build_f64 = [fn](const DeviceCsrView<double>& a, const Params& p) {
    return std::unique_ptr<Operator<double>>(fn(a, p));
  };
}

// Gives `e` a keeping device builder from one generic
// `fn(const DeviceCsrView<V>&, const std::shared_ptr<const void>&, const Params&)`.
template <class Fn>
void set_device_keeper(FormatEntry& e, Fn fn) {
  e.device_keep_f32 = [fn](const DeviceCsrView<float>& a, const std::shared_ptr<const void>& k,
                           const Params& p) {
    return std::unique_ptr<Operator<float>>(fn(a, k, p));
  };
  e.device_keep_f64 = [fn](const DeviceCsrView<double>& a, const std::shared_ptr<const void>& k,
                           const Params& p) {
    return std::unique_ptr<Operator<double>>(fn(a, k, p));
  };
}

}  // namespace spmvkit
