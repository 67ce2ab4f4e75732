// The balanced CSR tiling of csr_tiles.hpp (a .cpp file: its chunks are tiled with OpenMP).
#include "formats/common/csr_tiles.hpp"

#include <omp.h>

#include <cstdint>

namespace spmvkit {

namespace {

// The greedy rule's constants.
struct TileRule {
  const index_t* row_ptr;
  index_t row_end;
  index_t tile_nnz;
  index_t max_rows;
  const std::vector<index_t>& cuts;

  std::vector<index_t>::const_iterator first_cut_after(index_t r) const {
    return std::upper_bound(cuts.begin(), cuts.end(), r);
  }

  // The tiles that start at boundary r, appended to `out`, and the boundary after them: a row
  // longer than tile_nnz cut into slices of tile_nnz (numbered later by number_long_rows), else
  // whole rows while they fit in tile_nnz nonzeros and max_rows rows, up to the next cut.
  // `cut` is the first cut after r (advanced here as r grows).
  index_t step(index_t r, std::vector<index_t>::const_iterator& cut,
               std::vector<BalancedTile>& out) const {
    while (cut != cuts.end() && *cut <= r) ++cut;
    const index_t limit = cut != cuts.end() ? std::min(*cut, row_end) : row_end;
    auto length = [this](index_t row) { return row_ptr[row + 1] - row_ptr[row]; };
    if (length(r) > tile_nnz) {
      for (index_t k = row_ptr[r]; k < row_ptr[r + 1]; k += tile_nnz)
        out.push_back(BalancedTile{r, r + 1, k, std::min(k + tile_nnz, row_ptr[r + 1]), 0, 0, 0});
      return r + 1;
    }
    const index_t begin = r;
    while (r < limit && r - begin < max_rows && length(r) <= tile_nnz &&
           row_ptr[r + 1] - row_ptr[begin] <= tile_nnz)
      ++r;
    const index_t nnz = row_ptr[r] - row_ptr[begin];
    const double mean = static_cast<double>(nnz) / (r - begin);
    out.push_back(
        BalancedTile{begin, r, row_ptr[begin], row_ptr[r], pow2_at_least(mean / 2.0, 1, 32), 0, 0});
    return r;
  }
};

// Partial-sum slots and long-row entries for the slices among t.tiles[from, end): the slices
// of one row are consecutive (one step makes them all).
void number_long_rows(BalancedTiling& t, std::size_t from) {
  for (std::size_t i = from; i < t.tiles.size(); ++i) {
    BalancedTile& tile = t.tiles[i];
    if (tile.threads_per_row != 0) continue;
    const bool first_slice = i == from || t.tiles[i - 1].threads_per_row != 0 ||
                             t.tiles[i - 1].row_begin != tile.row_begin;
    if (first_slice) t.long_rows.push_back(BalancedLongRow{tile.row_begin, t.partials, t.partials});
    tile.partial = t.partials++;
    tile.long_row = static_cast<index_t>(t.long_rows.size() - 1);
    t.long_rows.back().partial_end = t.partials;
  }
}

}  // namespace

void balanced_tiling(const index_t* row_ptr, index_t row_begin, index_t row_end,
                     const BalancedPolicy& policy, const std::vector<index_t>& cuts,
                     BalancedTiling& t, int chunks) {
  if (row_end <= row_begin) return;
  const TileRule rule{row_ptr, row_end, policy.tile_nnz(), policy.max_tile_rows(), cuts};
  const std::int64_t rows = row_end - row_begin;
  if (chunks <= 0)  // a few chunks a thread, none under 64K rows
    chunks = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(4 * omp_get_max_threads(), rows / 65536)));
  chunks = static_cast<int>(std::min<std::int64_t>(chunks, rows));
  std::vector<index_t> start(static_cast<std::size_t>(chunks) + 1);
  for (int c = 0; c <= chunks; ++c) start[c] = row_begin + static_cast<index_t>(rows * c / chunks);

  // Each chunk walked from its own first row, to the first boundary at or past its end.
  std::vector<std::vector<BalancedTile>> own(chunks);
  std::vector<index_t> own_end(chunks);
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < chunks; ++c) {
    index_t r = start[c];
    auto cut = rule.first_cut_after(r);
    while (r < start[c + 1]) r = rule.step(r, cut, own[c]);
    own_end[c] = r;
  }

  // The join: r is the true boundary. In chunk c it is either one of the chunk's own boundaries
  // (its tiles from there on are the true ones) or not yet (a true step from r, and again).
  const std::size_t from = t.tiles.size();
  std::size_t total = 0;
  for (const auto& o : own) total += o.size();
  t.tiles.reserve(from + total + 16);
  index_t r = row_begin;
  for (int c = 0; c < chunks; ++c) {
    const std::vector<BalancedTile>& o = own[c];
    auto cut = rule.first_cut_after(r);
    std::size_t i = 0;
    while (true) {
      while (i < o.size() && o[i].row_begin < r) ++i;
      if (i < o.size() && o[i].row_begin == r) {
        t.tiles.insert(t.tiles.end(), o.begin() + static_cast<std::ptrdiff_t>(i), o.end());
        r = own_end[c];
        break;
      }
      if (r >= start[c + 1]) break;
      r = rule.step(r, cut, t.tiles);
    }
  }
  number_long_rows(t, from);
}

}  // namespace spmvkit
