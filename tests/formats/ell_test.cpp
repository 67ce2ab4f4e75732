// ELL-specific tests: the max_fill refusal, the column-major aligned layout, the sector byte
// model and skip rule, parameter validation, and every kernel variant against the reference.
#include "formats/ell/ell.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "spmvkit/stats.hpp"
#include "tests/formats/spmv_check.hpp"

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

TEST(Ell, RefusesPaddingOverMaxFill) {
  // 100 rows: one of 100 entries, the rest 1: padding to 100 stores ~50x the nonzeros.
  const Csr<double> a = matrix_with_lengths(100, 200, [](index_t r) { return r == 7 ? 100 : 1; });
  try {
    build_operator<double>("ell", a, {}, Backend::cpu);
    FAIL() << "ell accepted a fill of ~50 with max_fill=3";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("max_fill=3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(build_operator<double>("ell", a, Params::parse("max_fill=40"), Backend::cpu),
               UnsupportedError);
  const auto op = build_operator<double>("ell", a, Params::parse("max_fill=60"), Backend::cpu);
  EXPECT_NE(op->info().details.find("width=100"), std::string::npos) << op->info().details;
  EXPECT_DOUBLE_EQ(ell_fill(100, 100, 199), 100.0 * 100.0 / 199.0);
  EXPECT_DOUBLE_EQ(ell_fill(0, 50, 0), 1.0);  // no entries: nothing to pad
}

TEST(Ell, ColumnMajorAlignedLayout) {
  // 3 x 4:  row 0: (0,1) (0,3)   row 1: empty   row 2: (2,0) (2,1) (2,2)
  const Csr<double> a =
      make_csr<double>(3, 4, {0, 2, 2, 5}, {1, 3, 0, 1, 2}, {1.0, 2.0, 3.0, 4.0, 5.0});
  const EllData<double> e = ell_pack(a, longest_row(a));
  EXPECT_EQ(e.width, 3);
  EXPECT_EQ(e.pitch, 32);  // columns start on 32-element boundaries
  ASSERT_EQ(e.col_idx.size(), 3u * 32u);
  EXPECT_EQ(e.stored, 5);
  EXPECT_EQ(e.row_length[0], 2);
  EXPECT_EQ(e.row_length[1], 0);
  EXPECT_EQ(e.row_length[2], 3);
  EXPECT_EQ(e.row_length[3], 0);  // past the rows
  // Slot k of row r at k*pitch + r.
  EXPECT_EQ(e.col_idx[0 * 32 + 0], 1);
  EXPECT_EQ(e.col_idx[1 * 32 + 0], 3);
  EXPECT_EQ(e.values[1 * 32 + 0], 2.0);
  EXPECT_EQ(e.col_idx[2 * 32 + 0], -1);  // padding
  EXPECT_EQ(e.values[2 * 32 + 0], 0.0);
  EXPECT_EQ(e.col_idx[0 * 32 + 1], -1);
  EXPECT_EQ(e.col_idx[0 * 32 + 2], 0);
  EXPECT_EQ(e.col_idx[2 * 32 + 2], 2);
  EXPECT_EQ(e.values[2 * 32 + 2], 5.0);
  EXPECT_EQ(e.col_idx[0 * 32 + 3], -1);  // rows past the matrix are padding too
  // A width below the longest row keeps each row's first entries (the HYB/HEC ELL part).
  const EllData<double> part = ell_pack(a, 1);
  EXPECT_EQ(part.stored, 2);
  EXPECT_EQ(part.col_idx[2], 0);
  EXPECT_EQ(part.row_length[2], 1);
}

TEST(Ell, SectorByteModelAndSkipRule) {
  // 64 rows of 4 entries, double: every sector full. Values: 64*4*8 bytes; indices
  // 64*4*4 bytes (sentinel reads them all, and there is no padding).
  const Csr<double> full = matrix_with_lengths(64, 64, [](index_t) { return 4; });
  const EllData<double> e = ell_pack(full, 4);
  EXPECT_EQ(ell_pass_bytes(e, EllSkip::sentinel), 64u * 4u * 12u);
  EXPECT_EQ(ell_pass_bytes(e, EllSkip::row_length), 64u * 4u * 12u + 64u * 4u);
  EXPECT_EQ(ell_choose_skip(e), EllSkip::sentinel);

  // Rows 0-7 hold 32 entries, rows 8-63 one: sentinel reads 32 slots of indices for every row.
  const Csr<double> ragged = matrix_with_lengths(64, 64, [](index_t r) { return r < 8 ? 32 : 1; });
  const EllData<double> g = ell_pack(ragged, 32);
  // Value sectors (4 rows a sector): 2 groups x 32 slots + 14 groups x 1 slot.
  const std::size_t value_bytes = (2 * 32 + 14) * 32;
  EXPECT_EQ(ell_pass_bytes(g, EllSkip::sentinel), value_bytes + 32 * 8 * 32);
  // Index sectors (8 rows a sector): 1 group x 32 + 7 groups x 1, plus the length array.
  EXPECT_EQ(ell_pass_bytes(g, EllSkip::row_length), value_bytes + (32 + 7) * 32 + 8 * 32);
  EXPECT_EQ(ell_choose_skip(g), EllSkip::row_length);

  const auto op = build_operator<double>("ell", full, {}, Backend::cpu);
  EXPECT_EQ(op->info().matrix_bytes, 64u * 4u * 12u);
  EXPECT_EQ(op->info().nnz, 256);
}

// The summaries the device build downloads instead of the row lengths (the histogram as
// distinct lengths with counts; ELL's stored entries and the rows past a width; the group
// maxima) give exactly what the rules computed from the lengths themselves.
std::vector<std::vector<index_t>> awkward_length_vectors() {
  std::mt19937 rng(20261126);
  std::vector<std::vector<index_t>> v = {
      {},                             // no rows
      {0},                            // one empty row
      std::vector<index_t>(1000, 0),  // no entries
      std::vector<index_t>(1000, 7),  // all equal
      std::vector<index_t>(257, 3),   // a partial group of 256
  };
  std::vector<index_t> huge(5000, 1);
  huge[4321] = 1000000;  // one huge row
  v.push_back(huge);
  std::vector<index_t> zeros(3001, 0);  // mostly empty rows
  for (std::size_t i = 0; i < zeros.size(); i += 97) zeros[i] = 1 + static_cast<index_t>(i % 13);
  v.push_back(zeros);
  for (int t = 0; t < 20; ++t) {  // random: sizes off every group boundary, skewed lengths
    std::vector<index_t> r(1 + rng() % 5000);
    const index_t top = 1 + static_cast<index_t>(rng() % 300);
    for (index_t& l : r) l = rng() % 4 == 0 ? static_cast<index_t>(rng() % top) : rng() % 5;
    v.push_back(r);
  }
  return v;
}

// The byte model as it was written before the summaries: sectors counted from row_length.
std::size_t naive_ell_pass_bytes(const std::vector<index_t>& len, index_t width, EllSkip skip,
                                 bool deltas, std::size_t value_bytes) {
  const auto rows = static_cast<index_t>(len.size());
  if (width == 0 || rows == 0) return 0;
  const auto groups_max = [&](index_t group) {
    std::int64_t total = 0;
    for (index_t g0 = 0; g0 < rows; g0 += group) {
      index_t m = 0;
      for (index_t r = g0; r < std::min(rows, g0 + group); ++r) m = std::max(m, len[r]);
      total += m;
    }
    return total;
  };
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const index_t idx_per_sector = deltas ? 16 : 8;
  std::int64_t sectors = groups_max(static_cast<index_t>(32 / value_bytes));
  if (skip == EllSkip::sentinel)
    sectors += std::int64_t{width} * ceil_div(rows, idx_per_sector);
  else
    sectors += groups_max(idx_per_sector) + ceil_div(rows, 8);
  if (deltas)
    sectors +=
        skip == EllSkip::sentinel ? std::int64_t{width} * ceil_div(rows, 256) : groups_max(256);
  return static_cast<std::size_t>(sectors * 32);
}

TEST(Ell, SummariesGiveTheLengthRulesAnswers) {
  for (const std::vector<index_t>& lengths : awkward_length_vectors()) {
    SCOPED_TRACE("rows=" + std::to_string(lengths.size()));
    const std::vector<std::int64_t> hist = length_histogram(lengths);
    // The device's run-length encoding of the sorted lengths, made here on the host.
    std::vector<index_t> sorted = lengths, distinct, count;
    std::sort(sorted.begin(), sorted.end());
    for (index_t l : sorted) {
      if (distinct.empty() || distinct.back() != l) {
        distinct.push_back(l);
        count.push_back(0);
      }
      ++count.back();
    }
    EXPECT_EQ(length_histogram_from_runs(distinct, count), hist);
    const index_t longest = hist.empty() ? 0 : static_cast<index_t>(hist.size() - 1);
    for (index_t width : {index_t{0}, index_t{1}, index_t{3}, longest / 2, longest}) {
      std::vector<index_t> clamped(lengths.size());
      std::int64_t stored = 0, longer = 0;
      for (std::size_t r = 0; r < lengths.size(); ++r) {
        clamped[r] = std::min(lengths[r], width);
        stored += clamped[r];
        longer += lengths[r] > width;
      }
      EXPECT_EQ(ell_stored(hist, width), stored);
      EXPECT_EQ(rows_longer(hist, width), longer);
      const EllGroupMaxima g =
          ell_group_maxima(clamped, static_cast<index_t>(clamped.size()), width);
      for (bool deltas : {false, true})
        for (EllSkip skip : {EllSkip::sentinel, EllSkip::row_length}) {
          EXPECT_EQ(ell_pass_bytes<double>(g, skip, deltas),
                    naive_ell_pass_bytes(clamped, width, skip, deltas, sizeof(double)));
          EXPECT_EQ(ell_pass_bytes<float>(g, skip, deltas),
                    naive_ell_pass_bytes(clamped, width, skip, deltas, sizeof(float)));
        }
    }
  }
}

// The groups' maxima of the byte model from unclipped lengths (clipped at the width there),
// against the sum of each group's maximum made here, group by group; sizes around the
// 256-row blocks and past the parallel pass's 65,536 rows.
TEST(Ell, GroupMaximaOfUnclippedLengths) {
  std::mt19937 rng(2911);
  for (const std::size_t rows : {std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{256},
                                 std::size_t{257}, std::size_t{1030}, std::size_t{70001}}) {
    std::vector<index_t> lengths(rows);
    for (auto& l : lengths) l = std::uniform_int_distribution<index_t>(0, 40)(rng);
    for (const index_t width : {index_t{0}, index_t{7}, index_t{100}}) {
      SCOPED_TRACE("rows=" + std::to_string(rows) + " width=" + std::to_string(width));
      const EllGroupMaxima g = ell_group_maxima(lengths, static_cast<index_t>(rows), width);
      for (std::size_t i = 0; i < ell_model_groups.size(); ++i) {
        const auto size = static_cast<std::size_t>(ell_model_groups[i]);
        std::int64_t want = 0;
        for (std::size_t r0 = 0; r0 < rows; r0 += size) {
          index_t most = 0;
          for (std::size_t r = r0; r < std::min(rows, r0 + size); ++r)
            most = std::max(most, std::min(lengths[r], width));
          want += most;
        }
        EXPECT_EQ(g.sum[i], want) << "groups of " << size;
      }
    }
  }
}

TEST(Ell, SixteenBitColumnDeltas) {
  // row 0: (0, 5) (0, 65539)   row 1: (1, 0)   row 2: empty. Slot 0 of rows 0-31 spans
  // columns 0..5 (base 0); slot 1 holds only 65539 (base 65539).
  const Csr<double> a = make_csr<double>(3, 70000, {0, 2, 3, 3}, {5, 65539, 0}, {1, 2, 3});
  const EllData<double> e = ell_pack(a, 2);
  const std::optional<ColumnDeltas> d = ell_column_deltas(e);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->base, (std::vector<index_t>{0, 65539}));  // pitch 32: one group a slot
  EXPECT_EQ(d->delta[e.slot(0, 0)], 5);
  EXPECT_EQ(d->delta[e.slot(0, 1)], 0);
  EXPECT_EQ(d->delta[e.slot(1, 0)], 0);
  EXPECT_EQ(d->delta[e.slot(1, 1)], delta_padding);
  EXPECT_EQ(d->delta[e.slot(0, 2)], delta_padding);
  // Rows 0 and 1 in one slot 65536 columns apart: too wide a span for 16 bits.
  const Csr<double> far = make_csr<double>(2, 70000, {0, 1, 2}, {0, 65536}, {1, 2});
  EXPECT_FALSE(ell_column_deltas(ell_pack(far, 1)).has_value());
  const Csr<double> edge = make_csr<double>(2, 70000, {0, 1, 2}, {0, 65534}, {1, 2});
  EXPECT_TRUE(ell_column_deltas(ell_pack(edge, 1)).has_value());
  // Byte model: 16 two-byte indices a sector instead of 8, plus a sector of bases a slot per
  // 256 rows.
  const Csr<double> full = matrix_with_lengths(64, 64, [](index_t) { return 4; });
  EXPECT_EQ(ell_pass_bytes(ell_pack(full, 4), EllSkip::sentinel, true), 64u * 4u * 10u + 4u * 32u);
  // The CPU kernel reads col_idx: index_bits is a CUDA choice, said to be ignored there.
  const auto op = build_operator<double>("ell", full, Params::parse("index_bits=16"), Backend::cpu);
  EXPECT_NE(op->info().details.find("ignored on cpu (cuda only): index_bits=16"), std::string::npos)
      << op->info().details;
  EXPECT_EQ(op->info().matrix_bytes, 64u * 4u * 12u);
  if (cuda_available()) {
    EXPECT_THROW(build_operator<double>("ell", far, Params::parse("index_bits=16"), Backend::cuda),
                 UnsupportedError);
    EXPECT_NE(
        build_operator<double>("ell", far, {}, Backend::cuda)->info().details.find("index_bits=32"),
        std::string::npos);
    const auto op16 = build_operator<double>("ell", full, {}, Backend::cuda);
    EXPECT_NE(op16->info().details.find("index_bits=16"), std::string::npos);
    EXPECT_EQ(op16->info().matrix_bytes, 64u * 4u * 10u + 4u * 32u);
  }
  for (const char* p : {"index_bits=16", "index_bits=32", "index_bits=16,rows_per_thread=1",
                        "index_bits=16,skip=row_length"})
    testing::expect_spmv_matches_everywhere("ell", a, Params::parse(p));
  testing::expect_spmv_matches_everywhere("ell", far, {});
  // A larger banded matrix (every group fits) in both index widths.
  const Csr<double> band = matrix_with_lengths(3000, 3000, [](index_t r) { return 1 + r % 9; });
  for (const char* p : {"index_bits=16", "index_bits=16,skip=row_length,rows_per_thread=1"})
    testing::expect_spmv_matches_everywhere("ell", band, Params::parse(p));
}

// A matrix of at most 65,535 columns always fits 16-bit deltas (the device builders then skip
// the fit); one of 65,536 need not. Even rows hold column 0 and fresh random ones, odd rows column
// cols - 1 alone, so every group's first slot spans the whole range.
TEST(Ell, DeltasAlwaysFitUpTo65535Columns) {
  EXPECT_TRUE(deltas_always_fit(1));
  EXPECT_TRUE(deltas_always_fit(65535));
  EXPECT_FALSE(deltas_always_fit(65536));
  std::mt19937_64 rng(testing::test_seed());
  for (const index_t cols : {index_t{65535}, index_t{40000}, index_t{65536}}) {
    SCOPED_TRACE(cols);
    std::uniform_int_distribution<index_t> col(1, cols - 1), len(0, 6);
    std::uniform_real_distribution<double> value(-1, 1);
    std::vector<index_t> ptr{0}, idx;
    std::vector<double> val;
    for (index_t r = 0; r < 300; ++r) {
      std::vector<index_t> c{r % 2 ? cols - 1 : 0};
      for (index_t k = len(rng); r % 2 == 0 && k > 0; --k) c.push_back(col(rng));
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      for (index_t v : c) {
        idx.push_back(v);
        val.push_back(value(rng));
      }
      ptr.push_back(static_cast<index_t>(idx.size()));
    }
    const Csr<double> a = make_csr<double>(300, cols, ptr, idx, val);
    const std::optional<ColumnDeltas> d = ell_column_deltas(ell_pack(a, 7));
    EXPECT_EQ(d.has_value(), deltas_always_fit(cols));
    // ELL pads every row to the longest, 7 entries of ~2.5 a row: ~2.8x the nonzeros, over the
    // default max_fill=3 for some draws, so allowed more.
    const Params roomy = Params::parse("max_fill=8");
    testing::expect_spmv_matches_everywhere("ell", a, roomy);
    for (const char* f : {"hyb", "hec"}) testing::expect_spmv_matches_everywhere(f, a, {});
    if (cuda_available()) {
      EXPECT_NE(build_operator<double>("ell", a, roomy, Backend::cuda)
                    ->info()
                    .details.find(deltas_always_fit(cols) ? "index_bits=16" : "index_bits=32"),
                std::string::npos);
    }
  }
}

TEST(Ell, ParameterValidation) {
  const Csr<double> a = matrix_with_lengths(40, 40, [](index_t r) { return 1 + r % 3; });
  for (const char* bad : {"max_fill=0.5", "max_fill=abc", "max_fill=inf", "rows_per_thread=3",
                          "rows_per_thread=4", "skip=bogus", "index_bits=8", "index_bits=auto16"})
    testing::expect_bad_value("ell", a, bad, Backend::cpu);
  EXPECT_THROW(build_operator<double>("ell", a, Params::parse("width=3")), InputError);  // unknown
  // Float's vector width is 4 rows.
  EXPECT_NO_THROW(build_operator<float>("ell", a.cast<float>(), Params::parse("rows_per_thread=4"),
                                        Backend::cpu));
  EXPECT_THROW(build_operator<float>("ell", a.cast<float>(), Params::parse("rows_per_thread=2"),
                                     Backend::cpu),
               InputError);
}

TEST(Ell, EveryVariantMatchesReference) {
  // 1001 rows (not a multiple of any vector width), lengths 0..9, fill under 3.
  const Csr<double> a = matrix_with_lengths(1001, 700, [](index_t r) { return (r * 7) % 10; });
  for (const char* skip : {"sentinel", "row_length"}) {
    for (Backend b : testing::runnable_backends()) {
      testing::expect_spmv_matches<double>(
          "ell", a, Params::parse(std::string("rows_per_thread=1,skip=") + skip), b);
      testing::expect_spmv_matches<double>(
          "ell", a, Params::parse(std::string("rows_per_thread=2,skip=") + skip), b);
      testing::expect_spmv_matches<float>(
          "ell", a, Params::parse(std::string("rows_per_thread=1,skip=") + skip), b);
      testing::expect_spmv_matches<float>(
          "ell", a, Params::parse(std::string("rows_per_thread=4,skip=") + skip), b);
    }
  }
}

}  // namespace
}  // namespace spmvkit
