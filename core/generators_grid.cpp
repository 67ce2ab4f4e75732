// Grid generators (generators.hpp): the 2D/3D stencils and convection-diffusion (one loop
// over the grid, different values) and the BSR paper's reservoir matrix, built row by row
// (core/generator_rows.hpp).
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/generator_rows.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit {

using namespace detail;

namespace {

struct Offset {
  int dz, dy, dx;
};

// The stencil's neighbour offsets in increasing column order (lexicographic in dz, dy, dx).
std::vector<Offset> stencil_offsets(int dims, int points) {
  std::vector<Offset> offsets;
  const int zr = dims == 3 ? 1 : 0;
  const bool box = (dims == 2 && points == 9) || (dims == 3 && points == 27);
  for (int dz = -zr; dz <= zr; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (box || std::abs(dz) + std::abs(dy) + std::abs(dx) <= 1) offsets.push_back({dz, dy, dx});
  return offsets;
}

// A grid operator's values: the diagonal, the neighbours at a lower index (upwind for a wind
// along (1, ..., 1)) and those at a higher one.
struct GridValues {
  double diagonal, upwind, downwind;
};

// Rows [r0, r1) of a stencil on an n^dims grid (all of them when r1 < 0), with global
// columns: a distributed run generates each rank's rows alone, and only that part must fit
// 32 bits.
Csr<double> grid_rows(const std::string& what, index_t n, int dims, int points, GridValues v,
                      index_t r0, index_t r1, std::vector<index_t>* lengths_only) {
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (std::pow(static_cast<double>(n), dims) > static_cast<double>(kMaxIndex))
    fail(what, n, "^", dims, " rows exceed 2^31 - 1");
  const bool part = r1 >= 0;
  // Closed forms: box stencils (3n - 2)^d, stars (2d + 1) n^d - 2d n^(d-1).
  const std::int64_t nn = n;
  const bool box = points == 9 || points == 27;
  const std::int64_t nnz = dims == 2 ? (box ? (3 * nn - 2) * (3 * nn - 2) : 5 * nn * nn - 4 * nn)
                                     : (box ? (3 * nn - 2) * (3 * nn - 2) * (3 * nn - 2)
                                            : 7 * nn * nn * nn - 6 * nn * nn);
  if (!part && nnz > kMaxIndex)
    fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
  if (!part)
    check_csr_memory(what, std::pow(static_cast<double>(n), dims), static_cast<double>(nnz));
  const index_t nz = dims == 3 ? n : 1;
  const index_t rows = static_cast<index_t>(nn * nn * nz);
  if (!part) r1 = rows;
  check_row_range(what, r0, r1, rows);
  const std::vector<Offset> offsets = stencil_offsets(dims, points);
  // Each offset's column shift, and per row only the grid coordinates are computed.
  std::vector<index_t> shift;
  for (const Offset& o : offsets) shift.push_back((o.dz * n + o.dy) * n + o.dx);
  auto inside = [n, nz](const Offset& o, index_t x, index_t y, index_t z) {
    return static_cast<unsigned>(x + o.dx) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(y + o.dy) < static_cast<unsigned>(n) &&
           static_cast<unsigned>(z + o.dz) < static_cast<unsigned>(nz);
  };
  const std::size_t count = offsets.size();
  auto length = [&](index_t r) {
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    index_t len = 0;
    for (std::size_t k = 0; k < count; ++k) len += inside(offsets[k], x, y, z) ? 1 : 0;
    return len;
  };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    const index_t x = r % n, y = (r / n) % n, z = r / (n * n);
    for (std::size_t k = 0; k < count; ++k)
      if (inside(offsets[k], x, y, z)) {
        *col++ = r + shift[k];
        *val++ = shift[k] == 0 ? v.diagonal : shift[k] < 0 ? v.upwind : v.downwind;
      }
  };
  return build_by_rows(what, r0, r1, rows, length, fill, lengths_only);
}

}  // namespace

namespace detail {

// Laplacian-like: diagonal points - 1, every neighbour -1.
Csr<double> stencil_rows(const std::string& what, index_t n, int dims, int points, index_t r0,
                         index_t r1, std::vector<index_t>* lengths_only) {
  const double diagonal = points - 1;
  return grid_rows(what, n, dims, points, {diagonal, -1.0, -1.0}, r0, r1, lengths_only);
}

// Convection-diffusion -laplace(u) + c . grad(u) on an n^d grid (d = 2, 3), wind c along
// (1, ..., 1), first-order upwind differences, scaled by h^2. With the cell Peclet number
// pe = c h / 2 each row holds: diagonal 2d + 2 d pe, upwind neighbours -1 - 2 pe, downwind
// neighbours -1. An M-matrix, weakly diagonally dominant, nonsymmetric for pe > 0: the
// large realistic test systems of BiCGSTAB (the merged-kernels paper's motivation).
Csr<double> convdiff_rows(const std::string& what, index_t n, int dims, double pe, index_t r0,
                          index_t r1, std::vector<index_t>* lengths_only) {
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (!(pe >= 0) || !std::isfinite(pe)) fail(what, "Peclet number must be >= 0 (got ", pe, ")");
  return grid_rows(what, n, dims, dims == 2 ? 5 : 7,
                   {2.0 * dims * (1.0 + pe), -1.0 - 2.0 * pe, -1.0}, r0, r1, lengths_only);
}

}  // namespace detail

Csr<double> generate_stencil_2d(index_t n, int points) {
  const std::string what = "stencil" + std::to_string(points) + "_" + str(n);
  if (points != 5 && points != 9) fail(what, "a 2D stencil has 5 or 9 points (got ", points, ")");
  return stencil_rows(what, n, 2, points);
}

Csr<double> generate_stencil_3d(index_t n, int points) {
  const std::string what = "stencil" + std::to_string(points) + "_" + str(n);
  if (points != 7 && points != 27) fail(what, "a 3D stencil has 7 or 27 points (got ", points, ")");
  return stencil_rows(what, n, 3, points);
}

Csr<double> generate_convdiff_2d(index_t n, double peclet) {
  return convdiff_rows("convdiff2d_" + str(n), n, 2, peclet);
}

Csr<double> generate_convdiff_3d(index_t n, double peclet) {
  return convdiff_rows("convdiff3d_" + str(n), n, 3, peclet);
}

// 7 n^3 blocks of bs^2 values: n for about `values` of them.
index_t reservoir_grid_for(int block_size, double values) {
  const double cells = values / (7.0 * block_size * block_size);
  return std::max<index_t>(2, static_cast<index_t>(std::lround(std::cbrt(cells))));
}

// The BSR paper's SPE5 reservoir case (section 6.4: a 3D grid, 7-point connectivity, dense
// 7 x 7 blocks because every component at a cell couples to every component at its
// neighbours, section 2). Off-diagonal entries are uniform in [-1, 1); each diagonal entry is
// 1 + the sum of |off-diagonals| in its row, so the matrix is strictly diagonally dominant and
// Jacobi / BiCGSTAB converge. Not symmetric (as spe5Ref_dpdp). `coupling` scales the
// off-diagonals inside a cell's own block (the diagonal follows): above 1, a cell's
// components are coupled more strongly than cells are to each other, as in real reservoir
// systems, which is what block-Jacobi exploits and scalar Jacobi cannot.
// Rows [r0, r1) hold whole cells: r0 and r1 are multiples of bs.
Csr<double> detail::reservoir_rows(index_t n, int block_size, std::uint64_t seed, double coupling,
                                   index_t r0, index_t r1, std::vector<index_t>* lengths_only) {
  const std::string what = "reservoir_bs" + std::to_string(block_size) + "_" + str(n);
  if (n < 1) fail(what, "grid size n must be >= 1 (got ", n, ")");
  if (!(coupling > 0) || !std::isfinite(coupling))
    fail(what, "coupling must be a finite number > 0 (got ", coupling, ")");
  if (block_size < 1) fail(what, "block size must be >= 1 (got ", block_size, ")");
  const double rows_d = std::pow(static_cast<double>(n), 3) * block_size;
  if (rows_d > static_cast<double>(kMaxIndex))
    fail(what, n, "^3 * ", block_size, " rows exceed 2^31 - 1");
  const std::int64_t nn = n, bs = block_size;
  const std::int64_t nnz = bs * bs * (7 * nn * nn * nn - 6 * nn * nn);
  const index_t rows = static_cast<index_t>(nn * nn * nn * bs);
  if (r1 < 0) {
    if (nnz > kMaxIndex) fail(what, nnz, " nonzeros exceed 2^31 - 1 (the 32-bit index limit)");
    check_csr_memory(what, rows_d, static_cast<double>(nnz));
    r1 = rows;
  }
  check_row_range(what, r0, r1, rows);
  check_block_rows(what, r0, r1, block_size);
  const index_t plane = n * n;
  // The 7-point neighbours of cell c, in increasing order.
  auto neighbours = [n, plane](index_t c, index_t* out) {
    const index_t x = c % n, y = (c / n) % n, z = c / plane;
    int m = 0;
    if (z > 0) out[m++] = c - plane;
    if (y > 0) out[m++] = c - n;
    if (x > 0) out[m++] = c - 1;
    out[m++] = c;
    if (x + 1 < n) out[m++] = c + 1;
    if (y + 1 < n) out[m++] = c + n;
    if (z + 1 < n) out[m++] = c + plane;
    return m;
  };
  const index_t b = block_size;
  auto length = [&](index_t r) {
    index_t cells[7];
    return neighbours(r / b, cells) * b;
  };
  auto fill = [&](index_t r, index_t, index_t* col, double* val) {
    RowRng rng(seed, Stream::entries, static_cast<std::uint64_t>(r));
    index_t cells[7];
    const int m = neighbours(r / b, cells);
    double off_sum = 0;
    double* diagonal = nullptr;
    for (int k = 0; k < m; ++k)
      for (index_t q = 0; q < b; ++q) {
        *col = cells[k] * b + q;
        if (*col == r) {
          diagonal = val;
        } else {
          *val = rng.symmetric() * (cells[k] == r / b ? coupling : 1.0);
          off_sum += std::abs(*val);
        }
        ++col;
        ++val;
      }
    *diagonal = 1.0 + off_sum;
  };
  return build_by_rows(what, r0, r1, rows, length, fill, lengths_only);
}

Csr<double> generate_reservoir(index_t n, int block_size, std::uint64_t seed, double coupling) {
  return reservoir_rows(n, block_size, seed, coupling, 0, -1);
}

}  // namespace spmvkit
