// The spmvkit CLI end to end: each command run as a user would, its exit code and output
// checked; bad input gives one line on stderr and a non-zero exit.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "select/model.hpp"
#include "spmvkit/generators.hpp"
#include "tests/common/zoo.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// A temp file name private to this test process (ctest runs the tests in parallel).
std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("spmvkit_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// Runs `ENV spmvkit ARGS` (ENV: "NAME=value " assignments, or empty) with stdout and stderr
// captured to files.
CliRun spmvkit_env(const std::string& env, const std::string& args) {
  const std::string out = temp_file("cli_out.txt");
  const std::string err = temp_file("cli_err.txt");
  const std::string cmd =
      env + std::string(SPMVKIT_CLI_PATH) + " " + args + " >" + out + " 2>" + err;
  CliRun r;
  const int raw = std::system(cmd.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

CliRun spmvkit(const std::string& args) { return spmvkit_env("", args); }

TEST(Cli, HelpEverywhere) {
  for (const char* cmd : {"", "info", "generate", "convert", "bench", "formats", "tune", "solve"}) {
    const CliRun r = spmvkit(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd << ": " << r.out;
  }
}

TEST(Cli, InfoOnARealMatrixByNameAndPath) {
  // By name: $SPMVKIT_MATRICES, ../shared/matrices, then the bundled tests/data.
  for (const std::string& m :
       {spmvkit::testing::data_matrix("bcsstk13.mtx.gz"), std::string("bcsstk13")}) {
    const CliRun r = spmvkit("info " + m);
    ASSERT_EQ(r.status, 0) << m << ": " << r.err;
    EXPECT_NE(r.out.find("2003 x 2003, 83883 nonzeros"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("row-length histogram"), std::string::npos);
    EXPECT_NE(r.out.find("symmetric     yes"), std::string::npos);
  }
}

TEST(Cli, InfoJsonWithReordering) {
  const CliRun r = spmvkit("info stencil7_6 --json --reorder rcm");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"], 216);
  EXPECT_EQ(j["nnz"], 7 * 216 - 6 * 36);
  EXPECT_EQ(j["pattern_symmetric"], true);
  EXPECT_LE(j["reordered"]["bandwidth"].get<int>(), j["bandwidth"].get<int>());
}

TEST(Cli, InfoAutoRanksAsTheAutoBuildWithoutAGpu) {
  // bench/fit_select.py replays format=auto from this (with an empty tuning store): it must be
  // the library's own ranking.
  const CliRun r = spmvkit_env("SPMVKIT_TUNING_FILE=/dev/null ", "info powerlaw_2000 --auto --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const spmvkit::select::Features f =
      spmvkit::select::measure_features(spmvkit::generate_by_name("powerlaw_2000"), 50u << 20);
  const auto c = spmvkit::select::choose(f, spmvkit::Backend::cuda, "NVIDIA H100 80GB HBM3", 0);
  EXPECT_EQ(j["features"]["rows"], 2000);
  ASSERT_EQ(j["ranked"].size(), c.ranked.size());
  for (std::size_t i = 0; i < c.ranked.size(); ++i) {
    EXPECT_EQ(j["ranked"][i]["format"], c.ranked[i].format);
    EXPECT_EQ(j["ranked"][i]["x"].size(), spmvkit::select::kCostTerms);
  }
  EXPECT_TRUE(j["x"].contains("bsr"));  // every format's x, candidate here or not
  const CliRun text =
      spmvkit_env("SPMVKIT_TUNING_FILE=/dev/null ", "info powerlaw_2000 --auto --precision f32");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("f32"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(c.ranked.front().format), std::string::npos) << text.out;
  // With the device's measured neighbours in the store (`tune auto --model`), as the build ranks.
  const std::string store = temp_file("info_auto_store.tsv");
  {
    const auto [key, value] = spmvkit::select::measured_record(
        f, spmvkit::Backend::cuda, "mine", {{c.ranked.front().format, std::log(50.0)}});
    std::ofstream(store) << "NVIDIA H100 80GB HBM3\t" << key << "\t" << value << "\n";
  }
  const CliRun measured =
      spmvkit_env("SPMVKIT_TUNING_FILE=" + store + " ", "info powerlaw_2000 --auto --json");
  std::filesystem::remove(store);
  ASSERT_EQ(measured.status, 0) << measured.err;
  const auto m = nlohmann::json::parse(measured.out);
  EXPECT_NE(m["ranked"][0]["format"], c.ranked.front().format);
  EXPECT_NE(measured.out.find("1 measured on this device, first mine"), std::string::npos)
      << measured.out;
}

TEST(Cli, GenerateConvertAndReadBack) {
  const std::string mtx = temp_file("spmvkit_cli_gen.mtx"),
                    gz = temp_file("spmvkit_cli_gen.mtx.gz");
  CliRun r = spmvkit("generate reservoir_bs3_4 -o " + mtx);
  ASSERT_EQ(r.status, 0) << r.err;
  r = spmvkit("convert " + mtx + " " + gz);
  ASSERT_EQ(r.status, 0) << r.err;
  r = spmvkit("info " + gz + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"], 64 * 3);
  EXPECT_EQ(j["block_size"], 3);
  std::filesystem::remove(mtx);
  std::filesystem::remove(gz);
}

TEST(Cli, CpuBenchWritesJsonWithEveryField) {
  const std::string json = temp_file("spmvkit_cli_bench.json");
  const CliRun r = spmvkit(
      "bench stencil7_12 --backend cpu --reps 3 --warmup 1 "
      "--formats csr_scalar,csr_balanced,ell --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("read-bandwidth ceiling"), std::string::npos);
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  for (const char* key : {"device", "driver", "commit", "date", "ceiling_gbs", "results"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["results"].size(), 3u);
  for (const auto& rec : j["results"]) {
    for (const char* key : {"matrix", "format", "rows", "nnz", "setup_ms", "spmv_ms", "gflops",
                            "gbs", "pct_ceiling", "ratio_vs_cusparse", "max_rel_err"})
      EXPECT_TRUE(rec.contains(key)) << key;
    EXPECT_EQ(rec["status"], "ok");
    EXPECT_LT(rec["max_rel_err"].get<double>(), 1e-12);
    EXPECT_GT(rec["spmv_ms"].get<double>(), 0.0);
  }
  std::filesystem::remove(json);
}

// --builds N: each format built and timed N times (builds 2..N in rounds over the formats), the
// record the median of the builds' medians (spmv_ms_builds, within the span of every timed
// run); 0 is refused.
TEST(Cli, BenchBuildsEachFormatNTimes) {
  const std::string json = temp_file("spmvkit_cli_builds.json");
  const CliRun r = spmvkit(
      "bench stencil7_12 --backend cpu --reps 2 --warmup 0 --builds 3 "
      "--formats csr_scalar,ell --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["builds"], 3);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& rec : j["results"]) {
    EXPECT_EQ(rec["status"], "ok");
    EXPECT_LE(rec["spmv_ms_min"].get<double>(), rec["spmv_ms"].get<double>());
    EXPECT_LE(rec["spmv_ms"].get<double>(), rec["spmv_ms_max"].get<double>());
    std::vector<double> builds = rec["spmv_ms_builds"].get<std::vector<double>>();
    ASSERT_EQ(builds.size(), 3u);
    for (double b : builds) {
      EXPECT_GE(b, rec["spmv_ms_min"].get<double>());
      EXPECT_LE(b, rec["spmv_ms_max"].get<double>());
    }
    std::sort(builds.begin(), builds.end());
    EXPECT_EQ(rec["spmv_ms"].get<double>(), builds[1]);
  }
  std::filesystem::remove(json);
  const CliRun bad = spmvkit("bench stencil7_12 --backend cpu --builds 0");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--builds"), std::string::npos) << bad.err;
}

// --setup-reps N > 1: each build of our formats whose first setup took at most 5 ms
// (kPairedSetupMaxMs) is paired with one of the backend's setup baseline (Eigen's CSR on the
// CPU), and the pairs' median ratio recorded; a slower one, the baseline itself, and a run of one
// build are not paired. A 64-row matrix: a loaded CI machine once took over 5 ms for SELL-P's
// first setup of a 1,728-row one.
TEST(Cli, BenchPairsSmallSetupsWithTheBaseline) {
  const std::string json = temp_file("spmvkit_cli_paired.json");
  CliRun r = spmvkit(
      "bench stencil5_8 --backend cpu --reps 2 --warmup 0 --setup-reps 4 "
      "--formats csr_scalar,ell,sellp,eigen_csr --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.err;
  {
    std::ifstream in(json);
    const auto j = nlohmann::json::parse(in);
    ASSERT_EQ(j["results"].size(), 4u);
    int paired = 0;
    for (const auto& rec : j["results"]) {
      SCOPED_TRACE(rec["format"].get<std::string>());
      ASSERT_EQ(rec["status"], "ok");
      EXPECT_EQ(rec["setup_reps"], 4);
      EXPECT_GT(rec["spmv_ms"].get<double>(), 0.0);  // the operator rebuilt after the pairs
      EXPECT_LT(rec["max_rel_err"].get<double>(), 1e-12);
      if (rec["format"] == "eigen_csr" || rec["setup_first_ms"].get<double>() > 5.0) {
        EXPECT_EQ(rec["paired_builds"], 0);
        EXPECT_TRUE(rec["setup_vs_peer_paired"].is_null());
        continue;
      }
      ++paired;
      EXPECT_EQ(rec["paired_builds"], 4);
      ASSERT_FALSE(rec["setup_vs_peer_paired"].is_null());
      EXPECT_GT(rec["setup_vs_peer_paired"].get<double>(), 0.0);
      EXPECT_GT(rec["peer_setup_paired_ms"].get<double>(), 0.0);
    }
    EXPECT_GE(paired, 1);
  }
  r = spmvkit("bench stencil5_8 --backend cpu --reps 2 --warmup 0 --formats csr_scalar,eigen_csr "
              "--json " +
              json);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  for (const auto& rec : j["results"]) {
    EXPECT_EQ(rec["paired_builds"], 0);
    EXPECT_TRUE(rec["setup_vs_peer_paired"].is_null());
  }
  std::filesystem::remove(json);
}

// A suite's real matrices that no folder holds are skipped with one note (a bare clone has no
// ../shared/matrices); the bundled ones still run; a missing matrix named alone is an error.
TEST(Cli, SuiteSkipsRealMatricesNoFolderHolds) {
  const std::string empty = temp_file("no_matrices");
  std::filesystem::create_directories(empty);
  const std::string json = temp_file("spmvkit_cli_skip.json");
  const std::string env = "SPMVKIT_MATRICES=" + empty + " ";
  const CliRun r = spmvkit_env(env,
                               "bench real --backend cpu --formats csr_scalar --reps 1 "
                               "--warmup 0 --json " +
                                   json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note: skipped 28 real matrices of the suite"), std::string::npos) << r.err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["results"].size(), 7u);  // the bundled tests/data matrices
  for (const auto& rec : j["results"]) EXPECT_EQ(rec["status"], "ok") << rec["matrix"];
  EXPECT_NE(j["note"].get<std::string>().find("skipped 28"), std::string::npos);

  const CliRun alone = spmvkit_env(env, "bench rajat01 --backend cpu --formats csr_scalar");
  EXPECT_EQ(alone.status, 1);
  EXPECT_NE(alone.err.find("rajat01"), std::string::npos) << alone.err;
  std::filesystem::remove(json);
  std::filesystem::remove(empty);
}

// Block expansion runs: the generator's block size goes to block formats (variants keep their
// labels), expansions over the cap leave one skipped record, and --part takes every N-th matrix.
TEST(Cli, CpuBenchExpandedMatricesLabelsCapAndParts) {
  const std::string json = temp_file("spmvkit_cli_expand.json");
  const CliRun r = spmvkit(
      "bench expand_bs3_karate expand_bs40_bcsstk13 --backend cpu --reps 2 "
      "--warmup 0 --formats bsr,csr_vector --params 'bsr:balanced=auto|balanced=off' "
      "--max-expanded-nnz 1M --part 1/2 --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["part"], "1/2");
  EXPECT_EQ(j["max_expanded_nnz"], 1000000);
  ASSERT_EQ(j["results"].size(), 3u);  // expand_bs40_bcsstk13 is part 2
  for (const auto& rec : j["results"]) {
    EXPECT_EQ(rec["matrix"], "expand_bs3_karate");
    EXPECT_EQ(rec["nnz"], 156 * 9);
    EXPECT_EQ(rec["status"], "ok") << rec["format"];
  }
  EXPECT_EQ(j["results"][0]["format"], "bsr[balanced=auto]");
  EXPECT_EQ(j["results"][1]["format"], "bsr[balanced=off]");
  EXPECT_NE(j["results"][0]["details"].get<std::string>().find("bs=3,"), std::string::npos);
  EXPECT_NE(j["results"][1]["details"].get<std::string>().find("balanced=0"), std::string::npos);

  const CliRun capped = spmvkit(
      "bench expand_bs40_bcsstk13 --backend cpu --formats bsr --reps 1 "
      "--max-expanded-nnz 1M --json " +
      json);
  ASSERT_EQ(capped.status, 0) << capped.err;
  EXPECT_NE(capped.out.find("skipped: 134212800 expanded nonzeros over --max-expanded-nnz"),
            std::string::npos)
      << capped.out;
  std::ifstream in2(json);
  const auto j2 = nlohmann::json::parse(in2);
  ASSERT_EQ(j2["results"].size(), 1u);
  EXPECT_EQ(j2["results"][0]["format"], "-");

  for (const char* bad : {"--part 3/2", "--part x", "--max-expanded-nnz lots"}) {
    const CliRun e = spmvkit(std::string("bench karate --backend cpu --formats bsr ") + bad);
    EXPECT_EQ(e.status, 1) << bad;
    EXPECT_NE(e.err.find("spmvkit: error:"), std::string::npos) << bad << ": " << e.err;
  }
  std::filesystem::remove(json);
}

// Each (arguments, word): exit status 1 and exactly one line on stderr, an error naming `word`.
template <std::size_t N>
void expect_one_error_line_each(const std::array<std::pair<std::string, std::string>, N>& cases) {
  for (const auto& [args, word] : cases) {
    const CliRun r = spmvkit(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find("spmvkit: error:"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(word), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// Bad input: one line naming the problem on stderr, non-zero exit, never a crash.
TEST(Cli, BadInputGivesOneClearLine) {
  const std::string bad = temp_file("spmvkit_cli_bad.mtx");
  {
    std::ofstream f(bad);
    f << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n";
  }
  const std::array<std::pair<std::string, std::string>, 8> cases = {{
      {"info /nonexistent/file.mtx", "cannot open"},
      {"info " + bad, ":4:"},
      {"info " + spmvkit::testing::data_matrix("unsupported/w156.mtx"), "complex"},
      {"info stencil27_x", "stencil27_x"},
      {"bench stencil7_4 --backend cpu --formats no_such_format", "unknown format"},
      {"bench stencil7_4 --backend cpu --formats ell --params 'ell:bogus=1'", "unknown parameter"},
      // Issue 32: the schema refuses a value the CUDA kernel cannot take, on the CPU too.
      {"bench stencil5_50 --backend cpu --formats csr_balanced --params "
       "'csr_balanced:items_per_thread=5'",
       "items_per_thread=5 is not allowed (allowed: 4, 8, 16)"},
      {"generate not_a_generator -o " + temp_file("x.mtx"), "not a generator"},
  }};
  expect_one_error_line_each(cases);
  std::filesystem::remove(bad);
}

// spmvkit formats: each parameter's type, default and allowed values; NAME: with meanings.
// spmvkit bench: a format named with --formats that refuses the matrix fails the run after the
// whole table; in a run over a suite's or all formats it is a result.
TEST(Cli, FormatsSchemaAndBenchExitStatus) {
  const CliRun all = spmvkit("formats");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("items_per_thread       int    default 8        allowed: 4, 8, 16"),
            std::string::npos)
      << all.out;
  const CliRun one = spmvkit("formats sellp");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.out.find("sorting window"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("csr_balanced"), std::string::npos) << one.out;
  EXPECT_EQ(spmvkit("formats no_such_format").status, 1);

  const CliRun refused =
      spmvkit("bench powerlaw_20000 --backend cpu --reps 1 --warmup 0 --formats ell,csr_scalar");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.out.find("csr_scalar"), std::string::npos) << refused.out;  // whole table
  EXPECT_NE(refused.err.find("not measured: powerlaw_20000/ell"), std::string::npos) << refused.err;
  const CliRun ok = spmvkit(
      "bench powerlaw_20000 --backend cpu --reps 1 --warmup 0 --formats "
      "csr_scalar");
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// Every command that reads a matrix, given a directory, a file that cannot be read, a truncated
// gzip or random bytes: exit 1 and one line naming the file and the problem.
TEST(Cli, EveryCommandRefusesBadFilesWithOneLine) {
  const std::string dir = temp_file("a_directory.mtx");
  std::filesystem::create_directories(dir);
  const std::string truncated = temp_file("truncated.mtx.gz");
  {
    std::ifstream in(spmvkit::testing::data_matrix("bcsstk16.mtx.gz"), std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  }
  const std::string noise = temp_file("noise.mtx");
  {
    std::mt19937 rng(7);
    std::string bytes(4096, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng() & 0xff);
    bytes[0] = 'x';  // not the gzip magic
    std::ofstream(noise, std::ios::binary) << bytes;
  }
  // /proc/self/mem opens but cannot be read from its start, even by root (as CI runs).
  const std::vector<std::pair<std::string, std::string>> files = {{dir, "directory"},
                                                                  {"/proc/self/mem", "read error"},
                                                                  {truncated, "truncated"},
                                                                  {noise, "banner"}};
  const std::string out = temp_file("out.mtx");
  for (const auto& [file, problem] : files) {
    for (const std::string& args :
         {"info " + file, "info expand_bs2_" + file, "convert " + file + " " + out,
          "bench " + file + " --backend cpu --formats csr_scalar --reps 1",
          "solve " + file + " --backend cpu", "solve stencil5_6 --backend cpu --rhs " + file}) {
      const CliRun r = spmvkit(args);
      EXPECT_EQ(r.status, 1) << args;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
      EXPECT_NE(r.err.find("spmvkit: error: " + file), std::string::npos) << args << ": " << r.err;
      EXPECT_NE(r.err.find(problem), std::string::npos) << args << ": " << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove(dir);
  std::filesystem::remove(truncated);
  std::filesystem::remove(noise);
}

// `tune bsr` (and an option of another tuner, `tune auto` without MATRIX): arguments are checked
// before the device; with no GPU visible (hidden here, so the test means the same on a GPU
// machine) it stops with one clear line, never tuning anything.
TEST(Cli, TuneBsrArgumentsAndNoDevice) {
  const std::array<std::pair<std::string, std::string>, 9> cases = {{
      {"tune bsr --block-sizes 0", "block size"},
      {"tune bsr --block-sizes 8-4", "empty range"},
      {"tune bsr --nnz lots", "not a count"},
      {"tune bsr --nnz 10", "outside"},
      {"tune bsr stencil7_4", "takes no MATRIX"},
      {"tune hec --block-sizes 4", "applies to `tune bsr` only"},
      {"tune hec --reps 4", "applies to `tune bsr` or `tune auto` only"},
      {"tune bsr --model", "applies to `tune auto` only"},
      {"tune auto", "name at least one MATRIX"},
  }};
  expect_one_error_line_each(cases);
  EXPECT_NE(spmvkit("tune bsr --precision f16").status, 0);
  const std::string defaults = temp_file("bsr_defaults.cpp");
  const std::string hide = "CUDA_VISIBLE_DEVICES= ";
  const std::string cmd = hide + SPMVKIT_CLI_PATH + " tune bsr --block-sizes 2-4 --nnz 1e5 " +
                          "--emit-defaults " + defaults + " >/dev/null 2>" + defaults + ".err";
  const int raw = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 1) << raw;
  std::ifstream err(defaults + ".err");
  const std::string text(std::istreambuf_iterator<char>(err), {});
  EXPECT_NE(text.find("spmvkit: error:"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(defaults));  // nothing written
  std::filesystem::remove(defaults + ".err");
}

TEST(Cli, ProgressBarIsSilentWhenStderrIsNotATerminal) {
  const CliRun r = spmvkit("info stencil27_40");
  ASSERT_EQ(r.status, 0);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

}  // namespace
