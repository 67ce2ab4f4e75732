// The registry: the one list of formats. Tests, the benchmark, the selector and the CLI reach
// formats only through it. Adding a format: one folder under formats/, one line in
// formats/registry/registry.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/device_csr.hpp"
#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit {

const std::vector<FormatEntry>& formats();
// InputError listing the known names when `name` is not registered.
const FormatEntry& find_format(std::string_view name);

// Checks `params` against the format's schema, the same for every backend: InputError with one
// line naming the parameter, the value and what is allowed (or the accepted names, for an
// unknown one). Returns what the builder gets: the same values, "auto" integers, numbers and
// flags left out (the builder's default rule).
Params validate_params(const FormatEntry& f, const Params& params);
void check_params(const FormatEntry& f, const Params& params);  // validate_params, result dropped

// The effective parameters for OperatorInfo::details: every schema parameter the format's own
// `details` does not already state, with its given value or default; on the CPU, CUDA-only
// parameters that were set are listed as ignored instead.
std::string effective_params(const FormatEntry& f, const Params& params, Backend b,
                             const std::string& details);

// Where a build's time and device memory went (the benchmark's setup split).
struct BuildTiming {
  double upload_ms = -1;  // the CSR onto the device (pinned staging); -1: inside build_ms
  double build_ms = 0;    // the format made (from the device CSR when on_device)
  std::size_t build_peak_bytes = 0;  // device memory high-water mark of the build above what
                                     // was in use before (on_device: the uploaded CSR not
                                     // counted; else the format's own upload included). CUDA
                                     // only, 0 on the CPU.
  std::size_t format_bytes = 0;      // device memory the operator holds after the build
  bool on_device = false;            // built by the format's device builder
};

// Builds `format` for `a` on backend `b`: validates the parameters against the schema (before
// any work), checks the backend (UnsupportedError when the format or this build lacks it, or
// no GPU is present), calls the format's builder and adds the effective parameters to the
// operator's details. On CUDA, a format with a device builder gets the CSR uploaded through
// pinned staging and is built there. `timing`, when given, receives the split.
template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const Csr<V>& a,
                                            const Params& params = {}, Backend b = Backend::cpu,
                                            BuildTiming* timing = nullptr);

// Builds `format` on the CUDA backend from a CSR already in device memory (the arrays are read,
// not kept): validates the parameters, then the matrix on the device (InputError naming the
// broken invariant), then builds. Formats with a device builder (FormatEntry::device_build_*)
// never copy the matrix to the host; the others download it and build as above (their details
// say built_on=host).
template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const DeviceCsrView<V>& a,
                                            const Params& params = {});

// The same for arrays already checked (the check above is a pass over the matrix): format=auto
// builds its pick, and its tuning candidates, from the view the registry checked once. `keep`,
// when given, holds the arrays (the registry's own upload of auto's host CSR): a format that
// keeps a CSR (FormatEntry::device_keeper: csr_scalar, csr_vector, csr_balanced, the cuSPARSE
// CSR peers) then reads them where they are, holding `keep`, instead of copying them.
template <class V>
std::unique_ptr<Operator<V>> build_operator_from_checked(
    std::string_view format, const DeviceCsrView<V>& a, const Params& params = {},
    const std::shared_ptr<const void>& keep = nullptr);

}  // namespace spmvkit
