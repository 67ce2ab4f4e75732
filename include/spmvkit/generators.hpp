// Matrix generators, deterministic from a seed: the structures the papers evaluate on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

// 2D stencils on an n x n grid (5 or 9 points), 3D on n^3 (7 or 27 points): Laplacian-like
// values (diagonal = points - 1, off-diagonals -1), rows = n^d.
Csr<double> generate_stencil_2d(index_t n, int points);
Csr<double> generate_stencil_3d(index_t n, int points);

// Convection-diffusion -laplace(u) + c . grad(u) on an n x n (2D) or n^3 (3D) grid, wind
// along (1, ..., 1), first-order upwind, scaled by h^2; `peclet` is the cell Peclet number
// c h / 2 (0: the 5/7-point Laplacian). Diagonal 2d (1 + peclet), upwind neighbours
// -1 - 2 peclet, downwind -1: nonsymmetric for peclet > 0, nonsingular (an M-matrix).
Csr<double> generate_convdiff_2d(index_t n, double peclet = 1.0);
Csr<double> generate_convdiff_3d(index_t n, double peclet = 1.0);

// The BSR paper's SPE5-like reservoir matrix: an n^3 grid with 7-point connectivity, each
// coupling a dense bs x bs block of random values in [-1, 1), each diagonal entry 1 + the sum
// of its row's |off-diagonals| (strictly diagonally dominant), rows = n^3 * bs. `coupling`
// multiplies the off-diagonals inside each cell's own diagonal block (before the diagonal
// is set): > 1 couples a cell's components more strongly than neighbouring cells, as in real
// reservoir systems (where block-Jacobi beats scalar Jacobi).
Csr<double> generate_reservoir(index_t n, int block_size, std::uint64_t seed = 1,
                               double coupling = 1.0);
// The grid size n (at least 2) whose reservoir matrix of block size bs holds about `values`
// stored values (7 n^3 blocks of bs^2): what `spmvkit tune bsr` and the bsr-all suite use.
index_t reservoir_grid_for(int block_size, double values);

// Every entry of `a` becomes a dense bs x bs block (as the BSR paper's experiment): entry
// (i, j, v) gives block (i, j) with values v * (1 + small deterministic perturbation).
Csr<double> block_expand(const Csr<double>& a, int block_size, std::uint64_t seed = 1);

// A power-law graph with `rows` rows: most rows short, a few very long (lengths Zipf-like up
// to `max_row` entries), as the SURAA paper's circuit and web matrices. Random values.
// Square; the longest row has exactly max_row entries, nnz is about rows * mean_row; every
// row holds its diagonal, 3/4 of the rest lie near the diagonal, the others anywhere; long
// rows are spread over the matrix by a seeded shuffle (details in core/generators_random.cpp).
Csr<double> generate_powerlaw(index_t rows, double mean_row, index_t max_row,
                              std::uint64_t seed = 1);

// Random banded: each row has about `per_row` entries within [i - half_band, i + half_band]
// (min(per_row, band width at that row), the diagonal among them). Square; off-diagonals in
// [-1, 1), the diagonal equal to the row length (strictly diagonally dominant).
Csr<double> generate_banded(index_t rows, index_t half_band, index_t per_row,
                            std::uint64_t seed = 1);

// Uniform random sparse matrix (rows x cols, about `per_row` entries a row), for tests.
// Row lengths Poisson(per_row), columns uniform, values in [-1, 1).
Csr<double> generate_random(index_t rows, index_t cols, double per_row, std::uint64_t seed = 1);

// Builds a generated matrix from its name (as used by the CLI, the benchmark and results):
//   stencil5_N, stencil9_N (2D), stencil7_N, stencil27_N (3D), reservoir_bsB_N[_K] (K the
//   within-cell coupling, default 1),
//   convdiff2d_N[_PE], convdiff3d_N[_PE] (Peclet number PE, default 1),
//   powerlaw_ROWS[_MAXROW], banded_ROWS_HALFBAND[_PERROW], random_ROWS_COLS_PERROW,
//   expand_bsB_NAME (block expansion of any matrix name or .mtx path).
// Defaults: powerlaw mean_row 12.5, MAXROW min(200000, ROWS) (powerlaw_8000000: ~100M
// nonzeros); banded PERROW min(16, 2 * HALFBAND + 1). All seeds are 1. Names containing '/'
// or ending in .mtx / .mtx.gz are paths (except after expand_bsB_).
// Returns false when `name` is not a generator name (e.g. a file path); InputError when it
// is one but its parameters are invalid.
bool is_generator_name(const std::string& name);
Csr<double> generate_by_name(const std::string& name);

// Rows [row_begin, row_end) of a generated matrix (global column count and indices), made
// alone: every generator name, except an expand_bsB_ of a file. The rows are those of
// generate_by_name(name) bit for bit (every row's numbers are keyed by (seed, row)). A
// distributed run generates each rank's rows alone, so no rank holds the whole matrix; the
// range must hold fewer than 2^31 nonzeros, the whole matrix need not. Sets global_rows and
// *row_unit (when given): the rows of one block row, 1 but for reservoir_bsB_ (B: whole
// cells) and expand_bsB_ (B times the inner name's unit); row_begin and row_end must be
// multiples of it (InputError otherwise). row_end < 0 asks for global_rows and the unit only.
// False (nothing touched) for any other name.
bool generate_rows_by_name(const std::string& name, index_t row_begin, index_t row_end,
                           Csr<double>& out, index_t& global_rows, index_t* row_unit = nullptr);

// The lengths of rows [row_begin, row_end) of generate_rows_by_name's matrix, without their
// entries: each generator's own length rule, no column drawn and nothing of nonzero size
// allocated (what a distributed load weighs its row partition by). The same names, row unit
// and range checks as generate_rows_by_name (0 <= row_begin <= row_end); false, `lengths`
// untouched, for the names it refuses.
bool generate_row_lengths_by_name(const std::string& name, index_t row_begin, index_t row_end,
                                  std::vector<index_t>& lengths);

// Where a bare matrix name ("bcsstk13") is read from: NAME.mtx or NAME.mtx.gz in
// $SPMVKIT_MATRICES (when set; else in ../shared/matrices beside the source tree), then among
// the matrices bundled under tests/data; empty when none holds it.
std::string find_named_matrix(const std::string& name);

// A generator name, a Matrix Market path or a bare matrix name: loads whichever it is.
Csr<double> load_matrix(const std::string& name_or_path);

}  // namespace spmvkit
