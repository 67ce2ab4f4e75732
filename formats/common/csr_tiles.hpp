// Tiles of the balanced CSR kernel (formats/common/csr_balanced.cuh): the tiling of a row
// pointer into blocks of bounded work, built on the host (balanced_tiling, below) or on the
// device (csr_tiles_cuda.hpp), both from the per-tile rules here. Includable from .cpp files;
// the rules are host and device functions under nvcc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cuda/search.cuh"
#include "spmvkit/csr.hpp"

#if defined(__CUDACC__)
#define SPMVKIT_TILES_HD __host__ __device__ inline
#else
#define SPMVKIT_TILES_HD inline
#endif

namespace spmvkit {

struct BalancedPolicy {
  int block_threads = 128;  // measured on H100: 128 x 8 best on stencil27_150 (bench/results)
  int items_per_thread = 8;
  // How a tile of whole rows sums its rows (csr_balanced.cuh): groups of threads a row, or each
  // thread its own items_per_thread products in order, with a block scan carrying the sums of
  // rows that cross threads.
  enum class RowSum { groups, scan } row_sum = RowSum::groups;
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
SPMVKIT_TILES_HD int pow2_at_least(double v, int lo, int hi) {
  int p = lo;
  while (p < hi && p < v) p *= 2;
  return p;
}

// The rules of one tile, shared by the host and the device tiling. A row longer than tile_nnz
// is a long row: its own tiles, slices of tile_nnz nonzeros (the last one shorter).
SPMVKIT_TILES_HD bool balanced_long_row(const index_t* row_ptr, index_t r, index_t tile_nnz) {
  return row_ptr[r + 1] - row_ptr[r] > tile_nnz;
}
SPMVKIT_TILES_HD index_t balanced_slices(const index_t* row_ptr, index_t r, index_t tile_nnz) {
  return (row_ptr[r + 1] - row_ptr[r] + tile_nnz - 1) / tile_nnz;
}
// The end of the tile of whole rows that starts at row `begin` (not a long row, begin < limit):
// the last e <= limit with e - begin <= max_rows rows and row_ptr[e] - row_ptr[begin] <= tile_nnz
// nonzeros (a long row never fits, so it ends the tile before it). Row `begin` always fits. A
// binary search: at most log2(max_rows) probes.
SPMVKIT_TILES_HD index_t balanced_tile_end(const index_t* row_ptr, index_t begin, index_t limit,
                                           index_t tile_nnz, index_t max_rows) {
  return cuda::last_at_most(row_ptr, begin + 1, limit - begin < max_rows ? limit : begin + max_rows,
                            static_cast<std::int64_t>(row_ptr[begin]) + tile_nnz);
}
// A whole-row tile's threads a row: half its mean row length, as a power of two in 1..32.
SPMVKIT_TILES_HD int balanced_tile_threads(const index_t* row_ptr, index_t begin, index_t end) {
  const double mean = static_cast<double>(row_ptr[end] - row_ptr[begin]) / (end - begin);
  return pow2_at_least(mean / 2.0, 1, 32);
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
  auto next_cut = cuts.begin();
  index_t r = row_begin;
  while (r < row_end) {
    while (next_cut != cuts.end() && *next_cut <= r) ++next_cut;
    const index_t limit = next_cut != cuts.end() ? std::min(*next_cut, row_end) : row_end;
    if (balanced_long_row(row_ptr, r, tile_nnz)) {
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
    r = balanced_tile_end(row_ptr, begin, limit, tile_nnz, max_rows);
    t.tiles.push_back(BalancedTile{begin, r, row_ptr[begin], row_ptr[r],
                                   balanced_tile_threads(row_ptr, begin, r), 0, 0});
  }
}

}  // namespace spmvkit
