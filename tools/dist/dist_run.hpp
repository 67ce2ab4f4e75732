// The distributed commands, shared by `spmvkit bench|solve --dist` and spmvkit-dist: every
// rank loads its rows (dist::load_distributed), builds its part through the registry, then
// - spmv: times y = A x (the slowest rank's apply, median of the runs), checks it against the
//   float64 reference row block by row block, and prints the bench table of one process
//   (bench::print_table) with a line per rank; the JSON is bench::to_json's with `ranks`,
//   `transport`, `per_rank` (time, rows, nonzeros, halo) and the halo volume per apply;
// - solve: A x = ones, the solve summary and JSON of one process with the same additions;
// - cyclic: the BSR paper's 1D-cyclic scheme in one process over --gpus GPU counts.
// MPI is initialised (and finalised) here when the caller has not done it.
#pragma once

#include <string>
#include <vector>

namespace spmvkit::cli {

struct DistArgs {
  std::string command = "spmv";  // spmv | solve | cyclic
  std::vector<std::string> matrices;
  std::vector<std::string> formats{"csr_vector"};  // spmv: empty for every format of the backend
  std::string backend = "cpu";  // cpu, cuda, or auto (cuda when a GPU is present)
  std::string transport = "mpi", partition = "nnz", precision = "f64", json;
  std::string method = "cg", impl = "reference";
  std::string overlap = "on";  // spmv: on | off | both
  std::string gpus = "0";      // cyclic: GPU counts, "1,2,4" (0: every visible GPU)
  int runs = 20, warmup = 2, maxiter = 1000;
  int solve_iters = 0;  // spmv: then time this many merged CG and BiCGSTAB iterations
  double rtol = 1e-8;
  bool check = true;    // spmv: compare with the float64 reference
};

// Runs `a` over MPI_COMM_WORLD. Every rank throws the same error when one fails (the
// distributed layer agrees on failures); rank 0 alone prints and writes the JSON.
void run_dist(const DistArgs& a);

// Whether this build has the distributed layer (MPI).
bool dist_compiled();

}  // namespace spmvkit::cli
