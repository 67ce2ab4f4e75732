// format=auto's choice (model.hpp): predicted SpMV and setup times per candidate, ranked.
#include "select/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace spmvkit::select {

namespace {

constexpr double kDefaultL2 = 50.0 * (1 << 20);
// H200 against H100 read bandwidth (HBM3e 4.8 TB/s, HBM3 3.35 TB/s): the terms of bytes beyond L2
// scale by it; the L2-resident ones do not (the same SMs; the L2 as the device reports it, 50 MiB
// on the H100, 60 MiB on the H200).
constexpr double kH200ByteScale = 3.35 / 4.8;
// neighbour_point's x-over-L2 dimension is at least this (model.hpp).
constexpr double kNeighbourXFloor = 0.05;

// The device's L2 in bytes (kDefaultL2 where the features do not know it).
double l2_of(const Features& f) {
  return f.l2_bytes > 0 ? static_cast<double>(f.l2_bytes) : kDefaultL2;
}

// Candidates on the GPU: every format of the cost table (ours and cuSPARSE CSR ALG1), but suraa.
bool gpu_candidate(std::string_view f) {
  return f != "suraa";  // dynamic parallelism: its static twin is the same layout, cheaper setup
}

double dot(const CostVector& c, const CostVector& x) {
  double s = 0;
  for (std::size_t i = 0; i < c.size(); ++i) s += c[i] * x[i];
  return s;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The share of a format's bytes an SpMV reads at L2's rate, by its bytes (x and y included) over
// the L2: all up to half the L2, none from a full L2, linear between. It had been a step at a full
// L2: expansions whose CSR was 90-98% of an H200's L2 were predicted at L2's rate and ran at
// memory's (csr_vector at 1.5x bsr's time, whose fewer bytes stayed), and a neighbour across the
// step corrected them by the wrong side's residual. Offline, with the shipped tables rebuilt
// against it: from half an L2 the hold-outs gained 1-4% on both devices; from 0.4 of it 0.2% more
// but a 1.80x worst pick on the H100 (docs/select.md).
constexpr double kL2Lo = 0.5, kL2Hi = 1.0;
double l2_resident_share(double over_l2) {
  if (over_l2 <= kL2Lo) return 1.0;
  if (over_l2 >= kL2Hi) return 0.0;
  return (kL2Hi - over_l2) / (kL2Hi - kL2Lo);
}

}  // namespace

// The CPU backend's model (simple, by hand, not fitted): each format streams its bytes at the
// same ~20 GB/s; so the smallest byte count wins (BSR on dense blocks, ELL on equal rows), and a
// long row costs csr_scalar nothing extra with OpenMP's dynamic rows. Setup ~ a copy.
const std::vector<FormatCost>& cpu_costs() {
  static const std::vector<FormatCost> table = {
      {"csr_scalar", {0.01, 50, 50, 0, 0, 0, 0, 0}, {0.01, 2}},
      {"ell", {0.01, 50, 50, 0, 0, 0, 0, 0}, {0.02, 6}},
      {"bsr", {0.01, 50, 50, 0, 0, 0, 0, 0}, {0.05, 8}},
  };
  return table;
}

// K3 thread blocks a GPU holds at once, for bsr's split rule (cost_features): the H200's span
// by block size (SMs x 8 to 32 an SM), near its middle.
constexpr double kK3Resident = 2000;

CostVector cost_features(const Features& f, std::string_view format) {
  const double s = f.value_bytes;
  const double rows = f.rows, nnz = static_cast<double>(f.nnz);
  const double vec = (static_cast<double>(f.rows) + f.cols) * s;
  const bool blocks = format == "bsr" || format == "bsr_balanced";
  const double bs = blocks ? f.block_size : 1;
  double bytes;
  if (blocks)
    bytes = nnz * s + nnz / (bs * bs) * 4 + rows / bs * 4;
  else if (format == "ell")
    bytes = f.ell_bytes;
  else if (format == "sellp")
    bytes = f.sellp_bytes;
  else if (format == "hyb" || format == "hec")
    bytes = f.hybrid_bytes;
  else if (format == "cusparse_coo")
    bytes = nnz * (s + 8);  // a row and a column index an entry
  else
    bytes = nnz * (s + 4) + rows * 4;
  // The longest serial walk. csr_vector's sub-warp is its threads_per_row=auto, as that
  // parameter documents it: the mean row length rounded up to a power of two in 2..32. HYB's and
  // HEC's threads walk the ELL part (the long rows' rest is split over threads).
  double chain = f.row_max;
  if (format == "csr_vector") {
    double threads_per_row = 2;
    while (threads_per_row < 32 && threads_per_row < f.row_mean) threads_per_row *= 2;
    chain = f.row_max / threads_per_row;
  } else if (format == "hyb" || format == "hec") {
    chain = f.hybrid_width;
  } else if (format == "cusparse_coo") {
    chain = 0;  // entries split evenly over threads, a long row among them
  } else if (blocks) {
    // bsr from bs 13 on (its kernel k3): a thread group walks a whole block row, the longest
    // one's entries (row_max x bs), up to 2^17 (fitted: the arrow expansions' rows of 5,000+
    // blocks took 0.08-0.18 ms, no longer than that). On watt_2 expanded by 25 (rows to 20x
    // the mean) bsr took 3.6x bsr_balanced's time, which the model without it picked bsr for.
    // Smaller blocks' kernels, and bsr_balanced's tiles, split the walk; so does bsr's own rule
    // where the blocks are a few waves of K3's thread blocks (formats/bsr, bsr_k3_lambda: under
    // 32 x the resident thread blocks, 1,056-4,224 on an H200 by block size; taken here as
    // kK3Resident) and a block row is over 16 blocks, when it splits that row
    // (SelectModel.BsrsWalkTermFollowsTheFormatsSplitRule keeps the two in step).
    const double blocks_n = nnz / (bs * bs), longest = f.row_max / bs;
    const double waves = 2 * blocks_n / kK3Resident;
    double lambda = 4;
    while (lambda * 2 <= waves) lambda *= 2;
    const bool split = waves < 32 && longest > 16 && longest > 2 * lambda;
    chain = format == "bsr" && bs >= 13 && !split
                ? std::min(static_cast<double>(f.row_max) * bs, double{1 << 17})
                : 0.0;
  }
  const double gb = (bytes + vec) * 1e-9;
  const double l2 = l2_of(f);
  const double resident = l2_resident_share(gb * 1e9 / l2);
  const double imbalance = gb * std::min(10.0, f.cv());
  return {1.0,         gb * (1 - resident),        gb * resident,        chain * 1e-6,
          rows * 1e-6, imbalance * (1 - resident), imbalance * resident, nnz / (bs * bs) * 1e-6};
}

NeighbourPoint neighbour_point(const Features& f) {
  const double x_over_l2 = static_cast<double>(f.cols) * f.value_bytes / l2_of(f);
  return {std::log(std::max(1.0, static_cast<double>(f.rows))),
          std::log(std::max(1.0, static_cast<double>(f.nnz))),
          std::log(std::max(0.01, f.row_mean)),
          std::log(f.cv() + 0.05),
          std::log(std::max(1.0, static_cast<double>(f.row_max))),
          std::log(static_cast<double>(std::max(1, f.block_size))),
          std::log(std::max(kNeighbourXFloor, x_over_l2))};
}

const NeighbourTable& shipped_neighbours(const std::string& device) {
  const bool h200 = device.find("H200") != std::string::npos;
  return h200 && !h200_neighbours().entries.empty() ? h200_neighbours() : h100_neighbours();
}

namespace {

// A table entry with its squared standardised distance to a matrix.
struct Near {
  double d2;
  const NeighbourTable* table;
  const NeighbourTable::Entry* entry;
  std::size_t order;  // over the tables in turn, each in its own order: ties go by it
  double w;           // its weight, exp(-d2) (once nearest() has them all)
};

// A table's points one after another, with its scale's inverses (a multiply a dimension, not a
// division): its entries hold them between the names and the residuals' vectors, 88 bytes
// apart, and with the caches cold (after a large build) reading them there was a fifth of
// choose() (0.011-0.015 ms of ~0.06, this machine).
struct Packed {
  std::vector<NeighbourPoint> points;
  NeighbourPoint inv{};
};
void pack(const NeighbourTable& t, Packed& p) {
  p.points.clear();
  p.points.reserve(t.entries.size());
  for (const NeighbourTable::Entry& e : t.entries) p.points.push_back(e.point);
  for (std::size_t i = 0; i < kNeighbourDims; ++i) p.inv[i] = 1.0 / t.scale[i];
}
// The shipped tables' packs, made once; another table's (this device's measured neighbours, a
// test's) packed for the call into the thread's buffer, valid until the next such call.
Packed packed_copy(const NeighbourTable& t) {
  Packed p;
  pack(t, p);
  return p;
}
const Packed& packed(const NeighbourTable& t) {
  static const Packed h100 = packed_copy(h100_neighbours());
  static const Packed h200 = packed_copy(h200_neighbours());
  if (&t == &h100_neighbours()) return h100;
  if (&t == &h200_neighbours()) return h200;
  thread_local Packed other;
  pack(t, other);
  return other;
}

// The kNeighbours entries nearest to f over `tables` (by distance, then the tables' order and
// each table's own order); each table standardises by its own scale. Kept in order as they are
// found, in place: a list of every entry, partially sorted, was among the fresh pages of a
// selection beside a large build's frees (choose() took 0.06-0.21 ms with 11-16 page faults at
// 1e8 nonzeros, H200 host).
struct Nearest {
  std::array<Near, kNeighbours> at{};
  std::size_t size = 0;
  const Near* begin() const { return at.data(); }
  const Near* end() const { return at.data() + size; }
  const Near& front() const { return at[0]; }
};
Nearest nearest(std::initializer_list<const NeighbourTable*> tables, const Features& f) {
  Nearest near;
  std::size_t order = 0;
  const NeighbourPoint z = neighbour_point(f);
  const auto before = [](const Near& x, const Near& y) {
    return x.d2 < y.d2 || (x.d2 == y.d2 && x.order < y.order);
  };
  for (const NeighbourTable* t : tables) {
    if (!t) continue;
    const Packed& p = packed(*t);
    for (std::size_t k = 0; k < p.points.size(); ++k) {
      const NeighbourPoint& point = p.points[k];
      double d2 = 0;
      for (std::size_t i = 0; i < kNeighbourDims; ++i) {
        const double u = (z[i] - point[i]) * p.inv[i];
        d2 += u * u;
      }
      const Near n{d2, t, &t->entries[k], order++, 0.0};
      if (near.size == kNeighbours && !before(n, near.at[kNeighbours - 1])) continue;
      std::size_t i = near.size < kNeighbours ? near.size++ : kNeighbours - 1;
      for (; i > 0 && before(n, near.at[i - 1]); --i) near.at[i] = near.at[i - 1];
      near.at[i] = n;
    }
  }
  for (std::size_t i = 0; i < near.size; ++i) near.at[i].w = std::exp(-near.at[i].d2);
  return near;
}

// The column of `format` in t's residuals (-1: not measured there).
int column(const NeighbourTable& t, std::string_view format) {
  for (std::size_t j = 0; j < t.formats.size(); ++j)
    if (format == t.formats[j]) return static_cast<int>(j);
  return -1;
}

// The format whose residual stands in for `format`'s on a table matrix that `format` refused:
// ELL refuses a fill over its max_fill (3), which more than half of each shipped table's
// matrices have, and SELL-P, the same padded column-major layout by slices, built them all. Its
// residual is ELL's within 0.02 in the median where both ran (a tenth beyond -0.3 / +0.36, both
// tables). Without it ELL's correction near such matrices came from farther ones of another
// shape: on random_4000000_4000000_12 (fill 2.67; its two nearest table matrices, random ones
// over 3, SELL-P residuals 0.47-0.85) from three stencils, a banded and one random matrix
// (weighted mean 0.09), and ELL picked at 1.23x the oracle (H200, auto suite, 970e977).
std::string_view stand_in(std::string_view format) { return format == "ell" ? "sellp" : ""; }

// exp of the weighted mean residual of `format` over `near` (1 where none measured it), with
// stand_in's residual on a matrix where `format` has none.
double correction(const Nearest& near, std::string_view format) {
  const std::string_view other = stand_in(format);
  double num = 0, den = 0;
  const NeighbourTable* last = nullptr;
  int j = -1, k = -1;
  for (const Near& n : near) {
    if (n.table != last) {
      j = column(*(last = n.table), format);
      k = other.empty() ? -1 : column(*n.table, other);
    }
    const auto at = [&](int c) {
      return c < 0 ? std::numeric_limits<double>::quiet_NaN()
                   : n.entry->residual[static_cast<std::size_t>(c)];
    };
    double r = at(j);
    if (std::isnan(r)) r = at(k);
    if (std::isnan(r)) continue;
    num += n.w * r;
    den += n.w;
  }
  return den > 0 ? std::exp(num / (den + 1e-3)) : 1.0;
}

// A candidate's numbers while they are ranked; its Prediction (a name and parameters, a heap
// string or map each) is made once it has its place.
struct Candidate {
  const FormatCost* cost;
  double linear_ms, spmv_ms, setup_ms;
  double total_ms(long long applies) const { return select::total_ms(spmv_ms, setup_ms, applies); }
};
constexpr std::size_t kMaxCandidates = 32;

}  // namespace

Choice choose(const Features& f, Backend b, const std::string& device, long long applies,
              const NeighbourTable* measured) {
  Choice c;
  c.applies = applies;
  const bool h200 = device.find("H200") != std::string::npos;
  const bool scale = h200 && h200_costs().empty();
  const auto& table = b == Backend::cpu ? cpu_costs()
                      : h200 && !scale  ? h200_costs()
                                        : h100_costs();
  std::array<Candidate, kMaxCandidates> cand;
  std::size_t n = 0;
  for (const FormatCost& k : table) {
    const std::string_view name = k.format;
    if (b == Backend::cuda && !gpu_candidate(name)) continue;
    // BSR only where there are dense blocks (bs = 1 is CSR with more setup).
    if ((name == "bsr" || name == "bsr_balanced") && f.block_size < 2) continue;
    if (n == cand.size()) throw std::logic_error("choose: more candidates than kMaxCandidates");
    CostVector coef = k.spmv;
    if (scale)
      for (int i : {1, 5}) coef[i] *= kH200ByteScale;
    const double linear = dot(coef, cost_features(f, name));
    cand[n++] = {&k, linear, linear, k.setup[0] + k.setup[1] * f.nnz * 1e-6};
  }
  // The neighbour correction: on the GPU the shipped table (an H200's own, residuals of H200
  // runs against its linear model, where it has one, else H100's: the same relative correction
  // of its linear model), and on either backend the matrices measured on this device.
  const NeighbourTable* shipped = b == Backend::cuda ? &shipped_neighbours(device) : nullptr;
  if (shipped && shipped->entries.empty()) shipped = nullptr;
  if (measured && measured->entries.empty()) measured = nullptr;
  std::string neighbours;
  if (shipped || measured) {
    const auto near = nearest({shipped, measured}, f);
    for (std::size_t i = 0; i < n; ++i)
      cand[i].spmv_ms = cand[i].linear_ms * correction(near, cand[i].cost->format);
    // How much of the neighbours' residual applies: their weight against the regulariser's.
    double w = 0;
    std::size_t here = 0;
    for (const Near& nb : near) {
      w += nb.w;
      here += nb.table == measured;
    }
    neighbours = "; neighbour correction " + fmt("%.2f", w / (w + 1e-3)) + " (its " +
                 std::to_string(near.size) + " nearest measured matrices" +
                 (measured ? ", " + std::to_string(here) + " measured on this device" : "") +
                 ", first " + near.front().entry->matrix +
                 fmt(" at %.2f)", std::sqrt(near.front().d2));
  }
  // Ranked by total_ms(applies), ties in the table's order (an insertion sort: stable, and no
  // buffer to allocate for a dozen candidates).
  for (std::size_t i = 1; i < n; ++i) {
    const Candidate x = cand[i];
    std::size_t j = i;
    for (; j > 0 && x.total_ms(applies) < cand[j - 1].total_ms(applies); --j) cand[j] = cand[j - 1];
    cand[j] = x;
  }
  const double gb = (static_cast<double>(f.nnz) * (f.value_bytes + 4)) * 1e-9;
  const bool beyond_l2 = gb * 1e9 >= l2_of(f);
  std::string peer_first;
  if (b == Backend::cuda && beyond_l2 && n > 0) {
    // Beyond L2 the pick must never trail cuSPARSE by more than 3% (issue 25); where the
    // best-ranked cuSPARSE candidate's prediction (CSR ALG1's or COO's) is within kPeerMargin
    // of the best of ours, the model cannot tell them apart (its error there is of that size),
    // so the peer goes first.
    const auto peer = std::find_if(cand.begin(), cand.begin() + n, [](const Candidate& k) {
      return std::string_view(k.cost->format).rfind("cusparse_", 0) == 0;
    });
    if (peer != cand.begin() + n && peer != cand.begin() &&
        peer->total_ms(applies) <= (1 + kPeerMargin) * cand[0].total_ms(applies)) {
      peer_first = "; " + std::string(cand[0].cost->format) +
                   fmt(" predicted within %.0f%% of ", 100 * kPeerMargin) + peer->cost->format +
                   ", which goes first";
      std::rotate(cand.begin(), peer, peer + 1);
    }
  }
  c.ranked.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Prediction& p = c.ranked[i];
    p.format = cand[i].cost->format;
    if (f.block_size >= 2 && (p.format == "bsr" || p.format == "bsr_balanced"))
      p.params.set("block_size", std::to_string(f.block_size));
    p.linear_ms = cand[i].linear_ms;
    p.spmv_ms = cand[i].spmv_ms;
    p.setup_ms = cand[i].setup_ms;
  }
  // Why, in the features' words.
  std::string why = "rows " + std::to_string(f.rows) + ", nnz " + std::to_string(f.nnz) +
                    fmt(", row length mean %.3g", f.row_mean) + fmt(" cv %.3g", f.cv()) +
                    fmt(", diagonal offset %.3g", f.diagonal_offset) + ", max " +
                    std::to_string(f.row_max) +
                    (f.sampled_rows < f.rows
                         ? " (mean, cv over " + std::to_string(f.sampled_rows) + " sampled rows)"
                         : "");
  if (f.block_size >= 2)
    why +=
        ", dense " + std::to_string(f.block_size) + "x" + std::to_string(f.block_size) + " blocks";
  if (b == Backend::cuda || f.l2_bytes > 0) why += beyond_l2 ? ", larger than L2" : ", fits in L2";
  why += applies > 0 ? ", minimising setup + " + std::to_string(applies) + " x SpMV"
                     : ", minimising SpMV time";
  c.why = why + neighbours + peer_first;
  return c;
}

void prepare() {
  Features f;
  f.rows = f.cols = 1000;
  f.nnz = 5000;
  f.row_mean = 5;
  f.row_max = 9;
  for (Backend b : {Backend::cpu, Backend::cuda}) choose(f, b, "", 0);
  prepare_features();
}

}  // namespace spmvkit::select
