// SURAA (Muhammed, Mehmood, Albeshri, Katib, "SURAA: A Novel Method and Tool for Loadbalanced
// and Coalesced SpMV Computations on GPUs", Appl. Sci. 2019, 9(5), 947).
//
// Rows are sorted by nonzeros per row (npr), descending, ties by the first column index, and
// stored in that order (CSR + perm). The sorted rows are cut into equal segments by the
// Freedman-Diaconis rule; segments are grouped by their mean npr (Section 4.1, Algorithm 2):
//   G1: the leading segments with mean npr > 32, at most max_child_threads rows: a parent kernel
//       launches one child grid per row (dynamic parallelism, Algorithms 3 and 4), or, in
//       suraa_static, a static kernel runs one or several blocks per row (decided at setup);
//   G2: the following segments with mean npr >= 32: vector kernel, threads per row a multiple of
//       32 (Algorithm 6), on side streams;
//   G3: segments with mean npr < 32: the scalar kernel (Algorithm 5, a thread a row) or, by
//       default, a sub-warp per row sized from the segment's mean, on side streams.
// Matrices with a low npr variance (where the paper loses, Section 5.3.1 "HYB", "SELL-P") run a
// plain CSR vector kernel instead: the sort buys nothing there and perm costs bytes.
//
// Departures, each a parameter (the paper's choice is one value of it; `paper=1` takes all):
//   order=paper|pow2|bucketed|groups. The paper's exact sort scatters rows that are neighbours in
//   the
//     matrix, and neighbours share x windows (FEM, circuits, the power-law generator's local
//     window): on powerlaw_8000000 about 2 rows of 5 entries in 5 have a first column drawn
//     uniformly below their window (1 - integral of (1 - u/4)^4 over u in [0,1] = 0.39), so
//     "ties by first column" interleaves them with unrelated rows, and the exact npr splits
//     neighbours over many sweeps of x (one per distinct npr). bucketed is a stable
//     partition into power-of-two length classes (1, 2-3, 4-7, ...), the original row order
//     inside each class; segments are then cut per class (a class boundary is always a segment
//     boundary, the Freedman-Diaconis size within a class), so every segment still holds rows
//     within a factor two of one length (what the sort is for: equal work per lane) while a
//     warp's rows stay neighbours in the matrix. What is kept of the paper: length-sorted
//     segments, the FD segment size, the three groups and their thresholds, the G1 cap.
//     groups keeps three classes only (>= 32 entries, 1-31, empty): the paper's G1/G2 rows
//     before the G3 rows, each in matrix order. With launch=tiles, whose tiles size their
//     sub-warps per tile, that is all the sort needs to do, and x is swept three times instead
//     of once per power-of-two class.
//   short_kernel=scalar|subwarp: G3 by a thread a row (paper) or 1..32 lanes a row.
//   launch=segment|merged|table: a launch per segment on side streams (paper); a launch per run
//     of segments with one shape; or one fused kernel reading a segment table (a block looks up
//     its run), in suraa_static with G1 inside it too (the last block of a long row adds the
//     partial sums), so a whole apply is one launch: small, L2-resident matrices are latency
//     bound and the paper's many launches and streams cost more than the work.
//   launch=tiles: the sorted rows (G1 too in suraa_static; after G1 in suraa) cut into tiles of
//     whole rows of at most 1024 nonzeros, never across a group boundary, run by the balanced
//     CSR kernel (formats/csr/csr_balanced.cuh: products staged in shared memory with 8 loads
//     in flight a thread, rows reduced by sub-warps sized per tile, rows over 1024 nonzeros
//     split over several blocks, the last of which adds the partial sums), writing
//     z[perm[row]]. One launch. The row kernels above keep one load in flight per lane for
//     rows of 1-31 entries and wait on memory latency: on powerlaw_8000000 (H100) the table
//     kernel took 4.4 ms, tiles of the same (bucketed) rows 1.28 ms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spmvkit/format_entry.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

#if defined(__CUDACC__)
#define SPMVKIT_SURAA_HD __host__ __device__
#else
#define SPMVKIT_SURAA_HD
#endif

namespace spmvkit {

FormatEntry suraa_format();         // "suraa": G1 by dynamic parallelism (the paper)
FormatEntry suraa_static_format();  // "suraa_static": G1 by a static block-per-row kernel

// The warp size is the paper's group threshold (Section 4.1, Figure 5's red line).
inline constexpr index_t kSuraaWarp = 32;
// Power-of-two classes of npr (suraa_sort_class): 0..32.
inline constexpr int kSuraaClasses = 33;

enum class SuraaGroup : std::uint8_t { dynamic = 1, vector = 2, scalar = 3 };  // G1, G2, G3

// Row order (see the file comment): paper = npr descending, ties by first column; pow2 = npr's
// power-of-two class descending, ties by first column; bucketed = class descending, ties by
// row index (the matrix order), segments cut at class boundaries; groups = as bucketed with
// three classes only: rows of >= 32 entries (the paper's warp threshold), shorter rows, empty
// rows.
enum class SuraaOrder : std::uint8_t { paper, pow2, bucketed, groups };
// How G2/G3 are launched: a launch per segment (paper), per run of segments with one shape,
// one fused segment-table kernel, or balanced tiles of the sorted rows.
enum class SuraaLaunchMode : std::uint8_t { segment, merged, table, tiles };
const char* to_string(SuraaOrder o);
const char* to_string(SuraaLaunchMode l);

// The fused kernel's block size: its threads per row are powers of two up to this.
inline constexpr int kSuraaTableBlock = 256;

// Choices read from Params (the schema: suraa_params()). `paper=1` selects the paper's own
// choices for every one not given explicitly. Defaults: suraa keeps the paper's order and
// merged launches on streams (the dynamic-parallelism variant as the paper describes it, with
// sub-warps for short rows); suraa_static takes order=groups and launch=tiles (x locality, one
// launch, 8 loads in flight a thread). Measured on an H100
// (bench/results/2026-11-23-h100-suraa-tiles): powerlaw_8000000 1.05 ms with groups + tiles
// (0.92 ms with the far split), 1.28 bucketed + tiles, 4.38 bucketed + table; on the 35 real
// matrices faster than cuSPARSE CSR on 33-34, none below 0.8x.
struct SuraaOptions {
  bool dynamic = true;             // G1 by child grids (suraa) or static blocks (suraa_static)
  index_t max_child_threads = 0;   // G1 row cap; 0: derived (suraa_max_child_threads)
  index_t segment_size = 0;        // rows per segment; 0: Freedman-Diaconis (fd_segmentation)
  double low_variance_cv = 0.5;    // CSR vector fallback when cv(npr) <= this; 0: never (paper)
  bool scalar_short_rows = false;  // G3 by a thread a row (paper) instead of a sub-warp a row
  SuraaLaunchMode launch = SuraaLaunchMode::merged;
  int streams = 4;         // side streams for G2/G3 launches; 0: all on the context stream
  int nnz_per_thread = 8;  // G1 child / G2 vector threads per row ~ npr / this (paper: 2)
  SuraaOrder order = SuraaOrder::paper;
  // launch=tiles on the GPU: csr_balanced's near/far split (far_panels, near_band as given;
  // csr_far_split_choice reads and checks them): SURAA runs on the entries near the diagonal,
  // the far ones follow in COO column panels.
  Params far;
  bool class_sort() const { return order != SuraaOrder::paper; }
  // Ties keep the matrix's row order (no first-column key), segments cut at class runs.
  bool row_order_ties() const { return keeps_row_order(order); }
  static constexpr bool keeps_row_order(SuraaOrder o) {
    return o == SuraaOrder::bucketed || o == SuraaOrder::groups;
  }
};

std::vector<ParamSpec> suraa_params();
// InputError on a bad value.
SuraaOptions suraa_options(const Params& p, bool dynamic);

// --- Freedman-Diaconis segmenting (Section 4.1, eq. (1)) ------------------------------------
// The paper's Seg_size = 2 * IQR(npr) / m^(1/3) is the Freedman-Diaconis histogram bin width,
// in npr units; read literally as a row count it is below one row for most large matrices. We
// use it as the rule defines it: bins of width h over [npr_min, npr_max] give the number of
// segments, k = floor((npr_max - npr_min) / h) + 1, and the sorted rows are cut into k segments
// of equal size ceil(m / k) ("the optimal size of the segments as well as the number of
// segments ... with O(1) complexity" on the sorted npr). npr is an integer, so a bin narrower
// than one nonzero separates nothing: h is guarded to >= 1, which also covers IQR = 0 (more
// than half the rows of one length, where the raw rule gives h = 0 and infinitely many bins).

// The raw rule: 2 * iqr / cbrt(m) (0 when m == 0).
double fd_bin_width(double iqr, index_t m);

// What the rule needs of the sorted npr: the paper reads q12 = nprSort[m/4] and
// q34 = nprSort[3m/4] (Algorithm 2, lines 6-7); the range; and the count of rows with
// npr > 32 for max_child_threads.
struct SuraaProbes {
  index_t rows = 0;
  index_t npr_max = 0;
  index_t npr_min = 0;
  index_t npr_quarter = 0;        // nprSort[m/4]
  index_t npr_three_quarter = 0;  // nprSort[3m/4]
  index_t rows_over_warp = 0;     // rows with npr > 32
};
// Probes of the npr in sorted order (descending, or descending by class for class_sort, where
// the quartiles read at m/4 and 3m/4 are those of the class order).
SuraaProbes suraa_probes(const std::vector<index_t>& npr_sorted);

struct SuraaSegmentation {
  index_t iqr = 0;            // nprSort[m/4] - nprSort[3m/4]
  double bin_width = 0;       // raw FD width, 2*IQR/m^(1/3)
  double bin_width_used = 0;  // max(1, bin_width)
  index_t segments = 0;       // k
  index_t segment_size = 0;   // rows per segment (the last one may be shorter)
};
// `segment_size_override` > 0 replaces the rule's segment size.
SuraaSegmentation fd_segmentation(const SuraaProbes& p, index_t segment_size_override = 0);

// max_child_threads from the count of rows with npr > 32 (Section 5.5: 2048 served 23 of 26
// matrices, 8192 the one with 8192 such rows; 1024..8192 were tried): the next power of two
// at or above the count, clamped to [2048, 8192].
index_t suraa_max_child_threads(index_t rows_over_warp);

// --- grouping (Algorithm 2, lines 9-17, and the text below it) -------------------------------
struct SuraaSegment {
  index_t row_begin = 0;
  index_t row_end = 0;
  std::int64_t nnz = 0;
  SuraaGroup group = SuraaGroup::scalar;
};

// Segment boundaries in sorted rows: a cut every segment_size rows, or, given `class_runs` (the
// rows of each length class in sorted order, order=bucketed), a cut every segment_size rows
// within each class run and at every run's end. bounds.front() == 0, bounds.back() == rows.
std::vector<index_t> suraa_segment_bounds(index_t rows, index_t segment_size,
                                          const std::vector<index_t>& class_runs = {});
// The class runs of bucketed order from a histogram of suraa_sort_class over classes 0..32:
// classes descending, empty classes left out.
std::vector<index_t> suraa_class_runs(const std::vector<std::int64_t>& class_count);

// Segments from their nonzero counts (segment s holds sorted rows [bounds[s], bounds[s+1])).
// G1: leading segments with mean > 32 while the rows taken stay <= max_child_threads ("if
// n x segment_size > max_child_threads, we only include (n-1) x segment_size"); G2: then
// segments with mean >= 32; G3: the rest. Sorted rows make each group one row range.
std::vector<SuraaSegment> suraa_group_segments(const std::vector<std::int64_t>& segment_nnz,
                                               const std::vector<index_t>& bounds,
                                               index_t max_child_threads);
// Equal segments of segment_size rows (the paper's cut).
std::vector<SuraaSegment> suraa_group_segments(const std::vector<std::int64_t>& segment_nnz,
                                               index_t rows, index_t segment_size,
                                               index_t max_child_threads);

// One kernel launch over a row range of G2 or G3 with a fixed number of threads per row.
struct SuraaLaunch {
  index_t row_begin = 0;
  index_t row_end = 0;
  int threads_per_row = 1;
  SuraaGroup group = SuraaGroup::scalar;
};

// Threads per row for a G2 segment: paper Algorithm 1 lines 7-9 round npr/2 up to a multiple
// of 32 ("Y as 32, 64 or 128"); we round npr/nnz_per_thread up to a power of two in 32..1024
// (one kernel instantiation each).
// From a segment's nonzeros and rows (its mean npr = nnz / rows).
int suraa_vector_threads(std::int64_t nnz, index_t rows, int nnz_per_thread);
// Threads per row for a G3 segment: 1 (paper) or the power of two >= the mean, at most 32.
// Segments hold rows of similar length by construction (sorted, or one power-of-two class), so
// the mean sizes every row of the segment: a sub-warp of that many lanes reads a row's entries
// in one coalesced sweep where the scalar kernel's lanes read 32 different rows.
int suraa_short_threads(std::int64_t nnz, index_t rows, bool scalar);
// The G2/G3 launches: per segment, or merged over consecutive segments of one group with the
// same threads per row (one launch instead of many of the same shape). launch=table merges the
// same way (each run is one row of the segment table) and caps threads per row at
// kSuraaTableBlock.
std::vector<SuraaLaunch> suraa_launches(const std::vector<SuraaSegment>& segments,
                                        const SuraaOptions& o);

// --- G1 sizing, shared by the host setup and the device kernels ------------------------------
// Child grid of one G1 row (Algorithm 3 lines 8-10: threads = npr/2 rounded up to a multiple
// of 32, one block). A block holds at most 1024 threads, so longer rows get several blocks,
// each writing a partial sum.
SPMVKIT_SURAA_HD inline int suraa_child_threads(index_t npr, int nnz_per_thread) {
  std::int64_t t = (static_cast<std::int64_t>(npr) + nnz_per_thread - 1) / nnz_per_thread;
  t = (t + 31) / 32 * 32;
  return static_cast<int>(t < 32 ? 32 : (t > 1024 ? 1024 : t));
}
SPMVKIT_SURAA_HD inline index_t suraa_child_blocks(index_t npr, int nnz_per_thread) {
  const std::int64_t per_block =
      static_cast<std::int64_t>(suraa_child_threads(npr, nnz_per_thread)) * nnz_per_thread;
  const std::int64_t b = (static_cast<std::int64_t>(npr) + per_block - 1) / per_block;
  return static_cast<index_t>(b < 1 ? 1 : b);
}
// suraa_static: blocks of kSuraaLongBlock threads, about kSuraaLongBlock*kSuraaLongItems
// nonzeros a block.
inline constexpr int kSuraaLongBlock = 256;
inline constexpr int kSuraaLongItems = 8;
SPMVKIT_SURAA_HD inline index_t suraa_static_blocks(index_t npr) {
  const std::int64_t per_block = static_cast<std::int64_t>(kSuraaLongBlock) * kSuraaLongItems;
  const std::int64_t b = (static_cast<std::int64_t>(npr) + per_block - 1) / per_block;
  return static_cast<index_t>(b < 1 ? 1 : b);
}

// The sort key's length part: npr itself (the paper), or with class_sort its power-of-two
// class, bit_width(npr) (0, 1, 2-3, 4-7, ...). Rows of one class keep the first-column order,
// which for a matrix with locality is close to the row order: the sort then sweeps x once per
// class (a handful) instead of once per distinct npr, and rows in a warp still differ at most
// twofold in length. The class boundary 32 | 63 matches the paper's warp threshold.
SPMVKIT_SURAA_HD inline index_t suraa_sort_class(index_t npr, bool class_sort) {
  if (!class_sort) return npr;
  const auto v = static_cast<std::uint32_t>(npr);
  if (v == 0) return 0;
#if defined(__CUDA_ARCH__)
  return 32 - __clz(v);
#else
  return 32 - __builtin_clz(v);
#endif
}
// order=groups merges the power-of-two classes: 0 (empty), 1 (1..31 entries: classes 1..5),
// 2 (32 or more: classes 6..32).
SPMVKIT_SURAA_HD inline index_t suraa_group_class(index_t pow2_class) {
  return pow2_class == 0 ? 0 : pow2_class <= 5 ? 1 : 2;
}
// The sort key's length part for an order.
SPMVKIT_SURAA_HD inline index_t suraa_order_class(index_t npr, SuraaOrder order) {
  if (order == SuraaOrder::paper) return npr;
  const index_t c = suraa_sort_class(npr, true);
  return order == SuraaOrder::groups ? suraa_group_class(c) : c;
}

// --- the row lengths --------------------------------------------------------------------------
// What the setup reads of the row lengths (npr) before sorting: their moments, maximum and
// minimum, the rows longer than a warp, the rows of each power-of-two class (suraa_sort_class),
// and, made on the host where the longest row is at most 4m + 64, the rows of each length
// 0..max (from which the sorted row pointer of the paper's order follows without a sort).
struct NprMoments {
  double sum_squared = 0;
  index_t max = 0;
  index_t min = 0;
  index_t over_warp = 0;                  // rows with npr > 32
  std::vector<std::int64_t> class_count;  // rows of each power-of-two class 0..32
  std::vector<index_t> length_count;      // rows of each length 0..max; may be empty
};
// From a row pointer the host holds (m + 1 entries; min = 0 when m = 0).
NprMoments npr_moments_host(index_t m, const index_t* row_ptr);
// Rows of each class of `order` (suraa_order_class) from the rows of each power-of-two class.
std::vector<std::int64_t> suraa_order_class_count(const std::vector<std::int64_t>& pow2_count,
                                                  SuraaOrder order);
// The bucketed and groups orders' sort (class descending, ties in row order: what the device's
// stable radix sort of their keys gives) from the classes' row counts, in one pass over the row
// pointer: the permutation (sorted position -> row), and the sorted row pointer (m + 1 entries)
// into sorted_row_ptr. max_class: the class of the longest row.
std::vector<index_t> suraa_class_order(const index_t* row_ptr, index_t m, SuraaOrder order,
                                       index_t max_class,
                                       const std::vector<std::int64_t>& pow2_count,
                                       index_t* sorted_row_ptr);
// The row pointer of rows sorted by length, longest first (m + 1 entries), from the counts of
// each length.
void suraa_sorted_row_ptr(const std::vector<index_t>& length_count, index_t* row_ptr);

// --- the plan --------------------------------------------------------------------------------
struct SuraaPlan {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  std::vector<index_t> perm;  // sorted position i holds original row perm[i]
  SuraaProbes probes;
  SuraaSegmentation segmentation;
  index_t max_child_threads = 0;
  std::vector<SuraaSegment> segments;  // empty when the plan was made without its list
  std::int64_t segment_count = 0;      // segments.size(), or the count when not listed
  index_t g1_end = 0;                  // G1 = sorted rows [0, g1_end)
  index_t g2_end = 0;                  // G2 = [g1_end, g2_end), G3 = [g2_end, rows)
  std::vector<SuraaLaunch> launches;
  SuraaOrder order = SuraaOrder::paper;
};

// A plan's order, sizes, probes, segmentation and max_child_threads (what every way of making
// one starts from).
SuraaPlan suraa_plan_head(index_t rows, index_t cols, const SuraaProbes& probes,
                          const SuraaSegmentation& seg, const SuraaOptions& o);

// Sort order of Section 4.1: npr descending, ties by the first column index ascending (empty
// rows last), remaining ties by row index (a stable sort, as the GPU radix sort is). pow2:
// npr's power-of-two class (suraa_sort_class) replaces npr; bucketed: class descending, ties
// by row index only.
template <class V>
std::vector<index_t> suraa_sort_rows(const Csr<V>& a, SuraaOrder order = SuraaOrder::paper);
// The rows of `a` in the order `perm` (row i of the result is row perm[i] of `a`).
template <class V>
Csr<V> suraa_permute_rows(const Csr<V>& a, const std::vector<index_t>& perm);
// Grouping and launches from probes, the segment bounds (suraa_segment_bounds) and the
// segments' nonzeros (both paths end here).
SuraaPlan suraa_finish_plan(index_t rows, index_t cols, const SuraaProbes& probes,
                            const SuraaSegmentation& seg, const std::vector<index_t>& bounds,
                            const std::vector<std::int64_t>& segment_nnz, const SuraaOptions& o);
// The same plan from the sorted row pointer (sorted_row_ptr[0..rows]) and the class runs
// (suraa_segment_bounds' cut, made one segment at a time: no bounds or counts in between).
// list_segments = false: the groups, nnz and segment_count only (no segments, no launches).
SuraaPlan suraa_plan_from_sorted(index_t rows, index_t cols, const SuraaProbes& probes,
                                 const SuraaSegmentation& seg,
                                 const std::vector<index_t>& class_runs,
                                 const index_t* sorted_row_ptr, const SuraaOptions& o,
                                 bool list_segments = true);
// The whole setup on the host (CPU backend, tests): plan and the sorted matrix.
template <class V>
SuraaPlan suraa_plan_host(const Csr<V>& a, const SuraaOptions& o, Csr<V>* sorted = nullptr);

// --- the low-variance fallback ----------------------------------------------------------------
// Coefficient of variation of npr from its moments: sqrt(E[npr^2] - mean^2) / mean (0 when
// there are no rows or no entries).
double suraa_npr_cv(index_t rows, std::int64_t nnz, double sum_npr_squared);
bool suraa_use_csr_fallback(index_t rows, std::int64_t nnz, double sum_npr_squared,
                            const SuraaOptions& o);

// The low-variance path: another format's operator (CSR vector) under SURAA's name, with
// `details` saying so.
template <class V>
class SuraaFallbackOperator final : public Operator<V> {
 public:
  SuraaFallbackOperator(std::unique_ptr<Operator<V>> inner, std::string format,
                        const std::string& why)
      : Operator<V>(inner->info()), inner_(std::move(inner)) {
    this->info_.format = std::move(format);
    this->info_.details = "path=csr_balanced," + why +
                          (inner_->info().details.empty() ? "" : "," + inner_->info().details);
  }
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override {
    inner_->apply(x, y, z, alpha, beta);
  }

 private:
  std::unique_ptr<Operator<V>> inner_;
};

// --- bytes -----------------------------------------------------------------------------------
// The paper's byte formula (Section 5.3.3): e_brw_SURAA = (2m + 1 + nnz)*4 + (nnz + m + n)*8:
// row_ptr (m+1), perm (m) and col_idx (nnz) as 4-byte indices; values (nnz), x (n) and y (m) as
// 8-byte doubles; `value_bytes` generalises the 8 for float. It counts x and y, so it equals
// our matrix_bytes + (m + n)*value_bytes when G1 has no per-apply metadata.
constexpr std::size_t suraa_paper_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                        std::size_t value_bytes = 8) {
  return static_cast<std::size_t>(2 * rows + 1 + nnz) * 4 +
         static_cast<std::size_t>(nnz + rows + cols) * value_bytes;
}
// Our byte model of one apply, format data only (x/y added by callers): sorted row_ptr, perm,
// col_idx, values, plus G1's partial-sum pointers (g1_rows+1) and partial sums written then
// read (2 * partials values).
std::size_t suraa_matrix_bytes(std::int64_t rows, std::int64_t nnz, std::size_t value_bytes,
                               std::int64_t g1_rows = 0, std::int64_t partials = 0);

// --- CPU schedule ------------------------------------------------------------------------------
// Work items of the OpenMP kernel: consecutive sorted rows of one group, merged or split to
// about `chunk_nnz` nonzeros; a row longer than that is cut into slices whose partial sums
// are added afterwards.
struct SuraaCpuChunk {
  index_t row_begin = 0;
  index_t row_end = 0;
  index_t nnz_begin = 0;  // slices only
  index_t nnz_end = 0;
  index_t partial = -1;  // >= 0: a slice of row row_begin, writing partials[partial]
};
struct SuraaCpuLongRow {
  index_t row = 0;
  index_t partial_begin = 0;
  index_t partial_end = 0;
};
struct SuraaCpuSchedule {
  std::vector<SuraaCpuChunk> chunks;
  std::vector<SuraaCpuLongRow> long_rows;
  index_t partials = 0;
};
SuraaCpuSchedule suraa_cpu_schedule(const SuraaPlan& plan,
                                    const std::vector<index_t>& sorted_row_ptr,
                                    index_t chunk_nnz = 8192, index_t chunk_rows = 2048);

template <class V>
std::unique_ptr<Operator<V>> make_suraa_cpu(const Csr<V>& a, const SuraaOptions& o);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_suraa_cuda(const Csr<V>& a, const SuraaOptions& o);
// From a CSR on the device: the same setup, the matrix read there (no copy of it is kept);
// only the low-variance fallback (csr_balanced, built on the host) downloads it.
template <class V>
std::unique_ptr<Operator<V>> make_suraa_cuda(const DeviceCsrView<V>& a, const SuraaOptions& o);
// The GPU setup alone, its plan downloaded (perm included): for tests comparing it with
// suraa_plan_host. Ignores the low-variance fallback. With `host_copy` the setup runs under the
// host mirror of a (host_mirror.hpp: a small matrix's plan is then made on the host, as for the
// registry's upload of a host CSR).
template <class V>
SuraaPlan suraa_plan_cuda(const Csr<V>& a, const SuraaOptions& o, bool list_segments = true,
                          bool host_copy = false);
#endif

}  // namespace spmvkit
