// spmvkit bench MATRIX|SUITE...: every format next to the cuSPARSE peers, after measuring the
// device's read-bandwidth ceiling; a table on stdout, JSON with --json.
#include <fstream>
#include <iostream>

#include "bench/bench.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"
#include "tools/commands.hpp"

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
}  // namespace

void add_bench(CLI::App& app) {
  std::string suites;
  for (const auto& s : bench::suite_names()) suites += (suites.empty() ? "" : ", ") + s;
  auto* cmd = app.add_subcommand(
      "bench", "Benchmark formats on matrices or suites (" + suites + "), next to cuSPARSE");
  struct Args {
    std::vector<std::string> matrices;
    std::string backend = "auto", precision = "f64", formats, params, json, reorder = "none";
    int reps = 50, warmup = 10;
    bool no_check = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("MATRIX", a->matrices, "Matrices (file, shared name, generator) or suite names")
      ->required();
  cmd->add_option("--backend", a->backend, "cuda, cpu, or auto (cuda when a GPU is present)");
  cmd->add_option("--precision", a->precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
  cmd->add_option("--formats", a->formats, "Comma-separated registry names (default: all)");
  cmd->add_option("--params", a->params, "Per-format parameters: 'fmt:k=v,k=v;fmt2:k=v'; 'fmt:k=1|k=2' measures each set as a variant fmt[k=1], fmt[k=2]");
  cmd->add_option("--reps", a->reps, "Timed runs per format (median reported)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", a->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  cmd->add_option("--reorder", a->reorder, "Reorder every matrix first: none or rcm");
  cmd->add_option("--json", a->json, "Also write the full results as JSON to this file");
  cmd->add_flag("--no-check", a->no_check, "Skip the check against the float64 reference");
  cmd->callback([a] {
    bench::Options opt;
    opt.backend = a->backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                       : parse_backend(a->backend);
    opt.double_precision = a->precision == "f64";
    opt.formats = split(a->formats, ',');
    opt.params = a->params;
    opt.reps = a->reps;
    opt.warmup = a->warmup;
    opt.reorder = a->reorder;
    opt.check = !a->no_check;
    std::vector<std::string> matrices;
    for (const auto& m : a->matrices)
      for (const auto& name : bench::suite(m)) matrices.push_back(name);
    const bench::Report report = bench::run(matrices, opt);
    bench::print_table(report, std::cout);
    if (!a->json.empty()) {
      std::ofstream out(a->json);
      if (!out) throw InputError("cannot write " + a->json);
      out << bench::to_json(report).dump(2) << "\n";
    }
  });
}

void add_formats(CLI::App& app) {
  auto* cmd = app.add_subcommand("formats", "List the registered formats and their parameters");
  cmd->callback([] {
    for (const auto& f : formats()) {
      std::string params;
      for (const auto& p : f.params) params += (params.empty() ? "" : ",") + p;
      std::printf("%-20s %-8s %-5s %s%s\n", f.name.c_str(),
                  f.cpu && f.cuda ? "cpu,cuda" : f.cuda ? "cuda" : "cpu", f.peer ? "peer" : "",
                  f.summary.c_str(), params.empty() ? "" : ("  [" + params + "]").c_str());
    }
  });
}

}  // namespace spmvkit::cli
