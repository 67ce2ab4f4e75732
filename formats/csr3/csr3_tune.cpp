// The Hopper search for CSR-3: candidate grid, timing driver, rule fit, report.
#include "formats/csr3/csr3_tune.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <ostream>
#include <sstream>

#include "spmvkit/backend.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/reorder.hpp"

namespace spmvkit {

namespace {

Csr3Params candidate(Csr3Kernel kernel, int bx, int by, int bz, index_t sr, index_t ssr) {
  Csr3Params p;
  p.kernel = kernel;
  p.block_x = bx;
  p.block_y = by;
  p.block_z = bz;
  p.super_row_size = sr;
  p.super_super_row_size = ssr;
  return p;
}

std::string short_config(const Csr3Params& p) {
  std::ostringstream s;
  s << (p.kernel == Csr3Kernel::serial ? "S " : "P ") << p.block_x << "x" << p.block_y << "x"
    << p.block_z << " sr" << p.super_row_size << " ssr" << p.super_super_row_size;
  return s.str();
}

[[maybe_unused]] double density_of(const Csr<double>& a) {
  return a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0.0;
}

std::size_t bucket_of(const std::vector<double>& edges, double d) {
  for (std::size_t b = 0; b < edges.size(); ++b)
    if (d <= edges[b]) return b;
  return edges.size();
}

// The best (smallest) valid time of one matrix over all candidates, NaN if none.
double best_time(const std::vector<double>& times) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (double t : times)
    if (std::isfinite(t) && t > 0 && !(t >= best)) best = t;
  return best;
}

double time_of(const Csr3TuneResult& r, std::size_t m, const Csr3Params& p) {
  const int c = csr3_find_candidate(r.candidates, p);
  return c < 0 ? std::numeric_limits<double>::quiet_NaN() : r.matrices[m].time_ms[0][c];
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (std::isfinite(x) && x > 0) {
      s += std::log(x);
      ++n;
    }
  return n > 0 ? std::exp(s / n) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string Csr3Ordering::to_string() const {
  return std::string("reorder=") + spmvkit::to_string(reorder) + (permute_x ? ",permute_x=1" : "");
}

std::vector<Csr3Params> csr3_candidate_grid() {
  std::vector<Csr3Params> grid;
  // Serial kernel: rows of a super-row on x, super-rows on y.
  for (int bx : {8, 16, 32})
    for (int by : {2, 4, 8, 16}) {
      const int t = bx * by;
      if (t < 64 || t > 512) continue;
      for (int fx : {1, 2})
        for (int fy : {1, 2})
          grid.push_back(candidate(Csr3Kernel::serial, bx, by, 1, bx * fx, by * fy));
    }
  // Parallel kernel: nonzeros on x, rows on y, super-rows on z.
  for (int bx : {2, 4, 8, 16, 32})
    for (int by : {1, 2, 4, 8, 16, 32}) {
      const int w = bx * by;
      if (w != 16 && w != 32 && w != 64) continue;
      for (int bz : {1, 2, 4, 8, 16, 32}) {
        const int t = w * bz;
        if (t < 128 || t > 512) continue;
        for (int fy : {1, 2, 4})
          for (int fz : {1, 2})
            grid.push_back(candidate(Csr3Kernel::parallel, bx, by, bz, by * fy, bz * fz));
      }
    }
  return grid;
}

std::vector<double> csr3_default_density_edges() {
  // Finer where the paper's rule changes fastest (sparse end), then the paper's thresholds.
  return {2.5, 3.5, 4.5, 6, 8, 12, 16, 24, 32, 48, 64, 96};
}

std::vector<std::string> csr3_training_set() {
  return {
      // large (bandwidth-bound), densities 2..150
      "random_4000000_4000000_2", "banded_4000000_16_3", "stencil5_2000", "stencil7_150",
      "stencil9_1500", "powerlaw_2000000_2000", "banded_2000000_32_12", "random_1000000_1000000_16",
      "reservoir_bs3_80", "stencil27_100", "expand_bs4_stencil7_60", "banded_1000000_64_36",
      "reservoir_bs7_50", "banded_400000_128_80", "random_200000_200000_150",
      // small (latency-bound, like the real matrices of the evaluation)
      "random_5000_5000_3", "stencil5_100", "banded_20000_8_4", "stencil27_20", "reservoir_bs4_10",
      "random_2000_2000_60"};
}

int csr3_find_candidate(const std::vector<Csr3Params>& candidates, const Csr3Params& p) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Csr3Params& c = candidates[i];
    if (c.kernel == p.kernel && c.super_row_size == p.super_row_size &&
        c.super_super_row_size == p.super_super_row_size && c.block_x == p.block_x &&
        c.block_y == p.block_y && c.block_z == p.block_z)
      return static_cast<int>(i);
  }
  return -1;
}

std::vector<Csr3RuleRow> csr3_fit_rule(const Csr3TuneResult& r) {
  const std::vector<double>& edges = r.density_edges;
  const std::size_t buckets = edges.size() + 1;
  std::vector<std::vector<std::size_t>> members(buckets);
  for (std::size_t m = 0; m < r.matrices.size(); ++m)
    if (!r.matrices[m].time_ms.empty() && std::isfinite(best_time(r.matrices[m].time_ms[0])))
      members[bucket_of(edges, r.matrices[m].density)].push_back(m);

  std::vector<Csr3RuleRow> rows;
  for (std::size_t b = 0; b < buckets; ++b) {
    if (members[b].empty()) continue;
    int best = -1;
    double best_score = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < r.candidates.size(); ++c) {
      double score = 0;
      bool ok = true;
      for (std::size_t m : members[b]) {
        const auto& times = r.matrices[m].time_ms[0];
        const double t = times[c];
        if (!std::isfinite(t) || t <= 0) {
          ok = false;
          break;
        }
        score += std::log(t / best_time(times));
      }
      if (ok && score < best_score) {
        best_score = score;
        best = static_cast<int>(c);
      }
    }
    if (best < 0) continue;
    const Csr3Params& p = r.candidates[best];
    const double max_density =
        b < edges.size() ? edges[b] : std::numeric_limits<double>::infinity();
    Csr3RuleRow row{max_density, p.kernel,  p.super_row_size, p.super_super_row_size,
                    p.block_x,   p.block_y, p.block_z};
    if (!rows.empty()) {
      Csr3RuleRow& prev = rows.back();
      if (prev.kernel == row.kernel && prev.super_row_size == row.super_row_size &&
          prev.super_super_row_size == row.super_super_row_size && prev.block_x == row.block_x &&
          prev.block_y == row.block_y && prev.block_z == row.block_z) {
        prev.max_density = row.max_density;
        continue;
      }
    }
    rows.push_back(row);
  }
  if (!rows.empty()) rows.back().max_density = std::numeric_limits<double>::infinity();
  return rows;
}

Csr3TuneResult csr3_tune(const std::vector<Csr3TuneMatrix>& matrices,
                         const Csr3TuneOptions& options) {
#if SPMVKIT_HAVE_CUDA
  if (!cuda_available()) throw UnsupportedError("csr3 tune: no CUDA device is available");
  Csr3TuneResult r;
  r.candidates = csr3_candidate_grid();
  r.orderings =
      options.orderings.empty() ? std::vector<Csr3Ordering>{Csr3Ordering{}} : options.orderings;
  r.density_edges =
      options.density_edges.empty() ? csr3_default_density_edges() : options.density_edges;
  std::sort(r.density_edges.begin(), r.density_edges.end());
  // The rules' own choices are timed too, so the report compares them on equal terms.
  for (const auto& m : matrices)
    for (const Csr3Params& p :
         {csr3_paper_rule(density_of(m.matrix)), csr3_hopper_rule(density_of(m.matrix))})
      if (csr3_find_candidate(r.candidates, p) < 0) r.candidates.push_back(p);

  for (const auto& m : matrices) {
    Csr3TuneMatrixResult res;
    res.name = m.name;
    res.rows = m.matrix.rows;
    res.nnz = m.matrix.nnz();
    res.density = density_of(m.matrix);
    for (std::size_t oi = 0; oi < r.orderings.size(); ++oi) {
      const Csr3Ordering& o = r.orderings[oi];
      Csr3Params base = csr3_hopper_rule(res.density);
      base.reorder = o.reorder;
      base.permute_x = o.permute_x;
      // Ordering 0: every candidate. Later ones: the best few of ordering 0 and the rules.
      std::vector<int> subset;
      if (oi == 0) {
        subset.resize(r.candidates.size());
        std::iota(subset.begin(), subset.end(), 0);
      } else {
        const std::vector<double>& t0 = res.time_ms[0];
        std::vector<int> order(t0.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) {
          const double ta = std::isfinite(t0[a]) ? t0[a] : std::numeric_limits<double>::infinity();
          const double tb = std::isfinite(t0[b]) ? t0[b] : std::numeric_limits<double>::infinity();
          return ta < tb;
        });
        order.resize(std::min<std::size_t>(
            order.size(), static_cast<std::size_t>(std::max(0, options.ordering_top))));
        subset = order;
        for (const Csr3Params& p : {csr3_paper_rule(res.density), csr3_hopper_rule(res.density)}) {
          const int c = csr3_find_candidate(r.candidates, p);
          if (c >= 0 && std::find(subset.begin(), subset.end(), c) == subset.end())
            subset.push_back(c);
        }
      }
      std::vector<Csr3Params> configs;
      for (int c : subset) configs.push_back(r.candidates[c]);
      std::vector<double> times;
      if (options.double_precision) {
        const Csr3<double> host = build_csr3(m.matrix, base);
        res.reorder_ms.push_back(host.reorder_ms);
        times = csr3_time_launches(host, configs, options.warmup, options.reps);
      } else {
        const Csr3<float> host = build_csr3(m.matrix.cast<float>(), base);
        res.reorder_ms.push_back(host.reorder_ms);
        times = csr3_time_launches(host, configs, options.warmup, options.reps);
      }
      std::vector<double> full(r.candidates.size(), std::numeric_limits<double>::quiet_NaN());
      for (std::size_t i = 0; i < subset.size(); ++i) full[subset[i]] = times[i];
      res.time_ms.push_back(std::move(full));
    }
    if (options.log) {
      const auto& t = res.time_ms[0];
      const int best = static_cast<int>(std::find(t.begin(), t.end(), best_time(t)) - t.begin());
      *options.log << "csr3 tune: " << m.name << " d=" << res.density << " best " << best_time(t)
                   << " ms ("
                   << (best < static_cast<int>(t.size()) ? short_config(r.candidates[best]) : "-")
                   << ")" << std::endl;
    }
    r.matrices.push_back(std::move(res));
  }
  r.fitted = csr3_fit_rule(r);
  return r;
#else
  (void)matrices;
  (void)options;
  throw UnsupportedError("csr3 tune: this build of spmvkit has no CUDA backend");
#endif
}

void csr3_print_tune(const Csr3TuneResult& r, std::ostream& out) {
  out << "# csr3 search: " << r.candidates.size() << " candidates, " << r.matrices.size()
      << " matrices, orderings:";
  for (const auto& o : r.orderings) out << " [" << o.to_string() << "]";
  out << " (rule fitted on the first)\n";
  out << std::left << std::setw(28) << "matrix" << std::right << std::setw(10) << "rows"
      << std::setw(11) << "nnz" << std::setw(8) << "d" << std::setw(11) << "best_ms"
      << "  " << std::left << std::setw(26) << "best config" << std::right << std::setw(8)
      << "paper" << std::setw(8) << "hopper" << std::setw(8) << "fitted" << std::setw(11)
      << "reorder_ms" << std::setw(9) << "spmv_eq"
      << "\n";
  std::vector<double> paper_x, hopper_x, fitted_x, fitted_over_paper;
  for (std::size_t m = 0; m < r.matrices.size(); ++m) {
    const auto& res = r.matrices[m];
    const auto& t = res.time_ms[0];
    const double best = best_time(t);
    const int bi = static_cast<int>(std::find(t.begin(), t.end(), best) - t.begin());
    const double paper = time_of(r, m, csr3_paper_rule(res.density));
    const double hopper = time_of(r, m, csr3_hopper_rule(res.density));
    const double fitted = r.fitted.empty()
                              ? std::numeric_limits<double>::quiet_NaN()
                              : time_of(r, m, csr3_rule_from_table(r.fitted, res.density));
    paper_x.push_back(paper / best);
    hopper_x.push_back(hopper / best);
    fitted_x.push_back(fitted / best);
    fitted_over_paper.push_back(paper / fitted);
    out << std::left << std::setw(28) << res.name << std::right << std::setw(10) << res.rows
        << std::setw(11) << res.nnz << std::setw(8) << std::setprecision(3) << res.density
        << std::setw(11) << std::setprecision(4) << best << "  " << std::left << std::setw(26)
        << (bi < static_cast<int>(t.size()) ? short_config(r.candidates[bi]) : "-") << std::right
        << std::setprecision(3) << std::setw(8) << paper / best << std::setw(8) << hopper / best
        << std::setw(8) << fitted / best << std::setw(11) << std::setprecision(4)
        << res.reorder_ms[0] << std::setw(9) << std::setprecision(3)
        << spmv_equivalents(res.reorder_ms[0], fitted) << "\n";
  }
  out << "# geometric mean of time / best: paper " << geomean(paper_x) << ", hopper (current) "
      << geomean(hopper_x) << ", fitted " << geomean(fitted_x)
      << " (fitted on these matrices: an optimistic estimate)\n";
  out << "# fitted rule speedup over the paper's rule (geomean): " << geomean(fitted_over_paper)
      << "\n";
  for (std::size_t o = 0; o < r.orderings.size(); ++o) {
    std::vector<double> ratio, reorder;
    for (const auto& res : r.matrices) {
      ratio.push_back(best_time(res.time_ms[o]) / best_time(res.time_ms[0]));
      reorder.push_back(res.reorder_ms[o]);
    }
    out << "# ordering [" << r.orderings[o].to_string() << "]: best time / best of ["
        << r.orderings[0].to_string() << "] geomean " << geomean(ratio)
        << ", reorder ms geomean " << geomean(reorder)
        << (o > 0 ? " (timed on the first ordering's best candidates)" : "") << "\n";
  }
  out << "# fitted table, for csr3_hopper_table() in formats/csr3/csr3_rule.cpp:\n";
  for (const auto& row : r.fitted) {
    out << "      {";
    if (std::isinf(row.max_density))
      out << "std::numeric_limits<double>::infinity()";
    else
      out << row.max_density;
    out << ", Csr3Kernel::" << (row.kernel == Csr3Kernel::serial ? "serial" : "parallel") << ", "
        << row.super_row_size << ", " << row.super_super_row_size << ", " << row.block_x << ", "
        << row.block_y << ", " << row.block_z << "},\n";
  }
}

}  // namespace spmvkit
