// The registry: the one list of formats. Tests, the benchmark, the selector and the CLI reach
// formats only through it. Adding a format: one folder under formats/, one line in
// formats/registry/registry.cpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
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

// Builds `format` for `a` on backend `b`: validates the parameters against the schema (before
// any work), checks the backend (UnsupportedError when the format or this build lacks it, or
// no GPU is present), calls the format's builder and adds the effective parameters to the
// operator's details.
template <class V>
std::unique_ptr<Operator<V>> build_operator(std::string_view format, const Csr<V>& a,
                                            const Params& params = {},
                                            Backend b = Backend::cpu);

}  // namespace spmvkit
