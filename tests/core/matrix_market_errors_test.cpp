// Matrix Market bad inputs of the issue: one test each, an InputError naming the file, the
// line and the problem.
#include "tests/core/matrix_market_testing.hpp"

namespace spmvkit {
namespace {

using namespace mm_testing;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// Bad input: one test per case; each names the file, the line and the problem.

TEST_F(MatrixMarket, ErrorTruncatedInsideALine) {
  const auto f = write("t.mtx", kGeneral + "3 3 3\n1 1 1\n2 2 2\n3 ");
  expect_coo_error(f, 5, "truncated");
}

TEST_F(MatrixMarket, ErrorTruncatedGzip) {
  std::string text = kGeneral + "3000 3000 20000\n";
  std::mt19937_64 rng(7);
  for (int k = 0; k < 20000; ++k)
    text += std::to_string(rng() % 3000 + 1) + " " + std::to_string(rng() % 3000 + 1) + " 0." +
            std::to_string(rng()) + "\n";
  const auto whole = write_gz("whole.mtx.gz", text);
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto f = write("cut.mtx.gz", bytes.substr(0, bytes.size() / 2));
  try {
    read_matrix_market_coo(f);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(f + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    // The line where the data stops: somewhere in the middle of the entries.
    const long line = std::stol(msg.substr(f.size() + 1));
    EXPECT_GT(line, 1000);
    EXPECT_LT(line, 20003);
  }
}

TEST_F(MatrixMarket, ErrorCorruptGzip) {
  std::string text = kGeneral + "2 2 1\n1 1 1\n";
  for (int k = 0; k < 2000; ++k) text += "% padding comment " + std::to_string(k) + "\n";
  const auto whole = write_gz("whole.mtx.gz", text);
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t i = 20; i < bytes.size() - 8; i += 3)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  const auto f = write("bad.mtx.gz", bytes);
  try {
    read_matrix_market_coo(f);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(f + ":", 0), 0u) << e.what();
  }
}

TEST_F(MatrixMarket, ErrorBannerMissing) {
  const auto f = write("b.mtx", "3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "banner");
}

TEST_F(MatrixMarket, ErrorBannerMisspelled) {
  const auto f = write("b.mtx", "%%MatrixMarkt matrix coordinate real general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "banner");
}

TEST_F(MatrixMarket, ErrorBannerRunTogether) {
  const auto f = write("b.mtx", "%%MatrixMarketmatrix coordinate real general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "banner");
}

TEST_F(MatrixMarket, ErrorBannerTooShort) {
  const auto f = write("b.mtx", "%%MatrixMarket matrix coordinate real\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "3 of 4");
}

TEST_F(MatrixMarket, ErrorBannerTooLong) {
  const auto f =
      write("b.mtx", "%%MatrixMarket matrix coordinate real general extra\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "extra");
}

TEST_F(MatrixMarket, ErrorUnknownObject) {
  const auto f = write("b.mtx", "%%MatrixMarket vector coordinate real general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "unknown object");
}

TEST_F(MatrixMarket, ErrorUnknownFormat) {
  const auto f = write("b.mtx", "%%MatrixMarket matrix sparse real general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "unknown format");
}

TEST_F(MatrixMarket, ErrorUnknownField) {
  const auto f = write("b.mtx", "%%MatrixMarket matrix coordinate float general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "unknown field");
}

TEST_F(MatrixMarket, ErrorUnknownSymmetry) {
  const auto f =
      write("b.mtx", "%%MatrixMarket matrix coordinate real symmetrical\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "unknown symmetry");
}

TEST_F(MatrixMarket, ErrorComplexField) {
  const auto f =
      write("b.mtx", "%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1 0\n");
  expect_coo_error(f, 1, "complex");
}

TEST_F(MatrixMarket, ErrorHermitianSymmetry) {
  const auto f = write("b.mtx", "%%MatrixMarket matrix coordinate real hermitian\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 1, "hermitian");
}

TEST_F(MatrixMarket, ErrorComplexRealFile) {
  const std::string f = testing::data_matrix("unsupported/w156.mtx");
  ASSERT_TRUE(fs::exists(f)) << f << " is bundled with the repository";
  expect_coo_error(f, 1, "complex field is not supported");
}

TEST_F(MatrixMarket, ErrorArrayFormatForAMatrix) {
  const auto f = write("b.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  expect_coo_error(f, 1, "array");
}

TEST_F(MatrixMarket, ErrorFewerEntriesThanDeclared) {
  const auto f = write("c.mtx", kGeneral + "3 3 4\n1 1 1\n2 2 2\n% comment\n3 3 3\n");
  expect_coo_error(f, 7, "ends after 3 of the 4 entries declared on line 2");
}

TEST_F(MatrixMarket, ErrorMoreEntriesThanDeclared) {
  const auto f = write("c.mtx", kGeneral + "3 3 2\n1 1 1\n2 2 2\n\n3 3 3\n");
  expect_coo_error(f, 6, "more entries than the 2 declared on line 2");
}

TEST_F(MatrixMarket, ErrorRowIndexZero) {
  const auto f = write("i.mtx", kGeneral + "3 3 2\n1 1 1\n0 2 2\n");
  expect_coo_error(f, 4, "row index 0 is out of range [1, 3]");
}

TEST_F(MatrixMarket, ErrorColumnIndexZero) {
  const auto f = write("i.mtx", kGeneral + "3 3 2\n1 1 1\n2 0 2\n");
  expect_coo_error(f, 4, "column index 0 is out of range");
}

TEST_F(MatrixMarket, ErrorRowIndexAboveRows) {
  const auto f = write("i.mtx", kGeneral + "3 5 2\n1 1 1\n4 2 2\n");
  expect_coo_error(f, 4, "row index 4 is out of range [1, 3]");
}

TEST_F(MatrixMarket, ErrorColumnIndexAboveCols) {
  const auto f = write("i.mtx", kGeneral + "5 3 2\n1 1 1\n2 4 2\n");
  expect_coo_error(f, 4, "column index 4 is out of range [1, 3]");
}

TEST_F(MatrixMarket, ErrorNegativeIndex) {
  const auto f = write("i.mtx", kGeneral + "3 3 2\n-1 1 1\n2 2 2\n");
  expect_coo_error(f, 3, "row index -1 is out of range");
}

TEST_F(MatrixMarket, ErrorIndexBeyond64Bits) {
  const auto f = write("i.mtx", kGeneral + "3 3 1\n1 99999999999999999999999 1\n");
  expect_coo_error(f, 3, "column index");
}

TEST_F(MatrixMarket, ErrorNonNumericIndex) {
  const auto f = write("i.mtx", kGeneral + "3 3 2\n1 1 1\n2 x 2\n");
  expect_coo_error(f, 4, "column index 'x' is not a whole number");
}

TEST_F(MatrixMarket, ErrorFractionalIndex) {
  const auto f = write("i.mtx", kGeneral + "3 3 1\n1.5 1 1\n");
  expect_coo_error(f, 3, "row index '1.5' is not a whole number");
}

TEST_F(MatrixMarket, ErrorNonNumericValue) {
  const auto f = write("v.mtx", kGeneral + "3 3 2\n1 1 1\n2 2 abc\n");
  expect_coo_error(f, 4, "value 'abc' is not a number");
}

TEST_F(MatrixMarket, ErrorValueWithJunkSuffix) {
  const auto f = write("v.mtx", kGeneral + "3 3 1\n1 1 1.0x\n");
  expect_coo_error(f, 3, "'1.0x' is not a number");
}

TEST_F(MatrixMarket, ErrorNonIntegerInIntegerField) {
  const auto f =
      write("v.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n");
  expect_coo_error(f, 3, "not an integer");
}

TEST_F(MatrixMarket, ErrorTrailingGarbage) {
  const auto f = write("g.mtx", kGeneral + "3 3 2\n1 1 1\n2 2 2 junk\n");
  expect_coo_error(f, 4, "trailing garbage 'junk'");
}

TEST_F(MatrixMarket, ErrorValueInPatternFile) {
  const auto f = write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n");
  expect_coo_error(f, 3, "trailing garbage '1'");
}

TEST_F(MatrixMarket, ErrorMissingValueForRealField) {
  const auto f = write("m.mtx", kGeneral + "3 3 2\n1 1 1\n2 2\n");
  expect_coo_error(f, 4, "missing value");
}

TEST_F(MatrixMarket, ErrorMissingColumnIndex) {
  const auto f = write("m.mtx", kGeneral + "3 3 2\n1 1 1\n2   \n");
  expect_coo_error(f, 4, "missing column index");
}

TEST_F(MatrixMarket, ErrorNaNValue) {
  const auto f = write("n.mtx", kGeneral + "3 3 2\n1 1 1\n2 2 nan\n");
  expect_coo_error(f, 4, "non-finite value 'nan'");
}

TEST_F(MatrixMarket, ErrorInfValue) {
  const auto f = write("n.mtx", kGeneral + "3 3 2\n1 1 -inf\n2 2 1\n");
  expect_coo_error(f, 3, "non-finite value '-inf'");
}

TEST_F(MatrixMarket, ErrorValueOverflowsDouble) {
  const auto f = write("n.mtx", kGeneral + "3 3 1\n1 1 1e400\n");
  expect_coo_error(f, 3, "overflows");
}

TEST_F(MatrixMarket, ErrorDuplicatesSumToInf) {
  const auto f = write("n.mtx", kGeneral + "3 3 2\n1 1 1e308\n1 1 1e308\n");
  EXPECT_NO_THROW(read_matrix_market_coo(f));  // each entry is finite
  try {
    read_matrix_market(f);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
  }
}

TEST_F(MatrixMarket, ErrorSkewSymmetricDiagonal) {
  const auto f =
      write("s.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 0\n");
  expect_coo_error(f, 4, "diagonal entry (2, 2) in a skew-symmetric");
}

TEST_F(MatrixMarket, ErrorEmptyFile) {
  const auto f = write("e.mtx", "");
  expect_coo_error(f, 1, "empty file");
}

TEST_F(MatrixMarket, ErrorOnlyBanner) {
  const auto f = write("e.mtx", kGeneral + "% only comments\n\n");
  expect_coo_error(f, 4, "before the size line");
}

TEST_F(MatrixMarket, ErrorMissingFile) {
  expect_coo_error(path("does_not_exist.mtx"), 0, "No such file");
}

TEST_F(MatrixMarket, ErrorDirectoryGivenAsFile) {
  fs::create_directories(path("folder.mtx"));
  expect_coo_error(path("folder.mtx"), 0, "directory");
}

TEST_F(MatrixMarket, ErrorBinaryFile) {
  std::string junk(1 << 16, '\0');
  std::mt19937_64 rng(3);
  for (auto& c : junk) c = static_cast<char>(rng());
  expect_coo_error(write("junk.mtx", junk), 1, "banner");
}

TEST_F(MatrixMarket, ErrorLineLongerThanLimit) {
  // 70 MB without a newline after a valid header: refused, not buffered forever.
  const auto f = write("long.mtx", kGeneral + "3 3 1\n1 1 " + std::string(70u << 20, '1'));
  expect_coo_error(f, 3, "longer than");
}

TEST_F(MatrixMarket, ErrorRowsOverflow32Bit) {
  const auto f = write("o.mtx", kGeneral + "2147483648 10 1\n1 1 1\n");
  expect_coo_error(f, 2, "overflows 32-bit indices");
}

TEST_F(MatrixMarket, ErrorColsOverflow32Bit) {
  const auto f = write("o.mtx", kGeneral + "% c\n10 4294967296 1\n1 1 1\n");
  expect_coo_error(f, 3, "overflows 32-bit indices");
}

TEST_F(MatrixMarket, LargestSizesStillFit) {
  // 2^31 - 1 rows and columns are legal, and a COO read allocates nothing row-sized.
  const auto f = write("o.mtx", kGeneral + "2147483647 2147483647 1\n2147483647 2147483647 3\n");
  const Coo<double> coo = read_matrix_market_coo(f);
  EXPECT_EQ(coo.rows, 2147483647);
  EXPECT_EQ(coo.row_idx, (std::vector<index_t>{2147483646}));
}

// The nnz >= 2^31 refusal: a Coo with 2^31 entries needs 32 GB, so the refusal is tested
// where it matters first, in the reader's header, before anything is allocated.
TEST_F(MatrixMarket, ErrorDeclaredEntriesOverflow32Bit) {
  const auto f = write("o.mtx", kGeneral + "100 100 2147483648\n1 1 1\n");
  expect_coo_error(f, 2, "overflow 32-bit indices");
}

TEST_F(MatrixMarket, ErrorSymmetricExpansionOverflow32Bit) {
  // 2^30 stored entries may expand to 2^31 > 2^31 - 1.
  const auto f = write(
      "o.mtx", "%%MatrixMarket matrix coordinate real symmetric\n100 100 1073741824\n1 1 1\n");
  expect_coo_error(f, 2, "symmetric expansion");
}

TEST_F(MatrixMarket, HugeDeclaredCountDoesNotAllocate) {
  // A header may lie about the count (here 2^31 - 1 entries, 32 GB of COO); the reservation
  // is capped by the file size, so the read fails on the count, not on memory.
  const auto f = write("o.mtx", kGeneral + "100 100 2147483647\n1 1 1\n");
  expect_coo_error(f, 4, "ends after 1 of the 2147483647");
}

TEST_F(MatrixMarket, ErrorSizeBeyond64Bits) {
  const auto f = write("o.mtx", kGeneral + "10 10 99999999999999999999999\n");
  expect_coo_error(f, 2, "too large");
}

TEST_F(MatrixMarket, ErrorSizeLineTooFewNumbers) {
  const auto f = write("s.mtx", kGeneral + "% c\n3 3\n1 1 1\n");
  expect_coo_error(f, 3, "size line has 2 of 3 numbers");
}

TEST_F(MatrixMarket, ErrorSizeLineTooManyNumbers) {
  const auto f = write("s.mtx", kGeneral + "3 3 1 1\n1 1 1\n");
  expect_coo_error(f, 2, "trailing '1'");
}

TEST_F(MatrixMarket, ErrorSizeLineNegative) {
  const auto f = write("s.mtx", kGeneral + "3 -3 1\n1 1 1\n");
  expect_coo_error(f, 2, "negative size");
}

TEST_F(MatrixMarket, ErrorSizeLineNonNumeric) {
  const auto f = write("s.mtx", kGeneral + "3 three 1\n1 1 1\n");
  expect_coo_error(f, 2, "'three', which is not a whole number");
}

}  // namespace
}  // namespace spmvkit
