// A build without MPI: `--dist` says so (the distributed layer needs MPI, dist_run.cpp).
#include "spmvkit/error.hpp"
#include "tools/dist/dist_run.hpp"

namespace spmvkit::cli {

bool dist_compiled() { return false; }

void run_dist(const DistArgs&) {
  throw UnsupportedError(
      "--dist: this build of spmvkit has no MPI (install OpenMPI, e.g. scripts/deps.sh, and "
      "rebuild)");
}

}  // namespace spmvkit::cli
