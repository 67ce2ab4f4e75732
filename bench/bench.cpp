#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "bench/progress.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/reorder.hpp"
#include "spmvkit/timing.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::bench {

namespace {

// Suites. Generated matrices are sized to be many times the 50 MB L2 of an H100; real
// matrices (../shared/matrices, all L2-resident) are for structure and correctness.
const std::map<std::string, std::vector<std::string>>& suites() {
  static const std::map<std::string, std::vector<std::string>> s = {
      {"smoke", {"stencil7_40", "powerlaw_100000", "bcsstk13", "rajat01"}},
      // Issue: CUDA CSR kernels against cuSPARSE.
      {"csr", {"stencil27_150", "powerlaw_8000000", "bcsstk13", "rajat01", "Groebner_id2003_aug"}},
      // Issue: ELL / HYB / HEC / SELL-P.
      {"ell", {"stencil27_150", "stencil7_193", "powerlaw_8000000"}},
      // Issue: BSR on reservoir-like matrices, ~100M nonzeros each.
      {"bsr",
       {"reservoir_bs2_153", "reservoir_bs3_117", "reservoir_bs4_96", "reservoir_bs7_66",
        "reservoir_bs12_46", "reservoir_bs16_38", "reservoir_bs32_24"}},
      {"real",
       {"494_bus", "Erdos971", "Franz6_id1959_aug", "G51", "Groebner_id2003_aug", "Pd",
        "adder_dcop_05", "arrow", "bayer10", "bcspwr10", "bcsstk13", "bcsstk16", "bp_1200",
        "cage5", "cryg2500", "dwt_878", "dwt_992", "fs_183_1", "hangGlider_2", "impcol_a",
        "jagmesh7", "karate", "lp_e226", "lp_share1b", "mbeacxc", "nnc1374", "olm1000",
        "olm500", "pts5ldd03", "rajat01", "rajat19", "reorientation_1", "watt_2", "west0479",
        "zenios"}},
  };
  return s;
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string commit_id() {
  if (const char* c = std::getenv("SPMVKIT_COMMIT"); c && *c) return c;
#ifdef SPMVKIT_COMMIT
  return SPMVKIT_COMMIT;
#else
  return "unknown";
#endif
}

// "fmt:k=v,k2=v;fmt2:k=v" -> per-format Params.
std::map<std::string, Params> parse_format_params(const std::string& text) {
  std::map<std::string, Params> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      throw InputError("--params item '" + item + "' is not of the form format:key=value,...");
    out[item.substr(0, colon)] = Params::parse(item.substr(colon + 1));
  }
  return out;
}

template <class V>
double tolerance(const Csr<V>& a) {
  index_t longest = 0;
  for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
  return 64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(static_cast<double>(longest) + 1.0);
}

template <class V>
void run_matrix(const std::string& name, const Csr<double>& a64, const Options& opt,
                const std::vector<const FormatEntry*>& list,
                const std::map<std::string, Params>& params, Report& report, Progress& progress,
                double progress_base, double progress_step) {
  const Csr<V> a = a64.cast<V>();
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<V> xh(a.cols);
  for (auto& v : xh) v = static_cast<V>(dist(rng));
  const std::vector<double> x64(xh.begin(), xh.end());
  std::vector<double> ref;
  if (opt.check) ref = reference_spmv(a, x64, {}, 1.0, 0.0);

  const Backend b = opt.backend;
  auto x = Vector<V>::from_host(xh, b);
  Vector<V> z(a.rows, b);
  const double vector_bytes = static_cast<double>(a.cols + a.rows) * sizeof(V);
  double npr_sum = 0, npr_sq = 0;
  index_t npr_max = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    const double len = a.row_length(i);
    npr_sum += len;
    npr_sq += len * len;
    npr_max = std::max(npr_max, a.row_length(i));
  }
  const double npr_mean = a.rows > 0 ? npr_sum / a.rows : 0.0;
  const double npr_variance =
      a.rows > 0 ? std::max(0.0, npr_sq / a.rows - npr_mean * npr_mean) : 0.0;
  const std::size_t first = report.results.size();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const FormatEntry& f = *list[i];
    progress.update(progress_base + progress_step * i / list.size(), name + " " + f.name);
    Record r;
    r.matrix = name;
    r.format = f.name;
    r.backend = std::string(to_string(b));
    r.precision = std::is_same_v<V, double> ? "f64" : "f32";
    r.rows = a.rows;
    r.cols = a.cols;
    r.nnz = a.nnz();
    r.peer = f.peer;
    r.npr_mean = npr_mean;
    r.npr_variance = npr_variance;
    r.npr_max = npr_max;
    try {
      const auto pit = params.find(f.name);
      const Params p = pit == params.end() ? Params{} : pit->second;
      synchronize(b);
      const auto t0 = std::chrono::steady_clock::now();
      auto op = build_operator<V>(f.name, a, p, b);
      synchronize(b);
      r.setup_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      r.details = op->info().details;
      const auto ms = time_runs(b, opt.warmup, opt.reps, [&] {
        op->apply(x.data(), nullptr, z.data(), V(1), V(0));
      });
      r.spmv_ms = median(ms);
      r.spmv_ms_min = *std::min_element(ms.begin(), ms.end());
      r.spmv_ms_max = *std::max_element(ms.begin(), ms.end());
      r.bytes = static_cast<double>(op->info().matrix_bytes) + vector_bytes;
      r.setup_spmv_equiv = r.spmv_ms > 0 ? r.setup_ms / r.spmv_ms : 0;
      if (op->info().paper_bytes > 0 && r.spmv_ms > 0)
        r.paper_gbs = static_cast<double>(op->info().paper_bytes) / (r.spmv_ms * 1e-3) / 1e9;
      r.gflops = r.spmv_ms > 0 ? 2.0 * a.nnz() / (r.spmv_ms * 1e-3) / 1e9 : 0;
      r.gbs = r.spmv_ms > 0 ? r.bytes / (r.spmv_ms * 1e-3) / 1e9 : 0;
      r.pct_ceiling = report.ceiling_gbs > 0 ? 100.0 * r.gbs / report.ceiling_gbs : 0;
      r.l2_resident = report.l2_bytes > 0 && r.bytes < static_cast<double>(report.l2_bytes);
      if (opt.check) {
        z.fill_nan();
        op->apply(x.data(), nullptr, z.data(), V(1), V(0));
        const auto got_v = z.to_host();
        const std::vector<double> got(got_v.begin(), got_v.end());
        r.max_rel_err = relative_error(got, ref);
        if (!(r.max_rel_err <= tolerance(a))) r.status = "WRONG";
      }
    } catch (const UnsupportedError& e) {
      r.status = std::string("unsupported: ") + e.what();
    } catch (const Error& e) {
      r.status = std::string("error: ") + e.what();
    }
    report.results.push_back(r);
  }
  // Ratios to the best cuSPARSE algorithm, and to the best cuSPARSE CSR algorithm, measured
  // on this matrix in this run.
  double best_peer = 0, best_csr_peer = 0;
  for (std::size_t i = first; i < report.results.size(); ++i) {
    const Record& r = report.results[i];
    if (!r.peer || r.status != "ok") continue;
    if (best_peer == 0 || r.spmv_ms < best_peer) best_peer = r.spmv_ms;
    if (r.format.rfind("cusparse_csr", 0) == 0 && (best_csr_peer == 0 || r.spmv_ms < best_csr_peer))
      best_csr_peer = r.spmv_ms;
  }
  for (std::size_t i = first; i < report.results.size(); ++i) {
    Record& r = report.results[i];
    if (r.status != "ok" || r.spmv_ms <= 0) continue;
    if (best_peer > 0) r.ratio_vs_cusparse = best_peer / r.spmv_ms;
    if (best_csr_peer > 0) r.ratio_vs_cusparse_csr = best_csr_peer / r.spmv_ms;
  }
}

}  // namespace

std::vector<std::string> suite(const std::string& name) {
  const auto it = suites().find(name);
  if (it != suites().end()) return it->second;
  return {name};
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const auto& [n, list] : suites()) names.push_back(n);
  return names;
}

Report run(const std::vector<std::string>& matrices, const Options& opt) {
  if (opt.reps < 1) throw InputError("--reps must be at least 1");
  if (opt.backend == Backend::cuda && !cuda_available())
    throw UnsupportedError(cuda_compiled() ? "no CUDA device is available for the benchmark"
                                           : "this build of spmvkit has no CUDA backend");
  std::vector<const FormatEntry*> list;
  if (opt.formats.empty()) {
    for (const auto& f : formats())
      if (f.supports(opt.backend)) list.push_back(&f);
  } else {
    for (const auto& name : opt.formats) list.push_back(&find_format(name));
  }
  const auto params = parse_format_params(opt.params);
  // Unknown format or parameter names are the user's error: refuse before measuring anything.
  for (const auto& [fmt, p] : params) check_params(find_format(fmt), p);

  Report report;
  report.device = device_name(opt.backend);
  report.driver = driver_version(opt.backend);
  report.commit = commit_id();
  report.date = now_iso8601();
  report.backend = std::string(to_string(opt.backend));
  report.precision = opt.double_precision ? "f64" : "f32";
  report.l2_bytes = last_level_cache_bytes(opt.backend);
  {
    Progress progress("measuring the read-bandwidth ceiling");
    progress.update(0.0);
    report.ceiling_gbs = measure_read_bandwidth_gbs(opt.backend);
  }
  Progress progress("bench");
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const double base = static_cast<double>(m) / matrices.size();
    const double step = 1.0 / matrices.size();
    progress.update(base, "loading " + matrices[m]);
    Csr<double> a = load_matrix(matrices[m]);
    std::string name = matrices[m];
    double reorder_ms = 0;
    const ReorderMethod method = parse_reorder_method(opt.reorder);
    if (method != ReorderMethod::none && a.rows != a.cols) {
      name += "+" + opt.reorder + "(n/a: rectangular)";  // no symmetric permutation exists
    } else if (method != ReorderMethod::none) {
      progress.update(base, "reordering " + matrices[m]);
      Reordered<double> r = reorder_matrix(a, method);
      a = std::move(r.matrix);
      reorder_ms = r.total_ms();
      name += "+" + opt.reorder;
    }
    const std::size_t first = report.results.size();
    if (opt.double_precision)
      run_matrix<double>(name, a, opt, list, params, report, progress, base, step);
    else
      run_matrix<float>(name, a, opt, list, params, report, progress, base, step);
    for (std::size_t i = first; i < report.results.size(); ++i) {
      Record& r = report.results[i];
      r.reorder_ms = reorder_ms;
      r.reorder_spmv_equiv = spmv_equivalents(reorder_ms, r.spmv_ms);
    }
  }
  progress.update(1.0);
  return report;
}

void print_table(const Report& rep, std::ostream& out) {
  out << "device: " << rep.device << " | driver " << rep.driver << " | commit " << rep.commit
      << " | " << rep.date << " | " << rep.precision << "\n";
  out << "read-bandwidth ceiling: " << std::fixed << std::setprecision(1) << rep.ceiling_gbs
      << " GB/s\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-26s %-18s %10s %9s %10s %9s %8s %6s %8s %8s %9s  %s\n",
                "matrix", "format", "nnz", "setup_ms", "spmv_ms", "GFLOP/s", "GB/s", "%ceil",
                "vs_best", "vs_csr", "rel_err", "status");
  out << line;
  for (const auto& r : rep.results) {
    if (r.status.rfind("ok", 0) != 0 && r.status != "WRONG") {
      std::snprintf(line, sizeof line, "%-26s %-18s %10lld  %s\n", r.matrix.c_str(),
                    r.format.c_str(), r.nnz, r.status.substr(0, 90).c_str());
      out << line;
      continue;
    }
    char ratio[16] = "-", ratio_csr[16] = "-";
    if (r.ratio_vs_cusparse > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.ratio_vs_cusparse);
    if (r.ratio_vs_cusparse_csr > 0)
      std::snprintf(ratio_csr, sizeof ratio_csr, "%.2fx", r.ratio_vs_cusparse_csr);
    std::snprintf(line, sizeof line,
                  "%-26s %-18s %10lld %9.2f %10.4f %9.1f %8.1f %6.1f %8s %8s %9.1e  %s%s\n",
                  r.matrix.c_str(), r.format.c_str(), r.nnz, r.setup_ms, r.spmv_ms, r.gflops,
                  r.gbs, r.pct_ceiling, ratio, ratio_csr, r.max_rel_err, r.status.c_str(),
                  r.l2_resident ? " (L2-resident)" : "");
    out << line;
  }
}

nlohmann::json to_json(const Report& rep) {
  nlohmann::json j;
  j["device"] = rep.device;
  j["driver"] = rep.driver;
  j["commit"] = rep.commit;
  j["date"] = rep.date;
  j["backend"] = rep.backend;
  j["precision"] = rep.precision;
  j["ceiling_gbs"] = rep.ceiling_gbs;
  j["l2_bytes"] = rep.l2_bytes;
  j["results"] = nlohmann::json::array();
  for (const auto& r : rep.results) {
    j["results"].push_back({{"matrix", r.matrix},
                            {"format", r.format},
                            {"backend", r.backend},
                            {"precision", r.precision},
                            {"rows", r.rows},
                            {"cols", r.cols},
                            {"nnz", r.nnz},
                            {"setup_ms", r.setup_ms},
                            {"setup_spmv_equiv", r.setup_spmv_equiv},
                            {"spmv_ms", r.spmv_ms},
                            {"spmv_ms_min", r.spmv_ms_min},
                            {"spmv_ms_max", r.spmv_ms_max},
                            {"gflops", r.gflops},
                            {"bytes", r.bytes},
                            {"gbs", r.gbs},
                            {"pct_ceiling", r.pct_ceiling},
                            {"ratio_vs_cusparse", r.ratio_vs_cusparse},
                            {"ratio_vs_cusparse_csr", r.ratio_vs_cusparse_csr},
                            {"paper_gbs", r.paper_gbs},
                            {"max_rel_err", r.max_rel_err},
                            {"l2_resident", r.l2_resident},
                            {"peer", r.peer},
                            {"npr_mean", r.npr_mean},
                            {"npr_variance", r.npr_variance},
                            {"npr_max", r.npr_max},
                            {"reorder_ms", r.reorder_ms},
                            {"reorder_spmv_equiv", r.reorder_spmv_equiv},
                            {"details", r.details},
                            {"status", r.status}});
  }
  return j;
}

}  // namespace spmvkit::bench
