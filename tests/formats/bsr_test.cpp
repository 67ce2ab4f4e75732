// BSR-specific tests: CSR -> BSR conversion (padding, both layouts, fill), block-size detection,
// balanced-BSR segments and the balancing / lambda rules, the kernels' thread mappings (paper
// eq. 2a/2b, K1 truncated warps, K3 working sets, the guarded shuffle tree), the parameter rule,
// validation (Table I), tuning-store and shipped-default lookups, the byte model, and a
// correctness sweep over every block size 1..64 on block matrices with rectangular padded grids,
// empty block rows, not-full blocks and a long block row, against the float64 reference (CPU
// always; CUDA with every kernel when a GPU is present).
#include "formats/bsr/bsr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>

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

namespace spmvkit {
namespace {

// --- test matrices ------------------------------------------------------------------------------

// A block matrix for block size bs, made here by expanding a random block pattern:
// - a rectangular grid of block_rows x (block_rows + 3) blocks, block_rows = max(4, 192 / bs);
// - every 5th block row empty; block row 1 holds every block column (a long row, which
//   balanced BSR splits); the others 1..4 random distinct block columns;
// - `full`: dense blocks, rows and cols exact multiples of bs. Otherwise about a third of each
//   block's entries are dropped (the first always kept) and rows / cols are cut to
//   non-multiples of bs, so the last block row and column are padded.
Csr<double> block_matrix(int bs, bool full, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const index_t block_rows = std::max(4, 192 / bs);
  const index_t block_cols = block_rows + 3;
  const index_t cut_rows = full || bs == 1 ? 0 : 1 + static_cast<index_t>(rng() % (bs - 1));
  const index_t cut_cols = full || bs == 1 ? 0 : 1 + static_cast<index_t>(rng() % (bs - 1));
  Coo<double> coo;
  coo.rows = block_rows * bs - cut_rows;
  coo.cols = block_cols * bs - cut_cols;
  for (index_t br = 0; br < block_rows; ++br) {
    std::set<index_t> cols;
    if (br == 1) {
      for (index_t bc = 0; bc < block_cols; ++bc) cols.insert(bc);
    } else if (br % 5 != 0) {
      const int n = 1 + static_cast<int>(rng() % 4);
      while (static_cast<int>(cols.size()) < n)
        cols.insert(static_cast<index_t>(rng() % block_cols));
    }
    for (index_t bc : cols)
      for (int i = 0; i < bs; ++i)
        for (int j = 0; j < bs; ++j) {
          const index_t r = br * bs + i, c = bc * bs + j;
          if (r >= coo.rows || c >= coo.cols) continue;
          if (!full && (i + j) > 0 && rng() % 3 == 0) continue;
          coo.row_idx.push_back(r);
          coo.col_idx.push_back(c);
          coo.values.push_back(value(rng));
        }
  }
  return to_csr(coo, "bsr test matrix");
}

// --- every block size 1..64 ---------------------------------------------------------------------

struct SweepCase {
  int bs;
  Backend backend;
  bool dbl;
};

std::vector<SweepCase> sweep_cases() {
  std::vector<SweepCase> cases;
  for (Backend backend : {Backend::cpu, Backend::cuda}) {
    if (backend == Backend::cuda && !cuda_compiled()) continue;  // (no GPU: listed, skipped)
    for (int bs = 1; bs <= 64; ++bs)
      for (bool dbl : {false, true}) cases.push_back({bs, backend, dbl});
  }
  return cases;
}

std::string sweep_name(const ::testing::TestParamInfo<SweepCase>& info) {
  const SweepCase& c = info.param;
  return "bs" + std::to_string(c.bs) + "_" + std::string(to_string(c.backend)) +
         (c.dbl ? "_f64" : "_f32");
}

class BsrBlockSizeSweep : public ::testing::TestWithParam<SweepCase> {};

// For one block size: bsr and bsr_balanced (lambda = 2: most rows split), on a full block
// matrix and on a padded one with not-full blocks; on CUDA with the kernel the rule / tuning
// picks and with each kernel that can take bs forced.
template <class V>
void run_sweep(const SweepCase& c) {
  if (c.backend == Backend::cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device";
  SCOPED_TRACE("seed " + std::to_string(testing::test_seed()));
  std::vector<std::string> kernels = {""};
  if (c.backend == Backend::cuda) {
    if (c.bs <= 5) kernels.push_back("k1");
    kernels.push_back("k2");
    kernels.push_back("k3");
  }
  for (bool full : {false, true}) {
    const std::uint64_t seed =
        testing::test_seed() ^ (static_cast<std::uint64_t>(c.bs) << 32) ^ (full ? 1 : 0);
    const Csr<V> a = block_matrix(c.bs, full, seed).template cast<V>();
    for (const char* format : {"bsr", "bsr_balanced"})
      for (const std::string& kernel : kernels) {
        SCOPED_TRACE(std::string(format) + (full ? " full" : " padded") + " kernel " +
                     (kernel.empty() ? "default" : kernel));
        Params p;
        p.set("block_size", std::to_string(c.bs));
        if (std::string(format) == "bsr_balanced") p.set("lambda", "2");
        if (!kernel.empty()) p.set("kernel", kernel);
        const auto op = build_operator<V>(format, a, p, c.backend);
        ASSERT_EQ(op->rows(), a.rows);
        ASSERT_EQ(op->cols(), a.cols);
        ASSERT_EQ(op->info().nnz, a.nnz());
        EXPECT_EQ(op->info().details.rfind("bs=" + std::to_string(c.bs) + ",", 0), 0u)
            << op->info().details;
        testing::expect_operator_matches(*op, a, c.backend, seed + 1);
      }
  }
}

TEST_P(BsrBlockSizeSweep, MatchesFloat64Reference) {
  if (GetParam().dbl)
    run_sweep<double>(GetParam());
  else
    run_sweep<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Bsr, BsrBlockSizeSweep, ::testing::ValuesIn(sweep_cases()), sweep_name);

// Every configuration the autotuner may pick, on the GPU: all K1/K2/K3 instances that the
// search space reaches for a spread of block sizes.
template <class V>
void check_all_candidates(int bs) {
  const int value_bytes = static_cast<int>(sizeof(V));
  const Csr<V> a = block_matrix(bs, false, testing::test_seed() + bs).template cast<V>();
  int checked = 0;
  // n_ta only changes how many arrays share a thread block (packed arrays straddling warps with
  // 2, 3 and 12 arrays a block: K2PackedOnTheZoo).
  std::set<std::string> seen;
  for (BsrKernel kernel : {BsrKernel::k1, BsrKernel::k2, BsrKernel::k3, BsrKernel::tma}) {
    const auto candidates = bsr_tuning_candidates(kernel, bs, value_bytes);
    const int checked_before = checked;
    for (const BsrPolicy& c : candidates) {
      BsrPolicy key = c;
      key.n_ta = 1;
      if (!seen.insert(std::string(bsr_kernel_name(kernel)) + key.to_params()).second) continue;
      Params p = Params::parse(c.to_params());
      p.set("kernel", bsr_kernel_name(kernel));
      p.set("block_size", std::to_string(bs));
      for (const char* format : {"bsr", "bsr_balanced"}) {
        SCOPED_TRACE(std::string(format) + " " + p.to_string());
        if (std::string(format) == "bsr_balanced") p.set("lambda", "3");
        std::unique_ptr<Operator<V>> op;
        try {
          op = build_operator<V>(format, a, p, Backend::cuda);
        } catch (const UnsupportedError&) {
          continue;  // over this device's per-kernel thread limit (registers): the tuner skips it
                     // too
        }
        testing::expect_operator_matches(*op, a, Backend::cuda, testing::test_seed() + checked);
        ++checked;
      }
      if (::testing::Test::HasFailure()) return;  // one report is enough
    }
    // Every kernel the tuner tries at this bs was run at least once.
    if (!candidates.empty()) {
      EXPECT_GT(checked, checked_before) << bsr_kernel_name(kernel);
    }
  }
}

TEST(BsrCuda, EveryTuningCandidateIsCorrect) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  // Every kernel's boundary block sizes (K1 up to 5, K2 from 2, K3 from 12, tma up to 9), in
  // double; float on two of them.
  for (int bs : {1, 2, 3, 5, 6, 7, 9, 12, 17, 32, 45, 64}) {
    SCOPED_TRACE("bs " + std::to_string(bs));
    check_all_candidates<double>(bs);
    if (bs == 3 || bs == 12) check_all_candidates<float>(bs);
  }
}

// --- conversion ---------------------------------------------------------------------------------

// 5 x 7 with bs = 2: 3 x 4 blocks, the last block row and column padded.
Csr<double> small_matrix() {
  Coo<double> coo;
  coo.rows = 5;
  coo.cols = 7;
  const index_t r[] = {0, 0, 1, 2, 4, 4}, c[] = {0, 3, 1, 6, 2, 6};
  for (int k = 0; k < 6; ++k) {
    coo.row_idx.push_back(r[k]);
    coo.col_idx.push_back(c[k]);
    coo.values.push_back(k + 1.0);
  }
  return to_csr(coo, "small");
}

TEST(BsrConversion, PadsAndFillsBothLayouts) {
  const Csr<double> a = small_matrix();
  const Bsr<double> m = csr_to_bsr(a, 2, BlockLayout::column_major);
  EXPECT_EQ(m.block_rows, 3);
  EXPECT_EQ(m.block_cols, 4);
  EXPECT_EQ(m.block_row_ptr, (std::vector<index_t>{0, 2, 3, 5}));
  EXPECT_EQ(m.block_col_idx, (std::vector<index_t>{0, 1, 3, 1, 3}));
  // (0,0)=1 (0,3)=2 (1,1)=3 (2,6)=4 (4,2)=5 (4,6)=6, blocks column-major.
  EXPECT_EQ(m.values,
            (std::vector<double>{1, 0, 0, 3, 0, 0, 2, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(m.fill_ratio(), 20.0 / 6.0);
  const Bsr<double> rm = csr_to_bsr(a, 2, BlockLayout::row_major);
  EXPECT_EQ(rm.values,
            (std::vector<double>{1, 0, 0, 3, 0, 2, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0}));
  EXPECT_THROW(csr_to_bsr(a, 0), InputError);
  EXPECT_THROW(csr_to_bsr(a, kBsrMaxBlockSize + 1), InputError);
}

TEST(BsrConversion, RefusesAFillWithoutBlockStructure) {
  // Scattered entries: 64 x 64 blocks would store ~4096 values per entry.
  Coo<double> coo;
  coo.rows = coo.cols = 20000;
  std::mt19937_64 rng(1);
  for (index_t r = 0; r < coo.rows; ++r)
    for (int k = 0; k < 2; ++k) {
      coo.row_idx.push_back(r);
      coo.col_idx.push_back(static_cast<index_t>(rng() % 20000));
      coo.values.push_back(1.0);
    }
  const Csr<double> a = to_csr(coo, "scattered");
  EXPECT_THROW(csr_to_bsr(a, 64), UnsupportedError);
  EXPECT_THROW(build_operator<double>("bsr", a, Params::parse("block_size=64"), Backend::cpu),
               UnsupportedError);
}

TEST(BsrConversion, RowMajorAndSegmentsOnTheCpuKernel) {
  for (int bs : {1, 2, 3, 5, 8, 13}) {
    SCOPED_TRACE("bs " + std::to_string(bs));
    const Csr<double> a = block_matrix(bs, false, testing::test_seed() + 7 * bs);
    for (BlockLayout layout : {BlockLayout::row_major, BlockLayout::column_major})
      for (bool balanced : {false, true}) {
        const Bsr<double> m = csr_to_bsr(a, bs, layout);
        const BsrSegments s = make_bsr_segments(m.block_row_ptr, 2);
        std::vector<double> partials(static_cast<std::size_t>(s.partial_slots()) * bs);
        std::mt19937_64 rng(testing::test_seed());
        const auto x = testing::random_vector(a.cols, rng);
        const auto y = testing::random_vector(a.rows, rng);
        std::vector<double> z(a.rows, std::numeric_limits<double>::quiet_NaN());
        bsr_spmv_cpu(m, balanced ? &s : nullptr, x.data(), y.data(), z.data(), 1.5, -0.5,
                     partials.data());
        EXPECT_LE(relative_error(z, reference_spmv(a, x, y, 1.5, -0.5)),
                  testing::spmv_tolerance<double>(a));
      }
  }
}

// --- block-size detection -----------------------------------------------------------------------

TEST(BsrBuild, UsesTheDetectedBlockSize) {
  // Block tridiagonal, 3 x 3 blocks, 10 block rows: bs = 3 is the only candidate.
  Coo<double> coo;
  coo.rows = coo.cols = 30;
  for (index_t br = 0; br < 10; ++br)
    for (index_t bc = std::max(0, br - 1); bc <= std::min(9, br + 1); ++bc)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          coo.row_idx.push_back(br * 3 + i);
          coo.col_idx.push_back(bc * 3 + j);
          coo.values.push_back(1.0 + i + j);
        }
  const Csr<double> a = to_csr(coo, "block tridiagonal");
  ASSERT_EQ(detect_block_size(a), 3);
  auto op = build_operator<double>("bsr", a, {}, Backend::cpu);
  EXPECT_EQ(op->info().details.rfind("bs=3,", 0), 0u) << op->info().details;
  EXPECT_NE(op->info().details.find("fill=1.000"), std::string::npos) << op->info().details;

  // No dense blocks: 1 x 1 blocks.
  op = build_operator<double>("bsr", testing::zoo_matrix("random_2000"), {}, Backend::cpu);
  EXPECT_EQ(op->info().details.rfind("bs=1,", 0), 0u) << op->info().details;

  // A full block matrix of any bs detects a multiple of it (a coarser grid can fit by chance).
  for (int bs : {2, 5, 7, 16}) {
    const Csr<double> b = block_matrix(bs, true, testing::test_seed() + bs);
    EXPECT_EQ(detect_block_size(b) % bs, 0) << "bs " << bs;
  }
}

TEST(BsrBuild, RejectsBadParameters) {
  const Csr<double> a7 = block_matrix(7, true, 3);
  const auto build = [&](const std::string& params) {
    return build_operator<double>("bsr", a7, Params::parse(params), Backend::cpu);
  };
  EXPECT_THROW(build("block_size=0"), InputError);
  EXPECT_THROW(build("block_size=5000"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=k4"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=k1"), InputError);  // K1: bs <= 5
  EXPECT_THROW(build("block_size=7,n_tg=3"), InputError);     // power of two
  EXPECT_THROW(build("block_size=7,n_tg=8"), InputError);     // Table I: N_tg <= bs
  EXPECT_THROW(build("block_size=7,vec=2"), InputError);      // 2 does not divide 7
  EXPECT_THROW(build("block_size=7,ilp=3"), InputError);
  EXPECT_THROW(build("block_size=7,nb=4"), InputError);            // K3's, not K2's
  EXPECT_THROW(build("block_size=7,kernel=k3,nb=8"), InputError);  // Table I: nb <= bs
  // N_tg*ept <= nb, or every group has a column: 3 groups of 4 leave the third without one.
  EXPECT_THROW(build("block_size=7,kernel=k3,nb=4,n_tg=3,ept=4"), InputError);
  EXPECT_NO_THROW(build("block_size=7,kernel=k3,nb=4,n_tg=2,ept=4"));
  EXPECT_THROW(build("block_size=7,kernel=k3,nb=7,n_tg=1,ept=9"), InputError);  // ept <= 8
  EXPECT_THROW(build("block_size=7,n_ta=0"), InputError);
  EXPECT_THROW(build("lambda=0"), InputError);
  EXPECT_THROW(build("balanced=maybe"), InputError);
  EXPECT_THROW(build_operator<double>("bsr_balanced", a7, Params::parse("balanced=1")),
               InputError);  // not a parameter of bsr_balanced
  EXPECT_NO_THROW(build("block_size=7,kernel=k3,nb=7,n_tg=1,ept=4"));
  EXPECT_NO_THROW(build("block_size=7,n_tg=2,ilp=1,vec=1,n_ta=3,n_brows_ta=5"));
  // tma's whole: 0, 1, or 2 from bs 6 (tma itself: bs <= 9), and a tma parameter only.
  EXPECT_THROW(build("block_size=10,kernel=tma,whole=1"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=tma,whole=3"), InputError);
  EXPECT_NO_THROW(build("block_size=7,kernel=tma,whole=2"));
  EXPECT_THROW(build("block_size=7,kernel=tma,lanes=3"), InputError);
  EXPECT_NO_THROW(build("block_size=7,kernel=tma,lanes=0"));
  EXPECT_NO_THROW(build("block_size=7,kernel=tma,lanes=16"));
  EXPECT_THROW(build("block_size=7,kernel=tma,lanes=64"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=k2,lanes=2"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=k2,whole=0"), InputError);
  // K2's pack: a flag, a K2 parameter only, and the packed thread block within 1024 threads.
  EXPECT_THROW(build("block_size=7,kernel=k2,pack=2"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=tma,pack=1"), InputError);
  EXPECT_THROW(build("block_size=7,kernel=k2,n_tg=4,vec=1,pack=1,n_ta=64"), InputError);
  EXPECT_NO_THROW(build("block_size=7,kernel=k2,n_tg=4,vec=1,pack=1,n_ta=32"));  // 896 threads
  EXPECT_NO_THROW(build("block_size=7,kernel=tma,whole=0"));
  const Csr<double> a4 = block_matrix(4, true, 5);
  EXPECT_NO_THROW(build_operator<double>(
      "bsr", a4, Params::parse("block_size=4,kernel=tma,whole=1"), Backend::cpu));
  EXPECT_THROW(build_operator<double>("bsr", a4, Params::parse("block_size=4,kernel=tma,whole=2"),
                                      Backend::cpu),
               InputError);  // whole=2 from bs 6
}

// --- the byte model -----------------------------------------------------------------------------

TEST(BsrBuild, ByteModel) {
  const Csr<double> a = small_matrix();
  auto op = build_operator<double>("bsr", a, Params::parse("block_size=2"), Backend::cpu);
  // 5 blocks of 4 doubles, 5 block columns, 4 block-row pointers.
  EXPECT_EQ(op->info().matrix_bytes, 5u * 4 * 8 + 5 * 4 + 4 * 4);
  op = build_operator<double>("bsr_balanced", a, Params::parse("block_size=2,lambda=1"),
                              Backend::cpu);
  // Block rows of 2, 1, 2 blocks, lambda 1: 5 segments (6 pointers, 5 targets), 2 split rows
  // (3 slot pointers).
  EXPECT_EQ(op->info().matrix_bytes, 5u * 4 * 8 + 5 * 4 + (6 + 5 + 2 + 3) * 4);
  EXPECT_NE(op->info().details.find("segments=5,split_rows=2"), std::string::npos)
      << op->info().details;
}

// --- balanced BSR -------------------------------------------------------------------------------

TEST(BsrBalanced, SegmentsFollowLambda) {
  // Block-row lengths 0, 3, 10, 1, 7, 4 with lambda = 3.
  const std::vector<index_t> ptr = {0, 0, 3, 13, 14, 21, 25};
  const BsrSegments s = make_bsr_segments(ptr, 3);
  EXPECT_EQ(s.segment_block_ptr,
            (std::vector<index_t>{0, 0, 3, 6, 9, 11, 13, 14, 17, 19, 21, 23, 25}));
  EXPECT_EQ(s.segment_out, (std::vector<index_t>{0, 1, -1, -2, -3, -4, 3, -5, -6, -7, -8, -9}));
  EXPECT_EQ(s.split_rows, (std::vector<index_t>{2, 4, 5}));
  EXPECT_EQ(s.segment_ptr, (std::vector<index_t>{0, 4, 7, 9}));
  EXPECT_EQ(s.max_split, 4);
  EXPECT_EQ(s.partial_slots(), 9);
  for (index_t q = 0; q < s.segments(); ++q)
    EXPECT_LE(s.segment_block_ptr[q + 1] - s.segment_block_ptr[q], 3);
  EXPECT_THROW(make_bsr_segments(ptr, 0), InputError);
}

TEST(BsrBalanced, LambdaAndBalancingRules) {
  std::vector<index_t> uniform = {0};
  for (int i = 0; i < 1000; ++i) uniform.push_back(uniform.back() + 7);
  const BsrRowStats u = bsr_row_stats(uniform);
  EXPECT_EQ(u.max_len, 7);
  EXPECT_DOUBLE_EQ(u.mean, 7.0);
  EXPECT_EQ(bsr_choose_lambda(7, u), 16);  // the paper's value
  EXPECT_EQ(bsr_choose_lambda(3, u), 32);  // K1 blocks: more per segment
  EXPECT_FALSE(bsr_balance_pays(u, 16));

  std::vector<index_t> skewed = {0};
  for (int i = 0; i < 1000; ++i) skewed.push_back(skewed.back() + (i == 500 ? 5000 : 3));
  const BsrRowStats k = bsr_row_stats(skewed);
  EXPECT_GE(k.cv, 1.0);
  EXPECT_TRUE(bsr_balance_pays(k, bsr_choose_lambda(7, k)));

  std::vector<index_t> long_mean = {0};
  for (int i = 0; i < 100; ++i) long_mean.push_back(long_mean.back() + 20);
  EXPECT_EQ(bsr_choose_lambda(7, bsr_row_stats(long_mean)), 32);  // keep ordinary rows whole
}

TEST(BsrBalanced, BsrBalancesItselfWhenItPays) {
  // bs = 2, 400 block rows of 3 blocks and one of 4000.
  Coo<double> coo;
  coo.rows = 802;
  coo.cols = 8000;
  for (index_t br = 0; br < 401; ++br) {
    const index_t len = br == 200 ? 4000 : 3;
    for (index_t q = 0; q < len; ++q)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          coo.row_idx.push_back(br * 2 + i);
          coo.col_idx.push_back(((br * 7 + q * 13) % 4000) * 2 + j);
          coo.values.push_back(0.5 + i - j);
        }
  }
  Csr<double> a = to_csr(coo, "skewed");
  auto op = build_operator<double>("bsr", a, {}, Backend::cpu);
  EXPECT_NE(op->info().details.find("balanced=1,lambda=32"), std::string::npos)
      << op->info().details;
  testing::expect_operator_matches(*op, a, Backend::cpu, 5);
  op = build_operator<double>("bsr", a, Params::parse("balanced=off"), Backend::cpu);
  EXPECT_NE(op->info().details.find("balanced=0"), std::string::npos) << op->info().details;

  // 24 block rows, the longest 27 blocks: not over 2 * lambda (16).
  const Csr<double> uniform = block_matrix(8, true, 11);
  Params p3 = Params::parse("block_size=8");
  EXPECT_NE(build_operator<double>("bsr", uniform, p3)->info().details.find("balanced=0"),
            std::string::npos);
  EXPECT_NE(build_operator<double>("bsr_balanced", uniform, p3)->info().details.find("balanced=1"),
            std::string::npos);
}

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

TEST(BsrCuda, TmaKernelOnTheZoo) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  int checked = 0;
  for (const std::string& name : testing::zoo_names())
    for (int bs : {1, 2, 3, 4, 6, 7, 8, 9})
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
  EXPECT_GT(checked, 50);
}

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
TEST(BsrCuda, K2PackedOnTheZoo) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  int checked = 0;
  for (const std::string& name : testing::zoo_names())
    for (const char* shape : {"block_size=5,n_tg=2,vec=1,ilp=2", "block_size=9,n_tg=2,vec=1,ilp=1",
                              "block_size=9,n_tg=4,vec=1,ilp=4", "block_size=10,n_tg=4,vec=2,ilp=2",
                              "block_size=17,n_tg=4,vec=1,ilp=1"})
      for (const char* layout : {"n_ta=12,n_brows_ta=3", "n_ta=3,n_brows_ta=1"}) {
        Params p = Params::parse(std::string("kernel=k2,pack=1,") + shape + "," + layout);
        SCOPED_TRACE(name + " " + p.to_string());
        checked +=
            check_bsr_on_gpu(testing::zoo_matrix(name), p, testing::test_seed() + checked, false);
        if (::testing::Test::HasFailure()) return;
      }
  EXPECT_GT(checked, 50);
}

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
