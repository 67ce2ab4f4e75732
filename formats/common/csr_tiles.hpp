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
inline void balanced_tiling(const index_t* row_ptr, index_t row_begin, index_t row_end,
                            const BalancedPolicy& policy, const std::vector<index_t>& cuts,
                            BalancedTiling& t) {
  const index_t tile_nnz = policy.tile_nnz();
  const index_t max_rows = policy.max_tile_rows();
  auto length = [row_ptr](index_t r) { return row_ptr[r + 1] - row_ptr[r]; };
  auto next_cut = cuts.begin();
  index_t r = row_begin;
  while (r < row_end) {
    while (next_cut != cuts.end() && *next_cut <= r) ++next_cut;
    const index_t limit = next_cut != cuts.end() ? std::min(*next_cut, row_end) : row_end;
    const index_t len = length(r);
    if (len > tile_nnz) {
      BalancedLongRow lr{r, t.partials, t.partials};
      const auto id = static_cast<index_t>(t.long_rows.size());
      for (index_t k = row_ptr[r]; k < row_ptr[r + 1]; k += tile_nnz)
        t.tiles.push_back(
            BalancedTile{r, r + 1, k, std::min(k + tile_nnz, row_ptr[r + 1]), 0, t.partials++, id});
      lr.partial_end = t.partials;
      t.long_rows.push_back(lr);
      ++r;
      continue;
    }
    const index_t begin = r;
    while (r < limit && r - begin < max_rows && length(r) <= tile_nnz &&
           row_ptr[r + 1] - row_ptr[begin] <= tile_nnz)
      ++r;
    const index_t nnz = row_ptr[r] - row_ptr[begin];
    const double mean = static_cast<double>(nnz) / (r - begin);
    t.tiles.push_back(
        BalancedTile{begin, r, row_ptr[begin], row_ptr[r], pow2_at_least(mean / 2.0, 1, 32), 0, 0});
  }
}

}  // namespace spmvkit
