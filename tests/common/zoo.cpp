#include "tests/common/zoo.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include <gtest/gtest.h>

#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"

namespace spmvkit::testing {

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("SPMVKIT_TEST_SEED"))
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
           static_cast<std::uint64_t>(std::random_device{}());
  }();
  return seed;
}

namespace {
// A test program that had a failure prints its seed at the end:
// a failure in a log (a device run, CI) can then be replayed with SPMVKIT_TEST_SEED.
class SeedReport : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    if (unit.failed_test_count() > 0)
      std::printf("SPMVKIT_TEST_SEED=%llu (replay the failures with it)\n",
                  static_cast<unsigned long long>(test_seed()));
  }
};
const bool kSeedReportAdded = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedReport);
  return true;
}();
}  // namespace

std::vector<double> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& e : v) e = dist(rng);
  return v;
}

std::string data_matrix(const std::string& file) {
  return std::string(SPMVKIT_TEST_DATA_DIR) + "/" + file;
}

std::string shared_matrices_dir() {
  // $SPMVKIT_MATRICES (the GPU machine gets a carried copy) or ../shared/matrices.
  if (const char* d = std::getenv("SPMVKIT_MATRICES"); d && *d)
    return std::filesystem::is_directory(d) ? d : "";
  const std::string beside = std::string(SPMVKIT_SHARED_DIR) + "/matrices";
  return std::filesystem::is_directory(beside) ? beside : "";
}

namespace {

// Random COO with unsorted entries and duplicates, converted (exercises to_csr's sorting and
// summing); `row_len(r)` gives each row's entry count before duplicates merge.
Csr<double> random_coo(index_t rows, index_t cols, const std::function<index_t(index_t)>& row_len,
                       std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  for (index_t r = 0; r < rows; ++r) {
    const index_t len = cols == 0 ? 0 : row_len(r);
    for (index_t k = 0; k < len; ++k) {
      coo.row_idx.push_back(r);
      coo.col_idx.push_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols)));
      coo.values.push_back(val(rng));
    }
  }
  // Shuffle so input order is neither row- nor column-sorted.
  for (std::size_t i = coo.values.size(); i > 1; --i) {
    const std::size_t j = rng() % i;
    std::swap(coo.row_idx[i - 1], coo.row_idx[j]);
    std::swap(coo.col_idx[i - 1], coo.col_idx[j]);
    std::swap(coo.values[i - 1], coo.values[j]);
  }
  return to_csr(coo, "zoo");
}

using Maker = std::function<Csr<double>(std::uint64_t)>;

const std::vector<std::pair<std::string, Maker>>& makers() {
  static const std::vector<std::pair<std::string, Maker>> list = {
      {"random_2000", [](std::uint64_t s) {
         std::mt19937_64 rng(s);
         return random_coo(2000, 2000, [&](index_t) { return static_cast<index_t>(rng() % 40); }, s);
       }},
      {"empty_0x0", [](std::uint64_t s) { return random_coo(0, 0, [](index_t) { return 0; }, s); }},
      {"no_entries_50x70", [](std::uint64_t s) {
         return random_coo(50, 70, [](index_t) { return 0; }, s);
       }},
      {"empty_rows", [](std::uint64_t s) {
         return random_coo(3000, 3000, [](index_t r) { return r % 3 == 0 ? 0 : (r % 7) * 3 + 1; }, s);
       }},
      {"one_huge_row", [](std::uint64_t s) {
         return random_coo(1500, 300000, [](index_t r) { return r == 700 ? 200000 : r % 5; }, s);
       }},
      {"rect_wide", [](std::uint64_t s) {
         return random_coo(64, 20000, [](index_t r) { return 50 + r; }, s);
       }},
      {"rect_tall", [](std::uint64_t s) {
         return random_coo(20000, 37, [](index_t r) { return r % 4; }, s);
       }},
      {"one_by_one", [](std::uint64_t s) { return random_coo(1, 1, [](index_t) { return 1; }, s); }},
      {"duplicates_heavy", [](std::uint64_t s) {
         // 8 columns, 60 entries a row: every column repeats many times.
         return random_coo(500, 8, [](index_t) { return 60; }, s);
       }},
      {"dense_96", [](std::uint64_t s) {
         std::mt19937_64 rng(s);
         Coo<double> coo;
         coo.rows = coo.cols = 96;
         for (index_t r = 0; r < 96; ++r)
           for (index_t c = 95; c >= 0; --c) {
             coo.row_idx.push_back(r);
             coo.col_idx.push_back(c);
             coo.values.push_back(std::uniform_real_distribution<double>(-1, 1)(rng));
           }
         return to_csr(coo, "dense_96");
       }},
      // Dense-block matrices (BSR and its peers find their block size by detection).
      {"blocks_bs3", [](std::uint64_t s) { return block_expand(generate_random(400, 400, 6.0, s), 3, s); }},
      {"blocks_bs7_rect", [](std::uint64_t s) {
         return block_expand(generate_random(90, 130, 4.0, s), 7, s);
       }},
      {"stencil27_12", [](std::uint64_t) { return generate_stencil_3d(12, 27); }},
      {"powerlaw_20000", [](std::uint64_t s) { return generate_powerlaw(20000, 12.5, 5000, s); }},
      // Real matrices bundled under tests/data: gzip, unsymmetric, rectangular with long rows.
      {"real_bcsstk16_gz", [](std::uint64_t) { return read_matrix_market(data_matrix("bcsstk16.mtx.gz")); }},
      {"real_west0479", [](std::uint64_t) { return read_matrix_market(data_matrix("west0479.mtx")); }},
      {"real_Franz6_rect", [](std::uint64_t) {
         return read_matrix_market(data_matrix("Franz6_id1959_aug.mtx.gz"));
       }},
      {"long_rows_mixed", [](std::uint64_t s) {
         // Row lengths from 0 to ~5000: warps, sub-warps and blocks all get work.
         return random_coo(4000, 8000, [](index_t r) { return (r * 7919) % 97 == 0 ? 5000 : (r % 64); }, s);
       }},
  };
  return list;
}

}  // namespace

const std::vector<std::string>& zoo_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, make] : makers()) n.push_back(name);
    return n;
  }();
  return names;
}

const Csr<double>& zoo_matrix(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Csr<double>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  for (const auto& [n, make] : makers())
    if (n == name) return cache.emplace(name, make(test_seed())).first->second;
  throw std::runtime_error("no zoo matrix named " + name);
}

}  // namespace spmvkit::testing
