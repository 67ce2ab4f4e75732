// The registry: the one list of formats. Tests, the benchmark, the selector and the CLI reach
// formats only through it. Adding a format: one folder under formats/, one line in
// formats/registry/registry.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

template <class V>
using BuildFn =
    std::function<std::unique_ptr<Operator<V>>(const Csr<V>&, const Params&, Backend)>;

struct FormatEntry {
  std::string name;                 // registry name (CLI flags, JSON, tests)
  std::string summary;              // one line for --help and docs
  bool peer = false;                // a vendor library (cuSPARSE) wrapped as a format
  bool cpu = true;                  // has an OpenMP kernel
  bool cuda = true;                 // has CUDA kernels
  std::vector<std::string> params;  // the tunable parameters it accepts
  BuildFn<float> build_f32;
  BuildFn<double> build_f64;

  template <class V>
  const BuildFn<V>& builder() const {
    if constexpr (std::is_same_v<V, float>)
      return build_f32;
    else
      return build_f64;
  }
  bool supports(Backend b) const { return b == Backend::cpu ? cpu : cuda; }
};

// Makes an entry from one generic builder `fn(const Csr<V>&, const Params&, Backend)`.
template <class Fn>
FormatEntry make_format(std::string name, std::string summary, std::vector<std::string> params,
                        Fn fn, bool cpu = true, bool cuda = true, bool peer = false) {
  FormatEntry e;
  e.name = std::move(name);
  e.summary = std::move(summary);
  e.params = std::move(params);
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

const std::vector<FormatEntry>& formats();
// InputError listing the known names when `name` is not registered.
const FormatEntry& find_format(std::string_view name);

// InputError naming the parameter when `params` holds a name the format does not accept.
void check_params(const FormatEntry& f, const Params& params);

// Builds `format` for `a` on backend `b`: checks the parameters against the entry (InputError
// on an unknown one), the backend (UnsupportedError when the format or this build lacks it,
// or no GPU is present), then calls the format's builder.
template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const Csr<V>& a,
                                            const Params& params = {},
                                            Backend b = Backend::cpu);

}  // namespace spmvkit
