// Matrix Market reading and writing: every field/symmetry combination, round trips exact to
// the bit, vectors, progress, gzip, and every real matrix of ../shared/matrices and tests/data.
// Bad inputs: matrix_market_errors_test.cpp.
#include "tests/core/matrix_market_testing.hpp"

namespace spmvkit {
namespace {

using namespace mm_testing;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// Valid inputs: each field x symmetry combination, with the exact expanded CSR.

// The lower triangle of a 3x3 matrix, stored as the symmetric files store it.
const std::string kLowerEntries = "1 1 4\n2 1 -1\n3 1 2\n2 2 5\n3 3 6\n";
const std::string kLowerEntriesSkew = "2 1 -1\n3 1 2\n3 2 7\n";

TEST_F(MatrixMarket, RealGeneral) {
  const auto f =
      write("a.mtx", kGeneral + "% comment\n3 4 5\n1 1 1.5\n3 4 -2e-3\n2 2 7\n1 3 0.25\n3 1 8\n");
  expect_csr(read_matrix_market(f), 3, 4, {0, 2, 3, 5}, {0, 2, 1, 0, 3}, {1.5, 0.25, 7, 8, -2e-3});
}

TEST_F(MatrixMarket, RealSymmetric) {
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n" + kLowerEntries);
  expect_csr(read_matrix_market(f), 3, 3, {0, 3, 5, 7}, {0, 1, 2, 0, 1, 0, 2},
             {4, -1, 2, -1, 5, 2, 6});
}

TEST_F(MatrixMarket, RealSkewSymmetric) {
  const auto f = write(
      "a.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n" + kLowerEntriesSkew);
  expect_csr(read_matrix_market(f), 3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {1, -2, -1, -7, 2, 7});
}

TEST_F(MatrixMarket, IntegerGeneral) {
  const auto f = write(
      "a.mtx", "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 2 -4\n2 3 12\n2 1 +3\n");
  expect_csr(read_matrix_market(f), 2, 3, {0, 1, 3}, {1, 0, 2}, {-4, 3, 12});
}

TEST_F(MatrixMarket, IntegerSymmetric) {
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 5\n" + kLowerEntries);
  expect_csr(read_matrix_market(f), 3, 3, {0, 3, 5, 7}, {0, 1, 2, 0, 1, 0, 2},
             {4, -1, 2, -1, 5, 2, 6});
}

TEST_F(MatrixMarket, IntegerSkewSymmetric) {
  const auto f = write("a.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 3\n" +
                                    kLowerEntriesSkew);
  expect_csr(read_matrix_market(f), 3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {1, -2, -1, -7, 2, 7});
}

TEST_F(MatrixMarket, PatternGeneralValuesAreOne) {
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 2\n2 3\n2 1\n");
  expect_csr(read_matrix_market(f), 2, 3, {0, 1, 3}, {1, 0, 2}, {1, 1, 1});
}

TEST_F(MatrixMarket, PatternSymmetric) {
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
  expect_csr(read_matrix_market(f), 3, 3, {0, 2, 3, 5}, {0, 2, 2, 0, 1}, {1, 1, 1, 1, 1});
}

TEST_F(MatrixMarket, PatternSkewSymmetricIsInvalid) {
  // mmio.c's mm_is_valid: a pattern matrix cannot be skew-symmetric (no values to negate).
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n2 1\n");
  expect_coo_error(f, 1, "skew-symmetric");
}

TEST_F(MatrixMarket, SymmetricUpperTriangleIsMirrored) {
  const auto f = write(
      "a.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 2 5\n1 3 6\n2 2 1\n");
  expect_csr(read_matrix_market(f), 3, 3, {0, 2, 4, 5}, {1, 2, 0, 1, 0}, {5, 6, 5, 1, 6});
}

TEST_F(MatrixMarket, SymmetricWithBothTrianglesIsRefused) {
  // Expanding both would double every off-diagonal value: a silent wrong matrix.
  const auto f = write(
      "a.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 5\n3 3 1\n1 2 5\n");
  expect_coo_error(f, 5, "one triangle");
}

TEST_F(MatrixMarket, CooKeepsFileOrderWithMirrorsAfterEachEntry) {
  const auto f = write(
      "a.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n3 1 2\n2 1 -1\n");
  const Coo<double> coo = read_matrix_market_coo(f);
  EXPECT_EQ(coo.row_idx, (std::vector<index_t>{2, 0, 1, 0}));
  EXPECT_EQ(coo.col_idx, (std::vector<index_t>{0, 2, 0, 1}));
  EXPECT_EQ(coo.values, (std::vector<double>{2, -2, -1, 1}));
}

TEST_F(MatrixMarket, DuplicatesAreSummed) {
  const auto f = write("a.mtx", kGeneral + "2 2 5\n1 1 1\n2 2 3\n1 1 2.5\n1 1 -0.5\n2 1 1\n");
  expect_csr(read_matrix_market(f), 2, 2, {0, 1, 3}, {0, 0, 1}, {3, 1, 3});
}

TEST_F(MatrixMarket, PatternDuplicatesAreSummed) {
  const auto f =
      write("a.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n2 1\n");
  expect_csr(read_matrix_market(f), 2, 2, {0, 1, 2}, {1, 0}, {2, 1});
}

TEST_F(MatrixMarket, CommentsBlankLinesCrlfAndOddSpacing) {
  const auto f = write("a.mtx",
                       "%%MatrixMarket matrix coordinate real general\r\n"
                       "% a comment\r\n"
                       "\r\n"
                       "   \t\r\n"
                       "%another\r\n"
                       "  3\t3   2  \r\n"
                       "% between entries\r\n"
                       "\r\n"
                       "\t1  3\t +2.5e+1 \r\n"
                       "   %indented comment\r\n"
                       "3 2 -.5\r\n"
                       "% trailing comment\r\n"
                       "\r\n");
  expect_csr(read_matrix_market(f), 3, 3, {0, 1, 1, 2}, {2, 1}, {25, -0.5});
}

TEST_F(MatrixMarket, BannerWordsAreCaseInsensitive) {
  const auto f = write("a.mtx", "%%MatrixMarket MATRIX Coordinate Real GENERAL\n1 1 1\n1 1 2\n");
  expect_csr(read_matrix_market(f), 1, 1, {0, 1}, {0}, {2});
}

TEST_F(MatrixMarket, LastLineWithoutNewline) {
  const auto f = write("a.mtx", kGeneral + "2 2 2\n1 1 1\n2 2 2");
  expect_csr(read_matrix_market(f), 2, 2, {0, 1, 2}, {0, 1}, {1, 2});
}

TEST_F(MatrixMarket, EmptyMatrices) {
  expect_csr(read_matrix_market(write("a.mtx", kGeneral + "0 0 0\n")), 0, 0, {0}, {}, {});
  expect_csr(read_matrix_market(write("b.mtx", kGeneral + "3 2 0\n% nothing\n")), 3, 2,
             {0, 0, 0, 0}, {}, {});
}

TEST_F(MatrixMarket, ExplicitZerosAreKept) {
  const auto f = write("a.mtx", kGeneral + "2 2 2\n1 2 0\n2 1 -0.0\n");
  const auto a = read_matrix_market(f);
  expect_csr(a, 2, 2, {0, 1, 2}, {1, 0}, {0, 0});
  EXPECT_TRUE(std::signbit(a.values[1]));
}

TEST_F(MatrixMarket, IndexSyntaxes) {
  // A '+' sign and leading zeros (also beyond 18 digits) are still plain indices.
  const auto f =
      write("a.mtx", kGeneral + "3 3 3\n+1 01 1\n0000000000000000000002 +2 2\n3\t\t3 3\n");
  expect_csr(read_matrix_market(f), 3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1, 2, 3});
}

TEST_F(MatrixMarket, ErrorIndexWithTwoSigns) {
  const auto f = write("i.mtx", kGeneral + "3 3 1\n+-1 1 1\n");
  expect_coo_error(f, 3, "row index '+-1' is not a whole number");
}

TEST_F(MatrixMarket, ValueSyntaxes) {
  const auto f =
      write("a.mtx", kGeneral +
                         "1 7 7\n1 1 1e300\n1 2 -2.5E-3\n1 3 .5\n1 4 5.\n1 5 +7\n1 6 4.9e-324\n"
                         "1 7 1e-400\n");
  const auto a = read_matrix_market(f);
  ASSERT_EQ(a.nnz(), 7);
  EXPECT_EQ(a.values[0], 1e300);
  EXPECT_EQ(a.values[1], -2.5e-3);
  EXPECT_EQ(a.values[2], 0.5);
  EXPECT_EQ(a.values[3], 5.0);
  EXPECT_EQ(a.values[4], 7.0);
  EXPECT_EQ(a.values[5], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(a.values[6], 0.0);  // underflow rounds to zero as strtod does
}

TEST_F(MatrixMarket, GzipIsDetectedByMagicBytesNotName) {
  const std::string text = kGeneral + "2 2 2\n1 1 1\n2 2 2\n";
  // gzip content under a plain name, and plain content under a .gz name.
  expect_csr(read_matrix_market(write_gz("gz_named_plain.mtx", text)), 2, 2, {0, 1, 2}, {0, 1},
             {1, 2});
  expect_csr(read_matrix_market(write("plain_named_gz.mtx.gz", text)), 2, 2, {0, 1, 2}, {0, 1},
             {1, 2});
}

TEST_F(MatrixMarket, RealMatrixInGzip) {
  const auto f = write_gz(
      "a.mtx.gz", "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n" + kLowerEntries);
  expect_csr(read_matrix_market(f), 3, 3, {0, 3, 5, 7}, {0, 1, 2, 0, 1, 0, 2},
             {4, -1, 2, -1, 5, 2, 6});
}

TEST_F(MatrixMarket, ReadsFromAPipe) {
  // Not seekable, no size: read in whatever pieces the pipe gives.
  const std::string f = path("fifo.mtx");
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(f, std::ios::binary);
    out << "%%Matrix" << std::flush;
    out << "Market matrix coordinate real general\n2 2 2\n1 1 1\n" << std::flush;
    out << "2 2 2\n";
  });
  double last = -1;
  const Csr<double> a = read_matrix_market(f, [&](double x) { last = x; });
  writer.join();
  expect_csr(a, 2, 2, {0, 1, 2}, {0, 1}, {1, 2});
  EXPECT_EQ(last, 1.0);
}

// A file larger than the reader's 8 MiB buffer, with lines of varied length, so that lines
// straddle block boundaries: every entry must come back exactly.
TEST_F(MatrixMarket, LinesAcrossBlockBoundaries) {
  std::mt19937_64 rng(testing::test_seed());
  const index_t n = 50000;
  const std::size_t entries = 400000;
  std::string text =
      kGeneral + std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(entries) + "\n";
  std::vector<index_t> rows(entries), cols(entries);
  std::vector<double> vals(entries);
  char value[32];
  for (std::size_t k = 0; k < entries; ++k) {
    rows[k] = static_cast<index_t>(rng() % n);
    cols[k] = static_cast<index_t>(rng() % n);
    std::snprintf(value, sizeof value, k % 3 ? "%.17g" : "%.6g",
                  std::ldexp(static_cast<double>(rng() >> 11), -53) * (k % 2 ? -1 : 1));
    vals[k] = std::strtod(value, nullptr);  // what the text holds, correctly rounded
    text += std::to_string(rows[k] + 1) + (k % 3 ? " " : "\t") + std::to_string(cols[k] + 1) +
            (k % 3 ? " " : "  ") + value + (k % 3 ? "\n" : "\r\n");
    if (k % 1000 == 0) text += "% a comment line to vary the layout\n";
  }
  ASSERT_GT(text.size(), std::size_t{9} << 20);
  for (const auto& f : {write("big.mtx", text), write_gz("big.mtx.gz", text)}) {
    SCOPED_TRACE(f);
    const Coo<double> coo = read_matrix_market_coo(f);
    ASSERT_EQ(coo.entries(), entries);
    EXPECT_EQ(coo.row_idx, rows);
    EXPECT_EQ(coo.col_idx, cols);
    EXPECT_EQ(coo.values, vals);
  }
}

// ---------------------------------------------------------------------------------------
// Writing, and round trips exact to the bit.

Csr<double> random_matrix(index_t rows, index_t cols, std::size_t entries, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  const double awkward[] = {0.1,
                            -0.0,
                            1.0 / 3.0,
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::denorm_min(),
                            std::nextafter(1.0, 2.0),
                            -123456789.123456789e-200};
  for (std::size_t k = 0; k < entries; ++k) {
    coo.row_idx.push_back(static_cast<index_t>(rng() % rows));
    coo.col_idx.push_back(static_cast<index_t>(rng() % cols));
    double v;
    if (k < std::size(awkward)) {
      v = awkward[k];
    } else {  // random bit patterns that are finite: every exponent and mantissa
      std::uint64_t bits;
      do {
        bits = rng();
        std::memcpy(&v, &bits, sizeof v);
      } while (!std::isfinite(v));
    }
    coo.values.push_back(v);
  }
  // Keep duplicates out so that no sum changes the bits.
  Coo<double> dedup;
  dedup.rows = rows;
  dedup.cols = cols;
  std::vector<bool> seen(static_cast<std::size_t>(rows) * cols, false);
  for (std::size_t k = 0; k < entries; ++k) {
    const std::size_t key = static_cast<std::size_t>(coo.row_idx[k]) * cols + coo.col_idx[k];
    if (seen[key]) continue;
    seen[key] = true;
    dedup.row_idx.push_back(coo.row_idx[k]);
    dedup.col_idx.push_back(coo.col_idx[k]);
    dedup.values.push_back(coo.values[k]);
  }
  return to_csr(dedup);
}

void expect_same_bits(const Csr<double>& a, const Csr<double>& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.cols, b.cols);
  ASSERT_EQ(a.row_ptr, b.row_ptr);
  ASSERT_EQ(a.col_idx, b.col_idx);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k)
    ASSERT_TRUE(same_bits(a.values[k], b.values[k]))
        << "entry " << k << ": wrote " << a.values[k] << ", read " << b.values[k];
}

TEST_F(MatrixMarket, RoundTripPlainIsBitExact) {
  const Csr<double> a = random_matrix(700, 500, 60000, testing::test_seed());
  const auto f = path("rt.mtx");
  write_matrix_market(f, a, "round trip\nsecond comment line");
  expect_same_bits(read_matrix_market(f), a);
}

TEST_F(MatrixMarket, RoundTripGzipIsBitExact) {
  const Csr<double> a = random_matrix(500, 800, 60000, testing::test_seed() + 1);
  const auto f = path("rt.mtx.gz");
  write_matrix_market(f, a);
  std::ifstream raw(f, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  raw.read(reinterpret_cast<char*>(magic), 2);
  EXPECT_EQ(magic[0], 0x1f);  // written compressed
  EXPECT_EQ(magic[1], 0x8b);
  expect_same_bits(read_matrix_market(f), a);
}

TEST_F(MatrixMarket, WrittenTextIsCoordinateRealGeneralWith17Digits) {
  const Csr<double> a = make_csr<double>(2, 3, {0, 2, 2}, {0, 2}, {0.1, -2.0});
  const auto f = path("w.mtx");
  write_matrix_market(f, a, "made by a test");
  std::ifstream in(f, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(),
            "%%MatrixMarket matrix coordinate real general\n"
            "% made by a test\n"
            "2 3 2\n"
            "1 1 0.10000000000000001\n"
            "1 3 -2\n");
}

TEST_F(MatrixMarket, RoundTripEmptyMatrix) {
  const Csr<double> a = make_csr<double>(4, 0, {0, 0, 0, 0, 0}, {}, {});
  const auto f = path("e.mtx");
  write_matrix_market(f, a);
  expect_same_bits(read_matrix_market(f), a);
}

TEST_F(MatrixMarket, WriteToMissingFolderThrows) {
  const Csr<double> a = make_csr<double>(1, 1, {0, 1}, {0}, {1.0});
  EXPECT_THROW(write_matrix_market(path("no/such/folder/a.mtx"), a), InputError);
}

// ---------------------------------------------------------------------------------------
// Vectors.

TEST_F(MatrixMarket, VectorRoundTripPlainAndGzip) {
  std::mt19937_64 rng(testing::test_seed());
  std::vector<double> v = testing::random_vector(1000, rng);
  v[0] = -0.0;
  v[1] = std::numeric_limits<double>::denorm_min();
  v[2] = std::numeric_limits<double>::max();
  for (const auto& name : {"v.mtx", "v.mtx.gz"}) {
    write_matrix_market_vector(path(name), v);
    const std::vector<double> back = read_matrix_market_vector(path(name));
    ASSERT_EQ(back.size(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      ASSERT_TRUE(same_bits(back[i], v[i])) << name << " entry " << i;
  }
}

TEST_F(MatrixMarket, VectorWrittenAsArray) {
  write_matrix_market_vector(path("v.mtx"), {1.5, -2.0});
  std::ifstream in(path("v.mtx"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "%%MatrixMarket matrix array real general\n2 1\n1.5\n-2\n");
}

TEST_F(MatrixMarket, VectorFromArrayWithComments) {
  const auto f =
      write("v.mtx", "%%MatrixMarket matrix array integer general\n% c\n3 1\n1\n\n-2\n% c\n3\n");
  EXPECT_EQ(read_matrix_market_vector(f), (std::vector<double>{1, -2, 3}));
}

TEST_F(MatrixMarket, VectorFromRowArray) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n1 3\n1\n2\n3\n");
  EXPECT_EQ(read_matrix_market_vector(f), (std::vector<double>{1, 2, 3}));
}

TEST_F(MatrixMarket, VectorFromOneColumnCoordinate) {
  const auto f = write("v.mtx", kGeneral + "4 1 3\n4 1 2.5\n1 1 1\n4 1 0.5\n");
  EXPECT_EQ(read_matrix_market_vector(f), (std::vector<double>{1, 0, 0, 3}));
}

TEST_F(MatrixMarket, VectorWithTwoColumnsIsRefused) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  expect_vector_error(f, 2, "one column");
}

TEST_F(MatrixMarket, VectorWithFewerValuesIsRefused) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
  expect_vector_error(f, 5, "ends after 2 of the 3");
}

TEST_F(MatrixMarket, VectorWithMoreValuesIsRefused) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n");
  expect_vector_error(f, 5, "more entries");
}

TEST_F(MatrixMarket, VectorWithTwoValuesOnALineIsRefused) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n2 1\n1 2\n3\n");
  expect_vector_error(f, 3, "trailing garbage");
}

TEST_F(MatrixMarket, VectorWithNaNIsRefused) {
  const auto f = write("v.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\nnan\n");
  expect_vector_error(f, 4, "non-finite");
}

// ---------------------------------------------------------------------------------------
// Progress.

TEST_F(MatrixMarket, ProgressReachesOne) {
  const Csr<double> a = random_matrix(3000, 3000, 400000, testing::test_seed());
  for (const auto& name : {"p.mtx", "p.mtx.gz"}) {
    SCOPED_TRACE(name);
    write_matrix_market(path(name), a);
    std::vector<double> seen;
    const Coo<double> coo =
        read_matrix_market_coo(path(name), [&](double f) { seen.push_back(f); });
    EXPECT_EQ(coo.entries(), static_cast<std::size_t>(a.nnz()));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), 1.0);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_GE(seen[i], 0.0);
      EXPECT_LE(seen[i], 1.0);
      if (i > 0) {
        EXPECT_GE(seen[i], seen[i - 1]);
      }
    }
    if (std::string(name) == "p.mtx") {
      EXPECT_GE(seen.size(), 2u) << "a 10+ MB file reports along the way";
    }
  }
}

TEST_F(MatrixMarket, ProgressThroughReadMatrixMarket) {
  const auto f = write("a.mtx", kGeneral + "2 2 1\n1 1 1\n");
  double last = -1;
  read_matrix_market(f, [&](double x) { last = x; });
  EXPECT_EQ(last, 1.0);
}

// ---------------------------------------------------------------------------------------
// Every real matrix of ../shared/matrices (or $SPMVKIT_MATRICES), and every one bundled under
// tests/data, loads with its manifest's sizes.

struct ManifestRow {
  std::string name, file, symmetry, field;
  long rows = 0, cols = 0, stored = 0;
};

std::vector<ManifestRow> manifest(const std::string& dir) {
  std::vector<ManifestRow> out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // column names
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> col;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) col.push_back(c);
    if (col.size() < 7) continue;
    ManifestRow row;
    row.name = col[0];
    row.file = col[1];
    row.rows = std::stol(col[2]);
    row.cols = std::stol(col[3]);
    row.stored = std::stol(col[4]);
    row.symmetry = col[5];
    row.field = col[6];
    out.push_back(row);
  }
  return out;
}

void expect_manifest_loads(const std::string& dir, std::size_t at_least) {
  const auto rows = manifest(dir);
  ASSERT_GE(rows.size(), at_least) << dir << "/MANIFEST.tsv";
  for (const auto& m : rows) {
    SCOPED_TRACE(m.file);
    if (m.field == "complex") continue;  // refused on purpose (ErrorComplexRealFile)
    const std::string f = dir + "/" + m.file;
    Coo<double> coo;
    ASSERT_NO_THROW(coo = read_matrix_market_coo(f));
    EXPECT_EQ(coo.rows, m.rows);
    EXPECT_EQ(coo.cols, m.cols);
    std::size_t diagonal = 0;
    for (std::size_t k = 0; k < coo.entries(); ++k) diagonal += coo.row_idx[k] == coo.col_idx[k];
    if (m.symmetry == "general") {
      EXPECT_EQ(coo.entries(), static_cast<std::size_t>(m.stored));
    } else {
      // Every off-diagonal stored entry gains its mirror.
      EXPECT_EQ(coo.entries(), 2 * static_cast<std::size_t>(m.stored) - diagonal);
      EXPECT_GT(coo.entries(), static_cast<std::size_t>(m.stored));
    }
    const Csr<double> a = read_matrix_market(f);
    EXPECT_NO_THROW(a.validate(m.name));
    EXPECT_GT(a.nnz(), 0);
    EXPECT_LE(static_cast<std::size_t>(a.nnz()), coo.entries());
    if (m.symmetry == "symmetric") {
      const Csr<double> t = transpose(a);
      EXPECT_EQ(t.row_ptr, a.row_ptr);
      EXPECT_EQ(t.col_idx, a.col_idx);
      EXPECT_EQ(t.values, a.values);
    }
    if (m.field == "pattern" && static_cast<std::size_t>(a.nnz()) == coo.entries()) {
      for (double v : a.values) ASSERT_EQ(v, 1.0);
    }
    if (m.field == "integer") {
      for (double v : a.values) ASSERT_EQ(v, std::round(v));
    }
  }
}

TEST(MatrixMarketShared, EveryManifestMatrixLoads) {
  const std::string dir = testing::shared_matrices_dir();
  if (dir.empty())
    GTEST_SKIP() << "no folder of real matrices ($SPMVKIT_MATRICES or ../shared/matrices)";
  expect_manifest_loads(dir, 30);
}

TEST(MatrixMarketBundled, EveryBundledMatrixLoads) {
  expect_manifest_loads(std::string(SPMVKIT_TEST_DATA_DIR), 7);
}

}  // namespace
}  // namespace spmvkit
