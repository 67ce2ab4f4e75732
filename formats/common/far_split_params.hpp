// The near/far split's parameters (csr_balanced, and suraa's launch=tiles), declared once.
#pragma once

#include "spmvkit/format_entry.hpp"

namespace spmvkit {

ParamSpec csr_far_panels_param();
ParamSpec csr_near_band_param();

}  // namespace spmvkit
