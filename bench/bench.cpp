#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

#include "spmvkit_commit.hpp"  // SPMVKIT_COMMIT: the build's commit (cmake/commit_stamp.cmake)

namespace spmvkit::bench {

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The environment's SPMVKIT_COMMIT, else the build's stamp (cmake/commit_stamp.cmake).
std::string commit_id() {
  if (const char* c = std::getenv("SPMVKIT_COMMIT"); c && *c) return c;
  return SPMVKIT_COMMIT;
}

namespace {

// "fmt:k=v,k2=v;fmt2:k=v" -> per-format Params. "fmt:k=1|k=2" gives fmt several parameter
// sets: each is measured as its own variant, labelled "fmt[k=1]", "fmt[k=2]".
std::map<std::string, std::vector<Params>> parse_format_params(const std::string& text) {
  std::map<std::string, std::vector<Params>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(';', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      throw InputError("--params item '" + item + "' is not of the form format:key=value,...");
    auto& sets = out[item.substr(0, colon)];
    const std::string rest = item.substr(colon + 1);
    for (std::size_t q = 0; q <= rest.size();) {
      const std::size_t bar = std::min(rest.find('|', q), rest.size());
      sets.push_back(Params::parse(rest.substr(q, bar - q)));
      q = bar + 1;
    }
  }
  return out;
}

// `auto` and its variants (auto[tune=1]).
bool is_auto(const Record& r) { return r.format == "auto" || r.format.rfind("auto[", 0) == 0; }

// Bound on the relative error against the float64 reference for rows of up to `longest`.
template <class V>
double tolerance(index_t longest) {
  return 64.0 * std::numeric_limits<V>::epsilon() * std::sqrt(static_cast<double>(longest) + 1.0);
}

// One sample of the CPU read ceiling, over 256 MiB or 8 times the last-level cache.
double cpu_ceiling_sample() {
  const std::size_t bytes =
      std::max<std::size_t>(std::size_t{256} << 20, 8 * last_level_cache_bytes(Backend::cpu));
  return measure_read_bandwidth_gbs(Backend::cpu, bytes);
}

template <class V>
void run_matrix(const std::string& name, const Csr<double>& a64, const Options& opt,
                const std::vector<const FormatEntry*>& list,
                const std::map<std::string, std::vector<Params>>& params, Report& report,
                Progress& progress, double progress_base, double progress_step) {
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
    npr_max = std::max(npr_max, static_cast<index_t>(len));
  }
  const double npr_mean = a.rows > 0 ? npr_sum / a.rows : 0.0;
  const double npr_variance =
      a.rows > 0 ? std::max(0.0, npr_sq / a.rows - npr_mean * npr_mean) : 0.0;
  const double tol = tolerance<V>(npr_max);
  const std::size_t first = report.results.size();
  // A timed record's builds: where it is in the report, how to build it again, each build's
  // median and every run.
  struct Timed {
    std::size_t index;
    std::string format;
    Params params;
    std::vector<double> medians, ms;
    double paper_bytes;
  };
  std::vector<Timed> timed;
  const auto time_build = [&](const Operator<V>& op, Timed& t) {
    const auto runs = time_applies(b, opt.warmup, opt.reps,
                                   [&] { op.apply(x.data(), nullptr, z.data(), V(1), V(0)); });
    t.medians.push_back(median(runs));
    t.ms.insert(t.ms.end(), runs.begin(), runs.end());
  };
  // The setup baseline, where the run measures it (setup_baseline()).
  const FormatEntry* baseline = nullptr;
  for (const FormatEntry* e : list)
    if (e->name == setup_baseline(opt.backend)) baseline = e;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const FormatEntry& f = *list[i];
    const auto pit = params.find(f.name);
    const std::vector<Params> sets =
        pit == params.end() ? std::vector<Params>{Params{}} : pit->second;
    for (Params p : sets) {
      progress.update(progress_base + progress_step * i / list.size(), name + " " + f.name);
      Record r;
      r.matrix = name;
      r.format = sets.size() > 1 ? f.name + "[" + p.to_string() + "]" : f.name;
      // The generator's block size for block formats (not after a reordering, which breaks the
      // blocks up).
      const bool takes_block_size =
          std::find(f.params.begin(), f.params.end(), "block_size") != f.params.end();
      if (takes_block_size && !p.has("block_size") && opt.reorder == "none" &&
          named_block_size(name) > 0)
        p.set("block_size", std::to_string(named_block_size(name)));
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
        // Setup: the median of up to --setup-reps builds (each operator gone before the next
        // is built), the first's apart; the peak memory is the first build's.
        BuildTiming timing;
        auto op = build_operator<V>(f.name, a, p, b, &timing);
        const auto setup_of = [](const BuildTiming& t) {
          return std::max(0.0, t.upload_ms) + t.build_ms;
        };
        std::vector<double> uploads{timing.upload_ms}, builds{timing.build_ms},
            setups{setup_of(timing)};
        std::vector<std::string> build_details{op->info().details};
        double spent = setups.front();
        // Paired with the baseline where cheap (kPairedSetupMaxMs): pair k is this build then
        // the baseline's for even k, the other way round for odd k (F P P F F P ...), each
        // operator gone as soon as it is built, so that each side follows itself as often as
        // the other and builds with no other operator alive (on the CPU, Eigen's build while
        // another format's operator was alive ran 1.2-6x slower than alone: allocator and
        // cache state). The operator timed below is built again after them.
        std::vector<double> peer_setups;
        bool paired =
            baseline && !f.peer && opt.setup_reps > 1 && setups.front() <= kPairedSetupMaxMs;
        const auto build_baseline = [&] {
          if (!paired) return;
          try {
            BuildTiming t;
            build_operator<V>(baseline->name, a, Params{}, b, &t);
            peer_setups.push_back(setup_of(t));
            spent += peer_setups.back();
          } catch (const Error&) {
            paired = false;  // the baseline's own record says why
          }
        };
        if (paired) op.reset();
        build_baseline();
        for (int k = 1; k < opt.setup_reps && spent < kSetupRepsBudgetMs; ++k) {
          op.reset();
          if (k % 2 == 1) build_baseline();
          BuildTiming t;
          op = build_operator<V>(f.name, a, p, b, &t);
          uploads.push_back(t.upload_ms);
          builds.push_back(t.build_ms);
          setups.push_back(setup_of(t));
          build_details.push_back(op->info().details);
          spent += setups.back();
          if (paired) op.reset();
          if (k % 2 == 0) build_baseline();
        }
        if (!op) op = build_operator<V>(f.name, a, p, b);
        r.setup_first_ms = setups.front();
        r.setup_reps = static_cast<int>(setups.size());
        r.upload_ms = median(uploads);
        r.build_ms = median(builds);
        r.setup_ms = median(setups);
        // Each build without its own host reordering: the upload whole (the reordering runs
        // beside it on a small matrix), the build beyond the reordering at least 0.
        std::vector<double> reorders, builds_apart, setups_apart;
        for (std::size_t k = 0; k < builds.size(); ++k) {
          const std::string& d = build_details[k];
          const auto at = d.find("reorder_ms=");
          if (at == std::string::npos) continue;
          const double reorder = std::atof(d.c_str() + at + 11);
          const double build = std::max(0.0, builds[k] - reorder);
          reorders.push_back(reorder);
          builds_apart.push_back(build);
          setups_apart.push_back(std::max(0.0, uploads[k]) + build);
        }
        if (reorders.size() == builds.size()) {
          r.host_reorder_ms = median(reorders);
          r.build_apart_ms = median(builds_apart);
          r.setup_apart_ms = median(setups_apart);
        }
        if (paired && peer_setups.size() == setups.size()) {
          const std::vector<double>& mine =
              reorders.size() == builds.size() ? setups_apart : setups;
          std::vector<double> ratios;
          for (std::size_t k = 0; k < mine.size(); ++k)
            if (peer_setups[k] > 0) ratios.push_back(mine[k] / peer_setups[k]);
          if (ratios.size() == mine.size()) {
            r.paired_builds = static_cast<int>(ratios.size());
            r.setup_vs_peer_paired = median(ratios);
            r.peer_setup_paired_ms = median(peer_setups);
          }
        }
        r.build_peak_bytes = timing.build_peak_bytes;
        r.format_bytes = timing.format_bytes;
        r.built_on_device = timing.on_device;
        // The details of the build nearest the median build time: what it says of its own
        // phases (CSR-3's reorder_ms) then goes with the times recorded.
        std::size_t nearest = 0;
        for (std::size_t k = 1; k < builds.size(); ++k)
          if (std::abs(builds[k] - r.build_ms) < std::abs(builds[nearest] - r.build_ms))
            nearest = k;
        r.details = build_details[nearest];
        // The first build timed here, the others in rounds after every format's first
        // (Options::builds); the record's times are filled in after the rounds.
        timed.push_back({report.results.size(),
                         f.name,
                         p,
                         {},
                         {},
                         static_cast<double>(op->info().paper_bytes)});
        time_build(*op, timed.back());
        r.bytes = static_cast<double>(op->info().matrix_bytes) + vector_bytes;
        r.l2_resident = report.l2_bytes > 0 && r.bytes < static_cast<double>(report.l2_bytes);
        // A CPU's memory bandwidth drifts with what else runs on the machine: sample the ceiling
        // right after each format that reads from memory, so a format timed in a fast spell
        // has a ceiling sample from the same spell (run() keeps the highest).
        if (b == Backend::cpu && !r.l2_resident)
          report.ceiling_gbs = std::max(report.ceiling_gbs, cpu_ceiling_sample());
        if (opt.check) {
          z.fill_nan();
          op->apply(x.data(), nullptr, z.data(), V(1), V(0));
          const auto got_v = z.to_host();
          const std::vector<double> got(got_v.begin(), got_v.end());
          r.max_rel_err = relative_error(got, ref);
          if (!(r.max_rel_err <= tol)) r.status = "WRONG";
        }
      } catch (const UnsupportedError& e) {
        r.status = std::string("unsupported: ") + e.what();
      } catch (const Error& e) {
        r.status = std::string("error: ") + e.what();
      }
      report.results.push_back(r);
    }
  }
  // The other builds, in rounds over the formats timed above (not one that failed its check).
  for (int k = 1; k < opt.builds; ++k)
    for (Timed& t : timed) {
      Record& r = report.results[t.index];
      if (r.status != "ok") continue;
      progress.update(progress_base + progress_step * k / opt.builds,
                      name + " " + r.format + " (build " + std::to_string(k + 1) + ")");
      try {
        time_build(*build_operator<V>(t.format, a, t.params, b), t);
      } catch (const Error& e) {
        r.status = std::string("error: ") + e.what();
      }
    }
  for (const Timed& t : timed) {
    Record& r = report.results[t.index];
    if (t.medians.empty()) continue;
    r.spmv_ms = median(t.medians);
    r.spmv_ms_builds = t.medians;
    r.spmv_ms_min = *std::min_element(t.ms.begin(), t.ms.end());
    r.spmv_ms_max = *std::max_element(t.ms.begin(), t.ms.end());
    r.setup_spmv_equiv = r.spmv_ms > 0 ? r.setup_ms / r.spmv_ms : 0;
    r.upload_spmv_equiv = r.spmv_ms > 0 && r.upload_ms >= 0 ? r.upload_ms / r.spmv_ms : -1;
    r.build_spmv_equiv = r.spmv_ms > 0 ? r.build_ms / r.spmv_ms : 0;
    if (t.paper_bytes > 0 && r.spmv_ms > 0) r.paper_gbs = t.paper_bytes / (r.spmv_ms * 1e-3) / 1e9;
    r.gflops = r.spmv_ms > 0 ? 2.0 * a.nnz() / (r.spmv_ms * 1e-3) / 1e9 : 0;
    r.gbs = r.spmv_ms > 0 ? r.bytes / (r.spmv_ms * 1e-3) / 1e9 : 0;
    r.pct_ceiling = report.ceiling_gbs > 0 ? 100.0 * r.gbs / report.ceiling_gbs : 0;
  }
  // Ratios to the best peer (the cuSPARSE algorithms on the GPU, Eigen on the CPU), and to the
  // best CSR peer (cusparse_csr_*, eigen_csr), measured on this matrix in this run.
  const Record* best_peer = nullptr;
  double best_csr_peer = 0;
  for (std::size_t i = first; i < report.results.size(); ++i) {
    const Record& r = report.results[i];
    if (!r.peer || r.status != "ok") continue;
    if (!best_peer || r.spmv_ms < best_peer->spmv_ms) best_peer = &r;
    if (r.format.find("csr") != std::string::npos &&
        (best_csr_peer == 0 || r.spmv_ms < best_csr_peer))
      best_csr_peer = r.spmv_ms;
  }
  // The oracle among our formats (auto picks from them); auto's record gets its ratio to it.
  const Record* oracle = nullptr;
  for (std::size_t i = first; i < report.results.size(); ++i) {
    const Record& r = report.results[i];
    if (r.peer || r.status != "ok" || is_auto(r) || r.spmv_ms <= 0) continue;
    if (!oracle || r.spmv_ms < oracle->spmv_ms) oracle = &r;
  }
  if (oracle)
    for (std::size_t i = first; i < report.results.size(); ++i) {
      Record& r = report.results[i];
      if (!is_auto(r) || r.status != "ok" || r.spmv_ms <= 0) continue;
      r.oracle = oracle->format;
      r.ratio_vs_oracle = oracle->spmv_ms / r.spmv_ms;
    }
  const double best_peer_ms = best_peer ? best_peer->spmv_ms : 0;
  const std::string best_peer_name = best_peer ? best_peer->format : "";
  for (std::size_t i = first; i < report.results.size(); ++i) {
    Record& r = report.results[i];
    if (r.status != "ok" || r.spmv_ms <= 0) continue;
    if (best_peer_ms > 0) {
      r.ratio_vs_cusparse = best_peer_ms / r.spmv_ms;
      r.best_peer = best_peer_name;
    }
    if (best_csr_peer > 0) r.ratio_vs_cusparse_csr = best_csr_peer / r.spmv_ms;
  }
}

}  // namespace

const char* setup_baseline(Backend b) {
  return b == Backend::cuda ? "cusparse_csr_alg1" : "eigen_csr";
}

double check_tolerance(index_t longest, std::size_t value_bytes) {
  return value_bytes == 4 ? tolerance<float>(longest) : tolerance<double>(longest);
}

Report run(const std::vector<std::string>& all_matrices, const Options& opt) {
  if (opt.reps < 1) throw InputError("--reps must be at least 1");
  if (opt.builds < 1) throw InputError("--builds must be at least 1");
  if (opt.setup_reps < 1) throw InputError("--setup-reps must be at least 1");
  if (opt.parts < 1 || opt.part < 1 || opt.part > opt.parts)
    throw InputError("--part K/N needs 1 <= K <= N");
  if (opt.max_expanded_nnz < 0) throw InputError("--max-expanded-nnz must be >= 0");
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
  for (const auto& [fmt, sets] : params)
    for (const Params& p : sets) check_params(find_format(fmt), p);
  // --part K/N: every N-th matrix from the K-th. Suites list a matrix's block sizes in a row,
  // so the parts get near-equal work.
  std::vector<std::string> matrices;
  for (std::size_t m = static_cast<std::size_t>(opt.part - 1); m < all_matrices.size();
       m += static_cast<std::size_t>(opt.parts))
    matrices.push_back(all_matrices[m]);

  Report report;
  report.device = device_name(opt.backend);
  report.driver = driver_version(opt.backend);
  report.commit = commit_id();
  report.date = now_iso8601();
  report.backend = std::string(to_string(opt.backend));
  report.precision = opt.double_precision ? "f64" : "f32";
  report.note = opt.note;
  report.reps = opt.reps;
  report.warmup = opt.warmup;
  report.builds = opt.builds;
  report.setup_reps = opt.setup_reps;
  report.part = opt.part;
  report.parts = opt.parts;
  report.max_expanded_nnz = opt.max_expanded_nnz;
  report.l2_bytes = last_level_cache_bytes(opt.backend);
  const auto start = std::chrono::steady_clock::now();
  {
    Progress progress("measuring the read-bandwidth ceiling");
    progress.update(0.0);
    report.ceiling_gbs = measure_read_bandwidth_gbs(opt.backend);
  }
  // The matrices expand_bsB_NAME expands, loaded once for all their block sizes.
  std::map<std::string, Csr<double>> expanded_from;
  Progress progress("bench");
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const double base = static_cast<double>(m) / matrices.size();
    const double step = 1.0 / matrices.size();
    progress.update(base, "loading " + matrices[m]);
    std::string name = matrices[m];
    // One record stands for a matrix that is not run.
    const auto skip = [&](long long rows, long long cols, long long nnz, const std::string& why) {
      Record r;
      r.matrix = name;
      r.format = "-";
      r.backend = report.backend;
      r.precision = report.precision;
      r.rows = rows;
      r.cols = cols;
      r.nnz = nnz;
      r.status = "skipped: " + why;
      report.results.push_back(r);
    };
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (opt.time_limit_s > 0 && elapsed > opt.time_limit_s) {
      char why[96];
      std::snprintf(why, sizeof why, "time limit (--time-limit %.0f s) reached", opt.time_limit_s);
      skip(0, 0, 0, why);
      continue;
    }
    Csr<double> a;
    const int expand_bs = name.rfind("expand_bs", 0) == 0 ? named_block_size(name) : 0;
    if (expand_bs > 0) {
      // Same as generate_by_name: NAME is everything after the block size.
      const std::string inner = name.substr(name.find('_', 9) + 1);
      auto it = expanded_from.find(inner);
      if (it == expanded_from.end())
        it = expanded_from
                 .emplace(inner,
                          is_generator_name(inner) ? generate_by_name(inner) : load_matrix(inner))
                 .first;
      const Csr<double>& from = it->second;
      const std::int64_t bs = expand_bs;
      const std::int64_t expanded = static_cast<std::int64_t>(from.nnz()) * bs * bs;
      if (opt.max_expanded_nnz > 0 && expanded > opt.max_expanded_nnz) {
        skip(from.rows * bs, from.cols * bs, expanded,
             std::to_string(expanded) + " expanded nonzeros over --max-expanded-nnz " +
                 std::to_string(opt.max_expanded_nnz));
        continue;
      }
      try {
        a = block_expand(from, expand_bs);
      } catch (const Error& e) {  // over the 32-bit index limit: no format could take it
        skip(from.rows * bs, from.cols * bs, expanded, e.what());
        continue;
      }
    } else {
      a = load_matrix(matrices[m]);
    }
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
  // On a CPU the ceiling is the highest of the samples taken beside the formats: every % is
  // against it.
  if (opt.backend == Backend::cpu)
    for (Record& r : report.results)
      if (r.gbs > 0) r.pct_ceiling = 100.0 * r.gbs / report.ceiling_gbs;
  return report;
}

}  // namespace spmvkit::bench
