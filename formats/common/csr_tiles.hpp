// Tiles of the balanced CSR kernel (formats/csr/csr_balanced.cuh), built on the host: the
// tiling of a row pointer into blocks of bounded work. Host code only, so that .cpp files can
// include it (suraa_plan.cpp takes pow2_at_least from here).
#pragma once

#include <algorithm>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

struct BalancedPolicy {
  int block_threads = 128;  // measured on H100: 128 x 8 best on stencil27_150 (bench/results)
  int items_per_thread = 8;
  int tile_nnz() const { return block_threads * items_per_thread; }
  static constexpr int max_tile_rows(int block_threads) { return block_threads * 2; }
  int max_tile_rows() const { return max_tile_rows(block_threads); }
};

struct BalancedTile {
  index_t row_begin;
  index_t row_end;  // == row_begin + 1 for a slice of a long row
  index_t nnz_begin;
  index_t nnz_end;
  int threads_per_row;  // 0 marks a long-row slice
  index_t partial;      // slice: index into the partial sums
  index_t long_row;     // slice: index into the long rows
};

struct BalancedLongRow {
  index_t row;
  index_t partial_begin;
  index_t partial_end;
};

// The least power of two p = lo * 2^k >= v, capped at hi (thread counts from mean row lengths).
inline int pow2_at_least(double v, int lo, int hi) {
  int p = lo;
  while (p < hi && p < v) p *= 2;
  return p;
}

// Tiles of rows [row_begin, row_end) of a row pointer, appended to `tiles` / `long_rows`
// (partial-sum slots numbered from `partials`, which is advanced): whole rows while they fit in
// tile_nnz nonzeros and max_tile_rows rows, a longer row cut into slices of tile_nnz. Tiles
// never cross a row listed in `cuts` (sorted; a tile ends before each cut).
struct BalancedTiling {
  std::vector<BalancedTile> tiles;
  std::vector<BalancedLongRow> long_rows;
  index_t partials = 0;
};
// The greedy rule is one step from a tile boundary r (balanced_tile_step, csr_tiles.cpp); the
// tiling is its orbit from row_begin. Chunks of rows are tiled in parallel (OpenMP), each from
// its own first row, then joined in order: where the boundary reaching a chunk is not one of
// its own, steps are taken from it until they meet one, so the tiles are those of the plain
// sequential walk. `chunks` 0: a few per thread (tests pass small counts to force joins).
void balanced_tiling(const index_t* row_ptr, index_t row_begin, index_t row_end,
                     const BalancedPolicy& policy, const std::vector<index_t>& cuts,
                     BalancedTiling& t, int chunks = 0);

}  // namespace spmvkit
