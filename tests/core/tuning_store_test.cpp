// The tuning store (spmvkit/tuning.hpp): what tuning_put writes tuning_get reads back, the last
// record of a key wins, and a store changed behind the process (another process's tune, a file
// replaced or removed) is read again, not answered from what was read before.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "spmvkit/tuning.hpp"
#include "tests/common/tuning_file.hpp"

namespace spmvkit {

TEST(TuningStore, ReadsBackWritesAndNoticesTheFileChanging) {
  testing::ScopedTuningFile store;
  EXPECT_FALSE(tuning_get("dev", "k"));  // no file yet
  EXPECT_EQ(tuning_generation(), 0u);
  tuning_put("dev", "k", "1");
  tuning_put("dev", "other", "x");
  ASSERT_TRUE(tuning_get("dev", "k"));
  EXPECT_EQ(*tuning_get("dev", "k"), "1");
  EXPECT_FALSE(tuning_get("dev2", "k"));  // another device
  EXPECT_FALSE(tuning_get("de", "v\tk"));
  tuning_put("dev", "k", "2");  // the last record wins
  EXPECT_EQ(*tuning_get("dev", "k"), "2");
  // The generation stays while nothing changes, and moves with every change below.
  const std::uint64_t g = tuning_generation();
  EXPECT_NE(g, 0u);
  EXPECT_EQ(tuning_generation(), g);
  const std::string path = tuning_file_path();
  {
    // Appended by someone else (another process): seen.
    std::ofstream out(path, std::ios::app);
    out << "dev\tk\t3\nbroken line\n";
  }
  EXPECT_EQ(*tuning_get("dev", "k"), "3");
  EXPECT_EQ(*tuning_get("dev", "other"), "x");
  const std::uint64_t appended = tuning_generation();
  EXPECT_NE(appended, g);
  {
    // Replaced by another file: seen (its identity, size or time changed).
    std::filesystem::remove(path);
    std::ofstream out(path);
    out << "dev\tk\t4\ndev\tother\ty\nbroken line\n";
  }
  EXPECT_EQ(*tuning_get("dev", "k"), "4");
  EXPECT_EQ(*tuning_get("dev", "other"), "y");
  EXPECT_NE(tuning_generation(), appended);
  std::filesystem::remove(path);
  EXPECT_FALSE(tuning_get("dev", "k"));
  EXPECT_EQ(tuning_generation(), 0u);
}

}  // namespace spmvkit
