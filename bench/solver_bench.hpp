// The solver benchmark (`spmvkit bench solvers`): BiCGSTAB (and CG on SPD systems) reference
// and merged side by side on each matrix, same format, same process; the traffic model's
// prediction at the measured read ceiling beside each measured time, and the merged-kernels
// paper's savings model (eq. 2 and 4) beside the measured savings. Also the record and summary
// `spmvkit solve` prints.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/solvers.hpp"

namespace spmvkit::bench {

// One solve as a JSON record: matrix, method, impl, format, precision, n, nnz, iterations,
// status, true_rel_residual, iter_ms, spmv_ms_per_iter, other_ms_per_iter, the traffic model
// (bytes per iteration; model_other_ms / model_iter_ms at `ceiling_gbs`; the bound's time).
nlohmann::json solve_record(const std::string& matrix, const OperatorInfo& a,
                            const SolverOptions& o, const SolveResult& r, std::size_t value_bytes,
                            double ceiling_gbs);
// A short table of one record (spmvkit solve).
std::string solve_summary(const nlohmann::json& rec);
// The document's head: device, driver, commit, date, backend, ceiling_gbs.
nlohmann::json solver_document(Backend b, double ceiling_gbs);

struct SolverBenchOptions {
  Backend backend = Backend::cuda;
  bool double_precision = true;
  std::string format = "sellp";
  int iterations = 200;  // iterations per timed run (rtol = 0: every run does this many)
  int reps = 3;          // timed runs per implementation (median reported)
  double rtol = 1e-8;    // the convergence run of each implementation
  int maxiter = 2000;
  double time_limit_s = 0;  // > 0: matrices not started by then are skipped
};

// The `solvers` suite: the large (convdiff2d_4096, n = 16.8M) and small
// (convdiff2d_316, n ~ 1e5) systems and the range of SpMV dominance between them.
std::vector<std::string> solver_suite();

// Runs the suite (or named matrices), prints a table to `out`, returns the JSON document.
nlohmann::json run_solver_bench(const std::vector<std::string>& matrices,
                                const SolverBenchOptions& opt, std::ostream& out);

}  // namespace spmvkit::bench
