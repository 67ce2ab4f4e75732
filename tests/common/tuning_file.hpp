// Points the tuning store ($SPMVKIT_TUNING_FILE) at a fresh file for a test's lifetime and
// restores the previous setting afterwards.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/common/zoo.hpp"

namespace spmvkit::testing {

class ScopedTuningFile {
 public:
  ScopedTuningFile() {
    if (const char* old = std::getenv("SPMVKIT_TUNING_FILE")) old_ = old;
    path_ = std::filesystem::temp_directory_path() /
            ("spmvkit-test-tuning-" + std::to_string(test_seed()) + "-" +
             std::to_string(counter_++) + ".tsv");
    std::filesystem::remove(path_);
    setenv("SPMVKIT_TUNING_FILE", path_.c_str(), 1);
  }
  ~ScopedTuningFile() {
    std::filesystem::remove(path_);
    if (old_.empty())
      unsetenv("SPMVKIT_TUNING_FILE");
    else
      setenv("SPMVKIT_TUNING_FILE", old_.c_str(), 1);
  }
  ScopedTuningFile(const ScopedTuningFile&) = delete;
  ScopedTuningFile& operator=(const ScopedTuningFile&) = delete;

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
  std::string old_;
};

}  // namespace spmvkit::testing
