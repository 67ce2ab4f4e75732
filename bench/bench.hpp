// The benchmark harness: measures the device's read-bandwidth ceiling, then runs registry
// formats over named matrices, each next to the cuSPARSE peers in the same process.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit::bench {

// --setup-reps: no further build once the builds so far have taken this long.
inline constexpr double kSetupRepsBudgetMs = 2000;
// --setup-reps > 1: a format whose first setup takes at most this long has each of its builds
// followed by a build of the backend's setup baseline (setup_baseline()), and the median of
// the pairs' ratios recorded (Record::setup_vs_peer_paired). A small setup moves by 10-50%
// with the host's state from one spell to the next; a ratio of two builds made one after the
// other cancels that, where two medians taken minutes apart do not.
inline constexpr double kPairedSetupMaxMs = 5;
// The peer whose setup issue 24's ratio is taken against: cuSPARSE CSR ALG1 (cuda), Eigen's
// CSR (cpu).
const char* setup_baseline(Backend b);

struct Options {
  Backend backend = Backend::cuda;
  bool double_precision = true;
  std::vector<std::string> formats;  // empty: every registered format with this backend
  std::string params;                // "format:key=v,key=v;format2:..." per-format overrides
  int warmup = 10;
  int reps = 50;  // timed runs (median reported)
  // Each format built this many times, each build timed (reps runs); spmv_ms is the median of
  // the builds' medians (one build of a 5 us apply can run 15-35% slow), setup the first's. The
  // builds after the first go in rounds over the matrix's formats (round k builds and times each
  // format once, one operator alive at a time), so a slow spell of the host or the GPU falls on
  // every format of the matrix alike, not on the one being timed (the real suite on one H200,
  // the builds one after another: auto over its own pick's record 0.80-1.18x, p10-p90).
  int builds = 1;
  // Setup timed over up to this many builds before the SpMV timing (the operator of the last
  // kept): setup_ms, upload_ms and build_ms are their medians, setup_first_ms the first's (a
  // process's first build of a format also loads its kernels, and auto[tune=1]'s measures
  // and caches its pick, which later builds reuse). Builds stop once they have taken
  // kSetupRepsBudgetMs in all.
  int setup_reps = 1;
  std::string reorder = "none";  // none | rcm | band (applied before all formats)
  bool check = true;             // compare one result against the float64 reference
  // expand_bsB_NAME over this many nonzeros (bs^2 * nnz(NAME)) is not built; one record
  // "skipped: ..." stands for it. 0: no cap.
  std::int64_t max_expanded_nnz = 64'000'000;
  // > 0: matrices not started within this many seconds are recorded as skipped, so that a run
  // under a wall-clock limit still ends with its results.
  double time_limit_s = 0;
  // Run only matrices part, part + parts, ... (1-based) of the list: --part K/N.
  int part = 1, parts = 1;
  std::string note;  // printed above the table and stored in the JSON (e.g. suite defaults)
};

// What a suite brings besides its matrices, applied where the command line leaves it open.
struct SuiteDefaults {
  std::vector<std::string> formats;
  std::string params;
  int reps = 0, warmup = 0;  // 0: the command's defaults
  bool empty() const { return formats.empty() && params.empty() && reps == 0 && warmup == 0; }
};

struct Record {
  std::string matrix, format, backend, precision, details, status = "ok";
  long long rows = 0, cols = 0, nnz = 0;
  double setup_ms = 0, setup_spmv_equiv = 0;
  double setup_first_ms = 0;  // the first build's setup (setup_ms: the median of setup_reps)
  int setup_reps = 1;
  // The setup split (BuildTiming): the CSR's upload and the format's build, in ms and in
  // SpMV-equivalents; upload -1 where the format builds on the host (its upload is inside the
  // build). build_peak_bytes: device memory high-water mark of the setup.
  double upload_ms = -1, upload_spmv_equiv = -1, build_ms = 0, build_spmv_equiv = 0;
  // CSR-3's host reordering, which issue 24 times apart (its details' reorder_ms; auto's where
  // it chose csr3): each build's own taken out of that build, then the medians (the reordering
  // alone moves by more than a small matrix's whole setup from build to build). -1: none.
  double host_reorder_ms = -1, setup_apart_ms = -1, build_apart_ms = -1;
  // Builds paired with the setup baseline's (kPairedSetupMaxMs; 0: none): the median of the
  // pairs' setup ratios (this build's setup, CSR-3's reordering apart, over the baseline's
  // build right after it) and of the baseline's setups in them. -1: not paired.
  int paired_builds = 0;
  double setup_vs_peer_paired = -1, peer_setup_paired_ms = -1;
  std::size_t build_peak_bytes = 0, format_bytes = 0;  // device memory (BuildTiming)
  bool built_on_device = false;
  double reorder_ms = 0, reorder_spmv_equiv = 0;  // --reorder: ordering + permutation cost
  double spmv_ms = 0, spmv_ms_min = 0, spmv_ms_max = 0;
  std::vector<double> spmv_ms_builds;  // each build's median, in build order (--builds)
  double gflops = 0, bytes = 0, gbs = 0, pct_ceiling = 0;
  // Best peer's time / this time (> 1: faster than the peer). The peers are the backend's:
  // the cuSPARSE algorithms on cuda, Eigen on cpu (the field names date from the GPU alone).
  double ratio_vs_cusparse = 0;
  double ratio_vs_cusparse_csr = 0;  // the same against the best CSR peer (cuSPARSE or Eigen)
  std::string best_peer;             // the peer format ratio_vs_cusparse is measured against
  // The oracle: the fastest of our (non-peer) formats measured on this matrix, auto aside. On
  // the `auto` record: ratio_vs_oracle = oracle time / auto time (1: auto picked the oracle).
  std::string oracle;
  double ratio_vs_oracle = 0;
  double paper_gbs = 0;      // GB/s by the format's paper's byte formula, if it has one
  double max_rel_err = 0;    // ||z - ref|| / ||ref|| against the float64 reference
  bool l2_resident = false;  // format data + vectors fit in the last-level cache (L2 on the GPU)
  bool peer = false;
  // Row-length (nonzeros per row) statistics of the matrix: SURAA's figures order matrices by
  // npr variance (population variance, over all rows).
  double npr_mean = 0, npr_variance = 0;
  long long npr_max = 0;
};

struct Report {
  std::string device, driver, commit, date, backend, precision, note;
  int reps = 0, warmup = 0, builds = 1, setup_reps = 1, part = 1, parts = 1;
  std::int64_t max_expanded_nnz = 0;
  double ceiling_gbs = 0;
  std::size_t l2_bytes = 0;
  std::vector<Record> results;
};

// Named suites of generated and real matrices; a name that is not a suite is a matrix.
std::vector<std::string> suite(const std::string& name);
std::vector<std::string> suite_names();
SuiteDefaults suite_defaults(const std::string& name);

// The block size a generator name states (expand_bsB_NAME, reservoir_bsB_N), else 0. Formats
// with a block_size parameter get it unless --params sets one: block-size detection may find a
// multiple of it when the expanded matrix has blocks of its own.
int named_block_size(const std::string& name);

// What every report records: the time now (UTC, ISO 8601) and the commit measured
// ($SPMVKIT_COMMIT, else the build's git hash, else "unknown").
std::string now_iso8601();
std::string commit_id();

Report run(const std::vector<std::string>& matrices, const Options& options);
// The bound on ||z - ref|| / ||ref|| a record is checked against (status WRONG above it), for
// rows of up to `longest` nonzeros and values of `value_bytes` (4 or 8).
double check_tolerance(index_t longest, std::size_t value_bytes);
void print_table(const Report& report, std::ostream& out);
nlohmann::json to_json(const Report& report);
// The rows that make `spmvkit bench` exit non-zero, as "matrix/format, ..." (empty: none).
std::string not_measured(const Report& report, bool formats_requested);

}  // namespace spmvkit::bench
