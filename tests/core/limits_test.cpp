// Host-memory limits: a matrix that would need more than the process may use is refused
// before the work starts, with one message naming it, the need and the limit.
#include "spmvkit/limits.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {
namespace {

// Sets $SPMVKIT_HOST_MEMORY_LIMIT for one test and restores what was there.
class HostMemoryLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* s = std::getenv("SPMVKIT_HOST_MEMORY_LIMIT")) saved_ = s, had_ = true;
  }
  void TearDown() override {
    if (had_)
      setenv("SPMVKIT_HOST_MEMORY_LIMIT", saved_.c_str(), 1);
    else
      unsetenv("SPMVKIT_HOST_MEMORY_LIMIT");
  }
  static void limit(const char* v) { setenv("SPMVKIT_HOST_MEMORY_LIMIT", v, 1); }

 private:
  std::string saved_;
  bool had_ = false;
};

template <class Fn>
std::string input_error(Fn fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(HostMemoryLimit, BudgetIsTheLimitOrWhatTheMachineHas) {
  unsetenv("SPMVKIT_HOST_MEMORY_LIMIT");
  EXPECT_GT(host_memory_budget(), std::uint64_t{1} << 20);
  limit("512M");
  EXPECT_EQ(host_memory_budget(), std::uint64_t{512} << 20);
  limit("2g");
  EXPECT_EQ(host_memory_budget(), std::uint64_t{2} << 30);
  limit("1e6");
  EXPECT_EQ(host_memory_budget(), 1000000u);
  for (const char* bad : {"lots", "-1G", "0", "12Q", "G", "1.5GB"}) {
    limit(bad);
    const std::string e = input_error([] { host_memory_budget(); });
    EXPECT_NE(e.find("SPMVKIT_HOST_MEMORY_LIMIT"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find(bad), std::string::npos) << e;
  }
}

TEST_F(HostMemoryLimit, GeneratorRefusedBeforeBuilding) {
  limit("1M");
  const std::string e = input_error([] { generate_by_name("stencil27_40"); });
  EXPECT_NE(e.find("stencil27_40"), std::string::npos) << e;
  EXPECT_NE(e.find("host memory"), std::string::npos) << e;
  EXPECT_NE(e.find("SPMVKIT_HOST_MEMORY_LIMIT allows"), std::string::npos) << e;
  limit("64M");
  EXPECT_EQ(generate_by_name("stencil27_40").rows, 40 * 40 * 40);  // 1.7M entries: 21 MB
}

TEST_F(HostMemoryLimit, MatrixMarketFileRefusedBeforeReading) {
  const std::string f = testing::data_matrix("bcsstk13.mtx.gz");
  limit("1M");
  const std::string e = input_error([&] { read_matrix_market(f); });
  EXPECT_NE(e.find(f), std::string::npos) << e;
  EXPECT_NE(e.find("host memory"), std::string::npos) << e;
  limit("64M");
  EXPECT_EQ(read_matrix_market(f).rows, 2003);
}

TEST_F(HostMemoryLimit, AbsurdGeneratorSizesRefusedAtOnce) {
  unsetenv("SPMVKIT_HOST_MEMORY_LIMIT");
  for (const char* name : {"stencil27_100000", "powerlaw_99999999999", "random_2000_2000_1e12",
                           "reservoir_bs64_2000", "banded_2000000000_1000000000_1000000000"}) {
    const std::string e = input_error([&] { generate_by_name(name); });
    EXPECT_NE(e.find(name), std::string::npos) << name << ": " << e;
  }
}

}  // namespace
}  // namespace spmvkit
