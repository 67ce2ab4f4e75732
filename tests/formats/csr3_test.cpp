// CSR-3 specifics: the paper's heuristic (table-driven), the Hopper table, parameter rules,
// structure invariants of the built format, the internal reordering, the byte model, the
// tuner's candidate grid and rule fit. SpMV correctness over the zoo is the registry suite's.
#include "formats/csr3/csr3.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <tuple>

#include "formats/csr/csr.hpp"
#include "formats/csr3/csr3_tune.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/reorder.hpp"
#include "tests/common/zoo.hpp"

#if SPMVKIT_HAVE_CUDA
#include <cstring>
#include <regex>

#include "backend/cuda/device_csr.hpp"
#include "tests/common/check.hpp"
#endif

namespace spmvkit {
namespace {

// The paper's "Heuristic Algorithm for Runtime Parameters", evaluated by hand for the
// densities of its test matrices and around each threshold.
struct PaperCase {
  double d;
  Csr3Kernel kernel;
  index_t ssr, sr;
  int x, y, z;
};

TEST(Csr3Rule, PaperHeuristicTable) {
  const auto S = Csr3Kernel::serial, P = Csr3Kernel::parallel;
  const std::vector<PaperCase> cases = {
      // d <= 8: serial, 8x12x1, ssr = round(3.333 + 20/(d ln d)), sr = round(.667 ssr + 2.667)
      {2.0, S, 18, 15, 8, 12, 1},   // 3.333 + 14.427 = 17.76
      {2.75, S, 11, 10, 8, 12, 1},  // roadNet-TX: 10.52 -> 11; 9.99 -> 10
      {3.0, S, 9, 9, 8, 12, 1},     // hugetric: 9.40 -> 9; 8.67 -> 9
      {4.0, S, 7, 7, 8, 12, 1},     // 6.94 -> 7; 7.34 -> 7
      {4.83, S, 6, 7, 8, 12, 1},    // G3_circuit: 5.96 -> 6; 6.67 -> 7
      {6.0, S, 5, 6, 8, 12, 1},     // delaunay_n20: 5.19 -> 5; 6.00 -> 6
      {8.0, S, 5, 6, 8, 12, 1},     // threshold is strict: d > 8
      // 8 < d <= 16: parallel, ssr *= 2, sr += 2, 4x8x12
      {8.5, P, 8, 7, 4, 8, 12},    // 4.43 -> 4 -> 8; 5.34 -> 5 -> 7
      {11.7, P, 8, 7, 4, 8, 12},   // brack2
      {13.55, P, 8, 7, 4, 8, 12},  // wave
      {16.0, P, 8, 7, 4, 8, 12},
      // 16 < d <= 32: sr += 1, x = 8, z = 8
      {16.3, P, 8, 8, 8, 8, 8},  // packing-500x100x100
      {32.0, P, 8, 8, 8, 8, 8},
      // 32 < d <= 64: ssr += 1, sr -= 1, x = 16, z = 4
      {33.0, P, 9, 7, 16, 8, 4},  // 3.506 -> 4 -> 8 -> 9; 5.335 -> 5 -> 7 -> 8 -> 7
      {43.7, P, 7, 7, 16, 8, 4},  // Emilia_923: 3.45 -> 3 -> 6 -> 7; 4.67 -> 5 -> 7 -> 8 -> 7
      {64.0, P, 7, 7, 16, 8, 4},
      // d > 64: sr += 1, x = 32, y = 2
      {71.5, P, 7, 8, 32, 2, 4},  // bmwcra_1
      {1000.0, P, 7, 8, 32, 2, 4},
  };
  for (const PaperCase& c : cases) {
    SCOPED_TRACE("d = " + std::to_string(c.d));
    const Csr3Params p = csr3_paper_rule(c.d);
    EXPECT_EQ(p.kernel, c.kernel);
    EXPECT_EQ(p.super_super_row_size, c.ssr);
    EXPECT_EQ(p.super_row_size, c.sr);
    EXPECT_EQ(p.block_x, c.x);
    EXPECT_EQ(p.block_y, c.y);
    EXPECT_EQ(p.block_z, c.z);
    EXPECT_EQ(p.reorder, Csr3Reorder::band);  // the paper's own ordering
    EXPECT_EQ(p.rule, Csr3Rule::paper);
    EXPECT_NO_THROW(csr3_validate(p));  // the paper's shapes are all launchable
  }
}

TEST(Csr3Rule, PaperFormulaOutsideItsDomainIsClamped) {
  // d ln d <= 0 for d <= 1: evaluated at d = 2 (documented guard).
  for (double d : {0.0, 0.5, 1.0, 1.5}) {
    const Csr3Params p = csr3_paper_rule(d), q = csr3_paper_rule(2.0);
    EXPECT_EQ(p.super_super_row_size, q.super_super_row_size) << d;
    EXPECT_EQ(p.super_row_size, q.super_row_size) << d;
    EXPECT_EQ(p.kernel, Csr3Kernel::serial);
  }
}

TEST(Csr3Rule, HopperTableIsOrderedAndValid) {
  const auto& t = csr3_hopper_table();
  ASSERT_FALSE(t.empty());
  EXPECT_TRUE(std::isinf(t.back().max_density));
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(t[i - 1].max_density, t[i].max_density);
    }
    const Csr3Params p = csr3_rule_from_table(t, t[i].max_density);
    EXPECT_NO_THROW(csr3_validate(p));
    EXPECT_EQ(p.block_x, t[i].block_x);
  }
  for (double d : {0.0, 1.0, 3.0, 5.0, 10.0, 30.0, 70.0, 500.0}) {
    const Csr3Params p = csr3_hopper_rule(d);
    EXPECT_EQ(p.rule, Csr3Rule::hopper);
    EXPECT_NO_THROW(csr3_validate(p));
  }
  // Row selection: first row with d <= max_density.
  const std::vector<Csr3RuleRow> table = {{4.0, Csr3Kernel::serial, 8, 8, 32, 2, 1},
                                          {1e300, Csr3Kernel::parallel, 4, 4, 4, 8, 4}};
  EXPECT_EQ(csr3_rule_from_table(table, 4.0).kernel, Csr3Kernel::serial);
  EXPECT_EQ(csr3_rule_from_table(table, 4.01).kernel, Csr3Kernel::parallel);
  EXPECT_THROW(csr3_rule_from_table({}, 1.0), InputError);
}

TEST(Csr3Rule, ExplicitParametersOverrideTheRule) {
  const Csr<double>& a = testing::zoo_matrix("random_2000");
  const double d = static_cast<double>(a.nnz()) / a.rows;
  const Csr3Params paper = csr3_choose(a, Params::parse("rule=paper"));
  EXPECT_EQ(paper.super_row_size, csr3_paper_rule(d).super_row_size);
  EXPECT_EQ(paper.rule, Csr3Rule::paper);
  const Csr3Params hopper = csr3_choose(a, Params{});
  EXPECT_EQ(hopper.rule, Csr3Rule::hopper);  // the default rule
  EXPECT_EQ(hopper.block_x, csr3_hopper_rule(d).block_x);

  const Csr3Params p = csr3_choose(
      a, Params::parse("rule=paper,kernel=parallel,super_row_size=5,super_super_row_size=3,"
                       "block_x=16,block_y=4,block_z=2,reorder=rcm,permute_x=1,long_row=100"));
  EXPECT_EQ(p.kernel, Csr3Kernel::parallel);
  EXPECT_EQ(p.super_row_size, 5);
  EXPECT_EQ(p.super_super_row_size, 3);
  EXPECT_EQ(p.block_x, 16);
  EXPECT_EQ(p.block_y, 4);
  EXPECT_EQ(p.block_z, 2);
  EXPECT_EQ(p.reorder, Csr3Reorder::rcm);
  EXPECT_TRUE(p.permute_x);
  EXPECT_EQ(p.long_row_threshold, 100);
  EXPECT_EQ(csr3_choose(a, Params::parse("long_row=0")).long_row_threshold,
            std::numeric_limits<index_t>::max());
  EXPECT_EQ(csr3_choose(a, Params::parse("reorder=auto")).reorder, Csr3Reorder::auto_);

  for (const char* bad : {"rule=volta", "kernel=vector", "reorder=metis", "super_row_size=0",
                          "super_super_row_size=-2", "block_x=3,block_y=8,block_z=1",  // 24 threads
                          "block_x=32,block_y=32,block_z=2",                 // 2048 threads
                          "kernel=parallel,block_x=12,block_y=8,block_z=1",  // not a power of two
                          "kernel=parallel,block_x=64,block_y=1,block_z=1",  // > 32 lanes a row
                          "block_x=1,block_y=1,block_z=96",                  // block_z > 64
                          "long_row=-1"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(csr3_choose(a, Params::parse(bad)), InputError);
  }
  // A serial kernel may take any block_x (rows of a super-row per thread column).
  EXPECT_NO_THROW(csr3_choose(a, Params::parse("kernel=serial,block_x=24,block_y=4,block_z=1")));
  EXPECT_THROW(build_operator<double>("csr3", a, Params::parse("super_rows=4")), InputError);
}

// Super-rows cover all rows exactly once, in order, each at most super_row_size long;
// super-super-rows likewise over the super-rows; the CSR-3 rows are the user's rows in perm
// order; long rows are exactly the rows over the threshold.
void check_structure(const Csr<double>& a, const Csr3<double>& f) {
  const Csr3Params& p = f.params;
  ASSERT_EQ(f.csr.rows, a.rows);
  ASSERT_EQ(f.csr.nnz(), a.nnz());
  f.csr.validate("csr3 rows");
  ASSERT_FALSE(f.sup_row_ptr.empty());
  EXPECT_EQ(f.sup_row_ptr.front(), 0);
  EXPECT_EQ(f.sup_row_ptr.back(), a.rows);
  for (index_t s = 0; s < f.super_rows(); ++s) {
    const index_t len = f.sup_row_ptr[s + 1] - f.sup_row_ptr[s];
    EXPECT_GE(len, 1);
    EXPECT_LE(len, p.super_row_size);
    if (s + 1 < f.super_rows()) {
      EXPECT_EQ(len, p.super_row_size);  // uniform grouping
    }
  }
  ASSERT_FALSE(f.sup_sup_row_ptr.empty());
  EXPECT_EQ(f.sup_sup_row_ptr.front(), 0);
  EXPECT_EQ(f.sup_sup_row_ptr.back(), f.super_rows());
  for (index_t b = 0; b < f.super_super_rows(); ++b) {
    const index_t len = f.sup_sup_row_ptr[b + 1] - f.sup_sup_row_ptr[b];
    EXPECT_GE(len, 1);
    EXPECT_LE(len, p.super_super_row_size);
  }
  EXPECT_EQ(f.super_rows(), a.rows == 0 ? 0 : (a.rows - 1) / p.super_row_size + 1);
  // Rows: the user's rows in perm order (columns renumbered only with permute_x).
  if (f.perm.empty()) {
    EXPECT_EQ(f.csr.row_ptr, a.row_ptr);
    EXPECT_EQ(f.csr.col_idx, a.col_idx);
  } else {
    ASSERT_TRUE(is_permutation(f.perm, a.rows));
    const Csr<double> expect = p.permute_x ? permute_symmetric(a, f.perm) : permute_rows(a, f.perm);
    EXPECT_EQ(f.csr.row_ptr, expect.row_ptr);
    EXPECT_EQ(f.csr.col_idx, expect.col_idx);
    EXPECT_EQ(f.csr.values, expect.values);
  }
  std::vector<index_t> long_rows;
  for (index_t i = 0; i < f.csr.rows; ++i)
    if (f.csr.row_length(i) > p.long_row_threshold) long_rows.push_back(i);
  EXPECT_EQ(f.long_rows, long_rows);
}

TEST(Csr3Build, StructureInvariantsOverTheZoo) {
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    for (const char* params : {"", "rule=paper", "super_row_size=1,super_super_row_size=1",
                               "super_row_size=7,super_super_row_size=3",
                               "super_row_size=1000,super_super_row_size=1000", "reorder=none",
                               "reorder=auto", "long_row=0", "long_row=1"}) {
      SCOPED_TRACE(name + " [" + params + "]");
      const Params p = Params::parse(params);
      const Csr3<double> f = build_csr3(a, csr3_choose(a, p));
      check_structure(a, f);
    }
  }
}

TEST(Csr3Build, ReorderingInsideTheFormat) {
  const Csr<double>& sq = testing::zoo_matrix("random_2000");
  for (const char* r : {"rcm", "band"}) {
    for (const char* px : {"0", "1"}) {
      const Params p = Params::parse(std::string("reorder=") + r + ",permute_x=" + px);
      const Csr3<double> f = build_csr3(sq, csr3_choose(sq, p), true);
      SCOPED_TRACE(f.details());
      EXPECT_EQ(f.perm, reorder_order(sq, parse_reorder_method(r)));
      EXPECT_EQ(f.params.permute_x, std::string(px) == "1");
      EXPECT_GE(f.reorder_ms, 0.0);
      check_structure(sq, f);
    }
  }
  // The default (the paper's band) on a rectangular matrix: left in its order, said so.
  const Csr<double>& wide = testing::zoo_matrix("rect_wide");
  const Csr3<double> f = build_csr3(wide, csr3_choose(wide, Params{}));
  EXPECT_TRUE(f.perm.empty());
  EXPECT_EQ(f.params.reorder, Csr3Reorder::none);
  EXPECT_NE(f.details().find("rectangular"), std::string::npos);
  // An explicit reorder on a rectangular matrix is refused.
  EXPECT_THROW(build_operator<double>("csr3", wide, Params::parse("reorder=rcm")),
               UnsupportedError);
  EXPECT_NO_THROW(build_operator<double>("csr3", wide, Params::parse("reorder=none")));
  // auto on an already banded matrix keeps the user's order.
  Coo<double> coo;
  coo.rows = coo.cols = 1000;
  for (index_t i = 0; i < 1000; ++i)
    for (index_t j = std::max(0, i - 1); j <= std::min(999, i + 1); ++j) {
      coo.row_idx.push_back(i);
      coo.col_idx.push_back(j);
      coo.values.push_back(1.0);
    }
  const Csr<double> tri = to_csr(coo);
  const Csr3<double> g = build_csr3(tri, csr3_choose(tri, Params::parse("reorder=auto")));
  EXPECT_TRUE(g.perm.empty());
}

// Every ordering option through the CPU operator, against the float64 reference (the
// registry suite covers only the default parameters).
TEST(Csr3Build, CpuResultsInTheUsersOrderForEveryOption) {
  std::mt19937_64 rng(testing::test_seed());
  for (const char* name : {"random_2000", "empty_rows", "long_rows_mixed", "rect_tall"}) {
    const Csr<double>& a = testing::zoo_matrix(name);
    const auto x = testing::random_vector(a.cols, rng);
    const auto y = testing::random_vector(a.rows, rng);
    const auto ref = reference_spmv(a, x, y, 2.0, -1.0);
    for (const char* params :
         {"reorder=none", "reorder=rcm", "reorder=band", "reorder=auto", "reorder=rcm,permute_x=1",
          "reorder=band,permute_x=1", "rule=paper,super_row_size=3,super_super_row_size=2"}) {
      SCOPED_TRACE(std::string(name) + " [" + params + "]");
      std::unique_ptr<Operator<double>> op;
      try {
        op = build_operator<double>("csr3", a, Params::parse(params));
      } catch (const UnsupportedError&) {
        EXPECT_NE(a.rows, a.cols);  // only a rectangular matrix refuses an explicit reorder
        continue;
      }
      std::vector<double> z = y;
      op->apply(x.data(), z.data(), z.data(), 2.0, -1.0);
      EXPECT_LE(relative_error(z, ref), 1e-13);
    }
  }
}

TEST(Csr3Build, ByteModel) {
  const Csr<double>& a = testing::zoo_matrix("random_2000");
  const std::size_t csr = csr_matrix_bytes(a);
  auto bytes = [&](const char* params) {
    return build_csr3(a, csr3_choose(a, Params::parse(params))).matrix_bytes();
  };
  const std::size_t rows = static_cast<std::size_t>(a.rows),
                    cols = static_cast<std::size_t>(a.cols);
  EXPECT_EQ(bytes("reorder=none,long_row=0"), csr);
  EXPECT_EQ(bytes("reorder=rcm,long_row=0"), csr + rows * sizeof(index_t));
  EXPECT_EQ(bytes("reorder=rcm,permute_x=1,long_row=0"),
            csr + rows * sizeof(index_t) + cols * (sizeof(index_t) + 2 * sizeof(double)));
  // A long-row list is read too.
  const Csr3<double> f = build_csr3(a, csr3_choose(a, Params::parse("reorder=none,long_row=20")));
  EXPECT_FALSE(f.long_rows.empty());
  EXPECT_EQ(f.matrix_bytes(), csr + f.long_rows.size() * sizeof(index_t));
  // The operator reports it, with nnz of the user's matrix.
  const auto op = build_operator<double>("csr3", a, Params::parse("reorder=none,long_row=0"));
  EXPECT_GE(op->info().matrix_bytes, csr);
  EXPECT_EQ(op->info().nnz, a.nnz());
  EXPECT_EQ(op->info().format, "csr3");
  EXPECT_NE(op->info().details.find("super_row_size="), std::string::npos);
}

#if SPMVKIT_HAVE_CUDA
// The parameters that take the device layout down its paths: the rule's (Band-k), no
// ordering, RCM, every row long (one chunk each) and rows over a few entries long (several
// chunks on one_huge_row), groups of one row, the paper's rule.
const std::vector<const char*> kDeviceLayoutParams = {
    "",       "reorder=none", "reorder=rcm", "long_row=1", "long_row=8,reorder=none",
    "super_row_size=1,super_super_row_size=1", "rule=paper"};

// What make_csr3_cuda(a, shape) gets from the device builder: f's parameters, ordering and
// shape, no arrays.
Csr3<double> shape_of(const Csr3<double>& f) {
  Csr3<double> shape;
  shape.params = f.params;
  shape.user_cols = f.user_cols;
  shape.csr.rows = f.csr.rows;
  shape.csr.cols = f.csr.cols;
  shape.perm = f.perm;
  shape.reorder_note = f.reorder_note;
  return shape;
}

void expect_same_chunks(const std::vector<Csr3LongChunk>& h, const std::vector<Csr3LongChunk>& d) {
  ASSERT_EQ(h.size(), d.size());
  for (std::size_t k = 0; k < h.size(); ++k) {
    SCOPED_TRACE("chunk " + std::to_string(k));
    EXPECT_EQ(h[k].row, d[k].row);
    EXPECT_EQ(h[k].begin, d[k].begin);
    EXPECT_EQ(h[k].end, d[k].end);
    EXPECT_EQ(h[k].slot, d[k].slot);
    EXPECT_EQ(h[k].first_slot, d[k].first_slot);
    EXPECT_EQ(h[k].slots, d[k].slots);
    EXPECT_EQ(h[k].counter, d[k].counter);
  }
}
#endif

// The CSR-3 layout made on the device from a device CSR (issue 24: the rows permuted, the long
// rows and their chunks found there) is the host builder's, array for array and bit for bit,
// on the zoo (empty, empty rows, one huge row, 1x1, rectangular).
TEST(Csr3DeviceBuild, DeviceLayoutIsTheHostBuildersBitForBit) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  int compared = 0;
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
    for (const char* params : kDeviceLayoutParams) {
      SCOPED_TRACE(name + " [" + params + "]");
      const Params p = Params::parse(params);
      Csr3<double> f;
      try {
        f = build_csr3(a, csr3_choose(a, p), p.has("reorder"));
      } catch (const UnsupportedError&) {
        EXPECT_NE(a.rows, a.cols);  // an explicit reorder of a rectangular matrix
        continue;
      }
      const Csr3Arrays<double> h = csr3_host_arrays(f);
      const Csr3Arrays<double> dv = csr3_device_arrays(d.view(), shape_of(f));
      EXPECT_EQ(h.csr.rows, dv.csr.rows);
      EXPECT_EQ(h.csr.cols, dv.csr.cols);
      EXPECT_EQ(h.csr.row_ptr, dv.csr.row_ptr);
      EXPECT_EQ(h.csr.col_idx, dv.csr.col_idx);
      ASSERT_EQ(h.csr.values.size(), dv.csr.values.size());
      EXPECT_TRUE(h.csr.values.empty() ||
                  std::memcmp(h.csr.values.data(), dv.csr.values.data(),
                              h.csr.values.size() * sizeof(double)) == 0);
      EXPECT_EQ(h.perm, dv.perm);
      EXPECT_EQ(h.long_rows, dv.long_rows);
      EXPECT_EQ(h.slots, dv.slots);
      expect_same_chunks(h.chunks, dv.chunks);
      // The host arrays are the host build's (what make_csr3_cuda(host) uploads).
      EXPECT_EQ(h.csr.row_ptr, f.csr.row_ptr);
      EXPECT_EQ(h.long_rows, f.long_rows);
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
#endif
}

// csr3 built by its device builder (build_operator from a device CSR: ordering on the host, the
// rest on the device) and by its host builder with the CUDA backend: the same details (the
// reordering's time aside), byte model and products, bit for bit (the same arrays run the same
// blocks; long rows are summed in chunk order).
TEST(Csr3DeviceBuild, DeviceBuiltOperatorMatchesHostBuiltBitForBit) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
#if SPMVKIT_HAVE_CUDA
  const FormatEntry& fe = find_format("csr3");
  const auto choices = [](const std::string& details) {
    return std::regex_replace(details, std::regex(",reorder_ms=[^,]*"), "");
  };
  for (const auto& name : testing::zoo_names()) {
    const Csr<double>& a = testing::zoo_matrix(name);
    const cuda::OwnedDeviceCsr<double> d = cuda::upload_csr(a);
    for (const char* params : kDeviceLayoutParams) {
      SCOPED_TRACE(name + " [" + params + "]");
      const Params valid = validate_params(fe, Params::parse(params));
      std::unique_ptr<Operator<double>> host, dev;
      try {
        host = fe.builder<double>()(a, valid, Backend::cuda);
      } catch (const UnsupportedError&) {
        EXPECT_THROW(fe.device_builder<double>()(d.view(), valid), UnsupportedError);
        continue;
      }
      dev = fe.device_builder<double>()(d.view(), valid);
      EXPECT_EQ(choices(host->info().details), choices(dev->info().details));
      EXPECT_EQ(host->info().matrix_bytes, dev->info().matrix_bytes);
      EXPECT_EQ(host->info().nnz, dev->info().nnz);
      testing::expect_same_products_bitwise(*host, *dev, Backend::cuda, testing::test_seed());
    }
  }
#endif
}

TEST(Csr3Tune, CandidateGridIsValidAndDistinct) {
  const auto grid = csr3_candidate_grid();
  EXPECT_GT(grid.size(), 100u);
  bool serial = false, parallel = false;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    EXPECT_NO_THROW(csr3_validate(grid[i]));
    EXPECT_EQ(csr3_find_candidate(grid, grid[i]), static_cast<int>(i));  // no duplicates
    serial = serial || grid[i].kernel == Csr3Kernel::serial;
    parallel = parallel || grid[i].kernel == Csr3Kernel::parallel;
  }
  EXPECT_TRUE(serial && parallel);
  // Every Hopper row is a valid configuration (the fitted rows come from the grid or from the
  // paper rule's choices, which the search times too).
  for (const auto& row : csr3_hopper_table())
    EXPECT_NO_THROW(csr3_validate(csr3_rule_from_table(csr3_hopper_table(), row.max_density)));
  EXPECT_FALSE(csr3_training_set().empty());
}

TEST(Csr3Tune, FitPicksTheBestGeometricMeanPerDensityBucket) {
  Csr3TuneResult r;
  auto cand = [](Csr3Kernel k, int bx) {
    Csr3Params p;
    p.kernel = k;
    p.block_x = bx;
    p.block_y = 32 / bx;
    p.block_z = 4;
    p.super_row_size = 2;
    p.super_super_row_size = 4;
    return p;
  };
  r.candidates = {cand(Csr3Kernel::serial, 8), cand(Csr3Kernel::parallel, 4),
                  cand(Csr3Kernel::parallel, 16)};
  r.orderings = {Csr3Ordering{}};
  r.density_edges = {4, 8, 32};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto matrix = [&](double d, std::vector<double> t) {
    Csr3TuneMatrixResult m;
    m.name = "m" + std::to_string(d);
    m.density = d;
    m.reorder_ms = {0};
    m.time_ms = {std::move(t)};
    r.matrices.push_back(m);
  };
  matrix(3, {1.0, 2.0, 3.0});  // bucket <= 4: serial
  matrix(3.5, {1.0, 1.1, nan});
  matrix(6, {2.0, 1.0, 1.5});  // bucket <= 8: parallel 4
  matrix(7, {2.0, 1.0, 1.1});
  matrix(20, {3.0, 1.0, 1.2});   // bucket <= 32: geomean of parallel 4 (1, 1.5) vs 16 (1.2, 1)
  matrix(30, {3.0, 1.5, 1.0});   // -> sqrt(1.5) = 1.22 vs sqrt(1.2) = 1.10: parallel 16
  matrix(100, {nan, nan, nan});  // no valid time: ignored
  const auto rows = csr3_fit_rule(r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].kernel, Csr3Kernel::serial);
  EXPECT_EQ(rows[0].max_density, 4);
  EXPECT_EQ(rows[1].kernel, Csr3Kernel::parallel);
  EXPECT_EQ(rows[1].block_x, 4);
  EXPECT_EQ(rows[1].max_density, 8);
  EXPECT_EQ(rows[2].block_x, 16);
  EXPECT_TRUE(std::isinf(rows[2].max_density));  // the last row covers everything above

  // Adjacent buckets with the same winner merge.
  r.matrices[0].time_ms[0] = {2.0, 1.0, 3.0};
  r.matrices[1].time_ms[0] = {2.0, 1.0, 3.0};
  const auto merged = csr3_fit_rule(r);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].block_x, 4);
  EXPECT_EQ(merged[0].max_density, 8);

  std::ostringstream out;
  r.fitted = merged;
  csr3_print_tune(r, out);
  EXPECT_NE(out.str().find("Csr3Kernel::parallel"), std::string::npos);
  if (!cuda_available()) {
    EXPECT_THROW(csr3_tune({}), UnsupportedError);
  }
}

}  // namespace
}  // namespace spmvkit
