// The benchmark harness: measures the device's read-bandwidth ceiling, then runs registry
// formats over named matrices, each next to the cuSPARSE peers in the same process.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit::bench {

struct Options {
  Backend backend = Backend::cuda;
  bool double_precision = true;
  std::vector<std::string> formats;  // empty: every registered format with this backend
  std::string params;                // "format:key=v,key=v;format2:..." per-format overrides
  int warmup = 10;
  int reps = 50;                     // timed runs (median reported)
  std::string reorder = "none";      // none | rcm | band (applied before all formats)
  bool check = true;                 // compare one result against the float64 reference
};

struct Record {
  std::string matrix, format, backend, precision, details, status = "ok";
  long long rows = 0, cols = 0, nnz = 0;
  double setup_ms = 0, setup_spmv_equiv = 0;
  double reorder_ms = 0, reorder_spmv_equiv = 0;  // --reorder: ordering + permutation cost
  double spmv_ms = 0, spmv_ms_min = 0, spmv_ms_max = 0;
  double gflops = 0, bytes = 0, gbs = 0, pct_ceiling = 0;
  double ratio_vs_cusparse = 0;  // best cuSPARSE time / this time (> 1: faster than cuSPARSE)
  double ratio_vs_cusparse_csr = 0;  // the same against the best cuSPARSE CSR algorithm
  double paper_gbs = 0;              // GB/s by the format's paper's byte formula, if it has one
  double max_rel_err = 0;        // ||z - ref|| / ||ref|| against the float64 reference
  bool l2_resident = false;      // format data + vectors fit in the last-level cache
  bool peer = false;
  // Row-length (nonzeros per row) statistics of the matrix: SURAA's figures order matrices by
  // npr variance (population variance, over all rows).
  double npr_mean = 0, npr_variance = 0;
  long long npr_max = 0;
};

struct Report {
  std::string device, driver, commit, date, backend, precision;
  double ceiling_gbs = 0;
  std::size_t l2_bytes = 0;
  std::vector<Record> results;
};

// Named suites of generated and real matrices; a name that is not a suite is a matrix.
std::vector<std::string> suite(const std::string& name);
std::vector<std::string> suite_names();

Report run(const std::vector<std::string>& matrices, const Options& options);
void print_table(const Report& report, std::ostream& out);
nlohmann::json to_json(const Report& report);

}  // namespace spmvkit::bench
