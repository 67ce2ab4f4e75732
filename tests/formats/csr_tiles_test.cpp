// The balanced CSR tiling (formats/common/csr_tiles.cpp), tiled in parallel chunks, against the
// sequential walk it replaced (kept here verbatim as the oracle): the same tiles, long rows and
// partial-sum slots, on random and awkward row pointers, with and without cuts, in any number
// of chunks.
#include "formats/common/csr_tiles.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace spmvkit {
namespace {

// The sequential tiling as of 464f4d2.
void sequential_tiling(const index_t* row_ptr, index_t row_begin, index_t row_end,
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

std::vector<index_t> row_ptr_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> p(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) p[i + 1] = p[i] + lengths[i];
  return p;
}

void expect_same(const BalancedTiling& a, const BalancedTiling& b) {
  ASSERT_EQ(a.tiles.size(), b.tiles.size());
  for (std::size_t i = 0; i < a.tiles.size(); ++i) {
    const BalancedTile &x = a.tiles[i], &y = b.tiles[i];
    ASSERT_TRUE(x.row_begin == y.row_begin && x.row_end == y.row_end &&
                x.nnz_begin == y.nnz_begin && x.nnz_end == y.nnz_end &&
                x.threads_per_row == y.threads_per_row && x.partial == y.partial &&
                x.long_row == y.long_row)
        << "tile " << i;
  }
  ASSERT_EQ(a.long_rows.size(), b.long_rows.size());
  for (std::size_t i = 0; i < a.long_rows.size(); ++i) {
    EXPECT_EQ(a.long_rows[i].row, b.long_rows[i].row);
    EXPECT_EQ(a.long_rows[i].partial_begin, b.long_rows[i].partial_begin);
    EXPECT_EQ(a.long_rows[i].partial_end, b.long_rows[i].partial_end);
  }
  EXPECT_EQ(a.partials, b.partials);
}

// Both tilings of one row pointer, in 0 (automatic), 1, 2, 3, 7, 64 and one-per-row chunks; a
// second call appends to the first (as suraa's tiling continues a numbering).
void check(const std::vector<index_t>& lengths, const BalancedPolicy& policy,
           const std::vector<index_t>& cuts, index_t row_begin = 0) {
  const std::vector<index_t> p = row_ptr_of(lengths);
  const auto rows = static_cast<index_t>(lengths.size());
  BalancedTiling want;
  sequential_tiling(p.data(), row_begin, rows, policy, cuts, want);
  sequential_tiling(p.data(), row_begin, rows, policy, cuts, want);
  for (int chunks : {0, 1, 2, 3, 7, 64, static_cast<int>(rows)}) {
    SCOPED_TRACE("chunks " + std::to_string(chunks));
    BalancedTiling got;
    balanced_tiling(p.data(), row_begin, rows, policy, cuts, got, chunks);
    balanced_tiling(p.data(), row_begin, rows, policy, cuts, got, chunks);
    expect_same(got, want);
  }
}

TEST(CsrTiles, AwkwardRowPointers) {
  const BalancedPolicy policy;  // tile_nnz 1024, max_tile_rows 256
  check({}, policy, {});
  check(std::vector<index_t>(1000, 0), policy, {});     // all empty
  check(std::vector<index_t>(5000, 4), policy, {});     // all equal: max_rows bound
  check(std::vector<index_t>(3000, 1024), policy, {});  // all exactly tile_nnz
  check(std::vector<index_t>(300, 1025), policy, {});   // all long
  check({5000000}, policy, {});                         // one huge row alone
  std::vector<index_t> huge(4000, 3);
  huge[1777] = 3000000;
  check(huge, policy, {});                        // one huge row among short ones
  check(huge, policy, {1, 1777, 1778, 3999}, 0);  // cuts around it
  check(huge, policy, {100, 2000}, 100);          // a range starting at a cut
}

TEST(CsrTiles, RandomRowPointers) {
  std::mt19937 gen(24);
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::uniform_int_distribution<int> n_rows(1, 20000);
    const int rows = n_rows(gen);
    // Mostly short rows of a trial-wide mean, some empty, a few long.
    const int mean = std::uniform_int_distribution<int>(1, 300)(gen);
    std::uniform_int_distribution<int> kind(0, 99), short_len(0, 2 * mean), long_len(1000, 9000);
    std::vector<index_t> lengths(rows);
    for (auto& l : lengths) {
      const int k = kind(gen);
      l = k < 10 ? 0 : k < 12 ? long_len(gen) : short_len(gen);
    }
    std::vector<index_t> cuts;
    if (trial % 2 == 1) {
      const int n_cuts = std::uniform_int_distribution<int>(1, 5)(gen);
      for (int i = 0; i < n_cuts; ++i)
        cuts.push_back(std::uniform_int_distribution<index_t>(0, rows)(gen));
      std::sort(cuts.begin(), cuts.end());
    }
    BalancedPolicy policy;
    policy.block_threads = trial % 3 == 0 ? 256 : 128;
    policy.items_per_thread = trial % 4 == 0 ? 4 : trial % 4 == 1 ? 16 : 8;
    const index_t row_begin =
        trial % 5 == 0 ? std::uniform_int_distribution<index_t>(0, rows)(gen) : 0;
    check(lengths, policy, cuts, row_begin);
  }
}

}  // namespace
}  // namespace spmvkit
