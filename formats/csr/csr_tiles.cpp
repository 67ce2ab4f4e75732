// Column-sorted tiles for the balanced CSR kernel (csr_tiles.hpp).
#include "formats/csr/csr_tiles.hpp"

#include <omp.h>

#include <algorithm>
#include <string>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

// Distinct x sectors (32 bytes: `per_sector` values) over the loads of a warp: 32 consecutive
// entries of `n` columns a time, as the kernel's phase 1 reads them.
std::int64_t warp_sectors(const index_t* col, index_t n, index_t per_sector) {
  std::int64_t total = 0;
  index_t group[32];
  for (index_t w = 0; w < n; w += 32) {
    const index_t m = std::min<index_t>(32, n - w);
    for (index_t j = 0; j < m; ++j) group[j] = col[w + j] / per_sector;
    std::sort(group, group + m);
    total += std::unique(group, group + m) - group;
  }
  return total;
}

}  // namespace

TileOrder tile_order_option(const Params& p, const std::string& who) {
  TileOrder o;
  o.name = p.get_string("tile_order", "rows");
  if (o.name == "columns") {
    o.sort = true;
  } else if (o.name == "auto") {
    o.sort = true;
    o.min_gain = 0.25;
  } else if (o.name != "rows") {
    throw InputError(who + ": tile_order must be rows, columns or auto, got " + o.name);
  }
  return o;
}

template <class V>
ColumnSortStats balanced_sort_tiles_by_column(BalancedTiling& t, int tile_nnz,
                                              std::vector<index_t>& col_idx, std::vector<V>& values,
                                              double min_gain) {
  if (!(min_gain >= 0.0 && min_gain < 1.0))
    throw InputError("balanced tiles: min_gain must be in [0, 1), got " + std::to_string(min_gain));
  if (tile_nnz < 1 || (tile_nnz & (tile_nnz - 1)) != 0)
    throw InputError("balanced tiles: tile_nnz must be a power of two, got " +
                     std::to_string(tile_nnz));
  const int slot_bits = balanced_slot_bits(tile_nnz);
  const int col_bits = 32 - slot_bits;
  const std::int64_t span_limit = std::int64_t{1} << col_bits;
  const auto count = static_cast<std::int64_t>(t.tiles.size());
  const index_t per_sector = std::max<index_t>(1, 32 / static_cast<index_t>(sizeof(V)));
  std::size_t sorted = 0;
  std::int64_t sectors_rows = 0, sectors_columns = 0;
  index_t oversize = 0;  // a tile larger than tile_nnz (thrown after the parallel region)
#pragma omp parallel reduction(+ : sorted, sectors_rows, sectors_columns) reduction(max : oversize)
  {
    std::vector<std::uint64_t> keys;
    std::vector<index_t> cols;
    std::vector<V> vals;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < count; ++i) {
      BalancedTile& tile = t.tiles[static_cast<std::size_t>(i)];
      tile.col_base = -1;
      const index_t n = tile.nnz_end - tile.nnz_begin;
      if (n > tile_nnz) {
        oversize = std::max(oversize, n);
        continue;
      }
      const index_t* c = col_idx.data() + tile.nnz_begin;
      const std::int64_t row_order = warp_sectors(c, n, per_sector);
      sectors_rows += row_order;
      const bool keep = tile.threads_per_row == 0 || n == 0;  // long-row slice, or empty rows
      const auto [lo, hi] = std::minmax_element(c, c + n);
      if (keep || std::int64_t{*hi} - *lo >= span_limit) {
        sectors_columns += row_order;
        continue;
      }
      // (column offset, slot) keys: sorting them is a stable sort by column.
      const index_t base = *lo;
      keys.resize(static_cast<std::size_t>(n));
      for (index_t j = 0; j < n; ++j)
        keys[static_cast<std::size_t>(j)] =
            (static_cast<std::uint64_t>(c[j] - base) << 32) | static_cast<std::uint32_t>(j);
      std::sort(keys.begin(), keys.end());
      cols.resize(keys.size());
      vals.resize(keys.size());
      for (std::size_t j = 0; j < keys.size(); ++j)
        cols[j] = base + static_cast<index_t>(keys[j] >> 32);
      const std::int64_t column_order = warp_sectors(cols.data(), n, per_sector);
      if (static_cast<double>(column_order) > (1.0 - min_gain) * static_cast<double>(row_order)) {
        sectors_columns += row_order;  // not worth the scattered product stores
        continue;
      }
      sectors_columns += column_order;
      for (std::size_t j = 0; j < keys.size(); ++j) {
        const auto slot = static_cast<std::uint32_t>(keys[j]);
        const auto offset = static_cast<std::uint32_t>(keys[j] >> 32);
        cols[j] = static_cast<index_t>((slot << col_bits) | offset);
        vals[j] = values[static_cast<std::size_t>(tile.nnz_begin) + slot];
      }
      std::copy(cols.begin(), cols.end(), col_idx.begin() + tile.nnz_begin);
      std::copy(vals.begin(), vals.end(), values.begin() + tile.nnz_begin);
      tile.col_base = base;
      ++sorted;
    }
  }
  if (oversize > 0)
    throw InputError("balanced tiles: a tile holds " + std::to_string(oversize) +
                     " entries, more than tile_nnz = " + std::to_string(tile_nnz));
  return ColumnSortStats{sorted, sectors_rows, sectors_columns};
}

template ColumnSortStats balanced_sort_tiles_by_column(BalancedTiling&, int, std::vector<index_t>&,
                                                       std::vector<float>&, double);
template ColumnSortStats balanced_sort_tiles_by_column(BalancedTiling&, int, std::vector<index_t>&,
                                                       std::vector<double>&, double);

}  // namespace spmvkit
