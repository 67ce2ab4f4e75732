// spmvkit solve MATRIX: solves A x = b with BiCGSTAB or CG (merged or reference) on any
// format of the registry, optionally preconditioned (--precond) or in mixed precision
// (--precision mixed); a live progress line on a terminal, a summary table, JSON.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "bench/progress.hpp"
#include "bench/solver_bench.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/matrix_market.hpp"
#include "spmvkit/preconditioners.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/timing.hpp"
#include "tools/commands.hpp"
#include "tools/dist/dist_run.hpp"

namespace spmvkit::cli {
namespace {

struct SolveArgs {
  std::string matrix, rhs = "ones", method = "bicgstab", impl = "merged", format = "auto";
  std::string precision = "f64", history, json, backend = "auto", precond = "none";
  double rtol = 1e-8, atol = 0;
  int maxiter = 1000, check_every = 16;
  bool no_graph = false, dist = false;
  DistArgs d;
};

std::vector<double> make_rhs(const std::string& rhs, const Csr<double>& a) {
  const std::size_t n = static_cast<std::size_t>(a.rows);
  if (rhs == "ones") return std::vector<double>(n, 1.0);
  if (rhs == "random") {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(n);
    for (double& v : b) v = u(rng);
    return b;
  }
  std::vector<double> b = read_matrix_market_vector(rhs);
  if (b.size() != n)
    throw InputError("--rhs " + rhs + ": " + std::to_string(b.size()) + " values, the matrix has " +
                     std::to_string(n) + " rows");
  return b;
}

// V: the precision of the solve (double for --precision mixed, whose inner solves are float).
template <class V>
void run(const SolveArgs& s) {
  const Backend be = s.backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                         : parse_backend(s.backend);
  const bool mixed = s.precision == "mixed";
  const PrecondSpec pc = parse_precond(s.precond);
  SolverOptions o;
  o.method = parse_solver_method(s.method);
  o.impl = parse_solver_impl(s.impl);
  o.rtol = s.rtol;
  o.atol = s.atol;
  o.maxiter = s.maxiter;
  o.check_every = s.check_every;
  o.cuda_graph = !s.no_graph;
  const Csr<double> a64 = load_matrix(s.matrix);
  if (a64.rows != a64.cols)
    throw InputError(s.matrix + " is " + std::to_string(a64.rows) + " x " +
                     std::to_string(a64.cols) + ": a solver needs a square matrix");
  const std::vector<double> b64 = make_rhs(s.rhs, a64);
  // auto weighs setup against the solve's SpMVs: two an iteration (BiCGSTAB), maxiter at most.
  Params format_params;
  if (s.format == "auto" && s.maxiter > 0)
    format_params.set("applies", std::to_string(2LL * s.maxiter));
  const auto op = build_operator<V>(s.format, a64.cast<V>(), format_params, be);
  std::unique_ptr<Operator<float>> op32, m32;
  std::unique_ptr<Operator<V>> m;
  if (mixed) op32 = build_operator<float>(s.format, a64.cast<float>(), format_params, be);
  const auto setup0 = std::chrono::steady_clock::now();
  if (mixed) {
    m32 = make_preconditioner<float>(pc, a64.cast<float>(), be);
  } else {
    m = make_preconditioner<V>(pc, a64.cast<V>(), be);
  }
  synchronize(be);
  const double setup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - setup0).count();
  const Vector<V> b = Vector<V>::from_host(std::vector<V>(b64.begin(), b64.end()), be);
  Vector<V> x(b.size(), be);
  x.fill(V(0));

  Progress progress(std::string(to_string(o.method)) + " " + std::string(to_string(o.impl)));
  double first = 0;
  const double goal = std::max(o.rtol, 1e-300);
  o.callback = [&](int k, double res) {
    if (k == 0) first = res;
    if (!progress.enabled() || !(first > 0)) return;
    // Progress in orders of magnitude towards rtol ||b|| ~ rtol ||r0|| (x0 = 0).
    const double done = std::log(first / std::max(res, 1e-300)) / std::log(1.0 / goal);
    char note[96];
    std::snprintf(note, sizeof note, "iteration %d  ||r|| %.3e", k, res);
    progress.update(std::clamp(done, 0.0, 1.0), note);
  };
  SolveResult r;
  if constexpr (std::is_same_v<V, double>) {
    r = mixed ? solve_mixed(*op, *op32, b, x, o, m32.get()) : solve(*op, b, x, o, m.get());
  } else {
    r = solve(*op, b, x, o, m.get());
  }
  progress.update(1.0);

  const double ceiling = measure_read_bandwidth_gbs(
      be, be == Backend::cuda ? std::size_t{1} << 30 : std::size_t{256} << 20);
  nlohmann::json rec = bench::solve_record(s.matrix, op->info(), o, r, sizeof(V), ceiling);
  rec["precond"] = to_string(pc);
  rec["precond_setup_ms"] = setup_ms;
  if (mixed) {
    rec["precision"] = "mixed";
    rec["outer_iterations"] = r.outer_iterations;
  }
  std::printf("%s", bench::solve_summary(rec).c_str());
  if (!s.history.empty()) {
    std::ofstream h(s.history);
    if (!h) throw InputError("--history: cannot write " + s.history);
    h << "iteration,residual_norm,relative\n";
    for (std::size_t k = 0; k < r.history.size(); ++k)
      h << k << ',' << r.history[k] << ',' << r.history[k] / r.b_norm << '\n';
  }
  if (!s.json.empty()) {
    nlohmann::json doc = bench::solver_document(be, ceiling);
    doc["results"] = nlohmann::json::array({rec});
    doc["results"][0]["history"] = r.history;
    std::ofstream j(s.json);
    if (!j) throw InputError("--json: cannot write " + s.json);
    j << doc.dump(2) << '\n';
  }
  if (r.status != SolveStatus::converged)
    throw Error("did not converge: " + std::string(to_string(r.status)) +
                (r.breakdown.empty() ? "" : " (" + r.breakdown + ")"));
}

}  // namespace

void add_solve(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "solve", "Solve A x = b with BiCGSTAB or CG (merged kernels or the cuBLAS-style reference)");
  auto s = std::make_shared<SolveArgs>();
  cmd->add_option("MATRIX", s->matrix, "Matrix Market file, shared matrix name or generator name")
      ->required();
  cmd->add_option("--rhs", s->rhs, "ones, random, or a Matrix Market vector file");
  cmd->add_option("--method", s->method, "bicgstab or cg")
      ->check(CLI::IsMember({"bicgstab", "cg"}));
  cmd->add_option("--impl", s->impl, "merged or reference")
      ->check(CLI::IsMember({"merged", "reference"}));
  cmd->add_option("--format", s->format,
                  "SpMV format (registry name; default auto, weighing setup against the SpMVs)");
  cmd->add_option("--precision", s->precision,
                  "f64, f32, or mixed (refinement: double outer loop, float inner solves)")
      ->check(CLI::IsMember({"f64", "f32", "mixed"}));
  cmd->add_option("--precond", s->precond,
                  "none, jacobi, or block_jacobi[:BS] (BS: the block size; default the "
                  "matrix's own)");
  cmd->add_option("--rtol", s->rtol, "Stop when ||r|| <= max(rtol ||b||, atol)");
  cmd->add_option("--atol", s->atol, "Absolute tolerance");
  cmd->add_option("--maxiter", s->maxiter, "Most iterations");
  cmd->add_option("--check-every", s->check_every,
                  "Merged CUDA: iterations between the host's looks at the residual");
  cmd->add_flag("--no-graph", s->no_graph, "Merged CUDA: launch kernels directly, no CUDA graph");
  cmd->add_option("--history", s->history, "Write the residual history (CSV) to this file");
  cmd->add_option("--json", s->json, "Write every figure as JSON to this file");
  cmd->add_option("--backend", s->backend, "cuda, cpu, or auto (cuda when a GPU is present)");
  add_dist_options(cmd, s->dist, s->d);
  cmd->callback([s] {
    parse_precond(s->precond);  // a bad name fails before the matrix is loaded
    if (s->dist) {
      if (s->precond != "none" || s->precision == "mixed" || s->rhs != "ones" ||
          !s->history.empty())
        throw InputError("--precond, --precision mixed, --rhs and --history do not go with "
                         "--dist yet");
      DistArgs& d = s->d;
      d.command = "solve";
      d.matrices = {s->matrix};
      d.formats = {s->format};  // auto: chosen for each rank's parts
      d.backend = s->backend;
      d.precision = s->precision;
      d.method = s->method;
      d.impl = s->impl;
      d.rtol = s->rtol;
      d.maxiter = s->maxiter;
      d.json = s->json;
      run_dist(d);
      return;
    }
    if (s->precision == "f32")
      run<float>(*s);
    else
      run<double>(*s);
  });
}

}  // namespace spmvkit::cli
