// The distributed commands (dist_run.hpp): spmv, solve and cyclic over MPI_COMM_WORLD.
#include "tools/dist/dist_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "bench/solver_bench.hpp"
#include "dist/dist.hpp"
#include "dist/halo.hpp"
#include "dist/multigpu.hpp"
#include "spmvkit/backend.hpp"
#include "spmvkit/generators.hpp"
#include "spmvkit/reference.hpp"
#include "spmvkit/registry.hpp"
#include "spmvkit/solvers.hpp"
#include "spmvkit/timing.hpp"

namespace spmvkit::cli {
namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double max_over(MPI_Comm comm, double v) {
  dist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return v;
}
double sum_over(MPI_Comm comm, double v) {
  dist::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return v;
}

// x_i = 1 + (global i mod 7) / 7: the same vector whatever the partition, computable by any
// rank at any column.
template <class V>
V x_at(index_t i) {
  return V(1) + V(i % 7) / V(7);
}

// The aggregate read ceiling of the ranks' devices: every rank measures at once and the
// samples add up (ranks on distinct GPUs add their GPUs; ranks sharing a device share it).
double aggregate_ceiling(MPI_Comm comm, Backend be) {
  dist::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
  const std::size_t bytes = be == Backend::cuda ? std::size_t{1} << 30 : std::size_t{256} << 20;
  return sum_over(comm, measure_read_bandwidth_gbs(be, bytes));
}

// One rank's figures, gathered on rank 0 as the record's `per_rank`.
nlohmann::json per_rank(MPI_Comm comm, double my_ms, const dist::LocalRows<double>& local,
                        const dist::HaloInfo& h) {
  const int me = dist::comm_rank(comm), ranks = dist::comm_size(comm);
  double mine[7] = {my_ms,
                    double(local.rows.rows),
                    double(local.rows.nnz()),
                    double(h.local_nnz),
                    double(h.halo_nnz),
                    double(h.ghosts),
                    double(h.neighbours)};
  std::vector<double> all(me == 0 ? 7 * static_cast<std::size_t>(ranks) : 0);
  dist::check_mpi(MPI_Gather(mine, 7, MPI_DOUBLE, all.data(), 7, MPI_DOUBLE, 0, comm),
                  "MPI_Gather");
  nlohmann::json per = nlohmann::json::array();
  for (int r = 0; me == 0 && r < ranks; ++r) {
    const double* p = &all[7 * static_cast<std::size_t>(r)];
    per.push_back({{"rank", r}, {"ms", p[0]}, {"rows", p[1]}, {"nnz", p[2]}, {"local_nnz", p[3]},
                   {"halo_nnz", p[4]}, {"ghosts", p[5]}, {"neighbours", p[6]}});
  }
  return per;
}

// The fields a distributed record carries beside those of one process.
template <class V>
nlohmann::json dist_fields(const DistArgs& s, MPI_Comm comm, const dist::DistOperator<V>& op,
                           const nlohmann::json& per) {
  double ghosts = 0;
  for (const auto& p : per) ghosts += p["ghosts"].get<double>();
  return {{"ranks", dist::comm_size(comm)}, {"transport", s.transport},
          {"partition", s.partition},       {"per_rank", per},
          {"halo_values_per_apply", ghosts}, {"halo_bytes_per_apply", ghosts * sizeof(V)},
          {"overlap", op.overlap()}};
}

void print_per_rank(const nlohmann::json& per) {
  for (const auto& p : per)
    std::printf("  rank %d: %.4f ms  rows %.0f  nnz %.0f (halo %.0f)  ghosts %.0f from %.0f "
                "ranks\n",
                p["rank"].get<int>(), p["ms"].get<double>(), p["rows"].get<double>(),
                p["nnz"].get<double>(), p["halo_nnz"].get<double>(), p["ghosts"].get<double>(),
                p["neighbours"].get<double>());
}

void write_document(const std::string& path, const nlohmann::json& doc) {
  std::ofstream j(path);
  if (!j) throw InputError("--json: cannot write " + path);
  j << doc.dump(2) << '\n';
}

struct Loaded {
  dist::Loaded whole;
  double load_ms = 0;
};

Loaded load(MPI_Comm comm, const DistArgs& s, const std::string& matrix) {
  Loaded l;
  const double t0 = now_ms();
  l.whole = dist::load_distributed(
      comm, matrix, s.partition == "metis" ? dist::PartitionMethod::metis : dist::PartitionMethod::nnz);
  l.load_ms = max_over(comm, now_ms() - t0);
  return l;
}

void print_spmv(const bench::Report& rep, const std::vector<nlohmann::json>& extra);

// spmv: one bench record per (matrix, format), the table of one process.
template <class V>
void run_spmv(const DistArgs& s, MPI_Comm comm, Backend be) {
  const int me = dist::comm_rank(comm);
  bench::Report rep;
  rep.device = device_name(be);
  rep.driver = driver_version(be);
  rep.commit = bench::commit_id();
  rep.date = bench::now_iso8601();
  rep.backend = std::string(to_string(be));
  rep.precision = sizeof(V) == 8 ? "f64" : "f32";
  rep.reps = s.runs;
  rep.warmup = s.warmup;
  rep.ceiling_gbs = aggregate_ceiling(comm, be);
  rep.l2_bytes = last_level_cache_bytes(be);
  rep.note = "distributed: " + std::to_string(dist::comm_size(comm)) + " ranks, transport " +
             s.transport + ", partition " + s.partition +
             "; times are the slowest rank's (events around back-to-back applies); GB/s and the "
             "ceiling summed over the ranks";
  std::vector<nlohmann::json> extra;
  // No formats named: every format of the backend, as one process's bench.
  std::vector<std::string> formats = s.formats;
  if (formats.empty())
    for (const auto& f : spmvkit::formats())
      if (f.supports(be)) formats.push_back(f.name);
  for (const std::string& matrix : s.matrices) {
    const Loaded l = load(comm, s, matrix);
    const dist::LocalRows<V> local{l.whole.local.rows.template cast<V>(), l.whole.local.row_part,
                                   l.whole.local.col_part};
    const std::size_t rows = static_cast<std::size_t>(local.rows.rows);
    const std::size_t owned = static_cast<std::size_t>(local.col_part.count(me));
    std::vector<V> xh(owned);
    for (std::size_t i = 0; i < owned; ++i) xh[i] = x_at<V>(local.col_part.begin[me] + static_cast<index_t>(i));
    const auto x = Vector<V>::from_host(xh, be);
    // The float64 reference of this rank's rows (global columns, x at any column).
    std::vector<double> ref;
    index_t longest = 0;
    if (s.check) {
      const Csr<double>& a = l.whole.local.rows;
      std::vector<double> xg(static_cast<std::size_t>(a.cols));
      for (std::size_t i = 0; i < xg.size(); ++i) xg[i] = static_cast<double>(x_at<V>(static_cast<index_t>(i)));
      ref = reference_spmv(a.template cast<V>(), xg, {}, 1.0, 0.0);
      for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
      longest = static_cast<index_t>(max_over(comm, static_cast<double>(longest)));
    }
    for (const std::string& format : formats) {
      bench::Record r;
      r.matrix = matrix;
      r.format = format;
      r.backend = rep.backend;
      r.precision = rep.precision;
      r.rows = local.row_part.size();
      r.cols = local.col_part.size();
      r.nnz = l.whole.global_nnz;
      const double t0 = now_ms();
      std::unique_ptr<dist::DistOperator<V>> op;
      try {
        op = dist::build_distributed<V>(comm, local, format, {}, be,
                                        dist::parse_transport(s.transport));
      } catch (const UnsupportedError& e) {
        r.status = std::string("unsupported: ") + e.what();
        rep.results.push_back(r);
        extra.push_back(nlohmann::json::object());
        continue;
      }
      synchronize(be);
      r.build_ms = r.setup_ms = max_over(comm, now_ms() - t0);
      r.details = op->info().details;
      Vector<V> y(rows, be);
      // Each apply timed as `spmvkit bench` times one (time_runs: CUDA events around each of
      // `runs` applies queued back to back after the warm-up, as a solver queues them); the
      // ranks start together (a barrier) and stay in step through the exchange, so apply k's
      // time is the slowest rank's k-th. `median_ms_host_sync` is the older, stricter figure:
      // a barrier, one apply and a host wait each time (launch and wake-up latency included).
      std::vector<double> slowest, own;
      auto time_apply = [&] {
        dist::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        own = time_runs(be, s.warmup, s.runs,
                        [&] { op->apply(x.data(), nullptr, y.data(), V(1), V(0)); });
        slowest = own;
        const int runs = static_cast<int>(slowest.size());
        dist::check_mpi(
            MPI_Allreduce(MPI_IN_PLACE, slowest.data(), runs, MPI_DOUBLE, MPI_MAX, comm),
            "MPI_Allreduce");
        std::sort(slowest.begin(), slowest.end());
        return slowest[slowest.size() / 2];
      };
      auto time_apply_host_sync = [&] {
        std::vector<double> worst;
        for (int k = 0; k < s.runs + s.warmup; ++k) {
          dist::check_mpi(MPI_Barrier(comm), "MPI_Barrier");
          const double t = now_ms();
          op->apply(x.data(), nullptr, y.data(), V(1), V(0));
          synchronize(be);
          const double mine = now_ms() - t;
          if (k >= s.warmup) worst.push_back(max_over(comm, mine));
        }
        return median(worst);
      };
      nlohmann::json more = nlohmann::json::object();
      if (s.overlap != "on") {
        op->set_overlap(false);
        more["median_ms_no_overlap"] = time_apply();
        op->set_overlap(true);
      }
      if (s.overlap != "off") {
        more["median_ms_host_sync"] = time_apply_host_sync();
        time_apply();
      }
      op->set_overlap(s.overlap != "off");
      r.spmv_ms = slowest[slowest.size() / 2];
      r.spmv_ms_min = slowest.front();
      r.spmv_ms_max = slowest.back();
      r.gflops = 2.0 * static_cast<double>(r.nnz) / (r.spmv_ms * 1e6);
      // Bytes: every rank's format arrays, x read, y written, the ghosts moved.
      const double mine_bytes = static_cast<double>(op->info().matrix_bytes) +
                                static_cast<double>((owned + rows) * sizeof(V)) +
                                static_cast<double>(op->halo().ghosts) * sizeof(V);
      r.bytes = sum_over(comm, mine_bytes);
      r.gbs = r.bytes / (r.spmv_ms * 1e6);
      r.pct_ceiling = rep.ceiling_gbs > 0 ? 100.0 * r.gbs / rep.ceiling_gbs : 0;
      // Cache-resident when every rank's share fits in its last-level cache (the ceiling, a
      // read from memory, then does not bound it).
      r.l2_resident =
          rep.l2_bytes > 0 && max_over(comm, mine_bytes) < static_cast<double>(rep.l2_bytes);
      r.setup_spmv_equiv = r.build_spmv_equiv = r.setup_ms / r.spmv_ms;
      if (s.check) {
        const std::vector<V> got = y.to_host();
        double diff = 0, norm = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const double g = static_cast<double>(got[i]);
          diff += std::isfinite(g) ? (g - ref[i]) * (g - ref[i]) : INFINITY;
          norm += ref[i] * ref[i];
        }
        diff = sum_over(comm, diff);
        norm = sum_over(comm, norm);
        r.max_rel_err = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
        if (!(r.max_rel_err <= bench::check_tolerance(longest, sizeof(V)))) r.status = "WRONG";
      }
      // Merged solver iterations on the same operator: a fixed count (tolerance 0).
      for (const char* method : {"cg", "bicgstab"}) {
        if (s.solve_iters <= 0) break;
        SolverOptions o;
        o.method = parse_solver_method(method);
        o.impl = SolverImpl::merged;
        o.rtol = 0;
        o.maxiter = s.solve_iters;
        o.max_restarts = 0;
        o.record_history = false;
        o.time_spmv = false;
        Vector<V> b(rows, be), sol(rows, be);
        b.fill(V(1));
        sol.fill(V(0));
        const SolveResult sr = solve(*op, b, sol, o);
        more[std::string(method) + "_iterations"] = sr.iterations;
        more[std::string(method) + "_iter_ms"] = max_over(comm, sr.iter_ms);
        more[std::string(method) + "_status"] = std::string(to_string(sr.status));
      }
      std::sort(own.begin(), own.end());
      const nlohmann::json per = per_rank(comm, own[own.size() / 2], l.whole.local, op->halo());
      nlohmann::json fields = dist_fields(s, comm, *op, per);
      fields.update(more);
      fields["scheme"] = "row_block";
      fields["load_ms"] = l.load_ms;
      rep.results.push_back(r);
      extra.push_back(fields);
    }
  }
  if (me == 0) print_spmv(rep, extra);
  if (me == 0 && !s.json.empty()) {
    nlohmann::json doc = bench::to_json(rep);
    doc["ranks"] = dist::comm_size(comm);
    for (std::size_t i = 0; i < rep.results.size(); ++i) doc["results"][i].update(extra[i]);
    write_document(s.json, doc);
  }
  // As one process: after the whole table, a non-zero exit (every rank) when a row failed.
  const std::string failed = bench::not_measured(rep, !s.formats.empty());
  if (!failed.empty()) throw Error("not measured: " + failed);
}

// The bench table, then each record's distributed figures and a line per rank.
void print_spmv(const bench::Report& rep, const std::vector<nlohmann::json>& extra) {
  bench::print_table(rep, std::cout);
  for (std::size_t i = 0; i < rep.results.size(); ++i) {
    if (!extra[i].contains("per_rank")) continue;
    std::printf("%s %s:", rep.results[i].matrix.c_str(), rep.results[i].format.c_str());
    if (extra[i].contains("median_ms_no_overlap"))
      std::printf("  no overlap %.4f ms", extra[i]["median_ms_no_overlap"].get<double>());
    for (const char* m : {"cg", "bicgstab"})
      if (extra[i].contains(std::string(m) + "_iter_ms"))
        std::printf("  %s %.4f ms/it", m, extra[i][std::string(m) + "_iter_ms"].get<double>());
    std::printf("  halo %.0f values/apply\n", extra[i]["halo_values_per_apply"].get<double>());
    print_per_rank(extra[i]["per_rank"]);
  }
  std::fflush(stdout);
}

// solve: A x = ones over the ranks, the summary and JSON of one process.
template <class V>
void run_solve(const DistArgs& s, MPI_Comm comm, Backend be) {
  const int me = dist::comm_rank(comm);
  if (s.matrices.size() != 1) throw InputError("solve --dist takes one matrix");
  const std::string& matrix = s.matrices.front();
  const Loaded l = load(comm, s, matrix);
  const dist::LocalRows<V> local{l.whole.local.rows.template cast<V>(), l.whole.local.row_part,
                                 l.whole.local.col_part};
  dist::collective(comm, [&] {
    if (local.row_part.size() != local.col_part.size())
      throw InputError(matrix + " is " + std::to_string(local.row_part.size()) + " x " +
                       std::to_string(local.col_part.size()) + ": a solver needs a square matrix");
  });
  const double t0 = now_ms();
  const auto op = dist::build_distributed<V>(comm, local, s.formats.front(), {}, be,
                                             dist::parse_transport(s.transport));
  synchronize(be);
  const double setup_ms = max_over(comm, now_ms() - t0);
  SolverOptions o;
  o.method = parse_solver_method(s.method);
  o.impl = parse_solver_impl(s.impl);
  o.rtol = s.rtol;
  o.maxiter = s.maxiter;
  const std::size_t rows = static_cast<std::size_t>(op->rows());
  Vector<V> b(rows, be), x(rows, be);
  b.fill(V(1));
  x.fill(V(0));
  const SolveResult r = solve(*op, b, x, o);
  const double ceiling = aggregate_ceiling(comm, be);
  // The record of one process, of the whole matrix: global sizes, every rank's bytes.
  OperatorInfo whole = op->info();
  whole.rows = local.row_part.size();
  whole.cols = local.col_part.size();
  whole.nnz = static_cast<index_t>(
      std::min<std::int64_t>(l.whole.global_nnz, std::numeric_limits<index_t>::max()));
  whole.matrix_bytes = static_cast<std::size_t>(sum_over(comm, static_cast<double>(op->info().matrix_bytes)));
  const nlohmann::json per = per_rank(comm, r.solve_ms, l.whole.local, op->halo());
  if (me == 0) {
    nlohmann::json rec = bench::solve_record(matrix, whole, o, r, sizeof(V), ceiling);
    rec.update(dist_fields(s, comm, *op, per));
    rec["setup_ms"] = setup_ms;
    rec["load_ms"] = l.load_ms;
    std::printf("%s", bench::solve_summary(rec).c_str());
    std::printf("distributed: %d ranks, transport %s, halo %.0f values/apply\n",
                dist::comm_size(comm), s.transport.c_str(),
                rec["halo_values_per_apply"].get<double>());
    print_per_rank(per);
    std::fflush(stdout);
    if (!s.json.empty()) {
      nlohmann::json doc = bench::solver_document(be, ceiling);
      doc["ranks"] = dist::comm_size(comm);
      doc["results"] = nlohmann::json::array({rec});
      write_document(s.json, doc);
    }
  }
  if (r.status != SolveStatus::converged)
    throw Error("did not converge: " + std::string(to_string(r.status)) +
                (r.breakdown.empty() ? "" : " (" + r.breakdown + ")"));
}

std::vector<int> parse_gpu_counts(const std::string& text) {
  std::vector<int> counts;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    int g = -1;
    try {
      std::size_t used = 0;
      g = std::stoi(item, &used);
      if (used != item.size()) g = -1;
    } catch (const std::exception&) {
    }
    if (g < 0) throw InputError("--gpus: '" + item + "' is not a GPU count (a list like 1,2,4)");
    counts.push_back(g);
    at = comma + 1;
  }
  return counts;
}

// The BSR paper's 1D-cyclic scheme in this one process: the whole matrix loaded here, dealt
// to the first G visible GPUs for each G of --gpus (0: all), y = A x timed on the first GPU
// (x there, z gathered and shuffled there) through the one timer.
template <class V>
void run_cyclic(const DistArgs& s, Backend be) {
  if (dist::comm_size(MPI_COMM_WORLD) != 1)
    throw InputError("cyclic runs in one process (it drives every GPU itself): mpirun -n 1");
  if (s.matrices.size() != 1) throw InputError("cyclic takes one matrix");
  const std::vector<int> counts = parse_gpu_counts(s.gpus);
  const std::string& matrix = s.matrices.front();
  const Csr<V> a = load_matrix(matrix).template cast<V>();
  std::vector<V> xh(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = x_at<V>(static_cast<index_t>(i));
  const auto x = Vector<V>::from_host(xh, be);
  Vector<V> y(static_cast<std::size_t>(a.rows), be);
  nlohmann::json recs = nlohmann::json::array();
  for (int g : counts) {
    const double t0 = now_ms();
    const auto op = dist::build_multigpu_bsr<V>(a, {}, be, g);
    synchronize(be);
    const double setup = now_ms() - t0;
    const double med = median(time_runs(be, s.warmup, s.runs, [&] {
      op->apply(x.data(), nullptr, y.data(), V(1), V(0));
    }));
    const std::string& d = op->info().details;  // "parts=G,block_size=B"
    const int used = std::stoi(d.substr(d.find('=') + 1));
    nlohmann::json rec = {{"matrix", matrix}, {"format", "bsr"}, {"scheme", "cyclic_bsr"},
                          {"ranks", used}, {"gpus", used}, {"processes", 1},
                          {"precision", s.precision}, {"rows", a.rows}, {"cols", a.cols},
                          {"nnz", a.nnz()}, {"median_ms", med}, {"setup_ms", setup},
                          {"gflops", 2.0 * static_cast<double>(a.nnz()) / (med * 1e6)},
                          {"details", d}};
    std::printf("%-24s %-12s gpus %d cyclic %.4f ms  %.2f GFLOP/s  setup %.0f ms\n",
                matrix.c_str(), "bsr", used, med, rec["gflops"].get<double>(), setup);
    std::fflush(stdout);
    recs.push_back(rec);
  }
  if (!s.json.empty())
    write_document(s.json, {{"device", device_name(be)}, {"backend", to_string(be)},
                            {"commit", bench::commit_id()}, {"date", bench::now_iso8601()},
                            {"ranks", 1}, {"results", recs}});
}

template <class V>
void run_typed(const DistArgs& s) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const Backend be = s.backend == "auto" ? (cuda_available() ? Backend::cuda : Backend::cpu)
                                         : parse_backend(s.backend);
  if (s.command == "cyclic") return run_cyclic<V>(s, be);
  if (be == Backend::cuda) dist::select_device(comm);
  if (s.command == "solve") return run_solve<V>(s, comm, be);
  run_spmv<V>(s, comm, be);
}

}  // namespace

bool dist_compiled() { return true; }

void run_dist(const DistArgs& s) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  // A caller without MPI (spmvkit bench --dist): MPI for this command alone.
  struct Session {
    bool mine = false;
    ~Session() {
      if (mine) MPI_Finalize();
    }
  } session;
  if (!initialised) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) throw Error("MPI_Init failed");
    session.mine = true;
  }
  if (s.matrices.empty()) throw InputError("no matrix given");
  if (s.precision == "f32")
    run_typed<float>(s);
  else if (s.precision == "f64")
    run_typed<double>(s);
  else
    throw InputError("--dist: precision must be f64 or f32 (got " + s.precision + ")");
}

}  // namespace spmvkit::cli
