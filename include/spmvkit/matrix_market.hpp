// Matrix Market I/O (.mtx, and .mtx.gz through zlib).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

// Called while reading with the fraction done (0..1); for progress bars.
using ProgressFn = std::function<void(double)>;

// Reads a `coordinate` matrix (real, integer or pattern field; general, symmetric or
// skew-symmetric symmetry, expanded on read; duplicates summed) into COO, in file order.
// Throws InputError naming file, line and problem for anything malformed or unsupported
// (complex/hermitian fields, array format for a matrix, indices out of range, NaN/Inf, entry
// counts that disagree with the header, sizes that overflow 32-bit indices, missing files).
// Messages read "PATH:LINE: problem", or "PATH: problem" when the file itself cannot be
// opened or is a directory. A symmetric file must store one triangle (either one); pattern skew-symmetric
// is invalid (as in mmio.c). gzip is recognised by its magic bytes, not by the name.
Coo<double> read_matrix_market_coo(const std::string& path, const ProgressFn& progress = {});

// read_matrix_market_coo followed by to_csr.
Csr<double> read_matrix_market(const std::string& path, const ProgressFn& progress = {});

// Reads a dense vector stored as `array real general` (one column), or a 1-column coordinate
// file.
std::vector<double> read_matrix_market_vector(const std::string& path);

// Writes `coordinate real general` (with %.17g values, 1-based); gzip when path ends in .gz.
void write_matrix_market(const std::string& path, const Csr<double>& a,
                         const std::string& comment = "");
// Writes `array real general` with one column.
void write_matrix_market_vector(const std::string& path, const std::vector<double>& v);

}  // namespace spmvkit
