// The benchmark's reports: the table on a stream and the JSON record.
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>

#include "bench/bench.hpp"

namespace spmvkit::bench {

void print_table(const Report& rep, std::ostream& out) {
  out << "device: " << rep.device << " | driver " << rep.driver << " | commit " << rep.commit
      << " | " << rep.date << " | " << rep.precision << "\n";
  out << "read-bandwidth ceiling: " << std::fixed << std::setprecision(1) << rep.ceiling_gbs
      << " GB/s | median of " << rep.reps << " timed runs after " << rep.warmup << " warm-up";
  if (rep.parts > 1) out << " | part " << rep.part << "/" << rep.parts;
  out << "\n";
  if (!rep.note.empty()) out << rep.note << "\n";
  char line[1024];
  // The matrix column as wide as the longest name (expand_bsB_NAME runs long), at least 26.
  int w = 26;
  for (const auto& r : rep.results) w = std::max(w, static_cast<int>(r.matrix.size()));
  // upload and build: the setup split in SpMV-equivalents ("-": the upload is inside a host
  // build).
  std::snprintf(line, sizeof line, "%-*s %-18s %10s %9s %7s %7s %10s %9s %8s %6s %8s %8s %9s  %s\n",
                w, "matrix", "format", "nnz", "setup_ms", "upload", "build", "spmv_ms", "GFLOP/s",
                "GB/s", "%ceil", "vs_best", "vs_csr", "rel_err", "status");
  out << line;
  for (const auto& r : rep.results) {
    if (r.status.rfind("ok", 0) != 0 && r.status != "WRONG") {
      std::snprintf(line, sizeof line, "%-*s %-18s %10lld  %s\n", w, r.matrix.c_str(),
                    r.format.c_str(), r.nnz, r.status.substr(0, 90).c_str());
      out << line;
      continue;
    }
    char ratio[16] = "-", ratio_csr[16] = "-";
    if (r.ratio_vs_cusparse > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.ratio_vs_cusparse);
    if (r.ratio_vs_cusparse_csr > 0)
      std::snprintf(ratio_csr, sizeof ratio_csr, "%.2fx", r.ratio_vs_cusparse_csr);
    // The ceiling is a read from memory: data that stays in the last-level cache is not bound
    // by it (a CPU's L3 reads several times faster), so its share is not printed.
    char pct[16] = "cache";
    if (!r.l2_resident) std::snprintf(pct, sizeof pct, "%.1f", r.pct_ceiling);
    char upload[16] = "-";
    if (r.upload_spmv_equiv >= 0) std::snprintf(upload, sizeof upload, "%.1f", r.upload_spmv_equiv);
    std::snprintf(line, sizeof line,
                  "%-*s %-18s %10lld %9.2f %7s %7.1f %10.4f %9.1f %8.1f %6s %8s %8s %9.1e  %s%s\n",
                  w, r.matrix.c_str(), r.format.c_str(), r.nnz, r.setup_ms, upload,
                  r.build_spmv_equiv, r.spmv_ms, r.gflops, r.gbs, pct, ratio, ratio_csr,
                  r.max_rel_err, r.status.c_str(), r.l2_resident ? " (cache-resident)" : "");
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
  j["reps"] = rep.reps;
  j["warmup"] = rep.warmup;
  j["builds"] = rep.builds;
  j["setup_reps"] = rep.setup_reps;
  j["part"] = std::to_string(rep.part) + "/" + std::to_string(rep.parts);
  j["max_expanded_nnz"] = rep.max_expanded_nnz;
  j["note"] = rep.note;
  j["l2_bytes"] = rep.l2_bytes;
  j["results"] = nlohmann::json::array();
  for (const auto& r : rep.results) {
    j["results"].push_back(
        {{"matrix", r.matrix},
         {"format", r.format},
         {"backend", r.backend},
         {"precision", r.precision},
         {"rows", r.rows},
         {"cols", r.cols},
         {"nnz", r.nnz},
         {"setup_ms", r.setup_ms},
         {"setup_spmv_equiv", r.setup_spmv_equiv},
         {"setup_first_ms", r.setup_first_ms},
         {"setup_reps", r.setup_reps},
         {"upload_ms", r.upload_ms >= 0 ? nlohmann::json(r.upload_ms) : nlohmann::json(nullptr)},
         {"build_ms", r.build_ms},
         {"host_reorder_ms",
          r.host_reorder_ms >= 0 ? nlohmann::json(r.host_reorder_ms) : nlohmann::json(nullptr)},
         {"setup_apart_ms",
          r.setup_apart_ms >= 0 ? nlohmann::json(r.setup_apart_ms) : nlohmann::json(nullptr)},
         {"build_apart_ms",
          r.build_apart_ms >= 0 ? nlohmann::json(r.build_apart_ms) : nlohmann::json(nullptr)},
         {"upload_spmv_equiv",
          r.upload_spmv_equiv >= 0 ? nlohmann::json(r.upload_spmv_equiv) : nlohmann::json(nullptr)},
         {"build_spmv_equiv", r.build_spmv_equiv},
         {"paired_builds", r.paired_builds},
         {"setup_vs_peer_paired", r.setup_vs_peer_paired >= 0
                                      ? nlohmann::json(r.setup_vs_peer_paired)
                                      : nlohmann::json(nullptr)},
         {"peer_setup_paired_ms", r.peer_setup_paired_ms >= 0
                                      ? nlohmann::json(r.peer_setup_paired_ms)
                                      : nlohmann::json(nullptr)},
         {"build_peak_bytes", r.build_peak_bytes},
         {"format_bytes", r.format_bytes},
         {"built_on", r.built_on_device ? "device" : "host"},
         {"spmv_ms", r.spmv_ms},
         {"spmv_ms_min", r.spmv_ms_min},
         {"spmv_ms_max", r.spmv_ms_max},
         {"spmv_ms_builds", r.spmv_ms_builds},
         {"gflops", r.gflops},
         {"bytes", r.bytes},
         {"gbs", r.gbs},
         {"pct_ceiling", r.pct_ceiling},
         {"ratio_vs_cusparse", r.ratio_vs_cusparse},
         {"ratio_vs_cusparse_csr", r.ratio_vs_cusparse_csr},
         {"best_peer", r.best_peer},
         {"oracle", r.oracle},
         {"ratio_vs_oracle", r.ratio_vs_oracle},
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

// The rows that make `spmvkit bench` exit non-zero, as "matrix/format, ...": a failed build or
// run ("error: ..."), a wrong result, and, for formats named with --formats, a refused matrix
// ("unsupported: ..."). In a run over all formats or a suite's, a format refusing a matrix it
// cannot hold (ELL on a wide row) is an answer, not a failure; skipped matrices never fail.
std::string not_measured(const Report& report, bool formats_requested) {
  std::string out;
  int n = 0;
  for (const auto& r : report.results) {
    const bool failed = r.status.rfind("error", 0) == 0 || r.status == "WRONG" ||
                        (formats_requested && r.status.rfind("unsupported", 0) == 0);
    if (!failed) continue;
    if (++n <= 5) out += (out.empty() ? "" : ", ") + r.matrix + "/" + r.format;
  }
  if (n > 5) out += " and " + std::to_string(n - 5) + " more";
  return out;
}

}  // namespace spmvkit::bench
