// CSR-3 run-time parameters: the paper's heuristic, the Hopper table, explicit overrides.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "formats/csr3/csr3.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

const char* kernel_name(Csr3Kernel k) { return k == Csr3Kernel::serial ? "serial" : "parallel"; }

}  // namespace

const char* to_string(Csr3Reorder r) {
  switch (r) {
    case Csr3Reorder::none:
      return "none";
    case Csr3Reorder::rcm:
      return "rcm";
    case Csr3Reorder::band:
      return "band";
    default:
      return "auto";
  }
}

std::string Csr3Params::to_string() const {
  std::ostringstream s;
  s << "rule=" << (rule == Csr3Rule::paper ? "paper" : "hopper")
    << ",kernel=" << kernel_name(kernel) << ",super_row_size=" << super_row_size
    << ",super_super_row_size=" << super_super_row_size << ",block=" << block_x << "x" << block_y
    << "x" << block_z << ",reorder=" << spmvkit::to_string(reorder)
    << ",permute_x=" << (permute_x ? 1 : 0) << ",long_row=" << long_row_threshold;
  return s.str();
}

// CSR-k GPU paper, "Heuristic Algorithm for Runtime Parameters", line by line. Note that
// sup_row_size is computed from the rounded sup_sup_row_size, before the density branches,
// exactly in the paper's statement order.
Csr3Params csr3_paper_rule(double density) {
  const double d = density;
  const double de = std::max(d, 2.0);  // domain guard, see csr3.hpp
  long ssr = std::lround(3.333 + 20.0 / (de * std::log(de)));
  long sr = std::lround(0.667 * static_cast<double>(ssr) + 2.667);
  Csr3Params p;
  p.rule = Csr3Rule::paper;
  p.block_x = 8;
  p.block_y = 12;
  p.block_z = 1;
  p.kernel = Csr3Kernel::serial;
  if (d > 8) {
    p.kernel = Csr3Kernel::parallel;
    ssr *= 2;
    sr += 2;
    p.block_x = 4;
    p.block_y = 8;
    p.block_z = 12;
  }
  if (d > 16) {
    sr += 1;
    p.block_x = 8;
    p.block_z = 8;
  }
  if (d > 32) {
    ssr += 1;
    sr -= 1;
    p.block_x = 16;
    p.block_z = 4;
  }
  if (d > 64) {
    sr += 1;
    p.block_x = 32;
    p.block_y = 2;
  }
  p.super_super_row_size = static_cast<index_t>(ssr);
  p.super_row_size = static_cast<index_t>(sr);
  p.reorder = Csr3Reorder::band;  // the paper reorders with its multilevel banding
  p.long_row_threshold = csr3_default_long_row(density);
  return p;
}

// PROVISIONAL Hopper table (not measured yet: written from H100 facts, to be replaced by
// the fitted table `spmvkit tune csr3` prints). Reasoning: 256-thread blocks (8 resident per
// SM); block_x lanes a row sized so each lane reads ~2-3 nonzeros of a row; a warp covers
// consecutive rows of one super-row (block_y = 32 / block_x) so its loads are contiguous;
// each lane group handles two rows (super_row_size = 2 * block_y), block_z = 8 super-rows a
// block. The sparsest matrices keep the paper's serial kernel, a warp over 32 rows.
const std::vector<Csr3RuleRow>& csr3_hopper_table() {
  static const std::vector<Csr3RuleRow> table = {
      // max_density, kernel, super_row_size, super_super_row_size, block x, y, z
      // Fitted by `spmvkit tune csr3` on an H100 (2026-11-22, csr3_training_set(), f64):
      // geometric mean of time / best 1.02, against 1.06 for the earlier guess and 1.11 for
      // the paper's rule (bench/results/2026-11-22-h100/csr3_tune.txt).
      {2.5, Csr3Kernel::serial, 32, 16, 32, 16, 1},
      {3.5, Csr3Kernel::serial, 7, 7, 8, 12, 1},
      {4.5, Csr3Kernel::serial, 32, 8, 32, 8, 1},
      {6, Csr3Kernel::parallel, 16, 8, 2, 16, 8},
      {8, Csr3Kernel::parallel, 16, 16, 2, 16, 16},
      {12, Csr3Kernel::parallel, 16, 4, 4, 8, 4},
      {16, Csr3Kernel::parallel, 8, 8, 8, 8, 4},
      {24, Csr3Kernel::parallel, 16, 2, 8, 8, 2},
      {32, Csr3Kernel::parallel, 8, 2, 8, 8, 2},
      {48, Csr3Kernel::parallel, 16, 2, 16, 4, 2},
      {64, Csr3Kernel::parallel, 4, 8, 16, 4, 8},
      {96, Csr3Kernel::parallel, 2, 4, 16, 2, 4},
      {std::numeric_limits<double>::infinity(), Csr3Kernel::parallel, 2, 4, 32, 2, 4},
  };
  return table;
}

Csr3Params csr3_rule_from_table(const std::vector<Csr3RuleRow>& table, double density) {
  if (table.empty()) throw InputError("csr3: empty rule table");
  const Csr3RuleRow* row = &table.back();
  for (const auto& r : table)
    if (density <= r.max_density) {
      row = &r;
      break;
    }
  Csr3Params p;
  p.kernel = row->kernel;
  p.super_row_size = row->super_row_size;
  p.super_super_row_size = row->super_super_row_size;
  p.block_x = row->block_x;
  p.block_y = row->block_y;
  p.block_z = row->block_z;
  p.reorder = Csr3Reorder::band;  // the paper's choice, until measured otherwise
  p.long_row_threshold = csr3_default_long_row(density);
  return p;
}

Csr3Params csr3_hopper_rule(double density) {
  Csr3Params p = csr3_rule_from_table(csr3_hopper_table(), density);
  p.rule = Csr3Rule::hopper;
  return p;
}

index_t csr3_default_long_row(double density) {
  const double t = std::max(64.0, std::ceil(8.0 * density));
  return t >= static_cast<double>(std::numeric_limits<index_t>::max())
             ? std::numeric_limits<index_t>::max()
             : static_cast<index_t>(t);
}

void csr3_validate(const Csr3Params& p) {
  auto fail = [](const std::string& m) { throw InputError("csr3: " + m); };
  constexpr index_t kMaxSize = 1 << 16;
  if (p.super_row_size < 1 || p.super_row_size > kMaxSize)
    fail("super_row_size must be in 1..65536, got " + std::to_string(p.super_row_size));
  if (p.super_super_row_size < 1 || p.super_super_row_size > kMaxSize)
    fail("super_super_row_size must be in 1..65536, got " + std::to_string(p.super_super_row_size));
  if (p.block_x < 1 || p.block_y < 1 || p.block_z < 1) fail("block dimensions must be >= 1");
  if (p.block_z > 64) fail("block_z must be <= 64 (CUDA limit)");
  const long long threads = 1LL * p.block_x * p.block_y * p.block_z;
  if (threads > 1024 || threads % 32 != 0)
    fail("block_x*block_y*block_z must be a multiple of 32 and <= 1024, got " +
         std::to_string(threads));
  if (p.kernel == Csr3Kernel::parallel && (p.block_x > 32 || (p.block_x & (p.block_x - 1)) != 0))
    fail(
        "the parallel kernel needs block_x a power of two <= 32 (lanes of one row stay in "
        "one warp), got " +
        std::to_string(p.block_x));
  if (p.long_row_threshold < 0) fail("long_row must be >= 0");
}

template <class V>
Csr3Params csr3_choose(const Csr<V>& a, const Params& p) {
  return csr3_choose(a.rows, a.nnz(), p);
}

Csr3Params csr3_choose(index_t rows, std::int64_t nnz, const Params& p) {
  const double d = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
  const std::string rule = p.get_string("rule", "hopper");
  Csr3Params c;
  if (rule == "paper")
    c = csr3_paper_rule(d);
  else if (rule == "hopper")
    c = csr3_hopper_rule(d);
  else
    throw InputError("csr3: rule must be paper or hopper, got '" + rule + "'");
  if (p.has("kernel")) {
    const std::string k = p.get_string("kernel", "");
    if (k == "serial")
      c.kernel = Csr3Kernel::serial;
    else if (k == "parallel")
      c.kernel = Csr3Kernel::parallel;
    else
      throw InputError("csr3: kernel must be serial or parallel, got '" + k + "'");
  }
  c.super_row_size = static_cast<index_t>(p.get_int("super_row_size", c.super_row_size));
  c.super_super_row_size =
      static_cast<index_t>(p.get_int("super_super_row_size", c.super_super_row_size));
  c.block_x = static_cast<int>(p.get_int("block_x", c.block_x));
  c.block_y = static_cast<int>(p.get_int("block_y", c.block_y));
  c.block_z = static_cast<int>(p.get_int("block_z", c.block_z));
  if (p.has("reorder")) {
    const std::string r = p.get_string("reorder", "");
    if (r == "none")
      c.reorder = Csr3Reorder::none;
    else if (r == "rcm")
      c.reorder = Csr3Reorder::rcm;
    else if (r == "band")
      c.reorder = Csr3Reorder::band;
    else if (r == "auto")
      c.reorder = Csr3Reorder::auto_;
    else
      throw InputError("csr3: reorder must be none, rcm, band or auto, got '" + r + "'");
  }
  c.permute_x = p.get_bool("permute_x", c.permute_x);
  if (p.has("long_row")) {
    // long_row=0 turns the long-row path off.
    const long long t = p.get_int("long_row", 0);
    if (t < 0) throw InputError("csr3: long_row must be >= 0");
    c.long_row_threshold = t == 0 || t >= std::numeric_limits<index_t>::max()
                               ? std::numeric_limits<index_t>::max()
                               : static_cast<index_t>(t);
  }
  csr3_validate(c);
  return c;
}

template Csr3Params csr3_choose(const Csr<float>&, const Params&);
template Csr3Params csr3_choose(const Csr<double>&, const Params&);

}  // namespace spmvkit
