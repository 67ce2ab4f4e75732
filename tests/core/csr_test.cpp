// Core Csr/Coo: to_csr (sorting, duplicate summing, explicit zeros), validate() errors,
// transpose, make_csr, cast.
//
// The nnz >= 2^31 refusal of to_csr cannot be reached here: a Coo holding 2^31 entries needs
// 2^31 * (4 + 4 + 8) bytes = 32 GB, and its arrays must be really that long (to_csr compares
// their lengths first). The same limit is tested where a user meets it first and cheaply, in
// the Matrix Market reader's header check (matrix_market_test.cpp:
// ErrorDeclaredEntriesOverflow32Bit, ErrorSymmetricExpansionOverflow32Bit).
#include "spmvkit/csr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "tests/common/zoo.hpp"

namespace spmvkit {
namespace {

Coo<double> coo_of(index_t rows, index_t cols, std::vector<index_t> r, std::vector<index_t> c,
                   std::vector<double> v) {
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  coo.row_idx = std::move(r);
  coo.col_idx = std::move(c);
  coo.values = std::move(v);
  return coo;
}

// The call must throw InputError whose message names `what` and mentions `word`.
template <class F>
void expect_input_error(F&& f, const std::string& what, const std::string& word) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(what + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(word), std::string::npos)
        << "'" << msg << "' should mention '" << word << "'";
  }
}

// A valid 3x4 matrix to break in the validate() tests.
Csr<double> sample() {
  Csr<double> a;
  a.rows = 3;
  a.cols = 4;
  a.row_ptr = {0, 2, 2, 5};
  a.col_idx = {1, 3, 0, 2, 3};
  a.values = {1, 2, 3, 4, 5};
  return a;
}

TEST(ToCsr, SortsRowsAndColumns) {
  const auto a = to_csr(coo_of(3, 4, {2, 0, 2, 0, 2}, {3, 3, 0, 1, 2}, {5, 2, 3, 1, 4}));
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 4);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 2, 2, 5}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{1, 3, 0, 2, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_NO_THROW(a.validate());
}

TEST(ToCsr, SumsDuplicates) {
  const auto a = to_csr(coo_of(2, 2, {1, 0, 1, 1, 0}, {1, 0, 1, 0, 0}, {1, 2, 3, 4, 0.5}));
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{0, 0, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{2.5, 4, 4}));
}

TEST(ToCsr, KeepsExplicitZerosAndZeroSums) {
  // A stored zero and a duplicate pair cancelling to zero are both part of the structure.
  const auto a = to_csr(coo_of(2, 3, {0, 1, 1}, {2, 1, 1}, {0.0, 1.5, -1.5}));
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{2, 1}));
  EXPECT_EQ(a.values, (std::vector<double>{0.0, 0.0}));
}

TEST(ToCsr, RandomAgainstDenseSum) {
  std::mt19937_64 rng(testing::test_seed());
  const index_t rows = 57, cols = 31;
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  std::vector<double> dense(static_cast<std::size_t>(rows) * cols, 0.0);
  std::vector<int> count(dense.size(), 0);
  for (int k = 0; k < 3000; ++k) {
    const auto r = static_cast<index_t>(rng() % rows), c = static_cast<index_t>(rng() % cols);
    const double v = static_cast<double>(rng() % 17) - 8;  // small integers: sums are exact
    coo.row_idx.push_back(r);
    coo.col_idx.push_back(c);
    coo.values.push_back(v);
    dense[static_cast<std::size_t>(r) * cols + c] += v;
    ++count[static_cast<std::size_t>(r) * cols + c];
  }
  const auto a = to_csr(coo);
  EXPECT_NO_THROW(a.validate());
  std::size_t stored = 0;
  for (int x : count) stored += x > 0;
  EXPECT_EQ(static_cast<std::size_t>(a.nnz()), stored);
  for (index_t r = 0; r < rows; ++r)
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      EXPECT_EQ(a.values[k], dense[static_cast<std::size_t>(r) * cols + a.col_idx[k]]);
}

TEST(ToCsr, EmptyShapes) {
  const auto a = to_csr(coo_of(0, 0, {}, {}, {}));
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0}));
  EXPECT_EQ(a.nnz(), 0);
  const auto b = to_csr(coo_of(3, 0, {}, {}, {}));
  EXPECT_EQ(b.row_ptr, (std::vector<index_t>{0, 0, 0, 0}));
}

TEST(ToCsr, FloatValues) {
  Coo<float> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {1, 0, 1};
  coo.col_idx = {0, 1, 0};
  coo.values = {1.5f, 2.0f, 0.25f};
  const auto a = to_csr(coo);
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{1, 0}));
  EXPECT_EQ(a.values, (std::vector<float>{2.0f, 1.75f}));
}

TEST(ToCsr, ErrorRowOutOfRange) {
  expect_input_error([] { to_csr(coo_of(2, 2, {0, 2}, {0, 0}, {1, 1}), "m"); }, "m", "row index 2");
  expect_input_error([] { to_csr(coo_of(2, 2, {-1}, {0}, {1}), "m"); }, "m", "row index -1");
}

TEST(ToCsr, ErrorColumnOutOfRange) {
  expect_input_error([] { to_csr(coo_of(2, 2, {0}, {5}, {1}), "m"); }, "m", "column index 5");
}

TEST(ToCsr, ErrorNonFinite) {
  expect_input_error([] { to_csr(coo_of(2, 2, {0}, {0}, {std::nan("")}), "m"); }, "m",
                     "non-finite");
  expect_input_error(
      [] { to_csr(coo_of(2, 2, {0}, {0}, {std::numeric_limits<double>::infinity()}), "m"); }, "m",
      "non-finite");
}

TEST(ToCsr, ErrorArrayLengthsDiffer) {
  expect_input_error([] { to_csr(coo_of(2, 2, {0, 1}, {0}, {1, 1}), "m"); }, "m", "differ");
}

TEST(ToCsr, ErrorNegativeSize) {
  expect_input_error([] { to_csr(coo_of(-1, 2, {}, {}, {}), "m"); }, "m", "negative size");
}

TEST(Validate, AcceptsSample) { EXPECT_NO_THROW(sample().validate()); }

TEST(Validate, ErrorNonMonotoneRowPtr) {
  auto a = sample();
  a.row_ptr = {0, 3, 2, 5};
  expect_input_error([&] { a.validate("A"); }, "A", "decreases at row 1");
}

TEST(Validate, ErrorRowPtrNotStartingAtZero) {
  auto a = sample();
  a.row_ptr[0] = 1;
  expect_input_error([&] { a.validate("A"); }, "A", "starts at 1");
}

TEST(Validate, ErrorRowPtrWrongLength) {
  auto a = sample();
  a.row_ptr.pop_back();
  expect_input_error([&] { a.validate("A"); }, "A", "row pointer has 3 entries");
}

TEST(Validate, ErrorRowPtrEndDisagreesWithArrays) {
  auto a = sample();
  a.values.pop_back();
  expect_input_error([&] { a.validate("A"); }, "A", "row pointer ends at 5");
}

TEST(Validate, ErrorColumnOutOfRange) {
  auto a = sample();
  a.col_idx[4] = 4;
  expect_input_error([&] { a.validate("A"); }, "A", "column index 4 out of range");
  a.col_idx[4] = 3;
  a.col_idx[0] = -1;
  expect_input_error([&] { a.validate("A"); }, "A", "column index -1 out of range");
}

TEST(Validate, ErrorUnsortedColumns) {
  auto a = sample();
  a.col_idx = {3, 1, 0, 2, 3};
  expect_input_error([&] { a.validate("A"); }, "A", "not sorted");
}

TEST(Validate, ErrorDuplicatedColumn) {
  auto a = sample();
  a.col_idx = {1, 3, 0, 2, 2};
  expect_input_error([&] { a.validate("A"); }, "A", "duplicated in row 2");
}

TEST(Validate, ErrorNaN) {
  auto a = sample();
  a.values[2] = std::nan("");
  expect_input_error([&] { a.validate("A"); }, "A", "non-finite value at (2, 0)");
}

TEST(Validate, ErrorInf) {
  auto a = sample();
  a.values[0] = -std::numeric_limits<double>::infinity();
  expect_input_error([&] { a.validate("A"); }, "A", "non-finite");
}

TEST(Validate, ErrorNegativeSize) {
  auto a = sample();
  a.cols = -4;
  expect_input_error([&] { a.validate("A"); }, "A", "negative size");
}

TEST(Transpose, SmallRectangle) {
  const auto t = transpose(sample());  // 3x4 -> 4x3
  EXPECT_EQ(t.rows, 4);
  EXPECT_EQ(t.cols, 3);
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(t.col_idx, (std::vector<index_t>{2, 0, 2, 0, 2}));
  EXPECT_EQ(t.values, (std::vector<double>{3, 1, 4, 2, 5}));
  EXPECT_NO_THROW(t.validate());
}

TEST(Transpose, TwiceIsIdentityOnZoo) {
  for (const auto& name : testing::zoo_names()) {
    SCOPED_TRACE(name);
    const auto& a = testing::zoo_matrix(name);
    const auto t = transpose(a);
    EXPECT_NO_THROW(t.validate());
    EXPECT_EQ(t.nnz(), a.nnz());
    const auto tt = transpose(t);
    EXPECT_EQ(tt.rows, a.rows);
    EXPECT_EQ(tt.cols, a.cols);
    EXPECT_EQ(tt.row_ptr, a.row_ptr);
    EXPECT_EQ(tt.col_idx, a.col_idx);
    EXPECT_EQ(tt.values, a.values);
  }
}

TEST(Transpose, Empty) {
  const auto t = transpose(to_csr(coo_of(0, 5, {}, {}, {})));
  EXPECT_EQ(t.rows, 5);
  EXPECT_EQ(t.cols, 0);
  EXPECT_EQ(t.row_ptr, (std::vector<index_t>(6, 0)));
}

TEST(MakeCsr, BuildsValidMatrix) {
  const auto a = make_csr<double>(3, 4, {0, 2, 2, 5}, {1, 3, 0, 2, 3}, {1, 2, 3, 4, 5}, "M");
  const auto s = sample();
  EXPECT_EQ(a.row_ptr, s.row_ptr);
  EXPECT_EQ(a.col_idx, s.col_idx);
  EXPECT_EQ(a.values, s.values);
  EXPECT_EQ(a.nnz(), 5);
  EXPECT_EQ(a.row_length(0), 2);
  EXPECT_EQ(a.row_length(1), 0);
}

TEST(MakeCsr, ValidatesInput) {
  expect_input_error(
      [] {
        make_csr<double>(2, 2, {0, 1, 2}, {1, 0}, {1}, "M");
      },
      "M", "row pointer ends");
  expect_input_error(
      [] {
        make_csr<double>(1, 2, {0, 2}, {1, 0}, {1, 1}, "M");
      },
      "M", "not sorted");
  expect_input_error([] { make_csr<double>(1, 2, {}, {}, {}, "M"); }, "M", "empty row pointer");
}

TEST(Cast, ConvertsValuesKeepsStructure) {
  const auto a = make_csr<double>(2, 2, {0, 1, 2}, {1, 0}, {0.1, -3.0});
  const Csr<float> f = a.cast<float>();
  EXPECT_EQ(f.rows, 2);
  EXPECT_EQ(f.cols, 2);
  EXPECT_EQ(f.row_ptr, a.row_ptr);
  EXPECT_EQ(f.col_idx, a.col_idx);
  EXPECT_EQ(f.values, (std::vector<float>{0.1f, -3.0f}));
  const Csr<double> back = f.cast<double>();
  EXPECT_EQ(back.values[0], static_cast<double>(0.1f));
  EXPECT_NO_THROW(f.validate());
}

}  // namespace
}  // namespace spmvkit
