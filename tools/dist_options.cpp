// The --dist options of `spmvkit bench` and `spmvkit solve` (docs/distributed.md).
#include "tools/commands.hpp"
#include "tools/dist/dist_run.hpp"

namespace spmvkit::cli {

void add_dist_options(CLI::App* cmd, bool& on, DistArgs& d) {
  cmd->add_flag("--dist", on,
                "Distributed over the MPI ranks (run under mpirun): the same output and JSON as "
                "one process, per rank beside (docs/distributed.md)");
  cmd->add_option("--transport", d.transport, "--dist on cuda: mpi (pinned host buffers) or nccl")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  cmd->add_option("--partition", d.partition, "--dist: nnz (contiguous, balanced) or metis")
      ->check(CLI::IsMember({"nnz", "metis"}));
}

}  // namespace spmvkit::cli
