// spmvkit tune bsr: the BSR autotuner (paper 5.7) run from the command line, its table and the
// lines for bsr_tuning_defaults.cpp; the registry's tune hook for `bsr`.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "formats/bsr/bsr.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/tuning.hpp"

namespace spmvkit {

namespace {

// The block sizes the BSR paper's experiments sweep, thinned past 8: one device run of
// `tune bsr` (f64, 1e8 values) stays within a few minutes.
const char* const kDefaultBsrBlockSizes = "2,3,4,5,6,7,8,12,16,24,32";

// "2,3,4-8,12" -> {2, 3, 4, 5, 6, 7, 8, 12}.
std::vector<int> parse_block_sizes(const std::string& text) {
  std::vector<int> out;
  std::stringstream items(text);
  std::string item;
  const auto number = [&](const std::string& s) {
    std::size_t used = 0;
    long v = -1;
    try {
      v = std::stol(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || v < 1 || v > kBsrMaxBlockSize)
      throw InputError("--block-sizes: '" + s + "' is not a block size in 1.." +
                       std::to_string(kBsrMaxBlockSize));
    return static_cast<int>(v);
  };
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const std::size_t dash = item.find('-');
    const int lo = number(item.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
    if (hi < lo) throw InputError("--block-sizes: empty range '" + item + "'");
    for (int bs = lo; bs <= hi; ++bs) out.push_back(bs);
  }
  if (out.empty()) throw InputError("--block-sizes: no block size given");
  return out;
}

// The options of `spmvkit tune bsr` (bsr_tune_options()), defaults here.
struct BsrTuneArgs {
  std::string block_sizes = kDefaultBsrBlockSizes;
  std::string precision = "f64";
  std::int64_t nnz = 100'000'000;  // stored values of each tuning matrix
  int reps = 20;
  int screen_reps = 5;
  int finalists = 8;
  bool no_store = false;
  std::string emit_defaults;
};

#if SPMVKIT_HAVE_CUDA
void print_bsr_table(const std::vector<BsrTuning>& results, std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line, "%4s %4s %3s %-7s %-42s %9s %8s %9s %8s %6s %5s\n", "bs", "prec",
                "", "kernel", "parameters", "ms", "GB/s", "guess_ms", "speedup", "tried", "wrong");
  out << line;
  for (const BsrTuning& t : results) {
    const char* prec = t.value_bytes == 8 ? "f64" : "f32";
    for (std::size_t i = 0; i < t.kernels.size(); ++i) {
      const BsrKernelTuning& k = t.kernels[i];
      const bool best = static_cast<int>(i) == t.best;
      char guess[32] = "-", speedup[32] = "-";
      if (best && t.first_guess_ms > 0) {
        std::snprintf(guess, sizeof guess, "%.4f", t.first_guess_ms);
        std::snprintf(speedup, sizeof speedup, "%.2fx", t.first_guess_ms / k.ms);
      }
      if (k.ms > 0)
        std::snprintf(line, sizeof line, "%4d %4s %3s %-7s %-42s %9.4f %8.1f %9s %8s %6d %5d\n",
                      t.block_size, prec, best ? "*" : "", bsr_kernel_name(k.kernel),
                      k.best.to_params().c_str(), k.ms, k.gbs, guess, speedup, k.tried, k.wrong);
      else
        std::snprintf(line, sizeof line, "%4d %4s %3s %-7s %-42s %9s %8s %9s %8s %6d %5d\n",
                      t.block_size, prec, "", bsr_kernel_name(k.kernel), "(no working candidate)",
                      "-", "-", "-", "-", k.tried, k.wrong);
      out << line;
    }
  }
  out << "(* the fastest kernel for the block size; guess_ms: the rule's kernel and parameters "
         "(bsr_rule_policy), speedup = guess_ms / ms)\n";
}
#endif

void tune_bsr_with(const BsrTuneArgs& a, std::ostream& out, std::ostream& log) {
  // Arguments are checked before the device, so that a bad command fails the same way anywhere.
  const std::vector<int> sizes = parse_block_sizes(a.block_sizes);
  const std::int64_t values = a.nnz;
  if (values < 1000 || values > 1'000'000'000)
    throw InputError("--nnz: " + std::to_string(values) + " is outside 1e3..1e9 stored values");
  if (!a.emit_defaults.empty()) {
    const std::filesystem::path dir = std::filesystem::path(a.emit_defaults).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir))
      throw InputError("--emit-defaults: no directory " + dir.string());
  }
  if (!cuda_compiled()) throw UnsupportedError("this build of spmvkit has no CUDA backend");
  if (!cuda_available()) throw UnsupportedError("tuning needs a CUDA device (none is visible)");
#if SPMVKIT_HAVE_CUDA
  BsrAutotuneOptions o;
  o.block_sizes = sizes;
  o.double_precision = a.precision != "f32";
  o.single_precision = a.precision != "f64";
  o.target_values = values;
  o.repetitions = a.reps;
  o.screen_repetitions = a.screen_reps;
  o.finalists = a.finalists;
  o.write_store = !a.no_store;
  o.log = &log;
  const std::string device = device_name(Backend::cuda);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<BsrTuning> results = autotune_bsr(o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  out << "bsr autotune on " << device << ": reservoir-like 7-point block matrices of ~"
            << values << " stored values, " << a.reps << " timed applies x 3 rounds for the "
            << a.finalists << " fastest of each kernel after a " << a.screen_reps
            << "-apply screen; " << std::fixed;
  out.precision(1);
  out << seconds << " s\n";
  print_bsr_table(results, out);
  out << (a.no_store ? "not stored (--no-store)\n"
                           : "stored in " + tuning_file_path() + "\n");

  std::vector<BsrShippedLine> lines;
  for (const BsrTuning& t : results)
    for (auto& l : bsr_shipped_lines(bsr_device_family(device), t)) lines.push_back(l);
  out << "\n// Shipped defaults measured on " << device
            << " (formats/bsr/bsr_tuning_defaults.cpp, kShipped):\n";
  for (const auto& l : lines) out << l.text() << "\n";

  if (!a.emit_defaults.empty()) {
    std::string text;
    if (std::filesystem::exists(a.emit_defaults)) {
      std::ifstream in(a.emit_defaults);
      text = bsr_merge_shipped_lines(std::string(std::istreambuf_iterator<char>(in), {}), lines);
    } else {
      text = "// spmvkit tune bsr on " + device + ": kShipped entries\n";
      for (const auto& l : lines) text += l.text() + "\n";
    }
    std::ofstream out(a.emit_defaults);
    if (!(out << text)) throw InputError("cannot write " + a.emit_defaults);
    out << "wrote " << a.emit_defaults << " (" << lines.size() << " entries)\n";
  }
#else
  (void)sizes;
  (void)out;
  (void)log;
#endif
}

}  // namespace

std::vector<std::string> bsr_tune_options() {
  return {"block_sizes", "precision", "nnz", "reps", "screen_reps", "finalists", "no_store",
          "emit_defaults"};
}

void tune_bsr(const Params& options, const std::vector<std::string>& matrices,
              std::ostream& out, std::ostream& log) {
  if (!matrices.empty()) throw InputError("tune bsr takes no MATRIX (it builds its own)");
  BsrTuneArgs a;
  a.block_sizes = options.get_string("block_sizes", a.block_sizes);
  a.precision = options.get_string("precision", a.precision);
  a.nnz = options.get_int("nnz", a.nnz);
  a.reps = static_cast<int>(options.get_int("reps", a.reps));
  a.screen_reps = static_cast<int>(options.get_int("screen_reps", a.screen_reps));
  a.finalists = static_cast<int>(options.get_int("finalists", a.finalists));
  a.no_store = options.get_bool("no_store", a.no_store);
  a.emit_defaults = options.get_string("emit_defaults", a.emit_defaults);
  tune_bsr_with(a, out, log);
}

}  // namespace spmvkit
