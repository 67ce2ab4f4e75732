// spmvkit bench MATRIX|SUITE...: every format next to the backend's peers (cuSPARSE on the GPU,
// Eigen on the CPU), after measuring the device's read-bandwidth ceiling; a table on stdout,
// JSON with --json.
#include "bench/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench/precond_bench.hpp"
#include "bench/solver_bench.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/registry.hpp"
#include "tools/commands.hpp"
#include "tools/dist/dist_run.hpp"

namespace spmvkit::cli {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t end = std::min(s.find(sep, pos), s.size());
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}
// True for a real matrix a suite names (bcsstk13, or the NAME of expand_bsB_NAME) that no
// folder holds: a bare clone has no ../shared/matrices and bundles only a few.
bool missing_real_matrix(const std::string& name) {
  std::string inner = name;
  if (name.rfind("expand_bs", 0) == 0 && name.find('_', 9) != std::string::npos)
    inner = name.substr(name.find('_', 9) + 1);
  if (is_generator_name(inner) || inner.find('/') != std::string::npos ||
      std::filesystem::exists(inner))
    return false;
  return find_named_matrix(inner).empty();
}

}  // namespace

// "64M", "1e6", "0" -> a count (K, M, G: powers of 1000).
std::int64_t parse_count(const std::string& what, const std::string& text) {
  double scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    const char suffix = digits.back();
    if (suffix == 'K' || suffix == 'k') scale = 1e3;
    if (suffix == 'M' || suffix == 'm') scale = 1e6;
    if (suffix == 'G' || suffix == 'g') scale = 1e9;
    if (scale != 1) digits.pop_back();
  }
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != digits.size() || !(v >= 0) || !std::isfinite(v * scale))
    throw InputError(what + ": '" + text + "' is not a count (e.g. 64M, 1e6, 0)");
  return static_cast<std::int64_t>(std::llround(v * scale));
}

// `spmvkit bench solvers [MATRIX...]`: the solver suite (bench/solver_bench.hpp); matrices
// after "solvers" replace the suite's list; --formats names the one SpMV format.
static void run_solvers_suite(const std::vector<std::string>& args, const std::string& backend,
                              const std::string& precision, const std::string& formats, int reps,
                              double time_limit, const std::string& json) {
  bench::SolverBenchOptions o;
  o.backend = backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                : parse_backend(backend);
  o.double_precision = precision == "f64";
  if (!formats.empty()) o.format = formats;
  if (reps > 0) o.reps = reps;
  o.time_limit_s = time_limit;
  std::vector<std::string> matrices(args.begin() + 1, args.end());
  if (matrices.empty()) matrices = bench::solver_suite();
  const nlohmann::json doc = bench::run_solver_bench(matrices, o, std::cout);
  if (!json.empty()) {
    std::ofstream out(json);
    if (!out) throw InputError("cannot write " + json);
    out << doc.dump(2) << "\n";
  }
}

// `spmvkit bench precond`: block-Jacobi vs Jacobi, mixed vs double (bench/precond_bench.hpp).
// --formats names the one SpMV format; on the CPU the systems are small (a smoke run).
static void run_precond_suite(const std::string& backend, const std::string& formats, int reps,
                              const std::string& json) {
  bench::PrecondBenchOptions o;
  o.backend = backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                : parse_backend(backend);
  if (!formats.empty()) o.format = formats;
  if (reps > 0) o.reps = reps;
  if (o.backend == Backend::cpu) {
    o.reservoir_values = 2e6;
    o.convdiff = "convdiff3d_32";
    o.stencil = "stencil7_40";
  }
  const nlohmann::json doc = bench::run_precond_bench(o, std::cout);
  if (!json.empty()) {
    std::ofstream out(json);
    if (!out) throw InputError("cannot write " + json);
    out << doc.dump(2) << "\n";
  }
}

void add_bench(CLI::App& app) {
  std::string suites;
  for (const auto& s : bench::suite_names()) suites += (suites.empty() ? "" : ", ") + s;
  auto* cmd = app.add_subcommand("bench", "Benchmark formats on matrices or suites (" + suites +
                                              ", solvers, precond" +
                                              "), next to cuSPARSE (GPU) or Eigen (CPU)");
  struct Args {
    std::vector<std::string> matrices;
    std::string backend = "auto", precision = "f64", formats, params, json, reorder = "none";
    int reps = 50, warmup = 10, builds = 1, setup_reps = 1;
    bool no_check = false, dist = false;
    DistArgs d;
    std::string max_expanded_nnz = "64M", part = "1/1";
    double time_limit = 0;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("MATRIX", a->matrices, "Matrices (file, shared name, generator) or suite names")
      ->required();
  cmd->add_option("--backend", a->backend, "cuda, cpu, or auto (cuda when a GPU is present)");
  cmd->add_option("--precision", a->precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
  auto* formats_opt = cmd->add_option("--formats", a->formats,
                                      "Comma-separated registry names (default: all, or the "
                                      "suite's)");
  auto* params_opt = cmd->add_option(
      "--params", a->params,
      "Per-format parameters: 'fmt:k=v,k=v;fmt2:k=v'; 'fmt:k=1|k=2' measures each set as a "
      "variant fmt[k=1], fmt[k=2] (replaces the suite's)");
  auto* reps_opt = cmd->add_option("--reps", a->reps, "Timed runs per format (median reported)")
                       ->check(CLI::Range(1, 100000));
  auto* warmup_opt =
      cmd->add_option("--warmup", a->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  cmd->add_option("--builds", a->builds,
                  "Build each format this many times, time each build (--reps runs) and report "
                  "the median of the builds' medians (default 1)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--setup-reps", a->setup_reps,
                  "Time the setup over this many builds and report their median (the first "
                  "build's, with auto[tune=1]'s measuring, as setup_first_ms; no further "
                  "build once they took 2 s; default 1). Over 1, a setup of at most 5 ms is "
                  "paired build by build with the setup baseline's (cusparse_csr_alg1, or "
                  "eigen_csr on the CPU) where the run measures it: setup_vs_peer_paired")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--reorder", a->reorder, "Reorder every matrix first: none or rcm");
  cmd->add_option("--json", a->json, "Also write the full results as JSON to this file");
  cmd->add_flag("--no-check", a->no_check, "Skip the check against the float64 reference");
  cmd->add_option("--max-expanded-nnz", a->max_expanded_nnz,
                  "Skip (one record each) expand_bsB_NAME with more nonzeros (default 64M; 0: "
                  "no cap)");
  cmd->add_option("--time-limit", a->time_limit,
                  "Seconds: matrices not started by then are recorded as skipped (0: none)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--part", a->part, "K/N: run every N-th matrix from the K-th (split a suite)");
  add_dist_options(cmd, a->dist, a->d);
  cmd->add_option("--overlap", a->d.overlap,
                  "--dist: halo exchange beside the local part (on), after it (off), or both timed")
      ->check(CLI::IsMember({"on", "off", "both"}));
  cmd->callback([a, formats_opt, params_opt, reps_opt, warmup_opt] {
    if (a->dist) {
      if (params_opt->count() || a->reorder != "none")
        throw InputError("--params and --reorder do not go with --dist yet");
      DistArgs& d = a->d;
      d.command = "spmv";
      for (const auto& m : a->matrices)
        for (const auto& name : bench::suite(m)) d.matrices.push_back(name);
      // Without --formats, every format of the backend, as one process.
      d.formats = formats_opt->count() ? split(a->formats, ',') : std::vector<std::string>{};
      d.backend = a->backend;
      d.precision = a->precision;
      d.json = a->json;
      d.runs = a->reps;
      d.warmup = a->warmup;
      d.check = !a->no_check;
      run_dist(d);
      return;
    }
    if (!a->matrices.empty() && a->matrices.front() == "precond") {
      run_precond_suite(a->backend, a->formats, *reps_opt ? a->reps : 0, a->json);
      return;
    }
    if (!a->matrices.empty() && a->matrices.front() == "solvers") {
      run_solvers_suite(a->matrices, a->backend, a->precision, a->formats, *reps_opt ? a->reps : 0,
                        a->time_limit, a->json);
      return;
    }
    bench::Options opt;
    opt.backend = a->backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                       : parse_backend(a->backend);
    opt.double_precision = a->precision == "f64";
    opt.reorder = a->reorder;
    opt.check = !a->no_check;
    opt.max_expanded_nnz = parse_count("--max-expanded-nnz", a->max_expanded_nnz);
    opt.time_limit_s = a->time_limit;
    opt.builds = a->builds;
    opt.setup_reps = a->setup_reps;
    const auto part = split(a->part, '/');
    try {
      if (part.size() != 2) throw std::invalid_argument("K/N");
      opt.part = std::stoi(part[0]);
      opt.parts = std::stoi(part[1]);
    } catch (const std::exception&) {
      throw InputError("--part: '" + a->part + "' is not of the form K/N");
    }
    // A suite's own formats, parameters and timing, where the command line leaves them open.
    std::string suite_name;
    bench::SuiteDefaults d;
    for (const auto& m : a->matrices) {
      const bench::SuiteDefaults s = bench::suite_defaults(m);
      if (s.empty()) continue;
      if (!suite_name.empty() && (s.formats != d.formats || s.params != d.params))
        throw InputError("suites " + suite_name + " and " + m +
                         " bring different formats: run them separately");
      suite_name = m;
      d = s;
    }
    opt.formats = formats_opt->count() ? split(a->formats, ',') : d.formats;
    // A suite's own list gets `auto` too, measured against the oracle among the suite's formats.
    if (!formats_opt->count() && !opt.formats.empty() &&
        std::find(opt.formats.begin(), opt.formats.end(), "auto") == opt.formats.end())
      opt.formats.push_back("auto");
    opt.params = params_opt->count() ? a->params : d.params;
    opt.reps = reps_opt->count() || d.reps == 0 ? a->reps : d.reps;
    opt.warmup = warmup_opt->count() || d.reps == 0 ? a->warmup : d.warmup;
    if (!suite_name.empty()) {
      std::string list;
      for (const auto& f : opt.formats) list += (list.empty() ? "" : ",") + f;
      opt.note = "suite " + suite_name + ": formats " + (list.empty() ? "all" : list) +
                 (opt.params.empty() ? "" : " [" + opt.params + "]") + "; " +
                 std::to_string(opt.reps) + " timed runs after " + std::to_string(opt.warmup) +
                 " warm-up" +
                 (reps_opt->count() || warmup_opt->count()
                      ? " (--reps/--warmup)"
                      : " (suite default; --reps/--warmup override)") +
                 (opt.builds > 1 ? ", " + std::to_string(opt.builds) + " builds a format" : "") +
                 (opt.setup_reps > 1
                      ? ", setup the median of " + std::to_string(opt.setup_reps) + " builds"
                      : "");
    }
    // A suite's real matrices that no folder holds are skipped, said once (a matrix named on
    // the command line is still an error when it cannot be read).
    std::vector<std::string> matrices;
    std::size_t missing = 0;
    for (const auto& m : a->matrices)
      for (const auto& name : bench::suite(m)) {
        if (name != m && missing_real_matrix(name))
          ++missing;
        else
          matrices.push_back(name);
      }
    if (missing > 0) {
      const std::string why =
          "skipped " + std::to_string(missing) +
          " real matrices of the suite: none of $SPMVKIT_MATRICES, ../shared/matrices or "
          "tests/data holds them (point SPMVKIT_MATRICES at a folder of .mtx files)";
      std::cerr << "note: " << why << "\n";
      opt.note += (opt.note.empty() ? "" : "; ") + why;
    }
    const bench::Report report = bench::run(matrices, opt);
    bench::print_table(report, std::cout);
    if (!a->json.empty()) {
      std::ofstream out(a->json);
      if (!out) throw InputError("cannot write " + a->json);
      out << bench::to_json(report).dump(2) << "\n";
    }
    // After the whole table: a non-zero exit when a requested format was not measured.
    const std::string failed = bench::not_measured(report, formats_opt->count() > 0);
    if (!failed.empty()) throw Error("not measured: " + failed);
  });
}

namespace {
// One format: a line of its own, then a line per parameter (type, default, allowed values;
// with `full`, the meaning below each).
void print_format(const FormatEntry& f, bool full) {
  std::printf("%-20s %-8s %-5s %s\n", f.name.c_str(),
              f.cpu && f.cuda ? "cpu,cuda"
              : f.cuda        ? "cuda"
                              : "cpu",
              f.peer ? "peer" : "", f.summary.c_str());
  for (const ParamSpec& s : f.schema) {
    std::printf("    %-22s %-6s default %-8s allowed: %s%s\n", s.name.c_str(), to_string(s.type),
                s.fallback.c_str(), s.allowed().c_str(),
                s.cuda_only && f.cpu ? "  [cuda only]" : "");
    if (full) std::printf("        %s\n", s.meaning.c_str());
  }
}
}  // namespace

void add_formats(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("formats",
                         "List the registered formats and their parameters (type, default, allowed "
                         "values); with NAME, one format with the meaning of each parameter");
  auto name = std::make_shared<std::string>();
  cmd->add_option("NAME", *name, "A registry name");
  cmd->callback([name] {
    if (!name->empty()) {
      print_format(find_format(*name), true);
      return;
    }
    for (const auto& f : formats()) print_format(f, false);
  });
}

}  // namespace spmvkit::cli
