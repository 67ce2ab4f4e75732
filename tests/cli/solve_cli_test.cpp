// `spmvkit solve` and `spmvkit bench solvers` end to end on the CPU backend: exit codes, the
// summary, JSON with every field the issue names, the history file, one line per bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct CliResult {
  int status = -1;
  std::string out, err;
};

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("spmvkit_solve_" + std::to_string(getpid()) + "_" + name))
      .string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CliResult spmvkit(const std::string& args) {
  const std::string out = temp_path("out.txt"), err = temp_path("err.txt");
  const std::string cmd =
      "OMP_NUM_THREADS=1 " + std::string(SPMVKIT_CLI_PATH) + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

TEST(CliSolve, SolvesAndWritesJsonAndHistory) {
  const std::string json = temp_path("solve.json"), hist = temp_path("hist.csv");
  const CliResult r =
      spmvkit("solve convdiff2d_16 --backend cpu --format csr_scalar --rtol 1e-10 --json " + json +
              " --history " + hist);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("converged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("traffic model"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << "no progress line when stderr is not a terminal: " << r.err;
  const nlohmann::json doc = nlohmann::json::parse(slurp(json));
  for (const char* k : {"device", "commit", "date", "ceiling_gbs"})
    EXPECT_TRUE(doc.contains(k)) << k;
  const nlohmann::json& rec = doc["results"][0];
  for (const char* k : {"matrix", "method", "impl", "format", "precision", "n", "nnz", "iterations",
                        "status", "true_rel_residual", "iter_ms", "spmv_ms_per_iter",
                        "other_ms_per_iter", "model_other_ms", "history"})
    EXPECT_TRUE(rec.contains(k)) << k;
  EXPECT_EQ(rec["status"], "converged");
  EXPECT_LE(rec["true_rel_residual"].get<double>(), 1e-9);
  const std::string h = slurp(hist);
  EXPECT_EQ(std::count(h.begin(), h.end(), '\n'), rec["iterations"].get<int>() + 2);
  std::filesystem::remove(json);
  std::filesystem::remove(hist);
}

TEST(CliSolve, PreconditionedAndMixed) {
  const std::string json = temp_path("precond.json");
  CliResult r =
      spmvkit("solve reservoir_bs3_4_10 --backend cpu --precond block_jacobi --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("precond block_jacobi"), std::string::npos) << r.out;
  nlohmann::json rec = nlohmann::json::parse(slurp(json))["results"][0];
  EXPECT_EQ(rec["precond"], "block_jacobi");
  EXPECT_EQ(rec["status"], "converged");
  r = spmvkit(
      "solve convdiff2d_16 --backend cpu --rhs random --precision mixed --precond jacobi "
      "--rtol 1e-10 --json " +
      json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("outer double steps"), std::string::npos) << r.out;
  rec = nlohmann::json::parse(slurp(json))["results"][0];
  EXPECT_EQ(rec["precision"], "mixed");
  EXPECT_EQ(rec["status"], "converged");
  EXPECT_GE(rec["outer_iterations"].get<int>(), 2);
  EXPECT_LE(rec["true_rel_residual"].get<double>(), 1e-10);
  std::filesystem::remove(json);
}

TEST(CliSolve, BadInputGivesOneClearLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"solve stencil5_8 --backend cpu --maxiter -1", "maxiter"},
      {"solve random_10_12_2 --backend cpu", "square"},
      {"solve stencil5_8 --backend cpu --format no_such_format", "unknown format"},
      {"solve stencil5_8 --backend cpu --rhs /nonexistent/b.mtx", "/nonexistent/b.mtx"},
      {"solve stencil5_8 --backend cpu --rtol -1", "rtol"},
      {"solve convdiff2d_16 --backend cpu --method cg --maxiter 2", "max_iterations"},
      {"solve stencil5_8 --backend cpu --precond ilu", "unknown preconditioner 'ilu'"},
      {"solve stencil5_8 --backend cpu --precond block_jacobi:0", "block size"},
      {"solve stencil5_8 --backend cpu --precond block_jacobi", "no dense block structure"},
  };
  for (const auto& [args, word] : cases) {
    const CliResult r = spmvkit(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find("spmvkit: error:"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(word), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

TEST(CliSolve, BenchSolversSuiteOnTheCpu) {
  const std::string json = temp_path("bench.json");
  const CliResult r = spmvkit(
      "bench solvers stencil5_12 --backend cpu --formats csr_scalar --reps 1 --json " + json);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json doc = nlohmann::json::parse(slurp(json));
  for (const char* k : {"device", "commit", "date", "ceiling_gbs"})
    EXPECT_TRUE(doc.contains(k)) << k;
  ASSERT_EQ(doc["results"].size(), 4u);  // BiCGSTAB and CG, reference and merged
  for (const auto& rec : doc["results"])
    for (const char* k : {"matrix", "method", "impl", "format", "precision", "n", "nnz",
                          "iterations", "status", "true_rel_residual", "iter_ms",
                          "spmv_ms_per_iter", "other_ms_per_iter", "model_other_ms"})
      EXPECT_TRUE(rec.contains(k)) << k;
  EXPECT_TRUE(doc["results"][1].contains("savings_model_memory_dot"));
  std::filesystem::remove(json);
}

}  // namespace
