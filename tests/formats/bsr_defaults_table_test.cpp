// The shipped-defaults table as text (formats/bsr/bsr_defaults_table.cpp): the entries a tuning
// result gives, and their merge into bsr_tuning_defaults.cpp (what `spmvkit tune bsr
// --emit-defaults` writes), on a small table and on the real file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/bsr/bsr.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

BsrTuning two_kernel_result() {
  BsrTuning t;
  t.block_size = 4;
  t.value_bytes = 8;
  BsrKernelTuning k1;
  k1.kernel = BsrKernel::k1;
  k1.best = bsr_rule_policy(BsrKernel::k1, 4, 8);
  k1.best.n_ta = 16;
  k1.ms = 0.30;
  k1.gbs = 2900.04;
  BsrKernelTuning k2;
  k2.kernel = BsrKernel::k2;
  k2.best.kernel = BsrKernel::k2;
  k2.best.n_ta = 8;
  k2.best.n_brows_ta = 8;
  k2.best.n_tg = 4;
  k2.best.ilp = 4;
  k2.best.vec = 1;
  k2.ms = 0.35;
  k2.gbs = 2500;
  BsrKernelTuning k3;  // no working candidate: no entry
  k3.kernel = BsrKernel::k3;
  t.kernels = {k1, k2, k3};
  t.best = 0;
  return t;
}

TEST(BsrDefaultsTable, LinesOfATuningResult) {
  EXPECT_EQ(bsr_device_family("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(bsr_device_family("NVIDIA H200"), "H200");
  EXPECT_EQ(bsr_device_family("Other GPU"), "Other GPU");
  const auto lines = bsr_shipped_lines("H100", two_kernel_result());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text(),
            "    {\"H100\", \"bsr.k1.bs4.f64\", \"n_ta=16,n_brows_ta=16,ilp=4\"},  // 2900.0 GB/s");
  EXPECT_EQ(lines[1].key, "bsr.k2.bs4.f64");
  EXPECT_EQ(lines[2].key, "bsr.bs4.f64");
  EXPECT_EQ(lines[2].value, "kernel=k1");
  BsrTuning none;
  none.block_size = 3;
  EXPECT_TRUE(bsr_shipped_lines("H100", none).empty());
}

TEST(BsrDefaultsTable, MergeReplacesInPlaceAndInsertsAfterTheFamily) {
  const std::string source =
      "// header\n"
      "const ShippedEntry kShipped[] = {\n"
      "    {\"H100\", \"bsr.k1.bs4.f64\", \"n_ta=8,n_brows_ta=16,ilp=4\"},\n"
      "    {\"H100\", \"bsr.k2.bs6.f64\", \"n_ta=8,n_brows_ta=8,n_tg=4,ilp=4,vec=1\"},\n"
      "    {\"H200\", \"bsr.k1.bs4.f64\", \"n_ta=8,n_brows_ta=16,ilp=4\"},\n"
      "};\n"
      "// clang-format on\n";
  const std::string merged =
      bsr_merge_shipped_lines(source, bsr_shipped_lines("H100", two_kernel_result()));
  const std::string expected =
      "// header\n"
      "const ShippedEntry kShipped[] = {\n"
      "    {\"H100\", \"bsr.k1.bs4.f64\", \"n_ta=16,n_brows_ta=16,ilp=4\"},  // 2900.0 GB/s\n"
      "    {\"H100\", \"bsr.k2.bs6.f64\", \"n_ta=8,n_brows_ta=8,n_tg=4,ilp=4,vec=1\"},\n"
      "    {\"H100\", \"bsr.k2.bs4.f64\", \"n_ta=8,n_brows_ta=8,n_tg=4,ilp=4,vec=1,pack=0\"},  // "
      "2500.0 "
      "GB/s\n"
      "    {\"H100\", \"bsr.bs4.f64\", \"kernel=k1\"},  // 2900.0 GB/s\n"
      "    {\"H200\", \"bsr.k1.bs4.f64\", \"n_ta=8,n_brows_ta=16,ilp=4\"},\n"
      "};\n"
      "// clang-format on\n";
  EXPECT_EQ(merged, expected);
  // Merging the same lines again changes nothing; a new family goes at the table's end.
  EXPECT_EQ(bsr_merge_shipped_lines(merged, bsr_shipped_lines("H100", two_kernel_result())),
            merged);
  const std::string other =
      bsr_merge_shipped_lines(source, bsr_shipped_lines("B200", two_kernel_result()));
  EXPECT_NE(other.find("    {\"B200\", \"bsr.bs4.f64\", \"kernel=k1\"},  // 2900.0 GB/s\n};\n"),
            std::string::npos)
      << other;
  EXPECT_THROW(bsr_merge_shipped_lines("int x;\n", {}), InputError);
}

TEST(BsrDefaultsTable, MergesIntoTheShippedFile) {
  const auto path = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() /
                    "formats" / "bsr" / "bsr_tuning_defaults.cpp";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
  std::ifstream in(path);
  const std::string source(std::istreambuf_iterator<char>(in), {});
  const std::string merged =
      bsr_merge_shipped_lines(source, bsr_shipped_lines("H100", two_kernel_result()));
  // bs4 f64 K1 replaced (once); K2 and the kernel entry replaced where the file has them
  // (measured entries), added where not; nothing else touched.
  const std::ptrdiff_t added = (count(source, "{\"H100\", \"bsr.k2.bs4.f64\",") == 0 ? 1 : 0) +
                               (count(source, "{\"H100\", \"bsr.bs4.f64\",") == 0 ? 1 : 0);
  EXPECT_EQ(count(merged, "{\"H100\", \"bsr.k1.bs4.f64\", \"n_ta=16,n_brows_ta=16,ilp=4\"},"), 1);
  EXPECT_EQ(count(merged, "{\"H100\", \"bsr.k2.bs4.f64\","), 1);
  EXPECT_EQ(count(merged, "{\"H100\", \"bsr.bs4.f64\", \"kernel=k1\"},"), 1);
  EXPECT_EQ(count(merged, "\n"), count(source, "\n") + added);
  EXPECT_EQ(count(merged, "{\"H200\","), count(source, "{\"H200\","));
}

}  // namespace
}  // namespace spmvkit
