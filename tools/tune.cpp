// spmvkit tune NAME: a format's measured calibration or autotuning on this device, stored in
// the tuning file (include/spmvkit/tuning.hpp) that the formats read when they build. The
// formats with a tune hook are found through the registry.
#include <iostream>
#include <string>
#include <vector>

#include "spmvkit/error.hpp"
#include "spmvkit/registry.hpp"
#include "tools/commands.hpp"

namespace spmvkit::cli {

void add_tune(CLI::App& app) {
  std::string help = "Measure and store tuning results for this GPU:";
  std::vector<std::string> names;
  for (const auto& f : formats()) {
    if (!f.tune) continue;
    names.push_back(f.name);
    help += "\n  " + f.name + std::string(f.name.size() < 5 ? 5 - f.name.size() : 0, ' ') + " " +
            f.tune_summary;
  }
  auto* cmd = app.add_subcommand("tune", help);
  auto what = std::make_shared<std::string>();
  auto matrices = std::make_shared<std::vector<std::string>>();
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  cmd->add_option("WHAT", *what, list)->required()->check(CLI::IsMember(names));
  cmd->add_option("MATRIX", *matrices,
                  "csr3: training matrices (default: a generated set); auto: the matrices whose "
                  "choice to measure and cache (with --model, default: a generated set)");
  // The tuners' options: key (FormatEntry::tune_options), flag, help. Given ones are passed to
  // the format's hook as key=value.
  struct TuneOption {
    const char* key;
    CLI::Option* option;
    std::shared_ptr<std::string> value;
  };
  auto options = std::make_shared<std::vector<TuneOption>>();
  const auto add = [&](const char* key, const char* flag, const std::string& text) {
    auto value = std::make_shared<std::string>();
    options->push_back({key, cmd->add_option(flag, *value, text), value});
    return options->back().option;
  };
  add("block_sizes", "--block-sizes",
      "bsr: block sizes, e.g. 2,3,4-8 (default 2,3,4,5,6,7,8,12,16,24,32)");
  add("precision", "--precision", "bsr, auto: f64 (default), f32 or both")
      ->check(CLI::IsMember({"f64", "f32", "both"}));
  add("nnz", "--nnz",
      "bsr: stored values of each tuning matrix, e.g. 1e6 (default 1e8, far beyond L2)");
  add("reps", "--reps",
      "bsr: timed applies per round (3 rounds, best kept); auto: timed applies per candidate "
      "(default 20)")
      ->check(CLI::Range(1, 10000));
  add("screen_reps", "--screen-reps",
      "bsr: applies timed once per candidate in the screen (default 5)")
      ->check(CLI::Range(1, 10000));
  add("finalists", "--finalists",
      "bsr: candidates per kernel timed in full after the screen (default 8)")
      ->check(CLI::Range(1, 100000));
  add("max_setup_ms", "--max-setup-ms",
      "auto --model: skip a candidate whose predicted setup is longer (default 5000)")
      ->check(CLI::PositiveNumber);
  auto model = std::make_shared<bool>(false);
  CLI::Option* model_flag = cmd->add_flag(
      "--model", *model,
      "auto: time every candidate on each MATRIX (default: a generated set) and keep the "
      "matrices as this device's measured neighbours, which correct auto's model near them");
  auto no_store = std::make_shared<bool>(false);
  CLI::Option* no_store_flag =
      cmd->add_flag("--no-store", *no_store, "bsr: do not write the tuning store");
  add("emit_defaults", "--emit-defaults",
      "bsr: merge the measured lines into this copy of bsr_tuning_defaults.cpp (or write them "
      "alone to a new file)");
  cmd->callback([what, matrices, options, model, model_flag, no_store, no_store_flag] {
    const FormatEntry& f = find_format(*what);
    // An option of another format's tuner is the user's error, named as such.
    const auto accepts = [](const FormatEntry& e, const std::string& key) {
      for (const auto& k : e.tune_options)
        if (k == key) return true;
      return false;
    };
    const auto owner = [&](const std::string& key) {  // "bsr` or `tune auto"
      std::string names;
      for (const auto& e : formats())
        if (e.tune && accepts(e, key)) names += (names.empty() ? "" : "` or `tune ") + e.name;
      return names.empty() ? std::string("?") : names;
    };
    Params given;
    for (const TuneOption& o : *options) {
      if (o.option->count() == 0) continue;
      if (!accepts(f, o.key))
        throw InputError(o.option->get_name() + " applies to `tune " + owner(o.key) + "` only");
      // Counts as numbers: "1e8", "64M".
      given.set(o.key, std::string(o.key) == "nnz"
                           ? std::to_string(parse_count("--nnz", *o.value))
                           : *o.value);
    }
    if (model_flag->count() > 0) {
      if (!accepts(f, "model"))
        throw InputError("--model applies to `tune " + owner("model") + "` only");
      given.set("model", *model ? "1" : "0");
    }
    if (no_store_flag->count() > 0) {
      if (!accepts(f, "no_store"))
        throw InputError("--no-store applies to `tune " + owner("no_store") + "` only");
      given.set("no_store", *no_store ? "1" : "0");
    }
    f.tune(given, *matrices, std::cout, std::cerr);
  });
}

}  // namespace spmvkit::cli
