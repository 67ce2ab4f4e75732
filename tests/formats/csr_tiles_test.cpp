// The balanced CSR tiling (formats/common/csr_tiles.hpp): the host tiling is the greedy one its
// comment states (checked against the rules, everywhere), the device tiling
// (csr_tiles_cuda.hpp) is the host tiling bit for bit, and csr_balanced built from a device CSR
// (device tiling) computes the same bits as built from the host CSR (host tiling). BSR's
// statistics, segments and tma tiles made on the device are the host's. The GPU cases skip
// visibly without a GPU.
#include "formats/common/csr_tiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/bsr/bsr.hpp"
#include "formats/common/bsr_blocks.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/search.cuh"
#include "formats/bsr/bsr_cuda.hpp"
#include "formats/common/csr_tiles_cuda.hpp"
#endif

namespace spmvkit {

namespace {

// A row pointer and the part of it to tile.
struct TilingCase {
  std::string name;
  std::vector<index_t> row_ptr;
  index_t row_begin = 0, row_end = 0;
  std::vector<index_t> cuts;
};

std::vector<index_t> row_ptr_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> p(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) p[i + 1] = p[i] + lengths[i];
  return p;
}

// The zoo's row pointers (whole, and a middle part with cuts), and row pointers the zoo's
// matrices are too small for: many rounds of the device walk, long rows next to each other,
// one row of millions of entries, rows that end tiles at max_tile_rows.
std::vector<TilingCase> tiling_cases() {
  std::vector<TilingCase> cases;
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    cases.push_back({name, a.row_ptr, 0, a.rows, {}});
    if (a.rows >= 8)
      cases.push_back({name + "_part_cuts",
                       a.row_ptr,
                       a.rows / 8,
                       a.rows - a.rows / 8,
                       {a.rows / 8, a.rows / 4, a.rows / 4, a.rows / 2 + 1, a.rows}});
  }
  std::mt19937_64 rng(testing::test_seed());
  std::vector<index_t> len;
  len.assign(1000000, 0);
  cases.push_back({"empty_1e6", row_ptr_of(len), 0, 1000000, {}});
  len.assign(300000, 27);
  cases.push_back({"uniform27_3e5", row_ptr_of(len), 0, 300000, {}});
  cases.push_back({"uniform27_cuts", row_ptr_of(len), 1001, 299000, {5000, 5001, 77777, 200000}});
  len.assign(3, 0);
  len[1] = 3000000;
  cases.push_back({"huge_row_3e6", row_ptr_of(len), 0, 3, {}});
  len.assign(1, 1);
  cases.push_back({"one_row", row_ptr_of(len), 0, 1, {}});
  cases.push_back({"no_rows", row_ptr_of({}), 0, 0, {}});
  // Mixed: mostly short rows, empty runs, long rows (some adjacent, some just past tile_nnz).
  len.clear();
  std::uniform_int_distribution<int> kind(0, 99), short_len(0, 40), long_len(1025, 20000);
  for (int i = 0; i < 400000; ++i) {
    const int k = kind(rng);
    len.push_back(k < 2 ? long_len(rng) : k < 4 ? 1024 + (k - 2) : k < 20 ? 0 : short_len(rng));
  }
  const auto mixed = row_ptr_of(len);
  cases.push_back({"mixed_4e5", mixed, 0, 400000, {}});
  cases.push_back({"mixed_cuts", mixed, 17, 399990, {100, 101, 102, 250000, 399990}});
  // The one-block path's edge (8,191 rows and fewer) and the doubling path just past it.
  cases.push_back({"mixed_8191", mixed, 0, 8191, {}});
  cases.push_back({"mixed_8192", mixed, 0, 8192, {}});
  cases.push_back({"mixed_8191_from_5", mixed, 5, 8196, {300, 4000}});
  len.assign(8191, 1500);  // every row long: a start a row
  cases.push_back({"long_rows_8191", row_ptr_of(len), 0, 8191, {}});
  return cases;
}

std::vector<BalancedPolicy> policies() {
  std::vector<BalancedPolicy> p;
  for (int block : {128, 256})
    for (int items : {4, 8, 16}) p.push_back(BalancedPolicy{block, items});
  return p;
}

std::string policy_name(const BalancedPolicy& p) {
  return std::to_string(p.block_threads) + "x" + std::to_string(p.items_per_thread);
}

// balanced_tiling's output against its stated rules: the tiles cover the rows in order; a
// whole-row tile holds at most tile_nnz nonzeros and max_tile_rows rows, crosses no cut and is
// as long as they allow (greedy); a long row is cut into slices of tile_nnz with consecutive
// partial-sum slots.
void expect_greedy_tiling(const TilingCase& c, const BalancedPolicy& policy,
                          const BalancedTiling& t) {
  const std::vector<index_t>& p = c.row_ptr;
  const index_t tile_nnz = policy.tile_nnz();
  const index_t max_rows = policy.max_tile_rows();
  auto is_cut = [&c](index_t r) {
    return std::find(c.cuts.begin(), c.cuts.end(), r) != c.cuts.end();
  };
  index_t r = c.row_begin, partials = 0, long_rows = 0;
  std::size_t i = 0;
  while (r < c.row_end) {
    ASSERT_LT(i, t.tiles.size()) << "row " << r << " in no tile";
    const BalancedTile& tile = t.tiles[i];
    ASSERT_EQ(tile.row_begin, r) << "tile " << i;
    if (p[r + 1] - p[r] > tile_nnz) {
      ASSERT_EQ(tile.long_row, long_rows) << "long rows are numbered in row order";
      ASSERT_LT(static_cast<std::size_t>(long_rows), t.long_rows.size());
      const BalancedLongRow& lr = t.long_rows[static_cast<std::size_t>(long_rows++)];
      EXPECT_EQ(lr.row, r);
      EXPECT_EQ(lr.partial_begin, partials);
      for (index_t k = p[r]; k < p[r + 1]; k += tile_nnz, ++i) {
        ASSERT_LT(i, t.tiles.size());
        const BalancedTile& s = t.tiles[i];
        EXPECT_EQ(s.row_begin, r);
        EXPECT_EQ(s.row_end, r + 1);
        EXPECT_EQ(s.nnz_begin, k);
        EXPECT_EQ(s.nnz_end, std::min(k + tile_nnz, p[r + 1]));
        EXPECT_EQ(s.threads_per_row, 0);
        EXPECT_EQ(s.partial, partials++);
        EXPECT_EQ(s.long_row, tile.long_row);
      }
      EXPECT_EQ(lr.partial_end, partials);
      ++r;
      continue;
    }
    const index_t e = tile.row_end;
    ASSERT_GT(e, r);
    ASSERT_LE(e, c.row_end);
    EXPECT_LE(e - r, max_rows);
    EXPECT_EQ(tile.nnz_begin, p[r]);
    EXPECT_EQ(tile.nnz_end, p[e]);
    EXPECT_LE(p[e] - p[r], tile_nnz);
    for (index_t q = r + 1; q < e; ++q) EXPECT_FALSE(is_cut(q)) << "tile crosses cut " << q;
    const bool full =
        e == c.row_end || is_cut(e) || e - r == max_rows || p[e + 1] - p[r] > tile_nnz;
    EXPECT_TRUE(full) << "tile [" << r << ", " << e << ") could take row " << e;
    const double half_mean = static_cast<double>(p[e] - p[r]) / (e - r) / 2.0;
    const int tpr = tile.threads_per_row;
    EXPECT_TRUE(tpr == 1 || tpr == 2 || tpr == 4 || tpr == 8 || tpr == 16 || tpr == 32) << tpr;
    EXPECT_TRUE(tpr == 32 || tpr >= half_mean) << tpr << " " << half_mean;
    EXPECT_TRUE(tpr == 1 || tpr / 2 < half_mean) << tpr << " " << half_mean;
    EXPECT_EQ(tile.partial, 0);
    EXPECT_EQ(tile.long_row, 0);
    r = e;
    ++i;
  }
  EXPECT_EQ(i, t.tiles.size());
  EXPECT_EQ(t.partials, partials);
  EXPECT_EQ(t.long_rows.size(), static_cast<std::size_t>(long_rows));
}

TEST(BalancedTiling, IsTheGreedyTiling) {
  for (const TilingCase& c : tiling_cases())
    for (const BalancedPolicy& policy : policies()) {
      SCOPED_TRACE(c.name + " " + policy_name(policy));
      BalancedTiling t;
      balanced_tiling(c.row_ptr.data(), c.row_begin, c.row_end, policy, c.cuts, t);
      expect_greedy_tiling(c, policy, t);
      if (::testing::Test::HasFailure()) return;
    }
}

#if SPMVKIT_HAVE_CUDA
void expect_same_tiling(const BalancedTiling& host, const BalancedTiling& dev) {
  ASSERT_EQ(host.tiles.size(), dev.tiles.size());
  ASSERT_EQ(host.long_rows.size(), dev.long_rows.size());
  EXPECT_EQ(host.partials, dev.partials);
  for (std::size_t i = 0; i < host.tiles.size(); ++i) {
    const BalancedTile &h = host.tiles[i], &d = dev.tiles[i];
    ASSERT_TRUE(h.row_begin == d.row_begin && h.row_end == d.row_end &&
                h.nnz_begin == d.nnz_begin && h.nnz_end == d.nnz_end &&
                h.threads_per_row == d.threads_per_row && h.partial == d.partial &&
                h.long_row == d.long_row)
        << "tile " << i << ": host {" << h.row_begin << ", " << h.row_end << ", " << h.nnz_begin
        << ", " << h.nnz_end << ", " << h.threads_per_row << ", " << h.partial << ", " << h.long_row
        << "} device {" << d.row_begin << ", " << d.row_end << ", " << d.nnz_begin << ", "
        << d.nnz_end << ", " << d.threads_per_row << ", " << d.partial << ", " << d.long_row << "}";
  }
  for (std::size_t i = 0; i < host.long_rows.size(); ++i) {
    const BalancedLongRow &h = host.long_rows[i], &d = dev.long_rows[i];
    ASSERT_TRUE(h.row == d.row && h.partial_begin == d.partial_begin &&
                h.partial_end == d.partial_end)
        << "long row " << i;
  }
}
#endif

// The device's row-of-entry search (block_last_at_most: two warps find a block's first and
// last rows, then each thread searches between) gives last_at_most's row for every entry, on
// leading, inner and trailing empty rows, one huge row, 1x1, and 2e5 random rows of 0-3
// entries (a search of several warp steps), in blocks of 256, 64 and 32 threads (one warp
// finds both ends).
TEST(RowSearch, DeviceBlockSearchIsLastAtMost) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  std::vector<std::pair<std::string, std::vector<index_t>>> cases = {
      {"1x1", {0, 1}},
      {"one huge row", {0, 100000}},
      {"empty rows around a huge one", {0, 0, 0, 5, 5, 5, 70000, 70000, 70001, 70001}},
  };
  std::mt19937 rng(static_cast<unsigned>(testing::test_seed()));
  std::vector<index_t> random{0};
  for (int r = 0; r < 200000; ++r)
    random.push_back(random.back() + static_cast<index_t>(rng() % 4));
  cases.emplace_back("random rows of 0-3", random);
  std::vector<index_t> sparse_rows(300001, 0);  // 3e5 rows, entries in a few
  for (std::size_t r = 1; r < sparse_rows.size(); ++r)
    sparse_rows[r] = sparse_rows[r - 1] + (r % 9973 == 0 ? 40 : 0);
  cases.emplace_back("mostly empty rows", sparse_rows);
  for (const auto& [name, row_ptr] : cases) {
    const auto rows = static_cast<index_t>(row_ptr.size() - 1);
    for (int block : {256, 64, 32})
      for (bool items : {false, true}) {
        SCOPED_TRACE(name + ", blocks of " + std::to_string(block) +
                     (items ? ", kSpanItems entries a thread" : ", an entry a thread"));
        const std::vector<index_t> dev = cuda::entry_rows_device(row_ptr, block, items);
        ASSERT_EQ(dev.size(), static_cast<std::size_t>(row_ptr.back()));
        std::int64_t wrong = 0, first_wrong = -1;
        for (std::int64_t k = 0; k < row_ptr.back(); ++k) {
          const index_t want = cuda::last_at_most(row_ptr.data(), 0, rows - 1, k);
          if (dev[static_cast<std::size_t>(k)] != want && wrong++ == 0) first_wrong = k;
        }
        EXPECT_EQ(wrong, 0) << "first at entry " << first_wrong;
      }
  }
#endif
}

// balanced_tiling_device gives balanced_tiling's tiles, long rows and slots, bit for bit.
TEST(BalancedTiling, DeviceTilingMatchesHostTiling) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  int compared = 0;
  for (const TilingCase& c : tiling_cases()) {
    const cuda::DeviceBuffer<index_t> row_ptr(c.row_ptr);
    const cuda::DeviceBuffer<index_t> cuts(c.cuts);
    for (const BalancedPolicy& policy : policies()) {
      SCOPED_TRACE(c.name + " " + policy_name(policy));
      BalancedTiling host;
      balanced_tiling(c.row_ptr.data(), c.row_begin, c.row_end, policy, c.cuts, host);
      const BalancedTiling dev =
          download_tiling(balanced_tiling_device(row_ptr.data(), c.row_begin, c.row_end, policy,
                                                 cuts.data(), static_cast<index_t>(c.cuts.size())));
      expect_same_tiling(host, dev);
      if (::testing::Test::HasFailure()) return;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
#endif
}

// csr_balanced from a device CSR (tiled on the device) and from the host CSR (tiled on the
// host): the same details and the same products, bit for bit (the same tiles run the same
// blocks; no far split on these sizes, whose COO part adds with atomics).
TEST(BalancedTiling, DeviceBuiltCsrBalancedMatchesHostBuiltBitForBit) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  const FormatEntry& f = find_format("csr_balanced");
  for (const char* params : {"", "items_per_thread=4", "items_per_thread=16,block_threads=256",
                             "long_row_finish=last_slice", "row_sum=scan"}) {
    const Params valid = validate_params(f, Params::parse(params));
    for (const auto& m : testing::zoo_names()) {
      SCOPED_TRACE(std::string(params) + " on " + m);
      const Csr<double>& a = testing::zoo_matrix(m);
      const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
      const auto host = f.builder<double>()(a, valid, Backend::cuda);
      const auto dev = f.device_builder<double>()(d.view(), valid);
      EXPECT_EQ(host->info().details, dev->info().details);
      EXPECT_EQ(host->info().matrix_bytes, dev->info().matrix_bytes);
      testing::expect_same_products_bitwise(*host, *dev, Backend::cuda, testing::test_seed());
    }
  }
#endif
}

#if SPMVKIT_HAVE_CUDA
template <class T>
std::vector<T> download_n(const cuda::DeviceBuffer<T>& b, std::size_t n) {
  std::vector<T> h = b.download();
  h.resize(n);
  return h;
}
#endif

// BSR's block-row statistics, balanced segments and tma tiles made on the device (device_bsr
// from make_bsr_segments_device) are the host's (bsr_row_stats, make_bsr_segments,
// bsr_tma_tiles), over block rows and over segments, where every kernel row fits a tile (what
// the builder ensures with the tma kernel).
TEST(BalancedTiling, DeviceBsrSegmentsAndTmaTilesMatchHost) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  int compared = 0;
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
    for (int bs : {1, 2, 3}) {
      Bsr<double> hb;
      try {
        hb = csr_to_bsr(a, bs, BlockLayout::column_major);
      } catch (const UnsupportedError&) {
        continue;  // too much fill for this block size
      }
      SCOPED_TRACE(name + " bs=" + std::to_string(bs));
      {
        const DeviceBsrBlocks<double> db = csr_to_bsr_device(d.view(), bs, bsr::kSlackBytes);
        const BsrRowStats h = bsr_row_stats(hb.block_row_ptr);
        const BsrRowStats g = bsr_row_stats_device(db.row_ptr.data(), db.block_rows);
        EXPECT_EQ(h.block_rows, g.block_rows);
        EXPECT_EQ(h.max_len, g.max_len);
        EXPECT_EQ(h.mean, g.mean);
        EXPECT_EQ(h.cv, g.cv);
      }
      for (int tile_kb : {1, 4, 16}) {
        const index_t tile_blocks = bsr_tma_tile_blocks(bs, sizeof(double), tile_kb);
        for (index_t lambda : {index_t{0}, index_t{1}, index_t{3}, tile_blocks}) {
          SCOPED_TRACE("tile_kb=" + std::to_string(tile_kb) + " lambda=" + std::to_string(lambda));
          const BsrSegments hs =
              lambda > 0 ? make_bsr_segments(hb.block_row_ptr, lambda) : BsrSegments{};
          const std::vector<index_t>& kernel_rows =
              lambda > 0 ? hs.segment_block_ptr : hb.block_row_ptr;
          const std::vector<index_t> expect =
              bsr_tma_tiles(kernel_rows, tile_blocks, bsr_tma_tile_rows(tile_blocks));
          DeviceBsrBlocks<double> db = csr_to_bsr_device(d.view(), bs, bsr::kSlackBytes);
          std::optional<DeviceBsrSegments> ds;
          if (lambda > 0)
            ds = make_bsr_segments_device(db.row_ptr.data(), db.block_rows, lambda,
                                          bsr::kSlackBytes);
          // A row longer than a tile: no tiles on the host, never asked of the device.
          const bsr::DeviceBsr<double> dev = bsr::device_bsr(
              std::move(db), ds ? &*ds : nullptr, expect.empty() ? 0 : tile_blocks, false);
          if (lambda > 0) {
            ASSERT_EQ(dev.nrows, hs.segments());
            EXPECT_EQ(download_n(dev.row_ptr, hs.segment_block_ptr.size()), hs.segment_block_ptr);
            EXPECT_EQ(download_n(dev.row_out, hs.segment_out.size()), hs.segment_out);
            EXPECT_EQ(download_n(dev.split_rows, hs.split_rows.size()), hs.split_rows);
            EXPECT_EQ(download_n(dev.segment_ptr, hs.segment_ptr.size()), hs.segment_ptr);
            EXPECT_EQ(dev.n_split, static_cast<index_t>(hs.split_rows.size()));
            EXPECT_EQ(dev.max_split, hs.max_split);
            EXPECT_EQ(dev.partials.size(), static_cast<std::size_t>(hs.partial_slots()) * bs);
          }
          if (expect.size() < 2) {
            EXPECT_EQ(dev.tma_n_tiles, 0);
            continue;
          }
          ASSERT_EQ(static_cast<std::size_t>(dev.tma_n_tiles) + 1, expect.size());
          EXPECT_EQ(download_n(dev.tma_tiles, expect.size()), expect);
          EXPECT_EQ(dev.tma_tile_blocks, tile_blocks);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 0);
#endif
}

}  // namespace

}  // namespace spmvkit
