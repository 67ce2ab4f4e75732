// SELL-P-specific tests: the slice/chunk layout and padding, the sigma permutation round trip
// (results in the user's row order), the parameter rule from row statistics, the byte model,
// parameter validation, and explicit (b, t, sigma) choices against the reference.
#include "formats/sellp/sellp.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>

#include "tests/formats/spmv_check.hpp"

namespace spmvkit {
namespace {

using testing::matrix_with_lengths;

Csr<double> with_lengths_exact(const std::vector<index_t>& lengths, index_t cols) {
  return matrix_with_lengths(
      static_cast<index_t>(lengths.size()), cols, [&](index_t r) { return lengths[r]; }, 3);
}

TEST(Sellp, SliceLayoutAndPadding) {
  // Lengths 3 1 0 4 2, b = 2, t = 2: slices {0,1}: width 4 (3 rounded up to t), {2,3}: 4,
  // {4, -}: 2. Slots: 8, 8, 4.
  const Csr<double> a = with_lengths_exact({3, 1, 0, 4, 2}, 10);
  const SellpData<double> s = sellp_pack(a, SellpConfig{2, 2, 1});
  EXPECT_EQ(s.slices, 3);
  EXPECT_EQ(s.slice_ptr, (std::vector<std::int64_t>{0, 8, 16, 20}));
  EXPECT_EQ(s.slice_chunks, (std::vector<index_t>{2, 2, 1}));
  EXPECT_EQ(s.row_length, (std::vector<index_t>{3, 1, 0, 4, 2, 0}));
  EXPECT_TRUE(s.perm.empty());
  EXPECT_EQ(s.stored, 10);
  // Entry j of slice row i at slice_ptr + (j/t)*(b*t) + i*t + j%t. Slice 0, chunk 0 is
  // [r0 e0, r0 e1, r1 e0, pad], chunk 1 is [r0 e2, pad, pad, pad].
  const std::vector<index_t> col0(s.col_idx.begin(), s.col_idx.begin() + 8);
  EXPECT_EQ(col0[0], a.col_idx[0]);
  EXPECT_EQ(col0[1], a.col_idx[1]);
  EXPECT_EQ(col0[2], a.col_idx[3]);
  EXPECT_EQ(col0[3], -1);
  EXPECT_EQ(col0[4], a.col_idx[2]);
  for (int k : {5, 6, 7}) EXPECT_EQ(col0[k], -1) << k;
  EXPECT_EQ(s.values[3], 0.0);
  // Slice 1: row 2 empty, row 3 (i = 1) has 4 entries at 8 + {2, 3, 6, 7}.
  EXPECT_EQ(s.slot(1, 1, 0), 10u);
  EXPECT_EQ(s.slot(1, 1, 3), 15u);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(s.col_idx[s.slot(1, 1, j)], a.col_idx[4 + j]);
  for (std::size_t k : {8u, 9u, 12u, 13u}) EXPECT_EQ(s.col_idx[k], -1) << k;
  // Slice 2: the missing row's slots are padding.
  EXPECT_EQ(s.col_idx[16], a.col_idx[8]);
  EXPECT_EQ(s.col_idx[17], a.col_idx[9]);
  EXPECT_EQ(s.col_idx[18], -1);
  EXPECT_EQ(s.col_idx[19], -1);
  EXPECT_EQ(sellp_slots({3, 1, 0, 4, 2}, SellpConfig{2, 2, 1}), 20);
}

// The permutation (a counting sort where a window's lengths span little, else a stable sort)
// and the slot counts (counted from the same histogram) against a stable sort of each window,
// on fresh random lengths: narrow spans, wide spans, short rows with a few long ones (sorted
// apart), windows past the end, one huge row.
TEST(Sellp, SortOrderAndSlotsMatchAStableSort) {
  std::mt19937_64 rng(testing::test_seed());
  for (int trial = 0; trial < 40; ++trial) {
    const auto rows = static_cast<std::size_t>(1 + rng() % 3000);
    const index_t span = trial % 3 == 0 ? 5 : trial % 3 == 1 ? 200 : 100000;
    std::vector<index_t> lengths(rows);
    for (auto& l : lengths) l = static_cast<index_t>(rng() % static_cast<std::uint64_t>(span));
    if (trial % 5 == 0) lengths[rng() % rows] = 1000000;
    // Short rows and a few long ones (rajat01's shape: the long rows sorted apart), some tied.
    if (trial % 4 == 3)
      for (auto& l : lengths) {
        l = static_cast<index_t>(rng() % 8);
        if (rng() % 48 == 0) l = static_cast<index_t>(256 + rng() % (2 * rows) / 4 * 4);
      }
    for (index_t sigma : {2, 8, 64, 512, 4096}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", span " + std::to_string(span) + ", sigma " +
                   std::to_string(sigma));
      std::vector<index_t> want(rows);
      std::iota(want.begin(), want.end(), index_t{0});
      for (std::size_t w = 0; w < rows; w += static_cast<std::size_t>(sigma))
        std::stable_sort(want.begin() + static_cast<std::ptrdiff_t>(w),
                         want.begin() + static_cast<std::ptrdiff_t>(
                                            std::min(rows, w + static_cast<std::size_t>(sigma))),
                         [&](index_t x, index_t y) { return lengths[x] > lengths[y]; });
      ASSERT_EQ(sellp_sort_order(lengths, sigma), want);
      for (int b : {1, 2, 32}) {
        if (sigma % b != 0) continue;
        std::int64_t slots = 0;
        for (std::size_t q = 0; q < rows; q += static_cast<std::size_t>(b))
          slots += std::int64_t{b} * ((lengths[want[q]] + 3) / 4 * 4);
        EXPECT_EQ(sellp_slots(lengths, SellpConfig{b, 4, sigma}), slots) << "b " << b;
      }
    }
  }
}

// The host counts' one pass over nested sorted windows (the rule's prefetch) gives
// sellp_slots' counts, window by window; windows that do not nest are left to sellp_slots.
TEST(Sellp, NestedWindowCountsMatchSellpSlots) {
  std::mt19937_64 rng(testing::test_seed());
  for (int trial = 0; trial < 40; ++trial) {
    const auto rows = static_cast<std::size_t>(1 + rng() % 5000);
    const index_t span = trial % 3 == 0 ? 5 : trial % 3 == 1 ? 300 : 20000;
    std::vector<index_t> lengths(rows);
    for (auto& l : lengths) l = static_cast<index_t>(rng() % static_cast<std::uint64_t>(span));
    if (trial % 5 == 0) lengths[rng() % rows] = static_cast<index_t>(4 * rows + 1000);  // too long
    const int b = trial % 2 == 0 ? 32 : 8, t = trial % 4 < 2 ? 1 : 4;
    const auto whole = static_cast<index_t>((rows + b - 1) / b * b);
    for (const std::vector<index_t>& sigmas :
         {std::vector<index_t>{8 * b, 64 * b, std::min<index_t>(512 * b, whole)},
          std::vector<index_t>{2 * b, 6 * b}, std::vector<index_t>{4 * b, 6 * b}}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", rows " + std::to_string(rows));
      const SellpRowCounts n = sellp_row_counts(lengths);
      std::vector<SellpConfig> asked;
      for (index_t sigma : sigmas) asked.push_back(SellpConfig{b, t, sigma});
      n.prefetch(asked);
      for (const SellpConfig& c : asked)
        EXPECT_EQ(n.slots(c), sellp_slots(lengths, c)) << "sigma " << c.sigma;
    }
  }
}

TEST(Sellp, SigmaPermutationRoundTrip) {
  const std::vector<index_t> lengths{1, 5, 3, 5, 2, 0, 7, 1};
  // Windows of 4: lengths 1 5 3 5 -> rows 1 3 2 0 (stable); 2 0 7 1 -> rows 6 4 7 5.
  EXPECT_EQ(sellp_sort_order(lengths, 4), (std::vector<index_t>{1, 3, 2, 0, 6, 4, 7, 5}));
  EXPECT_EQ(sellp_sort_order(lengths, 1), (std::vector<index_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Windows past the end are partial.
  EXPECT_EQ(sellp_sort_order({1, 2, 3}, 2), (std::vector<index_t>{1, 0, 2}));

  const Csr<double> a = with_lengths_exact(lengths, 12);
  const SellpData<double> s = sellp_pack(a, SellpConfig{2, 1, 4});
  EXPECT_EQ(s.perm, (std::vector<index_t>{1, 3, 2, 0, 6, 4, 7, 5}));
  // Sorting pads less: slices {5,5} {3,1} {7,2} {1,0} against {1,5} {3,5} {2,0} {7,1}.
  EXPECT_EQ(s.padded_slots(), 2 * (5 + 3 + 7 + 1));
  EXPECT_EQ(sellp_slots(lengths, SellpConfig{2, 1, 1}), 2 * (5 + 5 + 2 + 7));
  for (index_t p = 0; p < 8; ++p) {
    EXPECT_EQ(s.row_length[p], lengths[s.user_row(p)]);
    for (index_t j = 0; j < s.row_length[p]; ++j)
      EXPECT_EQ(s.col_idx[s.slot(p / 2, p % 2, j)], a.col_idx[a.row_ptr[s.user_row(p)] + j]);
  }
  // The product comes back in the user's order.
  testing::expect_spmv_matches_everywhere("sellp", a, Params::parse("slice_size=2,sigma=4"));
  // A larger irregular matrix, sorted in windows and fully.
  const Csr<double> b = matrix_with_lengths(
      2000, 900, [](index_t r) { return (r * 37) % 53 == 0 ? 400 : (r * 7) % 23; });
  std::vector<index_t> p = sellp_sort_order(row_lengths(b), 256);
  std::sort(p.begin(), p.end());
  std::vector<index_t> identity(2000);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(p, identity);
  for (const char* params :
       {"sigma=256", "sigma=2016", "sigma=64,slice_size=8,threads_per_row=4", "sigma=1"})
    testing::expect_spmv_matches_everywhere("sellp", b, Params::parse(params));
}

// The rule reads the rows through SellpRowCounts (slot counts of a few configurations) so the
// device build can count them on the GPU. Checked here on awkward and random lengths: the
// padding floor as the slots of one-row slices is the old sum of t-rounded lengths; the
// device's way of counting sorted slots (sort (window, longest - length) keys, read every b-th
// key) gives sellp_slots; and the sigma rule gives what it gave on the lengths (the old rule
// written out below).
index_t old_choose_sigma(const std::vector<index_t>& lengths, int b, int t) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  const auto up = [](std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; };
  std::int64_t lower = 0;
  for (index_t l : lengths) lower += up(l, t);
  SellpConfig c{b, t, 1};
  const std::int64_t unsorted = sellp_slots(lengths, c);
  if (lower == 0 || static_cast<double>(unsorted) <= 1.05 * static_cast<double>(lower)) return 1;
  std::vector<std::pair<index_t, std::int64_t>> candidates;
  for (std::int64_t m : {8, 64, 512}) {
    const std::int64_t sigma = std::min<std::int64_t>(m * b, up(rows, b));
    c.sigma = static_cast<index_t>(sigma);
    candidates.emplace_back(c.sigma, sellp_slots(lengths, c));
    if (sigma >= rows) break;
  }
  std::int64_t best = unsorted;
  for (const auto& [sigma, slots] : candidates) best = std::min(best, slots);
  const double good_enough = 1.05 * static_cast<double>(best);
  if (static_cast<double>(unsorted) <= good_enough) return 1;
  for (const auto& [sigma, slots] : candidates)
    if (static_cast<double>(slots) <= good_enough) return sigma;
  return candidates.back().first;
}

std::int64_t slots_by_sorted_keys(const std::vector<index_t>& lengths, const SellpConfig& c) {
  if (lengths.empty()) return 0;
  const std::uint64_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<std::uint64_t> key(lengths.size());
  for (std::size_t r = 0; r < lengths.size(); ++r)
    key[r] = r / static_cast<std::uint64_t>(c.sigma) * (longest + 1) + (longest - lengths[r]);
  std::sort(key.begin(), key.end());
  std::int64_t slots = 0;
  for (std::size_t p = 0; p < key.size(); p += static_cast<std::size_t>(c.slice_size)) {
    const auto len = static_cast<std::int64_t>(longest - key[p] % (longest + 1));
    slots += c.slice_size * ((len + c.threads_per_row - 1) / c.threads_per_row * c.threads_per_row);
  }
  return slots;
}

TEST(Sellp, RowCountsGiveTheLengthRulesAnswers) {
  std::mt19937 rng(1126);
  std::vector<std::vector<index_t>> cases = {{},
                                             {0},
                                             std::vector<index_t>(1000, 0),
                                             std::vector<index_t>(1000, 9),
                                             std::vector<index_t>(777, 40)};
  std::vector<index_t> huge(3000, 2);
  huge[1234] = 1000000;
  cases.push_back(huge);
  std::vector<index_t> zeros(4099, 0);
  for (std::size_t r = 0; r < zeros.size(); r += 61) zeros[r] = 1 + static_cast<index_t>(r % 29);
  cases.push_back(zeros);
  for (int k = 0; k < 10; ++k) {
    std::vector<index_t> v(1 + rng() % 6000);
    const index_t top = 1 + static_cast<index_t>(rng() % 2000);
    for (index_t& l : v) l = rng() % 20 == 0 ? static_cast<index_t>(rng() % top) : rng() % 8;
    cases.push_back(v);
  }
  for (const std::vector<index_t>& lengths : cases) {
    SCOPED_TRACE("rows=" + std::to_string(lengths.size()));
    for (int t : {1, 4, 32}) {
      std::int64_t lower = 0;
      for (index_t l : lengths) lower += (l + t - 1) / t * t;
      EXPECT_EQ(sellp_slots(lengths, SellpConfig{1, t, 1}), lower);
      for (int b : {1, 8, 256}) {
        EXPECT_EQ(sellp_choose_sigma(lengths, b, t), old_choose_sigma(lengths, b, t));
        for (index_t m : {1, 8, 64}) {
          const SellpConfig c{b, t, b * m};
          EXPECT_EQ(slots_by_sorted_keys(lengths, c), sellp_slots(lengths, c));
        }
      }
    }
  }
}

TEST(Sellp, RuleFromRowStatistics) {
  // Uniform rows of 27 (a 27-point stencil's interior): t = 1, b = 32, no sorting.
  SellpConfig c = sellp_default_config(std::vector<index_t>(10000, 27));
  EXPECT_EQ(c.threads_per_row, 1);
  EXPECT_EQ(c.slice_size, 32);
  EXPECT_EQ(c.sigma, 1);
  // Mean 77 (TSOPF-like): t = 4 (77/16 = 4.8), b = 32.
  c = sellp_default_config(std::vector<index_t>(5000, 77));
  EXPECT_EQ(c.threads_per_row, 4);
  EXPECT_EQ(c.slice_size, 32);
  // Mean 554 (human_gene1-like): t = 32, b = 8.
  c = sellp_default_config(std::vector<index_t>(3000, 554));
  EXPECT_EQ(c.threads_per_row, 32);
  EXPECT_EQ(c.slice_size, 8);
  // Mean 200: t = 8, b = 32.
  EXPECT_EQ(sellp_default_config(std::vector<index_t>(100, 200)).threads_per_row, 8);
  // Few long rows scattered among short ones: unsorted slices pad heavily, so sort.
  std::vector<index_t> skewed(20000);
  for (std::size_t r = 0; r < skewed.size(); ++r) skewed[r] = r % 50 == 0 ? 300 : 2 + r % 4;
  c = sellp_default_config(skewed);
  EXPECT_GT(c.sigma, 1);
  EXPECT_EQ(c.sigma % c.slice_size, 0);
  EXPECT_LT(sellp_slots(skewed, c),
            sellp_slots(skewed, SellpConfig{c.slice_size, c.threads_per_row, 1}) / 4);
  // Windows of length-sorted rows only help when padding is real: 7-point-stencil-like rows
  // (5..7 with boundaries every 12 rows) stay unsorted once padding is under 5%.
  std::vector<index_t> mild(64000, 7);
  for (std::size_t r = 0; r < mild.size(); r += 200) mild[r] = 6;
  EXPECT_EQ(sellp_default_config(mild).sigma, 1);
  // No rows.
  EXPECT_EQ(sellp_default_config(std::vector<index_t>{}).sigma, 1);

  // The builder reports the chosen parameters.
  const Csr<double> a = matrix_with_lengths(3000, 3000, [](index_t) { return 27; });
  const auto op = build_operator<double>("sellp", a, {}, Backend::cpu);
  EXPECT_NE(op->info().details.find("slice_size=32,threads_per_row=1,sigma=1"), std::string::npos)
      << op->info().details;
  // Overriding b re-derives sigma for the new b unless sigma is given.
  const auto op2 = build_operator<double>("sellp", a, Params::parse("slice_size=64"), Backend::cpu);
  EXPECT_NE(op2->info().details.find("slice_size=64,threads_per_row=1,sigma=1"), std::string::npos)
      << op2->info().details;
}

TEST(Sellp, ByteModel) {
  // Full slices, no padding: values and indices once (12 bytes an entry in double), plus
  // 12 bytes a slice (slice_ptr + slice_chunks).
  const Csr<double> a = matrix_with_lengths(64, 64, [](index_t) { return 8; });
  const SellpData<double> s = sellp_pack(a, SellpConfig{32, 2, 1});
  EXPECT_EQ(sellp_bytes(s, EllSkip::sentinel), 64u * 8u * 12u + 2u * 12u);
  EXPECT_EQ(sellp_bytes(s, EllSkip::row_length), 64u * 8u * 12u + 2u * 12u + 64u * 4u);
  EXPECT_EQ(sellp_choose_skip(s), EllSkip::sentinel);
  // Sorting adds the permutation (4 bytes a row).
  const SellpData<double> sorted = sellp_pack(a, SellpConfig{32, 2, 64});
  EXPECT_EQ(sellp_bytes(sorted, EllSkip::sentinel), 64u * 8u * 12u + 2u * 12u + 64u * 4u);
  // One long row in a slice: a sentinel pass reads every index sector of the slice, a
  // row_length pass only the sectors holding entries.
  const Csr<double> b = matrix_with_lengths(32, 400, [](index_t r) { return r == 0 ? 320 : 1; });
  const SellpData<double> g = sellp_pack(b, SellpConfig{32, 1, 1});
  EXPECT_EQ(g.padded_slots(), 32 * 320);
  EXPECT_LT(sellp_bytes(g, EllSkip::row_length), sellp_bytes(g, EllSkip::sentinel));
  EXPECT_EQ(sellp_choose_skip(g), EllSkip::row_length);
}

// The byte model's counts from the layout alone (what the device build of a small matrix uses,
// with no slot written) equal those counted from a pack's column indices, for every slice
// size and threads a row (chunks narrower than a 16-slot group included), sorted or not, on
// fresh random lengths with empty rows and one long row.
TEST(Sellp, FootprintFromTheLayoutMatchesThePack) {
  std::mt19937_64 rng(testing::test_seed());
  int compared = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const auto rows = static_cast<index_t>(1 + rng() % 300);
    std::vector<index_t> lengths(static_cast<std::size_t>(rows));
    for (index_t& l : lengths) l = rng() % 4 == 0 ? 0 : static_cast<index_t>(rng() % 40);
    lengths[rng() % lengths.size()] = trial % 2 == 0 ? 0 : 500;  // none, or one long row
    const Csr<double> a = with_lengths_exact(lengths, 600);
    for (int b = 1; b <= 64; b *= 2)
      for (int t = 1; t <= 32; t *= 2)
        for (const index_t sigma : {index_t{1}, static_cast<index_t>(b * 4)}) {
          const SellpConfig c{b, t, sigma};
          SCOPED_TRACE("rows " + std::to_string(rows) + " b " + std::to_string(b) + " t " +
                       std::to_string(t) + " sigma " + std::to_string(sigma));
          const SellpFootprint want = sellp_footprint(sellp_pack(a, c));
          const SellpFootprint got = sellp_footprint(sellp_slices(lengths, c), c);
          EXPECT_EQ(got.slices, want.slices);
          EXPECT_EQ(got.padded_slots, want.padded_slots);
          EXPECT_EQ(got.positions, want.positions);
          EXPECT_EQ(got.perm_rows, want.perm_rows);
          EXPECT_EQ(got.used_groups_4, want.used_groups_4);
          EXPECT_EQ(got.used_groups_8, want.used_groups_8);
          EXPECT_EQ(got.used_groups_16, want.used_groups_16);
          EXPECT_EQ(got.used_chunks, want.used_chunks);
          ++compared;
        }
  }
  EXPECT_EQ(compared, 6 * 7 * 6 * 2);
}

// A sorted layout placed from the rule's window counts (SellpRowCounts::windows, kept by its
// prefetch of nested sorted windows) is the layout sellp_slices sorts for itself: the same
// permutation, slice-order lengths, chunks and pointer, for sorting windows that are whole
// multiples of the counted windows or hold every row (the placement), and others (the sort), on
// fresh random lengths in runs, spread, with a few long rows, and all equal, rows not a
// multiple of the slice size nor of the windows.
TEST(Sellp, LayoutPlacedFromTheRulesWindowCountsMatchesTheSort) {
  std::mt19937_64 rng(testing::test_seed());
  int placed = 0, sorted = 0;
  for (int trial = 0; trial < 32; ++trial) {
    const auto rows = static_cast<index_t>(1 + rng() % (trial < 16 ? 700 : 9000));
    std::vector<index_t> lengths(static_cast<std::size_t>(rows));
    index_t run = 0;
    for (index_t& l : lengths) {
      switch (trial % 4) {
        case 0:  // runs of one length
          if (rng() % 8 == 0) run = static_cast<index_t>(rng() % 6);
          l = run;
          break;
        case 1:
          l = static_cast<index_t>(rng() % 60);
          break;
        case 2:  // a few long rows (at most 4 * rows: the counts' bound)
          l = static_cast<index_t>(rng() % 50 == 0 ? rng() % (4 * rows) : rng() % 12);
          break;
        default:
          l = 3;
      }
    }
    for (const int b : {8, 32})
      for (const int t : {1, 4}) {
        const SellpRowCounts n = sellp_row_counts(lengths);
        n.prefetch(
            {SellpConfig{b, t, 8 * b}, SellpConfig{b, t, 64 * b}, SellpConfig{b, t, 512 * b}});
        ASSERT_TRUE(n.windows);
        ASSERT_EQ(n.windows->window, 8 * b);
        const index_t all = (rows + b - 1) / b * b;
        for (const index_t sigma :
             {index_t{1}, static_cast<index_t>(8 * b), static_cast<index_t>(16 * b),
              static_cast<index_t>(64 * b), static_cast<index_t>(4 * b),
              static_cast<index_t>(24 * b), all}) {
          const SellpConfig c{b, t, sigma};
          SCOPED_TRACE("rows " + std::to_string(rows) + " b " + std::to_string(b) + " t " +
                       std::to_string(t) + " sigma " + std::to_string(sigma));
          const SellpSlices want = sellp_slices(lengths, c);
          const SellpSlices got = sellp_slices(lengths, c, n.windows.get());
          EXPECT_EQ(got.slices, want.slices);
          EXPECT_EQ(got.perm, want.perm);
          EXPECT_EQ(got.row_length, want.row_length);
          EXPECT_EQ(got.slice_chunks, want.slice_chunks);
          EXPECT_EQ(got.slice_ptr, want.slice_ptr);
          EXPECT_EQ(got.slice_ptr.back(), sellp_slots(lengths, c));
          if (sigma > 1 && (sigma % (8 * b) == 0 || sigma >= rows))
            ++placed;
          else if (sigma > 1)
            ++sorted;
        }
      }
  }
  EXPECT_GT(placed, 200);
  EXPECT_GT(sorted, 50);
}

TEST(Sellp, SixteenBitDeltasPerChunk) {
  // b = 2, t = 1: chunk 0 = [r0 e0 = 10, r1 e0 = 15], chunk 1 = [r0 e1 = 20, pad],
  // chunk 2 = [r2 e0 = 0, r3 e0 = 65534], chunk 3 = [r2 e1 = 65534, r3 e1 = 69999].
  const Csr<double> a = make_csr<double>(
      4, 70000, {0, 2, 3, 5, 7}, {10, 20, 15, 0, 65534, 65534, 69999}, {1, 2, 3, 4, 5, 6, 7});
  const SellpData<double> s = sellp_pack(a, SellpConfig{2, 1, 1});
  const std::optional<ColumnDeltas> d = sellp_column_deltas(s);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->base, (std::vector<index_t>{10, 20, 0, 65534}));
  EXPECT_EQ(d->delta, (std::vector<std::uint16_t>{0, 5, 0, delta_padding, 0, 65534, 0, 4465}));
  // One column more and chunk 2 spans 65535.
  const Csr<double> far = make_csr<double>(2, 70000, {0, 1, 2}, {0, 65535}, {1, 2});
  EXPECT_FALSE(sellp_column_deltas(sellp_pack(far, SellpConfig{2, 1, 1})).has_value());
  // Sorting changes which rows share a chunk, not the decoding.
  for (const char* p : {"slice_size=2,sigma=4,index_bits=16", "slice_size=2,index_bits=32",
                        "slice_size=2,threads_per_row=2"})
    testing::expect_spmv_matches_everywhere("sellp", a, Params::parse(p));
  testing::expect_spmv_matches_everywhere("sellp", far, {});
  if (cuda_available()) {
    EXPECT_THROW(
        build_operator<double>("sellp", far, Params::parse("index_bits=16"), Backend::cuda),
        UnsupportedError);
  }
  // Byte model with deltas: 2-byte indices, plus 4 bytes a chunk (b*t = 64 slots).
  const Csr<double> full = matrix_with_lengths(64, 64, [](index_t) { return 8; });
  const SellpData<double> f = sellp_pack(full, SellpConfig{32, 2, 1});
  EXPECT_EQ(sellp_bytes(f, EllSkip::sentinel, true), 64u * 8u * 10u + 2u * 12u + 32u);
}

TEST(Sellp, ParameterValidation) {
  const Csr<double> a = matrix_with_lengths(100, 100, [](index_t r) { return 1 + r % 5; });
  for (const char* bad : {"slice_size=3", "slice_size=0", "slice_size=2048", "threads_per_row=3",
                          "threads_per_row=64", "threads_per_row=0",
                          "slice_size=64,threads_per_row=32", "sigma=0", "sigma=-32", "sigma=33",
                          "slice_size=16,sigma=40", "max_fill=0.5", "skip=maybe", "index_bits=64"})
    testing::expect_bad_value("sellp", a, bad, Backend::cpu);
  EXPECT_THROW(build_operator<double>("sellp", a, Params::parse("rows_per_thread=2")),
               InputError);  // an ell parameter, unknown to sellp
  // The memory factor refuses heavy padding.
  const Csr<double> skew =
      matrix_with_lengths(64, 1000, [](index_t r) { return r == 0 ? 900 : 1; });
  EXPECT_THROW(
      build_operator<double>("sellp", skew, Params::parse("max_fill=4,sigma=1"), Backend::cpu),
      UnsupportedError);
  EXPECT_NO_THROW(
      build_operator<double>("sellp", skew, Params::parse("max_fill=64,sigma=1"), Backend::cpu));
}

TEST(Sellp, ExplicitConfigurationsMatchReference) {
  const Csr<double> a =
      matrix_with_lengths(3001, 4000, [](index_t r) { return r % 613 == 5 ? 2500 : (r * 5) % 70; });
  for (const char* p :
       {"slice_size=32,threads_per_row=1,sigma=1,skip=sentinel",
        "slice_size=32,threads_per_row=1,sigma=1,skip=row_length",
        "slice_size=8,threads_per_row=32,sigma=1024", "slice_size=1,threads_per_row=1",
        "slice_size=4,threads_per_row=2,sigma=8,skip=sentinel",
        "slice_size=32,threads_per_row=32,skip=row_length", "slice_size=1024,threads_per_row=1",
        "slice_size=16,threads_per_row=16,sigma=3008"})
    testing::expect_spmv_matches_everywhere("sellp", a, Params::parse(p));
}

}  // namespace
}  // namespace spmvkit
