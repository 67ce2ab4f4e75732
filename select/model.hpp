// format=auto's cost model (issue 25): matrix features from a cheap sampled pass, per-format
// SpMV and setup times predicted from them, and the choice. Above the registry: it names formats
// and their parameters, never their insides; select/auto_format.cpp builds the choice through
// the registry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spmvkit/backend.hpp"
#include "spmvkit/csr.hpp"
#include "spmvkit/device_csr.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit::select {

// What the model sees of a matrix. Row-length figures are exact up to kSampleRows rows, else
// over kSampleRows rows in evenly spaced windows of 64, except row_max: always every row's.
struct Features {
  index_t rows = 0, cols = 0;
  std::int64_t nnz = 0;
  int value_bytes = 8;
  double row_mean = 0, row_variance = 0;
  index_t row_max = 0;
  int block_size = 1;      // dense aligned bs x bs blocks (core detect_block_size)
  double ell_bytes = 0;    // predicted format bytes of ELL, SELL-P (32-row slices) and
  double sellp_bytes = 0;  // HYB/HEC (ELL width by HEC's rule, p_r = 20)
  double hybrid_bytes = 0;
  index_t hybrid_width = 0;  // HYB/HEC's ELL width (the l of HEC's eq. (1))
  // The mean distance of an entry from the (scaled) diagonal, as a fraction of the columns,
  // over the middle entry of each sampled 32-row slice: ~0 for a banded matrix, ~1/3 for
  // uniformly random columns; how far x's reads spread. The sampled, relative counterpart of
  // MatrixStats::bandwidth (the largest |i - j|, O(nnz)).
  double diagonal_offset = 0;
  std::size_t l2_bytes = 0;  // last-level cache of the device (0: unknown -> 50 MiB)
  index_t sampled_rows = 0;
  // FNV-1a over dims, nnz, the sampled rows' row_ptr and one col_idx per 32 of them: a sampled
  // fingerprint (two matrices alike in all of that share a cached choice; it is still built
  // and correct, only perhaps not the fastest).
  std::uint64_t structure_hash = 0;
  double cv() const;  // row-length std / mean (0 for an empty matrix)
};

inline constexpr index_t kSampleRows = index_t{1} << 14;

template <class V>
Features measure_features(const Csr<V>& a, std::size_t l2_bytes);
// The same features of a CSR in device memory (CUDA builds; UnsupportedError otherwise): the
// longest row by a reduction there, the sampled rows gathered to the host in two small
// downloads (the whole matrix when it has at most 65,536 entries). Equal to the host's for the
// same matrix.
template <class V>
Features measure_features(const DeviceCsrView<V>& a, std::size_t l2_bytes);

// One format's constants: SpMV ms = spmv . x(features) (cost_features), setup ms = setup[0] +
// setup[1] * nnz/1e6: the whole setup a user waits for (upload, build, CSR-3's host reordering),
// refitted apart from the SpMV constants by bench/fit_select.py setup.
inline constexpr std::size_t kCostTerms = 8;
using CostVector = std::array<double, kCostTerms>;
struct FormatCost {
  const char* format;
  CostVector spmv;
  std::array<double, 2> setup;
};
const std::vector<FormatCost>& h100_costs();  // model_defaults.cpp (generated)
const std::vector<FormatCost>& h200_costs();  // the same; empty: no H200 fit (H100's scaled)
const std::vector<FormatCost>& cpu_costs();   // model.cpp

// The feature vector the constants multiply, for `format`:
//   (1, GB beyond L2, GB in L2, serial chain/1e6, rows/1e6, GB x cv beyond L2, GB x cv in L2,
//    blocks/1e6)
// GB: the format's bytes per apply with x and y; cv: row-length std/mean, capped at 10 (the
// imbalance cost scales with the time to stream the bytes, so at L2's rate or at HBM's); the
// serial chain: the entries one thread or sub-warp walks in a row (row max for CSR-scalar, ELL
// and SELL-P, row max / threads_per_row for CSR-vector, the ELL width for HYB/HEC, row max for
// the rest, where the fit finds it costs ~0); blocks: nnz/bs^2.
CostVector cost_features(const Features& f, std::string_view format);

// The neighbour correction (GPU): measured matrices' features and, per format, how far the
// measured SpMV time was from the linear model's, log(measured / c . x). A matrix's linear
// prediction for format f is multiplied by exp(sum w r_f / (sum w + 1e-3)) over its
// kNeighbours nearest table matrices that measured f, w = exp(-d^2), d the distance of the
// neighbour_point()s in units of the table's spread; far from every table matrix the weights
// vanish and the linear model stands alone. Fitted by bench/fit_select.py neighbours.
inline constexpr std::size_t kNeighbourDims = 7;
inline constexpr std::size_t kNeighbours = 9;
using NeighbourPoint = std::array<double, kNeighbourDims>;
// (log rows, log nnz, log row-length mean, log(cv + 0.05), log row max, log block size, log of
// x's bytes over the L2 size, at least 0.05). The last tells a rectangular matrix whose x
// leaves L2 from a square one of the same rows and nonzeros, and is one constant for the small
// matrices (x under 2.6 MB). The diagonal offset is not among them: as a further dimension
// (weighted 1, 0.5 or 0.25) it moved the hold-out scores within their noise (docs/select.md).
NeighbourPoint neighbour_point(const Features& f);
struct NeighbourTable {
  NeighbourPoint scale{};            // each dimension's spread (std) over the table
  std::vector<const char*> formats;  // the residuals' columns
  struct Entry {
    const char* matrix;
    NeighbourPoint point;          // neighbour_point of the matrix, not yet standardised
    std::vector<double> residual;  // a column a format; NaN where the run has no time for it
  };
  std::vector<Entry> entries;
};
const NeighbourTable& h100_neighbours();  // model_neighbours.cpp (generated)
// The H200's, of H200 runs against the H200's linear model (h200_costs(), or while that is empty
// H100's constants scaled: a new h200_costs() needs a new table), model_neighbours_h200.cpp,
// generated; empty: an H200 takes H100's table.
const NeighbourTable& h200_neighbours();

// The shipped table a device's choice is corrected by (an H200's own where it has one, else
// H100's); its scale is also the measured neighbours' (below).
const NeighbourTable& shipped_neighbours(const std::string& device);

// Neighbours measured on this device (`spmvkit tune auto --model`): matrices whose every
// candidate was timed here, each kept in the tuning store as its neighbour_point and the
// candidates' residuals against this device's linear model, log(measured / c . x), under
// "auto-model/<rows>x<cols>/<nnz>/<structure hash>/<f32|f64>/<backend>". choose() takes the
// kNeighbours nearest over them and the shipped table together, on the CPU backend too (which
// ships no table), with the shipped table's scale.
struct MeasuredNeighbours {
  NeighbourTable table;
  std::deque<std::string> names;  // the storage of the table's matrix and format names
};
// This device's measured neighbours for backend `b` and values of `value_bytes`, parsed from
// the tuning store (kept while its records stay the same; a malformed record is skipped); null
// where there are none.
std::shared_ptr<const MeasuredNeighbours> measured_neighbours(const std::string& device, Backend b,
                                                              int value_bytes);
// One measured matrix's tuning store record (key, value): `matrix` names it in auto's details,
// `residuals` are (format, log(measured / linear prediction)).
std::pair<std::string, std::string> measured_record(
    const Features& f, Backend b, const std::string& matrix,
    const std::vector<std::pair<std::string, double>>& residuals);

// Beyond L2 on the GPU, the best-ranked cuSPARSE candidate (CSR ALG1 or COO) goes first when
// its predicted time is within this fraction of the best candidate's (choose()): the issue's
// rule is never to trail cuSPARSE by more than 3% there. Replayed on the H100 records of
// bench/results' f21cdd4, 0253e28 and cd5569e runs and 2026-11-27-h100x2-ac2f8ac-suites (750
// matrices), 0.08 with ALG1 alone turned 9 picks more than 3% behind cuSPARSE into 6, and moved
// no pick out of 1.10x of the oracle; with COO too, f21cdd4's, 0253e28's and cd5569e's 10 of
// 165 behind became 5 (docs/select.md).
inline constexpr double kPeerMargin = 0.08;

// What choose() minimises: setup + applies x SpMV, or SpMV alone where applies = 0.
inline double total_ms(double spmv_ms, double setup_ms, long long applies) {
  return applies > 0 ? setup_ms + applies * spmv_ms : spmv_ms;
}

struct Prediction {
  std::string format;
  Params params;  // what auto passes to the registry (block_size for the block formats)
  double spmv_ms = 0, setup_ms = 0;
  double linear_ms = 0;  // c . x, before the neighbour correction
  double total_ms(long long applies) const { return select::total_ms(spmv_ms, setup_ms, applies); }
};

struct Choice {
  std::vector<Prediction> ranked;  // best first, by total_ms(applies)
  std::string why;                 // the features that decided, in words (and the neighbours)
  long long applies = 0;
};

// Ranks the candidates with a kernel on backend `b`. `device` picks the constants: an H200 its
// own table, or while that is empty (fitted H200 constants did worse on the hold-out than these,
// docs/select.md) H100's with the terms of bytes beyond L2 scaled by the bandwidth ratio
// 3.35/4.8 TB/s, corrected by the H200's neighbour table; any other GPU H100's.
// applies = 0: SpMV time alone; N > 0: setup + N x SpMV. `measured`: this device's measured
// neighbours (measured_neighbours()), beside the shipped table.
Choice choose(const Features& f, Backend b, const std::string& device, long long applies,
              const NeighbourTable* measured = nullptr);
// choose() with `device`'s measured neighbours from the tuning store (measured_neighbours()):
// what an auto build on that device ranks.
Choice choose_with_store(const Features& f, Backend b, const std::string& device,
                         long long applies);

// One choose() on a made-up matrix for each backend: the constant tables' initialisation and
// their first page faults (0.1-0.8 ms of a process's first choice) then happen where the
// registry is made (select/auto_format.cpp), not in a selection.
void prepare();
// The calling thread's feature buffers made and touched (prepare() calls it).
void prepare_features();

// The tuning store's key of a measured choice: "auto/<rows>x<cols>/<nnz>/<structure hash>/
// <f32|f64>/<backend>" (the device is the store's own first field).
std::string cache_key(const Features& f, Backend b);

}  // namespace spmvkit::select
