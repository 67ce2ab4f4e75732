// BSR tests: CSR -> BSR conversion (padding, both layouts, fill), block-size detection,
// balanced-BSR segments and the balancing / lambda rules, parameter validation, the byte model,
// and a correctness sweep over every block size 1..64 on block matrices with rectangular padded
// grids, empty block rows, not-full blocks and a long block row, against the float64 reference (CPU
// always; CUDA with every kernel when a GPU is present).
#include "formats/bsr/bsr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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
#include "tests/formats/bsr_testing.hpp"

#if SPMVKIT_HAVE_CUDA
#include "backend/cuda/device_csr.hpp"
#include "formats/common/bsr_blocks_cuda.hpp"
#endif

namespace spmvkit {
namespace {

using bsr_testing::block_matrix;

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

// Every kernel's boundary block sizes (K1 up to 5, K2 from 2, K3 from 12, tma up to 9), in
// double; float on two of them. A test a block size (the sanitizer sweep's shards spread them).
class BsrTuningCandidates : public ::testing::TestWithParam<int> {};
TEST_P(BsrTuningCandidates, EveryCandidateIsCorrect) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int bs = GetParam();
  check_all_candidates<double>(bs);
  if (bs == 3 || bs == 12) check_all_candidates<float>(bs);
}
INSTANTIATE_TEST_SUITE_P(BsrCuda, BsrTuningCandidates,
                         ::testing::Values(1, 2, 3, 5, 6, 7, 9, 12, 17, 32, 45, 64),
                         [](const auto& info) { return "bs" + std::to_string(info.param); });

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

// --- the conversion on the device -------------------------------------------------------------

// The first `rows` rows of a (a last block row of fewer than bs rows).
Csr<double> first_rows(const Csr<double>& a, index_t rows) {
  const auto end = static_cast<std::size_t>(a.row_ptr[rows]);
  return make_csr<double>(rows, a.cols, {a.row_ptr.begin(), a.row_ptr.begin() + rows + 1},
                          {a.col_idx.begin(), a.col_idx.begin() + end},
                          {a.values.begin(), a.values.begin() + end});
}

struct ConversionCase {
  std::string name;
  Csr<double> a;
  int bs;
  bool full;  // made of full bs x bs blocks: csr_to_bsr_device's scatter without a sort
};

// Matrices for both ways of csr_to_bsr_device: full blocks (square and with a last block row
// of fewer rows, empty block rows, a long block row, bs up to 64) and the sorted fallback (not
// full blocks, a partial last block column, misaligned runs, rows of one block row with
// different columns, an empty row in a block row, bs 65, 1 x 1). Columns are sorted in every
// device CSR (build_operator refuses others: DeviceBuild.BadDeviceCsrIsRefused).
std::vector<ConversionCase> conversion_cases() {
  std::vector<ConversionCase> cases;
  const std::uint64_t seed = testing::test_seed();
  for (int bs : {2, 3, 5, 7, 16, 64}) {
    const Csr<double> full = block_matrix(bs, true, seed + bs);
    const std::string b = "bs" + std::to_string(bs);
    cases.push_back({"full_" + b, full, bs, true});
    cases.push_back({"full_short_last_" + b, first_rows(full, full.rows - 1), bs, true});
    cases.push_back({"not_full_" + b, block_matrix(bs, false, seed + bs), bs, false});
  }
  const Csr<double> full4 = block_matrix(4, true, seed + 4);
  cases.push_back({"full4_as_bs2", full4, 2, true});
  cases.push_back({"full2_as_bs4", block_matrix(2, true, seed + 2), 4, false});
  cases.push_back({"full2_as_bs3", block_matrix(2, true, seed + 2), 3, false});
  cases.push_back({"full_bs65", block_matrix(65, true, seed + 65), 65, false});
  // 4 x 6, bs 2, rows of equal lengths in full aligned runs. Block row 0: row 0 at block
  // column 0, row 1 at block column 1; block row 1: both rows at block columns 0 and 2.
  cases.push_back({"rows_differ",
                   make_csr<double>(4, 6, {0, 2, 4, 8, 12}, {0, 1, 2, 3, 0, 1, 4, 5, 0, 1, 4, 5},
                                    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                   2, false});
  // 4 x 4, bs 2: block row 0 full; block row 1: row 2 empty, row 3 at block column 1.
  cases.push_back({"empty_row",
                   make_csr<double>(4, 4, {0, 4, 8, 8, 10}, {0, 1, 2, 3, 0, 1, 2, 3, 2, 3},
                                    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
                   2, false});
  // Block row 0 full; block row 1: an empty block row; rows 4 and 5 the same columns, but row
  // 4's run misaligned (columns 1, 2).
  cases.push_back({"misaligned_run",
                   make_csr<double>(6, 4, {0, 2, 4, 4, 4, 6, 8}, {2, 3, 2, 3, 1, 2, 1, 2},
                                    {1, 2, 3, 4, 5, 6, 7, 8}),
                   2, false});
  cases.push_back({"one_by_one_bs1", testing::zoo_matrix("one_by_one"), 1, false});
  cases.push_back({"one_by_one_bs2", testing::zoo_matrix("one_by_one"), 2, false});
  for (const char* m : {"empty_0x0", "no_entries_50x70", "empty_rows", "rect_wide", "rect_tall",
                        "random_2000", "blocks_bs3", "blocks_bs7_rect", "dense_96"})
    for (int bs : {1, 2, 3})
      cases.push_back(
          {std::string(m) + "_bs" + std::to_string(bs), testing::zoo_matrix(m), bs, false});
  return cases;
}

// csr_to_bsr_device gives csr_to_bsr's arrays bit for bit, or its refusal; detect_block_size_device
// gives detect_block_size. The cases said to be full are (checked on the host, GPU or not).
TEST(BsrConversion, DeviceMatchesHostBitForBit) {
  const std::vector<ConversionCase> cases = conversion_cases();
  int full = 0;
  for (const auto& c : cases) {
    if (!c.full) continue;
    SCOPED_TRACE(c.name);
    const Bsr<double> m = csr_to_bsr(c.a, c.bs);
    // Full blocks: every stored value an entry, but for the padded rows of a last block row.
    const index_t pad_rows = m.block_rows * c.bs - c.a.rows;
    const std::int64_t last_blocks = m.nnzb() - m.block_row_ptr[m.block_rows - 1];
    EXPECT_EQ(static_cast<std::int64_t>(m.values.size()),
              c.a.nnz() + last_blocks * pad_rows * c.bs);
    full += c.a.rows % c.bs != 0 && last_blocks > 0;
  }
  EXPECT_GT(full, 0) << "no full case with a last block row of fewer rows";
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (the host checks of the cases passed)";
#if SPMVKIT_HAVE_CUDA
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(c.a);
    EXPECT_EQ(detect_block_size_device(d.view()), detect_block_size(c.a));
    Bsr<double> h;
    try {
      h = csr_to_bsr(c.a, c.bs);
    } catch (const UnsupportedError&) {
      EXPECT_THROW(csr_to_bsr_device(d.view(), c.bs, 0), UnsupportedError);
      continue;
    }
    const DeviceBsrBlocks<double> g = csr_to_bsr_device(d.view(), c.bs, 64);
    EXPECT_EQ(g.block_rows, h.block_rows);
    EXPECT_EQ(g.block_cols, h.block_cols);
    ASSERT_EQ(g.nnzb(), h.nnzb());
    std::vector<index_t> row_ptr = g.row_ptr.download(), col_idx = g.col_idx.download();
    std::vector<double> values = g.values.download();
    row_ptr.resize(h.block_row_ptr.size());
    col_idx.resize(h.block_col_idx.size());
    values.resize(h.values.size());
    EXPECT_EQ(row_ptr, h.block_row_ptr);
    EXPECT_EQ(col_idx, h.block_col_idx);
    EXPECT_TRUE(values.empty() ||
                std::memcmp(values.data(), h.values.data(), values.size() * sizeof(double)) == 0)
        << "values differ";
  }
#endif
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

TEST(BsrBalanced, K3SplitsLongRowsOnFewWaves) {
  // watt_2 expanded by 16 on an H200 (1,856 block rows, mean 6.1, longest 128; K3's 4,224
  // thread blocks at once): w = 2 x 11,360 / 4,224 = 5.4 -> lambda 4.
  BsrRowStats st;
  st.block_rows = 1856;
  st.mean = 11360.0 / 1856;
  st.max_len = 128;
  st.cv = 0.5;
  const std::int64_t resident = 132 * 32;
  EXPECT_EQ(bsr_k3_lambda(st, 16, 16, resident), std::optional<index_t>(4));
  // Thread blocks a kernel row (nb < bs) count: 2 x 2 x 11,360 / 4,224 = 10.8 -> lambda 8.
  EXPECT_EQ(bsr_k3_lambda(st, 16, 8, resident), std::optional<index_t>(8));
  // w just under the bound: lambda 16, taken where the longest row is over 32 blocks.
  st.mean = 31.9 * resident / 2 / st.block_rows;
  st.max_len = 33;
  EXPECT_EQ(bsr_k3_lambda(st, 16, 16, resident), std::optional<index_t>(16));
  st.max_len = 32;
  EXPECT_FALSE(bsr_k3_lambda(st, 16, 16, resident).has_value());
  // Past the bound, many waves: the other rules decide.
  st.max_len = 128;
  st.mean = (kBsrK3FewWaves + 0.5) * resident / 2 / st.block_rows;
  EXPECT_FALSE(bsr_k3_lambda(st, 16, 16, resident).has_value());
  // No row longer than kBsrK3SplitFrom blocks: nothing to split.
  st.mean = 6;
  st.max_len = kBsrK3SplitFrom;
  EXPECT_FALSE(bsr_k3_lambda(st, 16, 16, resident).has_value());
  st.max_len = kBsrK3SplitFrom + 1;
  EXPECT_EQ(bsr_k3_lambda(st, 16, 16, resident), std::optional<index_t>(4));
  EXPECT_FALSE(bsr_k3_lambda(st, 16, 16, 0).has_value());  // no occupancy known
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

}  // namespace
}  // namespace spmvkit
