// How many distinct 32-byte x sectors the balanced CSR kernel's tiles gather from, on the near
// part of powerlaw_ROWS (entries within 1M columns of the diagonal, csr_balanced's default
// band): the least L1 misses a tile can make on its own, and what groups of consecutive tiles
// share (a probe, not part of the library). From the repository root, with a CPU-only build
// (scripts/build.sh -DSPMVKIT_CUDA=OFF):
//   g++ -O2 -std=c++17 -fopenmp -I include -I . scripts/tile_sectors.cpp build/libspmvkit.a -lz
//   ./a.out 8000000
// 2026-11-23, powerlaw_8000000: 82.3M near entries, 84535 tiles; 37.2M sectors tile by tile,
// 28.5M by 2 tiles, 19.0M by 8, 12.5M by 64; 74.1M counted per warp load (docs/results.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "formats/csr/csr_tiles.hpp"
#include "spmvkit/generators.hpp"

using namespace spmvkit;

int main(int argc, char** argv) {
  const index_t rows = argc > 1 ? std::atoi(argv[1]) : 8000000;
  if (rows < 1) {
    std::fprintf(stderr, "usage: tile_sectors [ROWS >= 1]\n");
    return 2;
  }
  const Csr<double> a = generate_powerlaw(rows, 12.5, std::min<index_t>(200000, rows), 1);
  const long long band = (8 << 20) / sizeof(double);  // csr_balanced's default near_band
  std::vector<index_t> row_ptr(static_cast<std::size_t>(rows) + 1, 0), sector;
  for (index_t r = 0; r < rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (std::llabs(static_cast<long long>(a.col_idx[k]) - r) <= band)
        sector.push_back(a.col_idx[k] / 4);  // 4 doubles a sector
    row_ptr[r + 1] = static_cast<index_t>(sector.size());
  }
  BalancedTiling t;
  balanced_tiling(row_ptr.data(), 0, rows, BalancedPolicy{}, {}, t);
  const double near = static_cast<double>(sector.size());
  std::printf("rows %d, nnz %lld, near entries %zu, tiles %zu\n", rows,
              static_cast<long long>(a.nnz()), sector.size(), t.tiles.size());
  auto distinct = [&](index_t begin, index_t end) {
    std::vector<index_t> s(sector.begin() + begin, sector.begin() + end);
    std::sort(s.begin(), s.end());
    return static_cast<long long>(std::unique(s.begin(), s.end()) - s.begin());
  };
  long long per_warp = 0;  // a warp's load: 32 consecutive entries of a tile
  for (const BalancedTile& tile : t.tiles)
    for (index_t k = tile.nnz_begin; k < tile.nnz_end; k += 32)
      per_warp += distinct(k, std::min(k + 32, tile.nnz_end));
  std::printf("per warp load: %lld sectors (%.3f an entry)\n", per_warp, per_warp / near);
  for (std::size_t group : {1, 2, 4, 8, 16, 64, 256}) {
    long long d = 0;
    for (std::size_t i = 0; i < t.tiles.size(); i += group)
      d += distinct(t.tiles[i].nnz_begin, t.tiles[std::min(t.tiles.size(), i + group) - 1].nnz_end);
    std::printf("groups of %zu tiles: %lld sectors (%.3f an entry)\n", group, d, d / near);
  }
  return 0;
}
