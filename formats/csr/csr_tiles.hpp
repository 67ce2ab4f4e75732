// Tiles of the balanced CSR kernel (formats/csr/csr_balanced.cuh), built on the host: the
// tiling of a row pointer into blocks of bounded work, and the column-sorted tile layout.
// Host code only, so that the tests can check what the kernel is given.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/params.hpp"

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
  // Column-sorted tile (balanced_sort_tiles_by_column): entries stored in column order, each
  // col_idx word packing (slot << column bits) | (column - col_base), slot being the entry's
  // place in row order within the tile; -1: entries in row order, plain column indices.
  index_t col_base = -1;
};

struct BalancedLongRow {
  index_t row;
  index_t partial_begin;
  index_t partial_end;
};

// Bits of a column-sorted tile's col_idx word that hold the slot (0 .. tile_nnz - 1); the rest
// hold the column offset from the tile's col_base.
constexpr int balanced_slot_bits(int tile_nnz) {
  int bits = 0;
  while ((1 << bits) < tile_nnz) ++bits;
  return bits;
}

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

// What balanced_sort_tiles_by_column did: tiles sorted, and the distinct x sectors (32 bytes)
// that the warps' loads touch, summed over every tile, before and after.
struct ColumnSortStats {
  std::size_t sorted_tiles = 0;
  std::int64_t warp_sectors_rows = 0;     // entries in row order
  std::int64_t warp_sectors_columns = 0;  // sorted tiles in column order, the others as they are
  ColumnSortStats& operator+=(const ColumnSortStats& o) {
    sorted_tiles += o.sorted_tiles;
    warp_sectors_rows += o.warp_sectors_rows;
    warp_sectors_columns += o.warp_sectors_columns;
    return *this;
  }
  // For an operator's details: ",sorted_tiles=N,warp_x_sectors=R->C".
  std::string details() const {
    return ",sorted_tiles=" + std::to_string(sorted_tiles) +
           ",warp_x_sectors=" + std::to_string(warp_sectors_rows) + "->" +
           std::to_string(warp_sectors_columns);
  }
};

// The tile_order option of the formats that run balanced tiles: rows (default: no sort),
// columns (every tile that fits) or auto (tiles where column order cuts the warps' x sectors by
// at least a quarter). InputError names `who`.
struct TileOrder {
  bool sort = false;
  double min_gain = 0.0;
  std::string name = "rows";
};
TileOrder tile_order_option(const Params& p, const std::string& who);

// Sorts the entries of every tile of whole rows by column (stable: equal columns keep their
// order), in place in col_idx / values (the arrays the tiling's nnz ranges refer to), where the
// tile's columns span fewer than 2^(32 - balanced_slot_bits(tile_nnz)) values; such a tile gets
// col_base = its least column and packed col_idx words (BalancedTile::col_base). Slices of long
// rows and wider tiles stay as they are. The kernel gathers x in column order, so that the
// lanes of a warp share x sectors (on powerlaw_8000000's near part: 0.47 x sectors an entry
// for a warp's 32 loads instead of 0.90), and stores each product at its slot, where the row
// reduction finds it as before. With min_gain > 0 a tile is sorted only where column order cuts
// its warps' x sectors by at least that fraction (tile_order=auto: 1/4).
template <class V>
ColumnSortStats balanced_sort_tiles_by_column(BalancedTiling& t, int tile_nnz,
                                              std::vector<index_t>& col_idx, std::vector<V>& values,
                                              double min_gain = 0.0);

}  // namespace spmvkit
