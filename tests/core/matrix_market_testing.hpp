// Shared by the Matrix Market tests: a scratch folder per test, file writers and the
// expectations on InputError messages.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/matrix_market.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit::mm_testing {

namespace fs = std::filesystem;

// Each test gets its own scratch folder (ctest runs tests in parallel processes).
class MatrixMarket : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("spmvkit_mm_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes `text` byte for byte (CRLF and missing final newlines stay as given).
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p;
  }

  std::string write_gz(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    gzFile gz = gzopen(p.c_str(), "wb");
    EXPECT_NE(gz, nullptr);
    EXPECT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    gzclose(gz);
    return p;
  }

  fs::path dir_;
};

// The reader must throw InputError "PATH:LINE: problem" with `word` in the problem.
template <class Read>
inline void expect_error(const std::string& file, long line, const std::string& word, Read read) {
  try {
    read(file);
    ADD_FAILURE() << "no InputError for " << file;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    const std::string prefix = file + (line > 0 ? ":" + std::to_string(line) : "") + ": ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u)
        << "message '" << msg << "' should start with '" << prefix << "'";
    EXPECT_NE(msg.find(word), std::string::npos)
        << "message '" << msg << "' should mention '" << word << "'";
  }
}

inline void expect_coo_error(const std::string& file, long line, const std::string& word) {
  expect_error(file, line, word, [](const std::string& f) { read_matrix_market_coo(f); });
}

inline void expect_vector_error(const std::string& file, long line, const std::string& word) {
  expect_error(file, line, word, [](const std::string& f) { read_matrix_market_vector(f); });
}

inline const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

inline void expect_csr(const Csr<double>& a, index_t rows, index_t cols,
                       const std::vector<index_t>& row_ptr, const std::vector<index_t>& col_idx,
                       const std::vector<double>& values) {
  EXPECT_EQ(a.rows, rows);
  EXPECT_EQ(a.cols, cols);
  EXPECT_EQ(a.row_ptr, row_ptr);
  EXPECT_EQ(a.col_idx, col_idx);
  EXPECT_EQ(a.values, values);
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace spmvkit::mm_testing
