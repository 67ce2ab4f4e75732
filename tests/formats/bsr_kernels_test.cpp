// BSR kernel tests: the thread mappings (paper eq. 2a/2b, K1 truncated warps, K3 working sets,
// the guarded shuffle tree), the kernel and parameter choice (Table I, tuning store, shipped
// defaults), and the tma kernel (tiles, rotated chunks; on the GPU over the zoo). The rest of
// the BSR tests: bsr_test.cpp.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "formats/bsr/bsr.hpp"
#include "formats/bsr/bsr_mapping.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/stats.hpp"
#include "spmvkit/tuning.hpp"
#include "spmvkit/vector.hpp"
#include "tests/common/check.hpp"
#include "tests/common/tuning_file.hpp"
#include "tests/common/zoo.hpp"
#include "tests/formats/bsr_testing.hpp"

namespace spmvkit {
namespace {

using bsr_testing::block_matrix;

// --- thread mappings ----------------------------------------------------------------------------

TEST(BsrMapping, K2EquationsAndSlices) {
  // Paper Fig. 6: bs = 7, N_tg = 4 -> ept_max = 2, threshold = 1; 5.3: bs = 17, N_tg = 4 ->
  // ept_max = 5, threshold = 3.
  EXPECT_EQ(bsr::k2_ept_max(7, 4), 2);
  EXPECT_EQ(bsr::k2_threshold(7, 4), 1);
  EXPECT_EQ(bsr::k2_ept_max(17, 4), 5);
  EXPECT_EQ(bsr::k2_threshold(17, 4), 3);
  for (int bs = 1; bs <= 512; ++bs)
    for (int n_tg = 1; n_tg <= 32 && n_tg <= bs; n_tg *= 2) {
      const int ept_max = bsr::k2_ept_max(bs, n_tg);
      std::vector<int> seen(static_cast<std::size_t>(bs), 0);
      for (int g = 0; g < n_tg; ++g) {
        int count = 0;
        for (int e = 0; e < ept_max; ++e) {
          const int col = bsr::k2_column(n_tg, g, e);
          // The kernel relies on a group's real columns being its first ones.
          ASSERT_EQ(col < bs, e < bsr::k2_group_columns(bs, n_tg, g)) << bs << " " << n_tg;
          if (col < bs) {
            ++seen[static_cast<std::size_t>(col)];
            ++count;
          }
        }
        // Groups >= threshold hold ept_max columns, the others ept_max - 1 (eq. 2b).
        ASSERT_EQ(count, bsr::k2_group_columns(bs, n_tg, g)) << bs << " " << n_tg << " " << g;
        ASSERT_EQ(count, g >= bsr::k2_threshold(bs, n_tg) ? ept_max : ept_max - 1);
      }
      for (int col = 0; col < bs; ++col) ASSERT_EQ(seen[col], 1) << bs << " " << n_tg;
      if (ept_max <= 16) {
        const int inst = bsr::k2_ept_instance(ept_max);
        EXPECT_GE(inst, ept_max);
        if (ept_max <= 9) {
          EXPECT_EQ(inst, ept_max);  // no registers held by idle slots
        }
        EXPECT_TRUE(bsr::k2_has_instance(1, inst, 1, 8));
      }
    }
}

TEST(BsrMapping, K1TruncatedWarpCoversItsBlocks) {
  for (int bs = 1; bs <= 5; ++bs) {
    const int nnzb = bsr::k1_blocks_per_warp(bs);
    EXPECT_EQ(nnzb, 32 / (bs * bs));
    EXPECT_EQ(bsr::k1_thread_groups(bs), nnzb * bs);  // paper: N_tg = floor(32/bs^2) * bs
    std::set<std::tuple<int, int, int>> seen;
    for (int lane = 0; lane < bsr::k1_active_lanes(bs); ++lane) {
      const int b = bsr::k1_block(bs, lane), i = bsr::k1_row(bs, lane),
                j = bsr::k1_column(bs, lane);
      ASSERT_LT(b, nnzb);
      // Column-major: lane's value is element j*bs + i of block b, i.e. the lane-th value.
      ASSERT_EQ(b * bs * bs + j * bs + i, lane);
      seen.insert({b, i, j});
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(nnzb * bs * bs));
  }
  EXPECT_EQ(bsr::k1_active_lanes(3), 27);  // paper Fig. 5: three 3x3 blocks per warp
}

TEST(BsrMapping, K3WorkingSetsCoverEveryColumn) {
  for (int bs : {12, 17, 31, 45, 64, 100, 333})
    for (int value_bytes : {4, 8})
      for (const BsrPolicy& p : bsr_tuning_candidates(BsrKernel::k3, bs, value_bytes)) {
        std::vector<int> seen(static_cast<std::size_t>(bs), 0);
        const int w = p.n_tg * p.ept;
        for (int c0 = 0; c0 < bs; c0 += w)
          for (int g = 0; g < p.n_tg; ++g)
            for (int e = 0; e < p.ept; ++e) {
              const int col = bsr::k3_column(c0, p.ept, g, e);
              if (col < bs) ++seen[static_cast<std::size_t>(col)];
            }
        for (int col = 0; col < bs; ++col) ASSERT_EQ(seen[col], 1) << bs << " " << p.to_params();
      }
}

TEST(BsrMapping, GuardedShuffleTreeSumsAnyLaneCount) {
  // Emulates the warp: at step h every lane reads lane + h*stride (shfl_down), and adds it when
  // tree_step_adds. Lanes 0..stride-1 must end with the sums of their rows.
  for (int stride = 1; stride <= 32; ++stride)
    for (int count = 1; stride * count <= 32; ++count) {
      std::vector<long long> v(32);
      for (int l = 0; l < 32; ++l) v[l] = l < stride * count ? (1LL << l) : 999999;
      for (int h = bsr::pow2_ceil(count) / 2; h >= 1; h /= 2) {
        std::vector<long long> next = v;
        for (int l = 0; l < 32; ++l) {
          const long long other = l + h * stride < 32 ? v[l + h * stride] : v[l];
          if (bsr::tree_step_adds(l, stride, count, h)) next[l] = v[l] + other;
        }
        v = next;
      }
      for (int i = 0; i < stride; ++i) {
        long long want = 0;
        for (int q = 0; q < count; ++q) want += 1LL << (i + q * stride);
        ASSERT_EQ(v[i], want) << "stride " << stride << " count " << count << " row " << i;
      }
    }
}

// --- kernel and parameter choice ----------------------------------------------------------------

TEST(BsrPolicy, RuleFollowsThePaperRanges) {
  EXPECT_EQ(bsr_rule_kernel(1), BsrKernel::k1);
  EXPECT_EQ(bsr_rule_kernel(5), BsrKernel::k1);
  EXPECT_EQ(bsr_rule_kernel(6), BsrKernel::k2);
  EXPECT_EQ(bsr_rule_kernel(44), BsrKernel::k2);
  EXPECT_EQ(bsr_rule_kernel(45), BsrKernel::k3);
  const BsrPolicy k2_7 = bsr_rule_policy(BsrKernel::k2, 7, 8);  // the paper's Fig. 6 shape
  EXPECT_EQ(k2_7.n_tg, 4);
  EXPECT_EQ(k2_7.vec, 1);
  const BsrPolicy k2_16 = bsr_rule_policy(BsrKernel::k2, 16, 8);
  EXPECT_EQ(k2_16.vec, 2);  // 16-byte loads
  for (int bs = 1; bs <= 200; ++bs)
    for (int value_bytes : {4, 8}) {
      SCOPED_TRACE("bs " + std::to_string(bs));
      EXPECT_NO_THROW(validate_bsr_policy(bsr_rule_policy(bsr_rule_kernel(bs), bs, value_bytes), bs,
                                          value_bytes));
      if (bs <= 128)
        EXPECT_NO_THROW(
            validate_bsr_policy(bsr_rule_policy(BsrKernel::k2, bs, value_bytes), bs, value_bytes));
      else
        EXPECT_THROW(bsr_rule_policy(BsrKernel::k2, bs, value_bytes), InputError);
      EXPECT_NO_THROW(
          validate_bsr_policy(bsr_rule_policy(BsrKernel::k3, bs, value_bytes), bs, value_bytes));
      const BsrPolicy chosen = choose_bsr_policy("", bs, value_bytes, {});
      EXPECT_EQ(chosen.source, "rule");
    }
}

TEST(BsrPolicy, CandidatesRespectTableI) {
  for (int bs = 1; bs <= 64; ++bs)
    for (int value_bytes : {4, 8}) {
      SCOPED_TRACE("bs " + std::to_string(bs));
      for (BsrKernel kernel : {BsrKernel::k1, BsrKernel::k2, BsrKernel::k3, BsrKernel::tma}) {
        const auto candidates = bsr_tuning_candidates(kernel, bs, value_bytes);
        const bool expected = kernel == BsrKernel::k1   ? bs <= 5
                              : kernel == BsrKernel::k2 ? bs >= 2
                              : kernel == BsrKernel::k3 ? bs >= 12
                                                        : bs <= kBsrTmaMaxBlockSize;
        if (expected) {
          EXPECT_FALSE(candidates.empty()) << bsr_kernel_name(kernel);
        }
        std::set<std::string> unique;
        for (const BsrPolicy& p : candidates) {
          EXPECT_NO_THROW(validate_bsr_policy(p, bs, value_bytes));
          EXPECT_TRUE(unique.insert(p.to_params()).second) << p.to_params();
          if (kernel == BsrKernel::k2) {
            EXPECT_LE(p.n_tg, bs);
            // Packing only where an array is not whole warps, and then few idle lanes.
            const int array = bsr::k2_array_threads(bs, p.vec, p.n_tg);
            const int threads = bsr::k2_block_threads(bs, p.vec, p.n_tg, p.pack, p.n_ta);
            if (p.pack == 1) {
              EXPECT_NE(array % 32, 0) << p.to_params();
              EXPECT_GE(8 * p.n_ta * array, 7 * threads) << p.to_params();
            }
          }
          if (kernel == BsrKernel::k3) {
            // Table I, or one working set as wide as the block with a column in every group.
            if (p.n_tg * p.ept > p.nb) {
              EXPECT_GE(p.n_tg * p.ept, bs) << p.to_params();
              EXPECT_LT((p.n_tg - 1) * p.ept, bs) << p.to_params();
            }
            EXPECT_LE(p.nb, bs);
          }
        }
      }
    }
}

using testing::ScopedTuningFile;

// A shipped entry that does not parse or validate is skipped at run time (the next source
// wins), so a bad line would go unnoticed: every one must be taken.
TEST(BsrPolicy, EveryShippedEntryIsTaken) {
  ScopedTuningFile file;  // an empty store
  int entries = 0;
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"})
    for (int bs = 1; bs <= 64; ++bs)
      for (int value_bytes : {4, 8})
        for (BsrKernel kernel : {BsrKernel::k1, BsrKernel::k2, BsrKernel::k3, BsrKernel::tma}) {
          const auto value = bsr_shipped_default(device, bsr_tuning_key(kernel, bs, value_bytes));
          if (!value) continue;
          ++entries;
          SCOPED_TRACE(std::string(device) + " bs " + std::to_string(bs) + " " + *value);
          const BsrPolicy p =
              choose_bsr_policy(device, bs, value_bytes,
                                Params::parse(std::string("kernel=") + bsr_kernel_name(kernel)));
          EXPECT_EQ(p.source, "shipped+params");
        }
  EXPECT_GT(entries, 200);
}

TEST(BsrPolicy, StoreThenShippedThenRule) {
  ScopedTuningFile file;
  EXPECT_EQ(bsr_tuning_key(BsrKernel::k2, 7, 8), "bsr.k2.bs7.f64");
  EXPECT_EQ(bsr_kernel_key(7, 4), "bsr.bs7.f32");

  // Shipped defaults for the H100 and H200 families.
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const BsrPolicy p = choose_bsr_policy(device, 7, 8, {});
    EXPECT_EQ(p.source, "shipped") << device;
    EXPECT_NO_THROW(validate_bsr_policy(p, 7, 8));
  }
  EXPECT_EQ(choose_bsr_policy("Some Other GPU", 7, 8, {}).source, "rule");

  // A measured entry for this exact device wins; explicit parameters win over it.
  tuning_put("Test GPU X", "bsr.bs7.f64", "kernel=k3,gbs=1.0");
  tuning_put("Test GPU X", "bsr.k3.bs7.f64", "nb=7,n_tg=1,ept=4,gbs=1.0");
  BsrPolicy p = choose_bsr_policy("Test GPU X", 7, 8, {});
  EXPECT_EQ(p.kernel, BsrKernel::k3);
  EXPECT_EQ(p.nb, 7);
  EXPECT_EQ(p.n_tg, 1);
  EXPECT_EQ(p.ept, 4);
  EXPECT_EQ(p.source, "store");
  p = choose_bsr_policy("Test GPU X", 7, 8, Params::parse("n_tg=2,ept=2"));
  EXPECT_EQ(p.n_tg, 2);
  EXPECT_EQ(p.ept, 2);
  EXPECT_EQ(p.source, "store+params");
  p = choose_bsr_policy("Test GPU X", 7, 8, Params::parse("kernel=k2"));
  EXPECT_EQ(p.kernel, BsrKernel::k2);
  EXPECT_EQ(p.source, "rule+params");

  // Stale entries (violating Table I, or a kernel that cannot take the block size) are skipped.
  tuning_put("Test GPU Y", "bsr.k2.bs7.f64", "n_tg=16");
  tuning_put("Test GPU Y", "bsr.bs6.f64", "kernel=k1");
  EXPECT_EQ(choose_bsr_policy("Test GPU Y", 7, 8, {}).source, "rule");
  EXPECT_EQ(choose_bsr_policy("Test GPU Y", 6, 8, {}).kernel, BsrKernel::k2);
}

// K2 keeps its tuned rows an array (n_brows_ta) on block rows like the tuning matrix's (regular,
// enough of them for four thread blocks an SM), and takes one row an array elsewhere; where a
// tma policy is offered (bs 6-9), too few block rows take it instead.
TEST(BsrPolicy, K2FittedToTheBlockRows) {
  BsrPolicy p = bsr_rule_policy(BsrKernel::k2, 11, 8);
  p.n_ta = 4;
  p.n_brows_ta = 2;
  p.source = "shipped";
  const int sms = 132;
  const std::function<BsrPolicy()> none;
  const BsrRowStats reservoir{117649, 7, 6.9, 0.06};
  BsrPolicy q = bsr_fit_rows(p, reservoir, sms, none, false);
  EXPECT_EQ(q.n_brows_ta, 2);
  EXPECT_EQ(q.source, "shipped");

  BsrRowStats irregular = reservoir;
  irregular.cv = 1.1;
  q = bsr_fit_rows(p, irregular, sms, none, false);
  EXPECT_EQ(q.n_brows_ta, 1);
  EXPECT_EQ(q.source, "shipped+rows");
  EXPECT_NO_THROW(validate_bsr_policy(q, 11, 8));
  EXPECT_EQ(bsr_fit_rows(p, irregular, sms, none, true).n_brows_ta, 2);  // explicit n_brows_ta
  irregular.cv = kBsrRegularRowsCv;  // at the bound: still regular
  EXPECT_EQ(bsr_fit_rows(p, irregular, sms, none, false).n_brows_ta, 2);

  // Four thread blocks of 4 x 2 block rows an SM: 4224 block rows are enough, 4216 are not.
  BsrRowStats few = reservoir;
  few.block_rows = 4 * sms * 8;
  EXPECT_EQ(bsr_fit_rows(p, few, sms, none, false).n_brows_ta, 2);
  few.block_rows -= 8;
  EXPECT_EQ(bsr_fit_rows(p, few, sms, none, false).n_brows_ta, 1);
  few.block_rows = 0;  // an empty matrix
  EXPECT_EQ(bsr_fit_rows(p, few, sms, none, false).n_brows_ta, 1);

  // tma where K2 at one row an array would have fewer than four thread blocks an SM (4 x 1
  // block rows each: 527 of them hold up to 2108 block rows), whatever the rows an array asked.
  const std::function<BsrPolicy()> t = [] {
    BsrPolicy tma = bsr_rule_policy(BsrKernel::tma, 7, 8);
    tma.source = "shipped";
    return tma;
  };
  few.block_rows = 2108;
  q = bsr_fit_rows(p, few, sms, t, true);
  EXPECT_EQ(q.kernel, BsrKernel::tma);
  EXPECT_EQ(q.source, "shipped+rows");
  EXPECT_NO_THROW(validate_bsr_policy(q, 7, 8));
  few.block_rows = 2109;
  q = bsr_fit_rows(p, few, sms, t, false);
  EXPECT_EQ(q.kernel, BsrKernel::k2);
  EXPECT_EQ(q.n_brows_ta, 1);  // but too few for two rows an array
  int asked = 0;               // the tma policy is asked for only where it is taken
  const std::function<BsrPolicy()> counted = [&] {
    ++asked;
    return t();
  };
  q = bsr_fit_rows(p, reservoir, sms, counted, false);
  EXPECT_EQ(q.kernel, BsrKernel::k2);
  EXPECT_EQ(q.n_brows_ta, 2);
  EXPECT_EQ(asked, 0);

  // Other kernels, and K2 at one row an array already, as they were.
  const BsrRowStats few_irregular{1000, 50, 12, 2.0};
  BsrPolicy k1 = bsr_rule_policy(BsrKernel::k1, 3, 8);
  k1.source = "shipped";
  q = bsr_fit_rows(k1, few_irregular, sms, t, false);
  EXPECT_EQ(q.kernel, BsrKernel::k1);
  EXPECT_EQ(q.n_brows_ta, k1.n_brows_ta);
  EXPECT_EQ(q.source, "shipped");
  p.n_brows_ta = 1;
  EXPECT_EQ(bsr_fit_rows(p, few_irregular, sms, none, false).source, "shipped");
}

// bsr_kernel_policy is choose_bsr_policy's lookup for a kernel: the shipped entry where there is
// one, else the rule.
TEST(BsrPolicy, KernelPolicyLooksUpTheKernelsEntry) {
  ScopedTuningFile file;
  const BsrPolicy t = bsr_kernel_policy("NVIDIA H200", BsrKernel::tma, 7, 8);
  EXPECT_EQ(t.kernel, BsrKernel::tma);
  EXPECT_EQ(t.source, "shipped");
  EXPECT_NO_THROW(validate_bsr_policy(t, 7, 8));
  EXPECT_EQ(bsr_kernel_policy("Some Other GPU", BsrKernel::tma, 7, 8).source, "rule");
  const BsrPolicy k2 = bsr_kernel_policy("NVIDIA H200", BsrKernel::k2, 7, 8);
  const BsrPolicy chosen = choose_bsr_policy("NVIDIA H200", 7, 8, {});
  EXPECT_EQ(chosen.kernel, BsrKernel::k2);
  EXPECT_EQ(k2.to_params(), chosen.to_params());
}

// --- the tma kernel ----------------------------------------------------------------------------

TEST(BsrTma, TilesHoldWholeRowsWithinCapacity) {
  // Rows of 3, 0, 5, 2, 4 blocks; capacity 6 blocks, 2 rows.
  const std::vector<index_t> row_ptr = {0, 3, 3, 8, 10, 14};
  EXPECT_EQ(bsr_tma_tiles(row_ptr, 6, 2), (std::vector<index_t>{0, 2, 3, 5}));
  EXPECT_EQ(bsr_tma_tiles(row_ptr, 100, 100), (std::vector<index_t>{0, 5}));
  EXPECT_EQ(bsr_tma_tiles(row_ptr, 5, 100), (std::vector<index_t>{0, 2, 3, 4, 5}));
  EXPECT_TRUE(bsr_tma_tiles(row_ptr, 4, 100).empty());             // the 5-block row fits no tile
  EXPECT_EQ(bsr_tma_tiles({0}, 4, 4), (std::vector<index_t>{0}));  // no rows, no tiles
  // Capacities in blocks: 16 KB of values.
  EXPECT_EQ(bsr_tma_tile_blocks(2, 8, 16), 512);
  EXPECT_EQ(bsr_tma_tile_blocks(8, 4, 16), 64);
  EXPECT_EQ(bsr_tma_tile_blocks(8, 8, 4), 8);
}

// Builds `bsr` and `bsr_balanced` with `p` on the GPU and checks each against the float64
// reference, with `unaligned_x` also on an x that is not 16-byte aligned. Returns how many were
// built (blocks that would store too many explicit zeros are refused).
int check_bsr_on_gpu(const Csr<double>& a, const Params& p, std::uint64_t seed, bool unaligned_x) {
  int built = 0;
  for (const char* format : {"bsr", "bsr_balanced"}) {
    std::unique_ptr<Operator<double>> op;
    try {
      op = build_operator<double>(format, a, p, Backend::cuda);
    } catch (const UnsupportedError&) {
      continue;
    }
    testing::expect_operator_matches(*op, a, Backend::cuda, seed);
    if (unaligned_x) testing::expect_operator_matches(*op, a, Backend::cuda, seed + 7, 1);
    ++built;
  }
  return built;
}

// A test a block size (the sanitizer sweep's shards spread them).
class BsrTmaZoo : public ::testing::TestWithParam<int> {};
TEST_P(BsrTmaZoo, TmaKernelOnTheZoo) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int bs = GetParam();
  int checked = 0;
  for (const std::string& name : testing::zoo_names())
    for (int whole : {0, 1, 2}) {
      if (whole == 2 && bsr_tma_part_rows(bs) == 0) continue;
      Params p = Params::parse("kernel=tma");
      p.set("block_size", std::to_string(bs));
      p.set("whole", std::to_string(whole));
      SCOPED_TRACE(name + " " + p.to_string());
      const Csr<double>& a = testing::zoo_matrix(name);
      // whole=1 and 2 take 16-byte loads of x where x is aligned: also an x that is not.
      checked += check_bsr_on_gpu(a, p, testing::test_seed() + bs, whole != 0);
      // float: float2 / float4 loads of x and blocks (whole=1, 2), and the scalar paths.
      if (bs == 2 || bs == 3 || bs == 4 || whole == 2) {
        const Csr<float> af = a.cast<float>();
        try {
          const auto op = build_operator<float>("bsr", af, p, Backend::cuda);
          testing::expect_operator_matches(*op, af, Backend::cuda, testing::test_seed() + 99);
          testing::expect_operator_matches(*op, af, Backend::cuda, testing::test_seed() + 98, 1);
        } catch (const UnsupportedError&) {
        }
      }
      if (::testing::Test::HasFailure()) return;
    }
  EXPECT_GT(checked, 2);
}
INSTANTIATE_TEST_SUITE_P(BsrCuda, BsrTmaZoo, ::testing::Values(1, 2, 3, 4, 6, 7, 8, 9),
                         [](const auto& info) { return "bs" + std::to_string(info.param); });

// tma where a thread block takes several tiles (tiles t, t + grid, ...): the zoo's matrices are
// small (one tile or none for most thread blocks). A 50^3 reservoir grid at bs 2 in 4 KB tiles
// has about three times as many tiles as an H100 has resident thread blocks; a 20^3 grid at bs 9
// in 8 KB tiles (one or two block rows a tile) has more still, for whole=2's parts.
TEST(BsrCuda, TmaSeveralTilesABlock) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const int bs : {2, 9}) {
    const Csr<double> a = generate_reservoir(bs == 2 ? 50 : 20, bs, testing::test_seed());
    for (int whole : {0, bs == 2 ? 1 : 2})
      for (int stages : {2, 3})
        for (int lanes : {0, 1, 32}) {  // 32: a warp an item, most lanes idle
          Params p = Params::parse("kernel=tma,threads=128");
          p.set("block_size", std::to_string(bs));
          p.set("tile_kb", bs == 2 ? "4" : "8");  // 8 KB: 12 blocks, a 7-block row fits
          p.set("whole", std::to_string(whole));
          p.set("stages", std::to_string(stages));
          p.set("lanes", std::to_string(lanes));
          SCOPED_TRACE(p.to_string());
          EXPECT_EQ(check_bsr_on_gpu(a, p, testing::test_seed() + stages, false), 2);
        }
  }
}

// K2 with packed thread arrays (pack=1): arrays straddle warps and reach their row ends at
// different times (the zoo's empty block rows and one huge row), against the padded layout's
// shapes. n_ta = 3 leaves a partial array's worth of idle lanes at the end of the block.
// A test a shape (the sanitizer sweep's shards spread them).
class BsrK2Packed : public ::testing::TestWithParam<const char*> {};
TEST_P(BsrK2Packed, K2PackedOnTheZoo) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  int checked = 0;
  for (const std::string& name : testing::zoo_names())
    for (const char* layout : {"n_ta=12,n_brows_ta=3", "n_ta=3,n_brows_ta=1"}) {
      Params p = Params::parse(std::string("kernel=k2,pack=1,") + GetParam() + "," + layout);
      SCOPED_TRACE(name + " " + p.to_string());
      checked +=
          check_bsr_on_gpu(testing::zoo_matrix(name), p, testing::test_seed() + checked, false);
      if (::testing::Test::HasFailure()) return;
    }
  EXPECT_GT(checked, 2);
}
INSTANTIATE_TEST_SUITE_P(BsrCuda, BsrK2Packed,
                         ::testing::Values("block_size=5,n_tg=2,vec=1,ilp=2",
                                           "block_size=9,n_tg=2,vec=1,ilp=1",
                                           "block_size=9,n_tg=4,vec=1,ilp=4",
                                           "block_size=10,n_tg=4,vec=2,ilp=2",
                                           "block_size=17,n_tg=4,vec=1,ilp=1"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(BsrTma, RotatedValuesKeepEveryChunk) {
  // 3 x 3 blocks of 4 x 4 doubles (8 chunks of 2 values each): chunk j of block k moves to
  // (j + r(k)) mod 8; bs 3 in double has no rotation (a plain copy).
  const Bsr<double> m = csr_to_bsr(block_matrix(4, false, 11), 4);
  const std::vector<double> rot = bsr_tma_rotated_values(m);
  ASSERT_EQ(rot.size(), m.values.size());
  const auto blocks = static_cast<std::int64_t>(m.values.size() / 16);
  ASSERT_GT(blocks, 8);
  int moved = 0;
  for (std::int64_t k = 0; k < blocks; ++k) {
    const int r = bsr_tma_rotation(k, 8);
    moved += r != 0;
    for (int j = 0; j < 8; ++j)
      for (int q = 0; q < 2; ++q)
        ASSERT_EQ(rot[k * 16 + (j + r) % 8 * 2 + q], m.values[k * 16 + j * 2 + q]) << k << " " << j;
  }
  EXPECT_GT(moved, 0);
  const Bsr<double> m3 = csr_to_bsr(block_matrix(3, false, 12), 3);
  EXPECT_EQ(bsr_tma_rotated_values(m3), m3.values);
}

TEST(BsrTma, RotatedChunksSpreadOverTheBanks) {
  EXPECT_EQ(bsr_tma_rotation_chunks(2, 8), 2);  // 32-byte blocks
  EXPECT_EQ(bsr_tma_rotation_chunks(4, 8), 8);  // 128-byte blocks
  EXPECT_EQ(bsr_tma_rotation_chunks(4, 4), 4);
  EXPECT_EQ(bsr_tma_rotation_chunks(2, 4), 1);  // one chunk
  EXPECT_EQ(bsr_tma_rotation_chunks(3, 8), 1);  // 72 bytes: no whole chunks
  EXPECT_EQ(bsr_tma_rotation_chunks(6, 8), 1);  // 18 chunks
  // 8 neighbouring blocks (a quarter warp's 16-byte reads) reading the same chunk j land on 8
  // different 16-byte bank groups of a 128-byte row.
  for (int chunks : {2, 4, 8})
    for (std::int64_t first : {0, 8, 40})
      for (int j = 0; j < chunks; ++j) {
        std::set<std::int64_t> groups;
        for (std::int64_t k = first; k < first + 8; ++k)
          groups.insert((k * chunks + (j + bsr_tma_rotation(k, chunks)) % chunks) % 8);
        EXPECT_EQ(groups.size(), 8u) << chunks << " chunks, chunk " << j << ", from " << first;
      }
}

}  // namespace
}  // namespace spmvkit
