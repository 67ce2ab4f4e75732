// spmvkit-dist: distributed SpMV and solves under mpirun (docs/distributed.md); the same
// commands as `spmvkit bench|solve --dist` (tools/dist/dist_run.hpp), plus the 1D-cyclic mode.
//   mpirun -n 4 spmvkit-dist spmv  MATRIX [--format F] [--backend cpu|cuda] [--transport mpi|nccl]
//   mpirun -n 4 spmvkit-dist solve MATRIX [--method cg|bicgstab] [--impl reference|merged] ...
//   spmvkit-dist cyclic MATRIX --gpus 1,2,4      (one process: the BSR paper's 1D-cyclic
//                                                  scheme over that many of the visible GPUs)
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "tools/dist/dist_run.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  spmvkit::cli::DistArgs s;
  std::string matrix, format = "csr_vector";
  CLI::App app{"spmvkit-dist: distributed SpMV and Krylov solves (run under mpirun)", "spmvkit-dist"};
  app.require_subcommand(1);
  for (const char* name : {"spmv", "solve", "cyclic"}) {
    const std::string n = name;
    auto* cmd = app.add_subcommand(
        name, n == "spmv"    ? "Time y = A x over the ranks"
              : n == "solve" ? "Solve A x = ones with CG or BiCGSTAB over the ranks"
                             : "Time y = A x with the BSR paper's 1D-cyclic scheme over the "
                               "visible GPUs (one process)");
    cmd->add_option("MATRIX", matrix, "Matrix Market file, matrix name or generator name")->required();
    cmd->add_option("--format", format, "registry format of the local and halo parts");
    cmd->add_option("--backend", s.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    cmd->add_option("--transport", s.transport, "mpi (pinned host buffers) or nccl")
        ->check(CLI::IsMember({"mpi", "nccl"}));
    cmd->add_option("--partition", s.partition, "nnz (contiguous, balanced) or metis")
        ->check(CLI::IsMember({"nnz", "metis"}));
    cmd->add_option("--precision", s.precision, "f64 or f32")->check(CLI::IsMember({"f64", "f32"}));
    cmd->add_option("--json", s.json, "write the record (rank 0) to this file");
    cmd->add_option("--runs", s.runs, "spmv, cyclic: timed applies (median reported)")
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--method", s.method, "solve: cg or bicgstab")->check(CLI::IsMember({"cg", "bicgstab"}));
    cmd->add_option("--impl", s.impl, "solve: reference or merged")
        ->check(CLI::IsMember({"reference", "merged"}));
    cmd->add_option("--rtol", s.rtol, "solve: relative tolerance");
    cmd->add_option("--maxiter", s.maxiter, "solve: most iterations");
    cmd->add_option("--overlap", s.overlap,
                    "spmv: on (halo exchange beside the local part), off, or both (timed apart)")
        ->check(CLI::IsMember({"on", "off", "both"}));
    cmd->add_option("--solve-iters", s.solve_iters,
                    "spmv: then time this many merged CG and BiCGSTAB iterations (0: none)");
    cmd->add_flag("--no-check", [&s](std::int64_t) { s.check = false; },
                  "spmv: skip the check against the float64 reference");
    cmd->add_option("--gpus", s.gpus, "cyclic: GPU counts to run, e.g. 1,2,4 (0: every visible)");
    cmd->callback([&s, name] { s.command = name; });
  }
  int rc = 0;
  try {
    app.parse(argc, argv);
    s.matrices = {matrix};
    s.formats = {format};
    spmvkit::cli::run_dist(s);
  } catch (const CLI::ParseError& e) {
    rc = app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmvkit-dist: error: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
