// The spmvkit CLI: one subcommand per file under tools/.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace spmvkit::cli {

void add_info(CLI::App& app);
void add_generate(CLI::App& app);
void add_convert(CLI::App& app);
void add_bench(CLI::App& app);
void add_formats(CLI::App& app);
void add_tune(CLI::App& app);
void add_solve(CLI::App& app);

// --dist and the distributed options bench and solve share (tools/dist/dist_run.hpp): the flag
// into `on`, --transport and --partition into `d`.
struct DistArgs;
void add_dist_options(CLI::App* cmd, bool& on, DistArgs& d);

// "64M", "1e6", "0" -> a count (K, M, G: powers of 1000); InputError naming `what` otherwise.
std::int64_t parse_count(const std::string& what, const std::string& text);

}  // namespace spmvkit::cli
