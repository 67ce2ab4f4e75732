// The spmvkit CLI: one subcommand per file under tools/.
#pragma once

#include <CLI/CLI.hpp>

namespace spmvkit::cli {

void add_info(CLI::App& app);
void add_generate(CLI::App& app);
void add_convert(CLI::App& app);
void add_bench(CLI::App& app);
void add_formats(CLI::App& app);
void add_tune(CLI::App& app);

}  // namespace spmvkit::cli
