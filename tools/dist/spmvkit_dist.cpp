// spmvkit-dist: distributed SpMV and solves under mpirun (docs/distributed.md).
//   mpirun -n 4 spmvkit-dist spmv  MATRIX [--format F] [--backend cpu|cuda] [--transport mpi|nccl]
//   mpirun -n 4 spmvkit-dist solve MATRIX [--method cg|bicgstab] [--impl reference|merged] ...
// Rank 0 prints one table line and writes the JSON (with `ranks`, per-rank time and halo
// volume); every rank reports an error the same way (the layer agrees on failures).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "dist/dist.hpp"
#include "dist/halo.hpp"
#include "spmvkit/solvers.hpp"

namespace spmvkit::cli {
namespace {

struct Args {
  std::string command, matrix, format = "csr_vector", backend = "cpu", transport = "mpi";
  std::string partition = "nnz", precision = "f64", json, method = "cg", impl = "reference";
  int runs = 20, maxiter = 1000;
  double rtol = 1e-8;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
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
    std::vector<double> times;
    for (int k = 0; k < s.runs + 2; ++k) {
      dist::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = now_ms();
      op->apply(x.data(), nullptr, y.data(), V(1), V(0));
      synchronize(be);
      double t = now_ms() - t0;
      dist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
      if (k >= 2) times.push_back(t);  // two warm-up applies
    }
    std::sort(times.begin(), times.end());
    const double med = times[times.size() / 2];
    my_ms = med;
    rec["median_ms"] = med;
    rec["gflops"] = 2.0 * static_cast<double>(loaded.global_nnz) / (med * 1e6);
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
  if (s.command == "spmv")
    std::snprintf(what, sizeof what, "%.4f ms  %.2f GFLOP/s", rec["median_ms"].get<double>(),
                  rec["gflops"].get<double>());
  else
    std::snprintf(what, sizeof what, "%s in %d iterations, true rel. residual %.3e",
                  rec["status"].get<std::string>().c_str(), rec["iterations"].get<int>(),
                  rec["true_rel_residual"].get<double>());
  std::printf("%-24s %-12s ranks %d %-5s %s  halo %.0f values/apply\n", s.matrix.c_str(),
              s.format.c_str(), ranks, s.transport.c_str(), what, ghosts);
  if (!s.json.empty()) {
    nlohmann::json doc = {{"device", device_name(be)}, {"backend", to_string(be)},
                          {"commit", bench::commit_id()}, {"date", bench::now_iso8601()},
                          {"ranks", ranks}, {"results", nlohmann::json::array({rec})}};
    std::ofstream j(s.json);
    if (!j) throw InputError("--json: cannot write " + s.json);
    j << doc.dump(2) << '\n';
  }
  if (!converged) throw Error("did not converge: " + rec["status"].get<std::string>());
}

}  // namespace
}  // namespace spmvkit::cli

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using spmvkit::cli::Args;
  Args s;
  CLI::App app{"spmvkit-dist: distributed SpMV and Krylov solves (run under mpirun)", "spmvkit-dist"};
  app.require_subcommand(1);
  for (const char* name : {"spmv", "solve"}) {
    auto* cmd = app.add_subcommand(name, std::string(name) == "spmv"
                                             ? "Time y = A x over the ranks"
                                             : "Solve A x = ones with CG or BiCGSTAB over the ranks");
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
    cmd->add_option("--maxiter", s.maxiter, "solve: most iterations");
    cmd->callback([&s, name] { s.command = name; });
  }
  int rc = 0;
  try {
    app.parse(argc, argv);
    if (s.precision == "f32")
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
