// spmvkit tune WHAT: measured calibrations and autotuning on this device, stored in the
// tuning file (include/spmvkit/tuning.hpp) that the formats read when they build.
#include <cstdio>
#include <iostream>

#include "formats/csr3/csr3_tune.hpp"
#include "formats/hec/hec.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/tuning.hpp"
#include "tools/commands.hpp"

namespace spmvkit::cli {

void add_tune(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "tune",
      "Measure and store tuning results for this GPU:\n"
      "  hec   HEC's p_r (cost of a CSR-part entry against an ELL entry)\n"
      "  csr3  brute-force search of CSR-3 sizes and block shapes; prints a fitted rule");
  auto what = std::make_shared<std::string>();
  auto matrices = std::make_shared<std::vector<std::string>>();
  cmd->add_option("WHAT", *what, "hec or csr3")->required()->check(CLI::IsMember({"hec", "csr3"}));
  cmd->add_option("MATRIX", *matrices, "csr3: training matrices (default: a generated set)");
  cmd->callback([what, matrices] {
    if (!cuda_available()) throw UnsupportedError("tuning needs a CUDA device");
    if (*what == "hec") {
      const double p_r = calibrate_hec_pr();
      std::printf("%s: hec p_r (f64, scalar CSR part) = %.3f, stored in %s\n",
                  device_name(Backend::cuda).c_str(), p_r, tuning_file_path().c_str());
      return;
    }
    std::vector<Csr3TuneMatrix> set;
    const auto names = matrices->empty() ? csr3_training_set() : *matrices;
    for (const auto& name : names) set.push_back({name, load_matrix(name)});
    Csr3TuneOptions options;
    options.log = &std::cerr;
    csr3_print_tune(csr3_tune(set, options), std::cout);
  });
}

}  // namespace spmvkit::cli
