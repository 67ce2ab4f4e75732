// The BSR paper's multi-GPU mode: the cyclic deal of block rows, and the operator against the
// float64 reference (the forms, poisoning and tolerances of every format test). On the CPU
// backend with 1..5 simulated parts (the deal and the shuffle, in CI); on CUDA with every
// visible GPU (one on the device: the degenerate scheme), skipped visibly without a GPU.
#include <gtest/gtest.h>

#include <set>

#include "dist/multigpu.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "tests/common/check.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit::testing {
namespace {

TEST(MultiGpuBsr, DealIsSortedThenCyclic) {
  const Csr<double> a = generate_random(30, 30, 4.0, test_seed());
  for (int parts : {1, 2, 4, 7, 40}) {
    const auto deal = dist::cyclic_block_rows(a.row_ptr, a.rows, 3, parts);
    ASSERT_EQ(deal.size(), static_cast<std::size_t>(parts));
    auto length = [&](index_t b) { return a.row_ptr[3 * b + 3] - a.row_ptr[3 * b]; };
    std::set<index_t> seen;
    std::vector<index_t> sorted;  // positions k of the sorted order, from part k % parts
    for (std::size_t k = 0;; ++k) {
      const auto& part = deal[k % parts];
      if (k / parts >= part.size()) break;
      sorted.push_back(part[k / parts]);
    }
    for (const auto& part : deal) seen.insert(part.begin(), part.end());
    EXPECT_EQ(seen.size(), 10u);
    ASSERT_EQ(sorted.size(), 10u);
    for (std::size_t k = 1; k < sorted.size(); ++k)
      EXPECT_GE(length(sorted[k - 1]), length(sorted[k])) << "parts " << parts;
  }
}

struct Case {
  const char* name;
  Csr<double> a;
  Params params;
};

std::vector<Case> cases() {
  return {{"blocks_bs3", zoo_matrix("blocks_bs3"), {}},
          {"reservoir_bs7_4", generate_reservoir(4, 7, test_seed()), {}},
          {"random_100x90_bs3_padded", generate_random(100, 90, 5.0, test_seed()),
           Params().set("block_size", "3")},
          {"one_huge_row", zoo_matrix("one_huge_row"), {}},
          {"empty_0x0", zoo_matrix("empty_0x0"), {}}};
}

TEST(MultiGpuBsr, CpuSimulatedPartsMatchReference) {
  int checked = 0;
  for (const Case& c : cases())
    for (int parts : {1, 2, 3, 5}) {
      SCOPED_TRACE(std::string(c.name) + ", parts " + std::to_string(parts));
      const auto op = dist::build_multigpu_bsr<double>(c.a, c.params, Backend::cpu, parts);
      expect_operator_matches<double>(*op, c.a, Backend::cpu, test_seed() + parts);
      const auto opf = dist::build_multigpu_bsr<float>(c.a.cast<float>(), c.params, Backend::cpu, parts);
      expect_operator_matches<float>(*opf, c.a.cast<float>(), Backend::cpu, test_seed() + parts);
      ++checked;
    }
  EXPECT_EQ(checked, 20);
  EXPECT_THROW(dist::build_multigpu_bsr<double>(cases()[0].a, {}, Backend::cpu, 0), InputError);
}

TEST(MultiGpuBsr, CudaEveryVisibleGpuMatchesReference) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU: the multi-GPU BSR mode's CUDA case is skipped";
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto op = dist::build_multigpu_bsr<double>(c.a, c.params, Backend::cuda);
    expect_operator_matches<double>(*op, c.a, Backend::cuda, test_seed());
    const auto opf = dist::build_multigpu_bsr<float>(c.a.cast<float>(), c.params, Backend::cuda);
    expect_operator_matches<float>(*opf, c.a.cast<float>(), Backend::cuda, test_seed());
  }
  EXPECT_THROW(dist::build_multigpu_bsr<double>(cases()[0].a, {}, Backend::cuda, 1000), InputError);
}

}  // namespace
}  // namespace spmvkit::testing
