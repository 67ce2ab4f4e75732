// spmvkit-dist: distributed SpMV and solves under mpirun (docs/distributed.md).
//   mpirun -n 4 spmvkit-dist spmv  MATRIX [--format F] [--backend cpu|cuda] [--transport mpi|nccl]
//   mpirun -n 4 spmvkit-dist solve MATRIX [--method cg|bicgstab] [--impl reference|merged] ...
//   spmvkit-dist cyclic MATRIX --gpus 1,2,4      (one process: the BSR paper's 1D-cyclic
//                                                  scheme over that many of the visible GPUs)
// Rank 0 prints one table line per record and writes the JSON (each record with `ranks`, the
// GPUs or processes used, per-rank time and halo volume); every rank reports an error the
// same way (the layer agrees on failures).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "dist/dist.hpp"
#include "dist/halo.hpp"
#include "dist/multigpu.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/timing.hpp"
#include "spmvkit/solvers.hpp"

namespace spmvkit::cli {
namespace {

struct Args {
  std::string command, matrix, format = "csr_vector", backend = "cpu", transport = "mpi";
  std::string partition = "nnz", precision = "f64", json, method = "cg", impl = "reference";
  std::string overlap = "on", gpus = "0";
  int runs = 20, maxiter = 1000, solve_iters = 0;
  double rtol = 1e-8;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Rank 0's JSON document: the run's device, commit and date around its records.
void write_json(const Args& s, Backend be, int ranks, const nlohmann::json& records) {
  if (s.json.empty()) return;
  nlohmann::json doc = {{"device", device_name(be)}, {"backend", to_string(be)},
                        {"commit", bench::commit_id()}, {"date", bench::now_iso8601()},
                        {"ranks", ranks}, {"results", records}};
  std::ofstream j(s.json);
  if (!j) throw InputError("--json: cannot write " + s.json);
  j << doc.dump(2) << '\n';
}

template <class V>
void run(const Args& s) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = dist::comm_rank(comm), ranks = dist::comm_size(comm);
  const Backend be = parse_backend(s.backend);
  if (be == Backend::cuda) dist::select_device(comm);
  const auto loaded = dist::load_distributed(
      comm, s.matrix, s.partition == "metis" ? dist::PartitionMethod::metis : dist::PartitionMethod::nnz);
  dist::LocalRows<V> local{loaded.local.rows.template cast<V>(), loaded.local.row_part,
                           loaded.local.col_part};
  const auto op = dist::build_distributed<V>(comm, local, s.format, {}, be,
                                             dist::parse_transport(s.transport));
  const std::size_t rows = static_cast<std::size_t>(op->rows());
  // x_i = 1 + (global i mod 7) / 7: the same vector whatever the partition.
  std::vector<V> xh(static_cast<std::size_t>(op->cols()));
  for (std::size_t i = 0; i < xh.size(); ++i)
    xh[i] = V(1) + V((local.col_part.begin[me] + i) % 7) / V(7);
  auto x = Vector<V>::from_host(xh, be);
  nlohmann::json rec = {{"matrix", s.matrix}, {"format", s.format}, {"ranks", ranks},
                        {"transport", s.transport}, {"partition", s.partition},
                        {"precision", s.precision}, {"rows", local.row_part.size()},
                        {"cols", local.col_part.size()}, {"nnz", loaded.global_nnz}};
  double my_ms = 0;
  bool converged = true;
  if (s.command == "spmv") {
    Vector<V> y(rows, be);
    // The median over the runs of the slowest rank's apply (a barrier before each).
    auto time_apply = [&] {
      std::vector<double> times;
      for (int k = 0; k < s.runs + 2; ++k) {
        dist::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = now_ms();
        op->apply(x.data(), nullptr, y.data(), V(1), V(0));
        synchronize(be);
        double t = now_ms() - t0;
        dist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm),
                        "MPI_Allreduce");
        if (k >= 2) times.push_back(t);  // two warm-up applies
      }
      std::sort(times.begin(), times.end());
      return times[times.size() / 2];
    };
    rec["scheme"] = "row_block";
    rec["overlap"] = s.overlap != "off";
    if (s.overlap != "on") {
      op->set_overlap(false);
      const double t = time_apply();
      rec[s.overlap == "off" ? "median_ms" : "median_ms_no_overlap"] = t;
      my_ms = t;
      op->set_overlap(true);
    }
    if (s.overlap != "off") {
      my_ms = time_apply();
      rec["median_ms"] = my_ms;
    }
    rec["gflops"] = 2.0 * static_cast<double>(loaded.global_nnz) /
                    (rec["median_ms"].get<double>() * 1e6);
    // Merged solver iterations on the same operator: a fixed count (tolerance 0), the time of
    // one iteration (the loop's time / iterations) for each method.
    for (const char* method : {"cg", "bicgstab"}) {
      if (s.solve_iters <= 0) break;
      SolverOptions o;
      o.method = parse_solver_method(method);
      o.impl = SolverImpl::merged;
      o.rtol = 0;
      o.maxiter = s.solve_iters;
      o.max_restarts = 0;
      o.record_history = false;
      o.time_spmv = false;
      Vector<V> b(rows, be), sol(rows, be);
      b.fill(V(1));
      sol.fill(V(0));
      const SolveResult r = solve(*op, b, sol, o);
      rec[std::string(method) + "_iterations"] = r.iterations;
      rec[std::string(method) + "_iter_ms"] = r.iter_ms;
      rec[std::string(method) + "_status"] = std::string(to_string(r.status));
    }
  } else {
    SolverOptions o;
    o.method = parse_solver_method(s.method);
    o.impl = parse_solver_impl(s.impl);
    o.rtol = s.rtol;
    o.maxiter = s.maxiter;
    Vector<V> b(rows, be), sol(rows, be);
    b.fill(V(1));
    sol.fill(V(0));
    const SolveResult r = solve(*op, b, sol, o);
    my_ms = r.solve_ms;
    rec.update({{"method", s.method}, {"impl", s.impl}, {"status", to_string(r.status)},
                {"iterations", r.iterations}, {"true_rel_residual", r.true_rel_residual},
                {"solve_ms", r.solve_ms}, {"iter_ms", r.iter_ms}});
    converged = r.status == SolveStatus::converged;
  }
  // Per rank: its time and what its halo moves.
  const dist::HaloInfo& h = op->halo();
  double mine[7] = {my_ms, double(rows), double(local.rows.nnz()), double(h.local_nnz),
                    double(h.halo_nnz), double(h.ghosts), double(h.neighbours)};
  std::vector<double> all(me == 0 ? 7 * static_cast<std::size_t>(ranks) : 0);
  dist::check_mpi(MPI_Gather(mine, 7, MPI_DOUBLE, all.data(), 7, MPI_DOUBLE, 0, comm), "MPI_Gather");
  if (me != 0) {
    if (!converged) throw Error("did not converge");
    return;
  }
  double ghosts = 0;
  nlohmann::json per = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) {
    const double* p = &all[7 * static_cast<std::size_t>(r)];
    ghosts += p[5];
    per.push_back({{"rank", r}, {"ms", p[0]}, {"rows", p[1]}, {"nnz", p[2]}, {"local_nnz", p[3]},
                   {"halo_nnz", p[4]}, {"ghosts", p[5]}, {"neighbours", p[6]}});
  }
  rec["per_rank"] = per;
  rec["halo_values_per_apply"] = ghosts;
  rec["halo_bytes_per_apply"] = ghosts * sizeof(V);
  char what[160];
  if (s.command == "spmv") {
    int at = std::snprintf(what, sizeof what, "%.4f ms  %.2f GFLOP/s",
                           rec["median_ms"].get<double>(), rec["gflops"].get<double>());
    if (rec.contains("median_ms_no_overlap"))
      at += std::snprintf(what + at, sizeof what - at, "  no overlap %.4f ms",
                          rec["median_ms_no_overlap"].get<double>());
    for (const char* m : {"cg", "bicgstab"})
      if (rec.contains(std::string(m) + "_iter_ms"))
        at += std::snprintf(what + at, sizeof what - at, "  %s %.4f ms/it", m,
                            rec[std::string(m) + "_iter_ms"].get<double>());
  } else {
    std::snprintf(what, sizeof what, "%s in %d iterations, true rel. residual %.3e",
                  rec["status"].get<std::string>().c_str(), rec["iterations"].get<int>(),
                  rec["true_rel_residual"].get<double>());
  }
  std::printf("%-24s %-12s ranks %d %-5s %s  halo %.0f values/apply\n", s.matrix.c_str(),
              s.format.c_str(), ranks, s.transport.c_str(), what, ghosts);
  write_json(s, be, ranks, nlohmann::json::array({rec}));
  if (!converged) throw Error("did not converge: " + rec["status"].get<std::string>());
}

// The BSR paper's 1D-cyclic scheme in this one process: the whole matrix loaded here, dealt
// to the first G visible GPUs for each G of --gpus (0: all), y = A x timed on the first GPU
// (x there, z gathered and shuffled there) through the one timer.
template <class V>
void run_cyclic(const Args& s) {
  if (dist::comm_size(MPI_COMM_WORLD) != 1)
    throw InputError("cyclic runs in one process (it drives every GPU itself): mpirun -n 1");
  const Backend be = parse_backend(s.backend);
  std::vector<int> counts;
  std::size_t at = 0;
  while (at <= s.gpus.size()) {
    const std::size_t comma = std::min(s.gpus.find(',', at), s.gpus.size());
    const std::string item = s.gpus.substr(at, comma - at);
    int g = -1;
    try {
      std::size_t used = 0;
      g = std::stoi(item, &used);
      if (used != item.size()) g = -1;
    } catch (const std::exception&) {
    }
    if (g < 0) throw InputError("--gpus: '" + item + "' is not a GPU count (a list like 1,2,4)");
    counts.push_back(g);
    at = comma + 1;
  }
  const Csr<V> a = load_matrix(s.matrix).template cast<V>();
  std::vector<V> xh(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = V(1) + V(i % 7) / V(7);
  const auto x = Vector<V>::from_host(xh, be);
  Vector<V> y(static_cast<std::size_t>(a.rows), be);
  nlohmann::json recs = nlohmann::json::array();
  for (int g : counts) {
    const double t0 = now_ms();
    const auto op = dist::build_multigpu_bsr<V>(a, {}, be, g);
    synchronize(be);
    const double setup = now_ms() - t0;
    const double med = median(time_runs(be, 2, s.runs, [&] {
      op->apply(x.data(), nullptr, y.data(), V(1), V(0));
    }));
    const int used = std::stoi(op->info().details.substr(op->info().details.find('=') + 1));
    nlohmann::json rec = {{"matrix", s.matrix}, {"format", "bsr"}, {"scheme", "cyclic_bsr"},
                          {"ranks", used}, {"gpus", used}, {"processes", 1},
                          {"precision", s.precision}, {"rows", a.rows}, {"cols", a.cols},
                          {"nnz", a.nnz()}, {"median_ms", med}, {"setup_ms", setup},
                          {"gflops", 2.0 * static_cast<double>(a.nnz()) / (med * 1e6)},
                          {"details", op->info().details}};
    std::printf("%-24s %-12s gpus %d cyclic %.4f ms  %.2f GFLOP/s  setup %.0f ms\n",
                s.matrix.c_str(), "bsr", used, med, rec["gflops"].get<double>(), setup);
    std::fflush(stdout);
    recs.push_back(rec);
  }
  write_json(s, be, 1, recs);
}

}  // namespace
}  // namespace spmvkit::cli

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using spmvkit::cli::Args;
  Args s;
  CLI::App app{"spmvkit-dist: distributed SpMV and Krylov solves (run under mpirun)", "spmvkit-dist"};
  app.require_subcommand(1);
  for (const char* name : {"spmv", "solve", "cyclic"}) {
    const std::string n = name;
    auto* cmd = app.add_subcommand(
        name, n == "spmv"    ? "Time y = A x over the ranks"
              : n == "solve" ? "Solve A x = ones with CG or BiCGSTAB over the ranks"
                             : "Time y = A x with the BSR paper's 1D-cyclic scheme over the "
                               "visible GPUs (one process)");
    cmd->add_option("MATRIX", s.matrix, "Matrix Market file, matrix name or generator name")->required();
    cmd->add_option("--format", s.format, "registry format of the local and halo parts");
    cmd->add_option("--backend", s.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    cmd->add_option("--transport", s.transport, "mpi (pinned host buffers) or nccl")
        ->check(CLI::IsMember({"mpi", "nccl"}));
    cmd->add_option("--partition", s.partition, "nnz (contiguous, balanced) or metis")
        ->check(CLI::IsMember({"nnz", "metis"}));
    cmd->add_option("--precision", s.precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
    cmd->add_option("--json", s.json, "write the record (rank 0) to this file");
    cmd->add_option("--runs", s.runs, "spmv: timed applies (median reported)");
    cmd->add_option("--method", s.method, "solve: cg or bicgstab")->check(CLI::IsMember({"cg", "bicgstab"}));
    cmd->add_option("--impl", s.impl, "solve: reference or merged")
        ->check(CLI::IsMember({"reference", "merged"}));
    cmd->add_option("--rtol", s.rtol, "solve: relative tolerance");
    cmd->add_option("--overlap", s.overlap,
                    "spmv: on (halo exchange beside the local part), off, or both (timed apart)")
        ->check(CLI::IsMember({"on", "off", "both"}));
    cmd->add_option("--solve-iters", s.solve_iters,
                    "spmv: then time this many merged CG and BiCGSTAB iterations (0: none)");
    cmd->add_option("--gpus", s.gpus, "cyclic: GPU counts to run, e.g. 1,2,4 (0: every visible)");
    cmd->add_option("--maxiter", s.maxiter, "solve: most iterations");
    cmd->callback([&s, name] { s.command = name; });
  }
  int rc = 0;
  try {
    app.parse(argc, argv);
    if (s.command == "cyclic")
      s.precision == "f32" ? spmvkit::cli::run_cyclic<float>(s)
                           : spmvkit::cli::run_cyclic<double>(s);
    else if (s.precision == "f32")
      spmvkit::cli::run<float>(s);
    else
      spmvkit::cli::run<double>(s);
  } catch (const CLI::ParseError& e) {
    rc = app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmvkit-dist: error: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
