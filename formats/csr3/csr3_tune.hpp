// The Hopper search for CSR-3 (bench/csr3_search.md): brute force over super-row size,
// super-super-row size, block shape and kernel on a training set, timed with CUDA events
// (median after warm-up); per density bucket the configuration with the best geometric-mean
// time relative to each matrix's own best is the fitted rule (a Csr3RuleRow table, printed
// as C++ to paste into csr3_hopper_table()).
//
// The paper: "Finding optimal super-row and super-super-row sizes is time consuming, and
// usually requires a brute force search" -- done once per GPU model here, then the rule is a
// table lookup at run time.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "formats/csr3/csr3.hpp"

namespace spmvkit {

struct Csr3TuneMatrix {
  std::string name;
  Csr<double> matrix;
};

// An ordering the search times: the reorder and whether x is permuted too.
struct Csr3Ordering {
  Csr3Reorder reorder = Csr3Reorder::band;
  bool permute_x = false;
  std::string to_string() const;
};

struct Csr3TuneOptions {
  int warmup = 5;
  int reps = 15;                 // timed batches a candidate; the median is kept
  bool double_precision = true;  // the target of the evaluation is double
  // The first ordering is the one the rule is fitted on (all candidates timed); the others
  // are timed for the report only, on the `ordering_top` best candidates of the first and
  // the rules' choices (which reorder default to pick is not a density question).
  std::vector<Csr3Ordering> orderings = {{Csr3Reorder::band, false},
                                         {Csr3Reorder::none, false},
                                         {Csr3Reorder::rcm, false},
                                         {Csr3Reorder::band, true}};
  int ordering_top = 8;
  std::vector<double> density_edges;  // bucket upper edges; empty: csr3_default_density_edges
  std::ostream* log = nullptr;        // a progress line per matrix when set
};

struct Csr3TuneMatrixResult {
  std::string name;
  index_t rows = 0;
  std::int64_t nnz = 0;
  double density = 0;
  std::vector<double> reorder_ms;            // [ordering]
  std::vector<std::vector<double>> time_ms;  // [ordering][candidate], NaN: failed or not timed
};

struct Csr3TuneResult {
  std::vector<Csr3Params> candidates;
  std::vector<Csr3Ordering> orderings;
  std::vector<Csr3TuneMatrixResult> matrices;
  std::vector<double> density_edges;
  std::vector<Csr3RuleRow> fitted;
};

// The candidate grid: the serial kernel with (block_x, block_y) in {8,16,32} x {2..16}
// (64..512 threads) and the parallel kernel with block_x in {2..32}, block_x*block_y in
// {16,32,64}, 128..512 threads; sizes a small multiple of the matching block dimension
// (super_row_size = rows dim * {1,2[,4]}, super_super_row_size = super-row dim * {1,2}).
// The paper's and the current Hopper rule's configurations are added by csr3_tune.
std::vector<Csr3Params> csr3_candidate_grid();
std::vector<double> csr3_default_density_edges();
// Generator names (include/spmvkit/generators.hpp) spanning densities 2..150: a default
// training set for `spmvkit tune csr3`.
std::vector<std::string> csr3_training_set();

// Runs the search (CUDA builds with a GPU; UnsupportedError otherwise) and fits the rule.
Csr3TuneResult csr3_tune(const std::vector<Csr3TuneMatrix>& matrices,
                         const Csr3TuneOptions& options = {});

// The fit alone (host code, testable without a GPU): for each density bucket holding
// training matrices, the candidate minimising the geometric mean of time / best time over
// them (candidates failing on any of them excluded); adjacent equal rows merged; the last
// row's max_density is +infinity.
std::vector<Csr3RuleRow> csr3_fit_rule(const Csr3TuneResult& result);

// Index of the candidate equal to `p` in kernel, sizes and block shape; -1 if none.
int csr3_find_candidate(const std::vector<Csr3Params>& candidates, const Csr3Params& p);

// Per-matrix table (best, paper rule, current Hopper rule, fitted rule), geometric means,
// orderings compared, and the fitted table as C++.
void csr3_print_tune(const Csr3TuneResult& result, std::ostream& out);

}  // namespace spmvkit
