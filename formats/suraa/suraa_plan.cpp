// SURAA setup rules on the host: options, Freedman-Diaconis segmenting, grouping, launches,
// the row sort (the CPU backend's setup, and the reference the GPU setup must reproduce) and
// the OpenMP schedule.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>

#include "formats/common/far_split_params.hpp"
#include "formats/suraa/suraa.hpp"
#include "spmvkit/error.hpp"

namespace spmvkit {

std::vector<ParamSpec> suraa_params() {
  return {
      bool_param("paper", "false",
                 "the paper's own choices (low_variance_cv=0, short_kernel=scalar, "
                 "launch=segment, order=paper, nnz_per_thread=2)")
          .cuda(),
      int_param("max_child_threads", "0", 0, 1 << 24,
                "G1 row cap (threads of a child grid); 0: derived")
          .cuda(),
      int_param("segment_size", "0", 0, 2147483647, "rows a segment; 0: Freedman-Diaconis").cuda(),
      real_param("low_variance_cv", "auto", 0, kNoLimit,
                 "CSR vector fallback when cv(nonzeros a row) <= this; 0: never; auto: 0.5 "
                 "(paper: 0)")
          .or_auto()
          .cuda(),
      enum_param("short_kernel", "auto", {"scalar", "subwarp"},
                 "G3 rows: a thread a row, or a sub-warp a row; auto: subwarp (paper: scalar)")
          .or_auto()
          .cuda(),
      enum_param("order", "auto", {"paper", "pow2", "bucketed", "groups"},
                 "row order: the paper's sort, power-of-two classes, buckets, or the paper's "
                 "groups; auto: paper (suraa_static: groups)")
          .or_auto()
          .cuda(),
      enum_param("launch", "auto", {"segment", "merged", "table", "tiles"},
                 "launches: one a segment, merged, a segment table, or balanced tiles; auto: "
                 "merged (suraa_static: tiles; paper: segment)")
          .or_auto()
          .cuda(),
      int_param("streams", "4", 0, 32, "side streams for G2/G3 launches; 0: the context stream")
          .cuda(),
      int_param("nnz_per_thread", "auto", 1, 64,
                "G1 child / G2 vector threads a row ~ npr / this; auto: 8 (paper: 2)")
          .or_auto()
          .cuda(),
      csr_far_panels_param(),
      csr_near_band_param()};
}

const char* to_string(SuraaOrder o) {
  switch (o) {
    case SuraaOrder::paper:
      return "paper";
    case SuraaOrder::pow2:
      return "pow2";
    case SuraaOrder::bucketed:
      return "bucketed";
    case SuraaOrder::groups:
      return "groups";
  }
  return "?";
}

const char* to_string(SuraaLaunchMode l) {
  switch (l) {
    case SuraaLaunchMode::segment:
      return "segment";
    case SuraaLaunchMode::merged:
      return "merged";
    case SuraaLaunchMode::table:
      return "table";
    case SuraaLaunchMode::tiles:
      return "tiles";
  }
  return "?";
}

SuraaOptions suraa_options(const Params& p, bool dynamic) {
  SuraaOptions o;
  o.dynamic = dynamic;
  if (!dynamic) {  // suraa_static's own defaults (suraa.hpp's file comment says why)
    o.order = SuraaOrder::groups;
    o.launch = SuraaLaunchMode::tiles;
  }
  if (p.get_bool("paper", false)) {  // the paper's own choices (Sections 4.1-4.2)
    o.low_variance_cv = 0;
    o.scalar_short_rows = true;
    o.launch = SuraaLaunchMode::segment;
    o.order = SuraaOrder::paper;
    o.nnz_per_thread = 2;
  }
  const std::string name = dynamic ? "suraa" : "suraa_static";
  const long long mct = p.get_int("max_child_threads", o.max_child_threads);
  if (mct < 0 || mct > (1 << 24))
    throw InputError(name + ": max_child_threads must be in 0..2^24 (0: derived), got " +
                     std::to_string(mct));
  o.max_child_threads = static_cast<index_t>(mct);
  const long long seg = p.get_int("segment_size", o.segment_size);
  if (seg < 0 || seg > (1LL << 31) - 1)
    throw InputError(name + ": segment_size must be >= 0 (0: Freedman-Diaconis), got " +
                     std::to_string(seg));
  o.segment_size = static_cast<index_t>(seg);
  o.low_variance_cv = p.get_double("low_variance_cv", o.low_variance_cv);
  if (!(o.low_variance_cv >= 0) || !std::isfinite(o.low_variance_cv))
    throw InputError(name + ": low_variance_cv must be a finite number >= 0 (0: never)");
  const std::string shortk =
      p.get_string("short_kernel", o.scalar_short_rows ? "scalar" : "subwarp");
  if (shortk != "scalar" && shortk != "subwarp")
    throw InputError(name + ": short_kernel must be scalar or subwarp, got " + shortk);
  o.scalar_short_rows = shortk == "scalar";
  const std::string launch = p.get_string("launch", to_string(o.launch));
  if (launch == "segment")
    o.launch = SuraaLaunchMode::segment;
  else if (launch == "merged")
    o.launch = SuraaLaunchMode::merged;
  else if (launch == "table")
    o.launch = SuraaLaunchMode::table;
  else if (launch == "tiles")
    o.launch = SuraaLaunchMode::tiles;
  else
    throw InputError(name + ": launch must be segment, merged, table or tiles, got " + launch);
  const long long streams = p.get_int("streams", o.streams);
  if (streams < 0 || streams > 32)
    throw InputError(name + ": streams must be in 0..32, got " + std::to_string(streams));
  o.streams = static_cast<int>(streams);
  const long long npt = p.get_int("nnz_per_thread", o.nnz_per_thread);
  if (npt < 1 || npt > 64)
    throw InputError(name + ": nnz_per_thread must be in 1..64, got " + std::to_string(npt));
  o.nnz_per_thread = static_cast<int>(npt);
  for (const char* key : {"far_panels", "near_band"})
    if (const std::string v = p.get_string(key, ""); !v.empty()) o.far.set(key, v);
  const std::string order = p.get_string("order", to_string(o.order));
  if (order == "paper")
    o.order = SuraaOrder::paper;
  else if (order == "pow2")
    o.order = SuraaOrder::pow2;
  else if (order == "bucketed")
    o.order = SuraaOrder::bucketed;
  else if (order == "groups")
    o.order = SuraaOrder::groups;
  else
    throw InputError(name + ": order must be paper, pow2, bucketed or groups, got " + order);
  return o;
}

// --- Freedman-Diaconis -------------------------------------------------------------------------

double fd_bin_width(double iqr, index_t m) {
  return m > 0 ? 2.0 * iqr / std::cbrt(static_cast<double>(m)) : 0.0;
}

SuraaProbes suraa_probes(const std::vector<index_t>& npr_sorted) {
  SuraaProbes p;
  const auto m = static_cast<index_t>(npr_sorted.size());
  p.rows = m;
  if (m == 0) return p;
  p.npr_max = *std::max_element(npr_sorted.begin(), npr_sorted.end());
  p.npr_min = *std::min_element(npr_sorted.begin(), npr_sorted.end());
  p.npr_quarter = npr_sorted[static_cast<std::size_t>(m / 4)];
  p.npr_three_quarter = npr_sorted[static_cast<std::size_t>(3 * static_cast<std::int64_t>(m) / 4)];
  p.rows_over_warp = static_cast<index_t>(std::count_if(npr_sorted.begin(), npr_sorted.end(),
                                                        [](index_t v) { return v > kSuraaWarp; }));
  return p;
}

SuraaSegmentation fd_segmentation(const SuraaProbes& p, index_t segment_size_override) {
  SuraaSegmentation s;
  if (p.rows == 0) return s;
  // q34 - q12 of Algorithm 2 on the descending order (>= 0; with class_sort the two reads may
  // fall in one class in either order).
  s.iqr = std::abs(p.npr_quarter - p.npr_three_quarter);
  s.bin_width = fd_bin_width(s.iqr, p.rows);
  s.bin_width_used = std::max(1.0, s.bin_width);
  if (segment_size_override > 0) {
    s.segment_size = std::min(segment_size_override, p.rows);
  } else {
    const double range = static_cast<double>(p.npr_max - p.npr_min);
    const double bins = std::floor(range / s.bin_width_used) + 1.0;
    const double size = std::ceil(static_cast<double>(p.rows) / bins);
    s.segment_size = static_cast<index_t>(std::clamp(size, 1.0, static_cast<double>(p.rows)));
  }
  s.segments = static_cast<index_t>((static_cast<std::int64_t>(p.rows) + s.segment_size - 1) /
                                    s.segment_size);
  return s;
}

index_t suraa_max_child_threads(index_t rows_over_warp) {
  index_t v = 2048;
  while (v < rows_over_warp && v < 8192) v *= 2;
  return v;
}

// --- the row lengths ---------------------------------------------------------------------------

NprMoments npr_moments_host(index_t m, const index_t* row_ptr) {
  NprMoments r;
  r.class_count.assign(kSuraaClasses, 0);
  if (m <= 0) return r;
  index_t max = 0;
  for (index_t i = 0; i < m; ++i) max = std::max(max, row_ptr[i + 1] - row_ptr[i]);
  r.max = max;
  unsigned long long sq = 0;
  if (max > 4 * static_cast<std::int64_t>(m) + 64) {  // a long row: no counts by length
    r.min = max;
    for (index_t i = 0; i < m; ++i) {
      const index_t len = row_ptr[i + 1] - row_ptr[i];
      sq += static_cast<unsigned long long>(len) * static_cast<unsigned long long>(len);
      r.min = std::min(r.min, len);
      r.over_warp += len > kSuraaWarp ? 1 : 0;
      ++r.class_count[static_cast<std::size_t>(suraa_sort_class(len, true))];
    }
    r.sum_squared = static_cast<double>(sq);
    return r;
  }
  // The rows of each length in four interleaved histograms (rows of one length often follow
  // each other: one histogram would wait on its own last increment), then everything from them.
  const auto width = static_cast<std::size_t>(max) + 1;
  std::vector<index_t> count(4 * width, 0);
  index_t i = 0;
  for (; i + 4 <= m; i += 4)
    for (int k = 0; k < 4; ++k)
      ++count[k * width + static_cast<std::size_t>(row_ptr[i + k + 1] - row_ptr[i + k])];
  for (; i < m; ++i) ++count[static_cast<std::size_t>(row_ptr[i + 1] - row_ptr[i])];
  r.min = -1;
  for (std::size_t len = 0; len < width; ++len) {
    const index_t c =
        count[len] + count[width + len] + count[2 * width + len] + count[3 * width + len];
    count[len] = c;
    if (c == 0) continue;
    if (r.min < 0) r.min = static_cast<index_t>(len);
    sq += static_cast<unsigned long long>(c) * len * len;
    if (len > static_cast<std::size_t>(kSuraaWarp)) r.over_warp += c;
    r.class_count[static_cast<std::size_t>(suraa_sort_class(static_cast<index_t>(len), true))] += c;
  }
  count.resize(width);
  r.length_count = std::move(count);
  r.sum_squared = static_cast<double>(sq);
  return r;
}

std::vector<std::int64_t> suraa_order_class_count(const std::vector<std::int64_t>& pow2_count,
                                                  SuraaOrder order) {
  if (order != SuraaOrder::groups) return pow2_count;
  std::vector<std::int64_t> count(pow2_count.size(), 0);
  for (std::size_t c = 0; c < pow2_count.size(); ++c)
    count[static_cast<std::size_t>(suraa_group_class(static_cast<index_t>(c)))] += pow2_count[c];
  return count;
}

std::vector<index_t> suraa_class_order(const index_t* row_ptr, index_t m, SuraaOrder order,
                                       index_t max_class,
                                       const std::vector<std::int64_t>& pow2_count,
                                       index_t* sorted_row_ptr) {
  if (!SuraaOptions::keeps_row_order(order))
    throw std::logic_error(std::string("suraa_class_order: order ") + to_string(order) +
                           " sorts by more than a class");
  const std::vector<std::int64_t> count = suraa_order_class_count(pow2_count, order);
  std::int64_t start[kSuraaClasses + 1] = {};  // by key = max_class - class
  for (index_t c = 0; c <= max_class; ++c)
    start[max_class - c + 1] = count[static_cast<std::size_t>(c)];
  for (int k = 0; k < kSuraaClasses; ++k) start[k + 1] += start[k];
  if (start[kSuraaClasses] != m)
    throw std::logic_error("suraa: the class counts hold " + std::to_string(start[kSuraaClasses]) +
                           " rows, the matrix " + std::to_string(m));
  // Each row straight to its place, its length beside it (the pointer then a sequential sum,
  // not a second pass through the permutation); its class without a branch (rows of different
  // classes interleave, and a mispredicted branch a row costs more than the row's other work).
  std::vector<index_t> perm(static_cast<std::size_t>(m)), len(static_cast<std::size_t>(m));
  auto scatter = [&](auto class_of) {
    for (index_t i = 0; i < m; ++i) {
      const index_t l = row_ptr[i + 1] - row_ptr[i];
      const auto at = static_cast<std::size_t>(start[max_class - class_of(l)]++);
      perm[at] = i;
      len[at] = l;
    }
  };
  if (order == SuraaOrder::groups)  // suraa_group_class: 0 empty, 1 up to 31, 2 longer
    scatter([](index_t l) { return static_cast<index_t>((l > 0) + (l >= kSuraaWarp)); });
  else  // suraa_sort_class: l's bit width (l | 1 has it when l > 0)
    scatter([](index_t l) {
      const auto v = static_cast<unsigned>(l);
      return static_cast<index_t>(32 - __builtin_clz(v | 1u) - (v == 0));
    });
  sorted_row_ptr[0] = 0;
  for (std::size_t i = 0; i < len.size(); ++i) sorted_row_ptr[i + 1] = sorted_row_ptr[i] + len[i];
  return perm;
}

void suraa_sorted_row_ptr(const std::vector<index_t>& length_count, index_t* row_ptr) {
  std::size_t at = 0;
  index_t sum = 0;
  row_ptr[0] = 0;
  for (std::size_t len = length_count.size(); len-- > 0;)
    for (index_t c = length_count[len]; c > 0; --c) {
      sum += static_cast<index_t>(len);
      row_ptr[++at] = sum;
    }
}

// --- grouping and launches ---------------------------------------------------------------------

std::vector<index_t> suraa_segment_bounds(index_t rows, index_t segment_size,
                                          const std::vector<index_t>& class_runs) {
  std::vector<index_t> bounds{0};
  if (rows <= 0) return bounds;
  const std::int64_t size = std::max<index_t>(segment_size, 1);
  auto cut = [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin + size; b < end; b += size)
      bounds.push_back(static_cast<index_t>(b));
    bounds.push_back(static_cast<index_t>(end));
  };
  if (class_runs.empty()) {
    cut(0, rows);
    return bounds;
  }
  std::int64_t begin = 0;
  for (index_t run : class_runs) {
    if (run <= 0) continue;
    cut(begin, begin + run);
    begin += run;
  }
  if (begin != rows) throw InputError("suraa: class runs do not add up to the rows");
  return bounds;
}

std::vector<index_t> suraa_class_runs(const std::vector<std::int64_t>& class_count) {
  std::vector<index_t> runs;
  for (std::size_t c = class_count.size(); c-- > 0;)
    if (class_count[c] > 0) runs.push_back(static_cast<index_t>(class_count[c]));
  return runs;
}

namespace {
// pow2_at_least(nnz / (rows x per), lo, hi) without the division (rows > 0).
int pow2_over(std::int64_t nnz, index_t rows, int per, int lo, int hi) {
  int p = lo;
  while (p < hi && std::int64_t{p} * rows * per < nnz) p *= 2;
  return p;
}
}  // namespace

int suraa_vector_threads(std::int64_t nnz, index_t rows, int nnz_per_thread) {
  return rows > 0 ? pow2_over(nnz, rows, nnz_per_thread, 32, 1024) : 32;
}

int suraa_short_threads(std::int64_t nnz, index_t rows, bool scalar) {
  return scalar || rows <= 0 ? 1 : pow2_over(nnz, rows, 1, 1, 32);
}

namespace {

// The grouping of suraa_group_segments one segment at a time, in sorted order (G1 is a prefix:
// once a segment is refused it is closed). Integer tests: mean > 32 is nnz > 32 x rows.
class SegmentGrouper {
 public:
  explicit SegmentGrouper(index_t max_child_threads) : cap_(max_child_threads) {}
  SuraaGroup operator()(index_t rows, std::int64_t nnz) {
    const std::int64_t warp_nnz = std::int64_t{kSuraaWarp} * rows;
    if (g1_open_ && rows > 0 && nnz > warp_nnz && g1_rows_ + rows <= cap_) {
      g1_rows_ += rows;
      return SuraaGroup::dynamic;
    }
    g1_open_ = false;
    return rows > 0 && nnz >= warp_nnz ? SuraaGroup::vector : SuraaGroup::scalar;
  }

 private:
  std::int64_t cap_;
  bool g1_open_ = true;
  std::int64_t g1_rows_ = 0;
};

// suraa_launches one segment at a time, in sorted order.
class LaunchMerger {
 public:
  LaunchMerger(const SuraaOptions& o, std::vector<SuraaLaunch>& out) : o_(o), out_(out) {}
  void operator()(index_t begin, index_t end, std::int64_t nnz, SuraaGroup group) {
    if (group == SuraaGroup::dynamic || end == begin) return;
    int tpr = group == SuraaGroup::vector
                  ? suraa_vector_threads(nnz, end - begin, o_.nnz_per_thread)
                  : suraa_short_threads(nnz, end - begin, o_.scalar_short_rows);
    if (o_.launch == SuraaLaunchMode::table) tpr = std::min(tpr, kSuraaTableBlock);
    if (o_.launch != SuraaLaunchMode::segment && !out_.empty() && out_.back().group == group &&
        out_.back().threads_per_row == tpr && out_.back().row_end == begin) {
      out_.back().row_end = end;
      return;
    }
    out_.push_back(SuraaLaunch{begin, end, tpr, group});
  }

 private:
  const SuraaOptions& o_;
  std::vector<SuraaLaunch>& out_;
};

// A plan's groups, and with `list` its segments and launches, from its segments in order:
// visit(f) calls f(begin, end, nnz) for each.
template <class Visit>
void group_plan(SuraaPlan& plan, const SuraaOptions& o, bool list, Visit visit) {
  SegmentGrouper group(plan.max_child_threads);
  LaunchMerger launch(o, plan.launches);
  plan.nnz = 0;
  plan.segment_count = 0;
  visit([&](index_t begin, index_t end, std::int64_t nnz) {
    const SuraaGroup g = group(end - begin, nnz);
    plan.nnz += nnz;
    ++plan.segment_count;
    if (g == SuraaGroup::dynamic) plan.g1_end = end;
    if (g != SuraaGroup::scalar) plan.g2_end = end;
    if (!list) return;
    plan.segments.emplace_back();  // filled in place (a copied temporary stalls on its padding)
    SuraaSegment& seg = plan.segments.back();
    seg.row_begin = begin;
    seg.row_end = end;
    seg.nnz = nnz;
    seg.group = g;
    launch(begin, end, nnz, g);
  });
  plan.g2_end = std::max(plan.g2_end, plan.g1_end);
}

}  // namespace

std::vector<SuraaSegment> suraa_group_segments(const std::vector<std::int64_t>& segment_nnz,
                                               const std::vector<index_t>& bounds,
                                               index_t max_child_threads) {
  std::vector<SuraaSegment> segs(segment_nnz.size());
  SegmentGrouper group(max_child_threads);
  for (std::size_t s = 0; s < segment_nnz.size(); ++s) {
    segs[s].row_begin = bounds[s];
    segs[s].row_end = bounds[s + 1];
    segs[s].nnz = segment_nnz[s];
    segs[s].group = group(bounds[s + 1] - bounds[s], segment_nnz[s]);
  }
  return segs;
}

std::vector<SuraaSegment> suraa_group_segments(const std::vector<std::int64_t>& segment_nnz,
                                               index_t rows, index_t segment_size,
                                               index_t max_child_threads) {
  std::vector<index_t> bounds = suraa_segment_bounds(rows, segment_size);
  // As many segments as counts given (the caller's cut may end with empty segments).
  while (bounds.size() < segment_nnz.size() + 1) bounds.push_back(rows);
  return suraa_group_segments(segment_nnz, bounds, max_child_threads);
}

std::vector<SuraaLaunch> suraa_launches(const std::vector<SuraaSegment>& segments,
                                        const SuraaOptions& o) {
  std::vector<SuraaLaunch> out;
  LaunchMerger launch(o, out);
  for (const auto& s : segments) launch(s.row_begin, s.row_end, s.nnz, s.group);
  return out;
}

SuraaPlan suraa_plan_head(index_t rows, index_t cols, const SuraaProbes& probes,
                          const SuraaSegmentation& seg, const SuraaOptions& o) {
  SuraaPlan plan;
  plan.order = o.order;
  plan.rows = rows;
  plan.cols = cols;
  plan.probes = probes;
  plan.segmentation = seg;
  plan.max_child_threads = o.max_child_threads > 0 ? o.max_child_threads
                                                   : suraa_max_child_threads(probes.rows_over_warp);
  return plan;
}

SuraaPlan suraa_finish_plan(index_t rows, index_t cols, const SuraaProbes& probes,
                            const SuraaSegmentation& seg, const std::vector<index_t>& bounds,
                            const std::vector<std::int64_t>& segment_nnz, const SuraaOptions& o) {
  SuraaPlan plan = suraa_plan_head(rows, cols, probes, seg, o);
  plan.segments.reserve(segment_nnz.size());
  group_plan(plan, o, true, [&](auto&& f) {
    for (std::size_t s = 0; s < segment_nnz.size(); ++s)
      f(bounds[s], bounds[s + 1], segment_nnz[s]);
  });
  return plan;
}

SuraaPlan suraa_plan_from_sorted(index_t rows, index_t cols, const SuraaProbes& probes,
                                 const SuraaSegmentation& seg,
                                 const std::vector<index_t>& class_runs,
                                 const index_t* sorted_row_ptr, const SuraaOptions& o,
                                 bool list_segments) {
  SuraaPlan plan = suraa_plan_head(rows, cols, probes, seg, o);
  if (rows <= 0) return plan;
  const std::int64_t size = std::max<index_t>(seg.segment_size, 1);
  std::vector<index_t> runs;
  for (index_t r : class_runs)
    if (r > 0) runs.push_back(r);
  if (class_runs.empty()) runs.push_back(rows);
  std::int64_t segments = 0, total = 0;
  for (index_t r : runs) {
    segments += (r + size - 1) / size;
    total += r;
  }
  if (total != rows) throw InputError("suraa: class runs do not add up to the rows");
  if (list_segments) plan.segments.reserve(static_cast<std::size_t>(segments));
  group_plan(plan, o, list_segments, [&](auto&& f) {  // suraa_segment_bounds' cut
    std::int64_t begin = 0;
    for (index_t r : runs) {
      const std::int64_t end = begin + r;
      for (std::int64_t b = begin; b < end; b += size) {
        const auto e = static_cast<index_t>(std::min(b + size, end));
        f(static_cast<index_t>(b), e,
          std::int64_t{sorted_row_ptr[e]} - sorted_row_ptr[static_cast<std::size_t>(b)]);
      }
      begin = end;
    }
  });
  return plan;
}

// --- the sort ----------------------------------------------------------------------------------

template <class V>
std::vector<index_t> suraa_sort_rows(const Csr<V>& a, SuraaOrder order) {
  std::vector<index_t> perm(static_cast<std::size_t>(a.rows));
  std::iota(perm.begin(), perm.end(), 0);
  auto first_col = [&](index_t r) {
    return a.row_length(r) > 0 ? a.col_idx[a.row_ptr[r]] : a.cols;
  };
  std::stable_sort(perm.begin(), perm.end(), [&](index_t p, index_t q) {
    const index_t lp = suraa_order_class(a.row_length(p), order);
    const index_t lq = suraa_order_class(a.row_length(q), order);
    if (lp != lq) return lp > lq;
    return !SuraaOptions::keeps_row_order(order) && first_col(p) < first_col(q);
  });
  return perm;
}

template <class V>
Csr<V> suraa_permute_rows(const Csr<V>& a, const std::vector<index_t>& perm) {
  Csr<V> out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  out.col_idx.reserve(a.col_idx.size());
  out.values.reserve(a.values.size());
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t r = perm[i];
    out.col_idx.insert(out.col_idx.end(), a.col_idx.begin() + a.row_ptr[r],
                       a.col_idx.begin() + a.row_ptr[r + 1]);
    out.values.insert(out.values.end(), a.values.begin() + a.row_ptr[r],
                      a.values.begin() + a.row_ptr[r + 1]);
    out.row_ptr[i + 1] = static_cast<index_t>(out.col_idx.size());
  }
  return out;
}

template <class V>
SuraaPlan suraa_plan_host(const Csr<V>& a, const SuraaOptions& o, Csr<V>* sorted) {
  std::vector<index_t> perm = suraa_sort_rows(a, o.order);
  Csr<V> s = suraa_permute_rows(a, perm);
  std::vector<index_t> npr(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) npr[i] = s.row_length(i);
  const SuraaProbes probes = suraa_probes(npr);
  const SuraaSegmentation seg = fd_segmentation(probes, o.segment_size);
  std::vector<index_t> runs;
  if (o.row_order_ties()) {
    std::vector<std::int64_t> count(33, 0);
    for (index_t len : npr) ++count[static_cast<std::size_t>(suraa_order_class(len, o.order))];
    runs = suraa_class_runs(count);
  }
  SuraaPlan plan =
      suraa_plan_from_sorted(a.rows, a.cols, probes, seg, runs, s.row_ptr.data(), o, true);
  plan.perm = std::move(perm);
  if (sorted) *sorted = std::move(s);
  return plan;
}

// --- fallback and bytes ------------------------------------------------------------------------

double suraa_npr_cv(index_t rows, std::int64_t nnz, double sum_npr_squared) {
  if (rows <= 0 || nnz <= 0) return 0.0;
  const double mean = static_cast<double>(nnz) / rows;
  const double var = std::max(0.0, sum_npr_squared / rows - mean * mean);
  return std::sqrt(var) / mean;
}

bool suraa_use_csr_fallback(index_t rows, std::int64_t nnz, double sum_npr_squared,
                            const SuraaOptions& o) {
  if (o.low_variance_cv <= 0 || rows == 0) return false;
  return nnz == 0 || suraa_npr_cv(rows, nnz, sum_npr_squared) <= o.low_variance_cv;
}

std::size_t suraa_matrix_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes,
                               std::int64_t g1_rows, std::int64_t partials) {
  const std::size_t idx = sizeof(index_t);
  std::size_t bytes = static_cast<std::size_t>(2 * rows + 1 + nnz) * idx +
                      static_cast<std::size_t>(nnz) * value_bytes;
  if (g1_rows > 0)
    bytes += static_cast<std::size_t>(g1_rows + 1) * idx +
             2 * static_cast<std::size_t>(partials) * value_bytes;
  return bytes;
}

// --- CPU schedule ------------------------------------------------------------------------------

SuraaCpuSchedule suraa_cpu_schedule(const SuraaPlan& plan,
                                    const std::vector<index_t>& sorted_row_ptr, index_t chunk_nnz,
                                    index_t chunk_rows) {
  SuraaCpuSchedule sched;
  auto npr = [&](index_t r) { return sorted_row_ptr[r + 1] - sorted_row_ptr[r]; };
  const index_t bounds[4] = {0, plan.g1_end, plan.g2_end, plan.rows};
  for (int g = 0; g < 3; ++g) {  // chunks stay inside one group
    index_t r = bounds[g];
    while (r < bounds[g + 1]) {
      if (npr(r) > chunk_nnz) {  // a long row: slices with partial sums
        SuraaCpuLongRow lr{r, sched.partials, sched.partials};
        for (index_t k = sorted_row_ptr[r]; k < sorted_row_ptr[r + 1]; k += chunk_nnz) {
          const index_t e = static_cast<index_t>(std::min<std::int64_t>(
              sorted_row_ptr[r + 1], static_cast<std::int64_t>(k) + chunk_nnz));
          sched.chunks.push_back(SuraaCpuChunk{r, r + 1, k, e, sched.partials++});
        }
        lr.partial_end = sched.partials;
        sched.long_rows.push_back(lr);
        ++r;
        continue;
      }
      const index_t begin = r;
      while (r < bounds[g + 1] && r - begin < chunk_rows && npr(r) <= chunk_nnz &&
             sorted_row_ptr[r + 1] - sorted_row_ptr[begin] <= chunk_nnz)
        ++r;
      sched.chunks.push_back(SuraaCpuChunk{begin, r, sorted_row_ptr[begin], sorted_row_ptr[r], -1});
    }
  }
  return sched;
}

#define SPMVKIT_INSTANTIATE(V)                                                    \
  template std::vector<index_t> suraa_sort_rows(const Csr<V>&, SuraaOrder);       \
  template Csr<V> suraa_permute_rows(const Csr<V>&, const std::vector<index_t>&); \
  template SuraaPlan suraa_plan_host(const Csr<V>&, const SuraaOptions&, Csr<V>*);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE

}  // namespace spmvkit
