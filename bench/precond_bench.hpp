// The preconditioning benchmark (`spmvkit bench precond`): time to solution, f64 merged
// BiCGSTAB (CG on SPD stencils),
//  1. block-Jacobi against Jacobi and none on a coupled reservoir-like bs = 7 system
//     (issue target: block-Jacobi >= 1.5x faster than Jacobi at the same rtol);
//  2. mixed-precision refinement against the double solve to rtol 1e-10 on large stencil and
//     convection-diffusion systems (issue target: mixed <= 0.75x the double time).
// Each time is the median of `reps` solves after a warm-up, split into the solver's own loop
// (per iteration) and the per-solve fixed cost; preconditioner setup is timed apart (and
// reported beside).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "spmvkit/backend.hpp"

namespace spmvkit::bench {

struct PrecondBenchOptions {
  Backend backend = Backend::cuda;
  std::string format = "sellp";
  int reps = 3;
  // The reservoir system's stored values (about 1e8 on the GPU), its within-cell couplings
  // (one system each) and the tolerances each is solved to.
  double reservoir_values = 1e8;
  std::vector<double> couplings = {10, 100};
  std::vector<double> rtols_reservoir = {1e-8, 1e-10};
  double rtol_mixed = 1e-10;
  // Mixed precision: the reliable-update scheme (solve_mixed's default) at each
  // MixedOptions::reliable_delta, and the restarted refinement, for comparison, at each inner
  // solve's rtol.
  std::vector<double> reliable_deltas = {0.1, 0.01};
  std::vector<double> inner_rtols = {1e-4};
  // The mixed-precision systems (generator names).
  std::string convdiff = "convdiff3d_160";
  std::string stencil = "stencil7_160";
};

nlohmann::json run_precond_bench(const PrecondBenchOptions& opt, std::ostream& out);

}  // namespace spmvkit::bench
