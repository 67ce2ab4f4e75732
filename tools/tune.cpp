// spmvkit tune WHAT: measured calibrations and autotuning, stored in the tuning file.
#include <cstdio>

#include "spmvkit/error.hpp"
#include "spmvkit/tuning.hpp"
#include "tools/commands.hpp"

namespace spmvkit::cli {

void add_tune(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune", "Measure and store tuning results for this device");
  auto what = std::make_shared<std::string>();
  cmd->add_option("WHAT", *what, "What to tune")->required();
  cmd->callback([what] {
    throw InputError("nothing to tune named '" + *what + "'");
  });
}

}  // namespace spmvkit::cli
