// x windows for the balanced CSR kernel (csr_balanced's `x_window` option).
//
// On matrices whose entries cluster near the diagonal but whose x is far larger than L2
// (power-law graphs, circuits in node order), the balanced kernel is bound by L2 sector requests
// of its x gathers, not by DRAM: each gathered double costs a 32-byte sector, and a warp's 32
// gathers over a +-512-column neighbourhood touch ~32 sectors. A tile's rows share that
// neighbourhood, so the kernel can read it once, coalesced, into shared memory (a few hundred
// sectors) and serve the tile's near entries from there; far entries still gather from global.
#include <algorithm>
#include <string>
#include <utility>

#include "formats/csr/csr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

template <class V>
XWindow choose_x_window(const index_t* cols, index_t n, index_t cap) {
  if (cap <= 0 || n <= 0) return {};
  std::vector<index_t> sorted(cols, cols + n);
  std::sort(sorted.begin(), sorted.end());
  // The span of fewer than `cap` columns holding the most entries (two pointers).
  index_t best_first = 0, best_last = 0;
  for (index_t i = 0, j = 0; j < n; ++j) {
    while (sorted[j] - sorted[i] >= cap) ++i;
    if (j - i > best_last - best_first) {
      best_first = i;
      best_last = j;
    }
  }
  const index_t lo = sorted[best_first], hi = sorted[best_last];
  // What the window saves: the distinct sectors each warp's gathers of in-window entries touch
  // (the L2 requests they make, L1 hits aside); what it costs: one coalesced read of the span.
  constexpr index_t per_sector = 32 / sizeof(V);
  index_t saved = 0;
  std::vector<index_t> sectors;
  for (index_t w = 0; w < n; w += 32) {
    sectors.clear();
    for (index_t k = w; k < std::min<index_t>(w + 32, n); ++k)
      if (cols[k] >= lo && cols[k] <= hi) sectors.push_back(cols[k] / per_sector);
    std::sort(sectors.begin(), sectors.end());
    saved += static_cast<index_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
  }
  const index_t cost = (hi - lo) / per_sector + 2;
  // Margin for the extra barrier and the shared-memory traffic.
  if (2 * saved < 3 * cost) return {};
  return XWindow{lo, hi - lo + 1};
}

template <class V>
std::vector<XWindow> choose_x_windows(const Csr<V>& a,
                                      const std::vector<std::pair<index_t, index_t>>& tiles,
                                      index_t cap) {
  std::vector<XWindow> out(tiles.size());
  const auto n = static_cast<std::int64_t>(tiles.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t t = 0; t < n; ++t) {
    const auto [begin, end] = tiles[static_cast<std::size_t>(t)];
    out[static_cast<std::size_t>(t)] =
        choose_x_window<V>(a.col_idx.data() + begin, end - begin, cap);
  }
  return out;
}

template XWindow choose_x_window<float>(const index_t*, index_t, index_t);
template XWindow choose_x_window<double>(const index_t*, index_t, index_t);
template std::vector<XWindow> choose_x_windows(const Csr<float>&,
                                               const std::vector<std::pair<index_t, index_t>>&,
                                               index_t);
template std::vector<XWindow> choose_x_windows(const Csr<double>&,
                                               const std::vector<std::pair<index_t, index_t>>&,
                                               index_t);

}  // namespace spmvkit
