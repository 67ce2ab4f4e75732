// Inputs the fuzzers (fuzz/, scripts/fuzz.sh) once crashed on, hung on or blew up memory with,
// replayed on every test run: each must now give a result or a spmvkit::Error, quickly, under
// the same host-memory limits the fuzz targets set.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"

namespace spmvkit {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> regressions(const std::string& target) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(SPMVKIT_FUZZ_REGRESSIONS_DIR) / target))
    if (e.is_regular_file()) out.push_back(e.path());
  return out;
}

// Runs `fn` with $SPMVKIT_HOST_MEMORY_LIMIT at `limit` and the process's address space capped
// at 4 GB (as the fuzzer's RSS limit would stop it): it must return or throw a spmvkit::Error
// within a few seconds, never run out of memory.
template <class Fn>
void expect_result_or_error(const std::string& limit, const fs::path& input, Fn fn) {
  SCOPED_TRACE(input.string());
  setenv("SPMVKIT_HOST_MEMORY_LIMIT", limit.c_str(), 1);
  rlimit saved{};
  getrlimit(RLIMIT_AS, &saved);
  rlimit capped = saved;
  capped.rlim_cur = std::min<rlim_t>(saved.rlim_max, rlim_t{4} << 30);
  setrlimit(RLIMIT_AS, &capped);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    fn();
  } catch (const Error&) {
  } catch (const std::bad_alloc&) {
    ADD_FAILURE() << "ran out of memory instead of refusing the input";
  }
  setrlimit(RLIMIT_AS, &saved);
  unsetenv("SPMVKIT_HOST_MEMORY_LIMIT");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(FuzzRegressions, MatrixMarket) {
  const auto inputs = regressions("matrix_market");
  ASSERT_FALSE(inputs.empty());
  for (const auto& f : inputs) {
    expect_result_or_error("32M", f, [&] { (void)read_matrix_market(f.string()); });
    expect_result_or_error("32M", f, [&] { (void)read_matrix_market_vector(f.string()); });
  }
}

TEST(FuzzRegressions, Names) {
  const auto inputs = regressions("names");
  ASSERT_FALSE(inputs.empty());
  for (const auto& f : inputs) {
    std::ifstream in(f);
    const std::string name((std::istreambuf_iterator<char>(in)), {});
    expect_result_or_error("4M", f, [&] {
      if (is_generator_name(name)) (void)generate_by_name(name);
    });
  }
}

}  // namespace
}  // namespace spmvkit
