// CSR-specific tests: the column-panel split (cache blocking of x, csr_balanced's `panels`
// option), the near/far split (its `far_panels` option) and the balanced kernel with explicit
// panel counts and far panels against the float64 reference (the registry suite runs the
// defaults).
#include "formats/csr/csr.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <tuple>

#include "formats/csr/csr_tiles.hpp"
#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/cuda.hpp"
#endif
#include "spmvkit/generators.hpp"
#include "tests/formats/spmv_check.hpp"

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

TEST(CsrPanels, SplitSumsToTheMatrixAndKeepsColumnsSorted) {
  const Csr<double> a =
      matrix_with_lengths(300, 1000, [](index_t r) { return r % 7 == 0 ? 0 : r % 40 + 1; });
  for (int panels : {1, 2, 3, 7, 1000, 1500}) {
    SCOPED_TRACE(panels);
    const auto parts = csr_column_panels(a, panels);
    ASSERT_EQ(parts.size(), static_cast<std::size_t>(panels));
    const index_t width = (a.cols + panels - 1) / panels;
    index_t total = 0;
    for (int p = 0; p < panels; ++p) {
      const Csr<double>& part = parts[p];
      EXPECT_EQ(part.rows, a.rows);
      EXPECT_EQ(part.cols, a.cols);
      part.validate("panel");  // sorted, in range, row_ptr consistent
      for (index_t c : part.col_idx) {
        EXPECT_GE(c, p * width);
        EXPECT_LT(c, (p + 1) * width);
      }
      total += part.nnz();
    }
    EXPECT_EQ(total, a.nnz());
    // Row by row, the panels' entries in panel order are the row's entries.
    for (index_t r = 0; r < a.rows; ++r) {
      std::vector<index_t> cols;
      std::vector<double> vals;
      for (const auto& part : parts)
        for (index_t k = part.row_ptr[r]; k < part.row_ptr[r + 1]; ++k) {
          cols.push_back(part.col_idx[k]);
          vals.push_back(part.values[k]);
        }
      ASSERT_EQ(cols, std::vector<index_t>(a.col_idx.begin() + a.row_ptr[r],
                                           a.col_idx.begin() + a.row_ptr[r + 1]));
      ASSERT_EQ(vals, std::vector<double>(a.values.begin() + a.row_ptr[r],
                                          a.values.begin() + a.row_ptr[r + 1]));
    }
  }
  EXPECT_THROW(csr_column_panels(a, 0), InputError);
  const Csr<double> empty = make_csr<double>(0, 0, {0}, {}, {});
  EXPECT_EQ(csr_column_panels(empty, 3)[2].nnz(), 0);
}

TEST(CsrPanels, BalancedWithPanelsMatchesReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: csr_balanced panels run on the GPU only";
  const Csr<double> mixed = matrix_with_lengths(5000, 7000, [](index_t r) {
    return r == 17 ? 6000 : r % 11 == 0 ? 0 : r % 37 + 1;
  });
  for (const char* panels : {"1", "2", "3", "64"}) {
    const Params p = Params::parse(std::string("panels=") + panels);
    testing::expect_spmv_matches<double>("csr_balanced", mixed, p, Backend::cuda);
    testing::expect_spmv_matches<float>("csr_balanced", mixed, p, Backend::cuda);
    for (const char* name : {"one_huge_row", "rect_wide", "rect_tall", "empty_rows", "one_by_one",
                             "empty_0x0", "powerlaw_20000"})
      testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                           Backend::cuda);
  }
}

TEST(CsrPanels, BadPanelCountIsAnInputError) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: the panel parameter is read by the GPU builder";
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad : {"panels=0", "panels=65", "panels=many", "panels=auto"})
    testing::expect_bad_value("csr_balanced", a, bad, Backend::cuda);
}

TEST(CsrNearFar, SplitKeepsEveryEntryOnceInPanelAndRowOrder) {
  const Csr<double> a =
      matrix_with_lengths(300, 1000, [](index_t r) { return r % 7 == 0 ? 0 : r % 40 + 1; });
  for (const auto& [band, panels, blocks] :
       std::vector<std::tuple<index_t, int, int>>{{0, 1, 1},
                                                  {5, 3, 1},
                                                  {100, 1000, 1},
                                                  {2000, 1500, 1},
                                                  {0, 3, 4},
                                                  {5, 1, 7},
                                                  {100, 2, 400},
                                                  {5, 1000, 3}}) {
    {
      SCOPED_TRACE(std::to_string(band) + " / " + std::to_string(panels) + " / " +
                   std::to_string(blocks));
      const NearFarSplit<double> s = csr_split_near_far(a, band, panels, blocks);
      s.near.validate("near part");
      const std::size_t lists = static_cast<std::size_t>(panels) * blocks;
      ASSERT_EQ(s.far_ptr.size(), lists + 1);
      EXPECT_EQ(s.far_ptr.front(), 0);
      EXPECT_EQ(static_cast<std::size_t>(s.far_ptr.back()), s.far_row.size());
      EXPECT_EQ(s.near.nnz() + static_cast<index_t>(s.far_row.size()), a.nnz());
      EXPECT_EQ(csr_count_far(a, band), static_cast<std::int64_t>(s.far_row.size()));
      const index_t width = (a.cols + panels - 1) / panels;
      const index_t height = std::max<index_t>((a.rows + blocks - 1) / blocks, 1);
      auto diagonal = [&](index_t r) {
        return static_cast<index_t>(std::int64_t{r} * a.cols / a.rows);
      };
      for (index_t r = 0; r < a.rows; ++r)
        for (index_t k = s.near.row_ptr[r]; k < s.near.row_ptr[r + 1]; ++k)
          EXPECT_LE(std::abs(s.near.col_idx[k] - diagonal(r)), band);
      // Far entries: outside the band, in their (row block, panel) list, sorted by (row,
      // column) within it.
      std::int64_t segments = 0;
      for (std::size_t l = 0; l < lists; ++l)
        for (index_t k = s.far_ptr[l]; k < s.far_ptr[l + 1]; ++k) {
          EXPECT_GT(std::abs(s.far_col[k] - diagonal(s.far_row[k])), band);
          EXPECT_EQ(s.far_col[k] / width, static_cast<index_t>(l % panels));
          EXPECT_EQ(s.far_row[k] / height, static_cast<index_t>(l / panels));
          if (k > s.far_ptr[l]) {
            EXPECT_TRUE(s.far_row[k - 1] < s.far_row[k] ||
                        (s.far_row[k - 1] == s.far_row[k] && s.far_col[k - 1] < s.far_col[k]));
          }
          segments += k == s.far_ptr[l] || s.far_row[k - 1] != s.far_row[k];
        }
      EXPECT_EQ(segments, s.far_row_segments);
      // Near + far rebuilds A entry by entry (as a dense matrix: 300 x 1000 is small).
      std::vector<double> dense(static_cast<std::size_t>(a.rows) * a.cols, 0.0), want = dense;
      for (index_t r = 0; r < a.rows; ++r) {
        for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
          want[static_cast<std::size_t>(r) * a.cols + a.col_idx[k]] = a.values[k];
        for (index_t k = s.near.row_ptr[r]; k < s.near.row_ptr[r + 1]; ++k)
          dense[static_cast<std::size_t>(r) * a.cols + s.near.col_idx[k]] += s.near.values[k];
      }
      for (std::size_t k = 0; k < s.far_row.size(); ++k)
        dense[static_cast<std::size_t>(s.far_row[k]) * a.cols + s.far_col[k]] += s.far_val[k];
      EXPECT_EQ(dense, want);
    }
  }
  EXPECT_THROW(csr_split_near_far(a, 10, 0), InputError);
  EXPECT_THROW(csr_split_near_far(a, -1, 2), InputError);
  EXPECT_THROW(csr_split_near_far(a, 10, 2, 0), InputError);
  const Csr<double> empty = make_csr<double>(0, 0, {0}, {}, {});
  EXPECT_EQ(csr_split_near_far(empty, 10, 3).far_ptr.size(), 4u);
}

// csr_balanced with `params` on the GPU against the reference: on `a` in both precisions and
// on the awkward shapes of the zoo.
void expect_balanced_matches(const Csr<double>& a, const char* params) {
  SCOPED_TRACE(params);
  const Params p = Params::parse(params);
  testing::expect_spmv_matches<double>("csr_balanced", a, p, Backend::cuda);
  testing::expect_spmv_matches<float>("csr_balanced", a, p, Backend::cuda);
  for (const char* name : {"one_huge_row", "rect_wide", "rect_tall", "empty_rows", "one_by_one",
                           "empty_0x0", "powerlaw_20000", "duplicates_heavy", "long_rows_mixed"})
    testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                         Backend::cuda);
}

TEST(CsrNearFar, BalancedWithFarPanelsMatchesReference) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: csr_balanced far panels run on the GPU only";
  const Csr<double> near_diag = generate_powerlaw(60000, 8.0, 9000, 3);
  for (const char* params :
       {"far_panels=1", "far_panels=3,near_band=600", "far_panels=4,near_band=0",
        "far_panels=64,near_band=50", "far_panels=2,near_band=100000",
        "far_panels=3,near_band=600,far_row_blocks=4",
        "far_panels=1,near_band=0,far_row_blocks=64"}) {
    expect_balanced_matches(near_diag, params);
    const Params p = Params::parse(params);
    // One row with entries in every panel: the COO kernel sees the same row on both sides of
    // each panel boundary, in runs spanning many warps; 4999 entries, not a multiple of 4.
    testing::expect_spmv_matches<double>("csr_balanced",
                                         matrix_with_lengths(1, 6000, [](index_t) { return 4999; }),
                                         p, Backend::cuda);
  }
  // Far entries really are there (else the test above proves nothing about them).
  const auto op = build_operator<double>(
      "csr_balanced", near_diag, Params::parse("far_panels=3,near_band=600"), Backend::cuda);
  EXPECT_EQ(op->info().details.find("far_nnz=0,"), std::string::npos) << op->info().details;
}

// The options only the GPU builder reads must still pass the registry's parameter check, which
// runs first on every backend; this runs in CI, where the GPU tests skip.
TEST(CsrBalanced, GpuOptionsAreRegisteredParameters) {
  const FormatEntry& f = find_format("csr_balanced");
  for (const char* name :
       {"items_per_thread", "block_threads", "panels", "far_panels", "near_band", "far_row_blocks",
        "long_row_finish", "tile_order", "l2_persist", "l2_persist_mb", "l2_reset"})
    EXPECT_NO_THROW(check_params(f, Params::parse(std::string(name) + "=1"))) << name;
  EXPECT_THROW(check_params(f, Params::parse("tile_orders=1")), InputError);
  const FormatEntry& s = find_format("suraa_static");
  for (const char* name : {"tile_order", "far_row_blocks", "far_panels", "near_band"})
    EXPECT_NO_THROW(check_params(s, Params::parse(std::string(name) + "=1"))) << name;
}

// Long rows finished by their last slice (one launch) instead of the fix-up kernel; the
// operator is applied three times (expect_spmv_matches), so the counters must reset.
TEST(CsrBalanced, LastSliceFinishesLongRows) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: long_row_finish is read by the GPU builder";
  const Params p = Params::parse("long_row_finish=last_slice");
  for (const char* name : {"one_huge_row", "long_rows_mixed", "powerlaw_20000", "empty_rows",
                           "rect_wide", "one_by_one", "empty_0x0"}) {
    testing::expect_spmv_matches<double>("csr_balanced", testing::zoo_matrix(name), p,
                                         Backend::cuda);
    testing::expect_spmv_matches<float>("csr_balanced", testing::zoo_matrix(name), p,
                                        Backend::cuda);
  }
  const auto op =
      build_operator<double>("csr_balanced", testing::zoo_matrix("one_huge_row"), p, Backend::cuda);
  EXPECT_EQ(op->info().details.find("long_rows=0"), std::string::npos) << op->info().details;
  testing::expect_bad_value("csr_balanced", testing::zoo_matrix("one_by_one"),
                            "long_row_finish=atomic", Backend::cuda);
}

// Column-sorted tiles (tile_order=columns): every tile of whole rows whose columns span less
// than the packed word allows holds its entries in column order, each with its slot (place in
// row order); slices of long rows and wider tiles are left alone.
TEST(CsrTiles, ColumnSortPacksSlotsAndKeepsEveryEntry) {
  // A power-law matrix (long rows -> slices), then two rows whose columns span 5M (too wide
  // for 22 or 20 column bits), an empty row, and a row with a repeated column.
  Csr<double> a = generate_powerlaw(30000, 8.0, 5000, 7);
  a.cols = 6000000;
  auto add_row = [&a](std::vector<index_t> cols) {
    for (index_t c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(0.5 + static_cast<double>(a.values.size() % 7));
    }
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
    ++a.rows;
  };
  add_row({3, 5000000});
  add_row({1, 4999999, 5999999});
  add_row({});
  add_row({9, 4, 9, 2});
  std::size_t sorted_always = 0;
  for (const auto& [block, items, min_gain] :
       {std::tuple{128, 8, 0.0}, std::tuple{128, 16, 0.0}, std::tuple{256, 16, 0.0},
        std::tuple{256, 16, 0.25}}) {
    SCOPED_TRACE(std::to_string(block) + " x " + std::to_string(items) + ", min_gain " +
                 std::to_string(min_gain));
    BalancedPolicy policy;
    policy.block_threads = block;
    policy.items_per_thread = items;
    const int tile_nnz = policy.tile_nnz();
    const int col_bits = 32 - balanced_slot_bits(tile_nnz);
    BalancedTiling t;
    balanced_tiling(a.row_ptr.data(), 0, a.rows, policy, {}, t);
    std::vector<index_t> col_idx = a.col_idx;
    std::vector<double> values = a.values;
    const ColumnSortStats stats =
        balanced_sort_tiles_by_column(t, tile_nnz, col_idx, values, min_gain);
    const std::size_t sorted = stats.sorted_tiles;
    if (min_gain == 0.0) sorted_always = sorted;
    EXPECT_LE(sorted, sorted_always);  // a gain threshold only leaves tiles out
    // Column order never touches more sectors; on this matrix far fewer.
    EXPECT_GT(stats.warp_sectors_rows, 0);
    EXPECT_LT(stats.warp_sectors_columns, stats.warp_sectors_rows * 9 / 10);
    std::size_t seen_sorted = 0, wide = 0, slices = 0;
    for (const BalancedTile& tile : t.tiles) {
      const index_t n = tile.nnz_end - tile.nnz_begin;
      const auto b = static_cast<std::size_t>(tile.nnz_begin);
      if (tile.col_base < 0) {  // left alone: same arrays
        slices += tile.threads_per_row == 0;
        for (std::size_t k = b; k < b + static_cast<std::size_t>(n); ++k) {
          ASSERT_EQ(col_idx[k], a.col_idx[k]);
          ASSERT_EQ(values[k], a.values[k]);
        }
        if (tile.threads_per_row != 0 && n > 0 && min_gain == 0.0) {
          const auto [lo, hi] =
              std::minmax_element(a.col_idx.begin() + b, a.col_idx.begin() + b + n);
          EXPECT_GE(std::int64_t{*hi} - *lo, std::int64_t{1} << col_bits);
          ++wide;
        }
        continue;
      }
      ++seen_sorted;
      ASSERT_NE(tile.threads_per_row, 0);
      std::vector<bool> used(static_cast<std::size_t>(n), false);
      index_t previous = -1;
      for (index_t j = 0; j < n; ++j) {
        const auto word = static_cast<std::uint32_t>(col_idx[b + j]);
        const auto slot = static_cast<index_t>(word >> col_bits);
        const index_t col = tile.col_base + static_cast<index_t>(word & ((1u << col_bits) - 1u));
        ASSERT_LT(slot, n);
        ASSERT_FALSE(used[static_cast<std::size_t>(slot)]) << "slot " << slot << " twice";
        used[static_cast<std::size_t>(slot)] = true;
        EXPECT_EQ(col, a.col_idx[b + slot]);
        EXPECT_EQ(values[b + j], a.values[b + slot]);
        EXPECT_GE(col, previous);  // column order
        previous = col;
      }
    }
    EXPECT_EQ(sorted, seen_sorted);
    EXPECT_GT(sorted, 10u);
    if (min_gain == 0.0) {
      EXPECT_GE(wide, 1u) << "the 5M-wide rows must stay in row order";
    }
    EXPECT_GE(slices, 1u) << "the power-law matrix must have long rows";
  }
  BalancedTiling t;
  std::vector<index_t> c;
  std::vector<double> v;
  EXPECT_THROW(balanced_sort_tiles_by_column(t, 1000, c, v), InputError);
  EXPECT_THROW(balanced_sort_tiles_by_column(t, 1024, c, v, 1.0), InputError);
  EXPECT_THROW(tile_order_option(Params::parse("tile_order=diagonal"), "x"), InputError);
  EXPECT_EQ(tile_order_option(Params::parse("tile_order=auto"), "x").min_gain, 0.25);
  EXPECT_FALSE(tile_order_option(Params::parse(""), "x").sort);
}

// Column-sorted tiles on the GPU: the same results as the reference, with and without far
// panels, at every tile shape.
TEST(CsrBalanced, ColumnSortedTilesMatchReference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: tile_order is read by the GPU builder";
  const Csr<double> near_diag = generate_powerlaw(60000, 8.0, 9000, 3);
  for (const char* params : {"tile_order=columns", "tile_order=columns,far_panels=3,near_band=600",
                             "tile_order=columns,items_per_thread=16",
                             "tile_order=columns,block_threads=256,items_per_thread=16",
                             "tile_order=columns,items_per_thread=4,long_row_finish=last_slice",
                             "tile_order=auto,far_panels=2,near_band=0"})
    expect_balanced_matches(near_diag, params);
  const auto op = build_operator<double>("csr_balanced", near_diag,
                                         Params::parse("tile_order=columns"), Backend::cuda);
  EXPECT_EQ(op->info().details.find("sorted_tiles=0"), std::string::npos) << op->info().details;
  EXPECT_NE(op->info().details.find("sorted_tiles="), std::string::npos) << op->info().details;
  testing::expect_bad_value("csr_balanced", near_diag, "tile_order=cols", Backend::cuda);
}

// The L2 persisting window (an experiment: l2_persist) changes caching only, never results;
// applied three times each, so a window left on the stream by one apply would show in the next.
TEST(CsrBalanced, L2PersistWindowKeepsResults) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: l2_persist is read by the GPU builder";
  const Csr<double> near_diag = generate_powerlaw(60000, 8.0, 9000, 3);
  for (const char* params :
       {"l2_persist=x", "l2_persist=x_near,l2_reset=1", "l2_persist=x_far,far_panels=1",
        "l2_persist=z_far,far_panels=3,near_band=600",
        "l2_persist=z_far,l2_persist_mb=1,l2_reset=1", "l2_persist=x,far_panels=0"})
    expect_balanced_matches(near_diag, params);
#if SPMVKIT_HAVE_CUDA
  // The set-aside is device-wide: the operator raises it and must put it back when it goes
  // (a benchmark that left it raised slowed every later format by up to 1.8x).
  const auto limit = [] {
    std::size_t bytes = 0;
    SPMVKIT_CUDA_CHECK(cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize));
    return bytes;
  };
  const std::size_t before = limit();
  {
    const auto op = build_operator<double>(
        "csr_balanced", near_diag, Params::parse("l2_persist=x,l2_persist_mb=8"), Backend::cuda);
    EXPECT_GT(limit(), before) << op->info().details;
  }
  EXPECT_EQ(limit(), before);
#endif
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad : {"l2_persist=y", "l2_persist=x,l2_persist_mb=0", "l2_persist_mb=70000"})
    testing::expect_bad_value("csr_balanced", a, bad, Backend::cuda);
}

TEST(CsrNearFar, BadFarPanelsIsAnInputError) {
  if (!cuda_available())
    GTEST_SKIP() << "no CUDA device: the far-panel parameters are read by the GPU builder";
  const Csr<double> a = matrix_with_lengths(10, 10, [](index_t) { return 2; });
  for (const char* bad :
       {"far_panels=-1", "far_panels=65", "far_panels=x", "near_band=-3", "near_band=99999999999",
        "far_panels=2,panels=2", "far_panels=Auto", "far_row_blocks=0", "far_row_blocks=65"})
    testing::expect_bad_value("csr_balanced", a, bad, Backend::cuda);
  // auto (the default) takes no panels where x fits in L2, and gives way to explicit panels.
  for (const char* fine : {"far_panels=auto", "far_panels=auto,panels=2", "far_panels=0,panels=2"})
    EXPECT_NE(build_operator<double>("csr_balanced", a, Params::parse(fine), Backend::cuda)
                  ->info()
                  .details.find("far_panels=0,"),
              std::string::npos)
        << fine;
}

}  // namespace
}  // namespace spmvkit
