// CSR-3 (CSR-k GPU paper, papers/csr-k-multilevel-gpu.txt): rows grouped into super-rows,
// super-rows into super-super-rows; a thread block per super-super-row with a 3D block shape;
// two kernels: the inner (nonzero) loop serial, or parallel across blockDim.x with a
// reduction. Built on its own ordering (Band-k / RCM) as the paper does, with the
// permutation kept inside so apply() takes x and returns z in the user's order.
//
// Layout and what the format keeps:
// - `csr`: the matrix with its rows in CSR-3 order (new row i = user row perm[i]). Column
//   indices stay in the user's numbering unless permute_x is set (see below), so by default
//   x is read in place, with no gather pass and no copy.
// - super-row s = rows [sup_row_ptr[s], sup_row_ptr[s+1]); super-super-row b = super-rows
//   [sup_sup_row_ptr[b], sup_sup_row_ptr[b+1]). The paper's run-time rule gives one size per
//   level, so the grouping is uniform (super_row_size rows, super_super_row_size super-rows):
//   the CUDA kernels compute these pointers (s * super_row_size) instead of loading them,
//   which saves two dependent loads per thread; the host build keeps both arrays (CPU
//   kernel, tests, inspection), the device build only their counts (Csr3Summary).
// - `long_rows`: rows longer than long_row_threshold (our addition, not in the paper: one
//   row of 200k entries would otherwise be summed by one thread). The super-super-row kernels
//   skip them, and extra thread blocks of the same launch reduce one long row each.
//
// Byte model (matrix_bytes, per apply): row_ptr + col_idx + values as CSR; perm (4 B a row)
// when reordered, since z (and y) are written/read through it (z[perm[i]]); the long-row
// list; with permute_x also perm again (4 B a column) and the permuted copy of x written and
// read (2 * sizeof(V) a column).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"
#include "spmvkit/format_entry.hpp"

#if defined(__CUDACC__)
#define SPMVKIT_CSR3_HD __host__ __device__ inline
#else
#define SPMVKIT_CSR3_HD inline
#endif

namespace spmvkit {

// --- the grouping and long-row rules, shared by the host build and the device build -------
// (host and device functions under nvcc: csr3_build.cpp and csr3_cuda.cu apply the same ones).

// Groups of `group` items over `count` items, the last one possibly shorter (the uniform
// grouping: super-rows over rows, super-super-rows over super-rows).
SPMVKIT_CSR3_HD index_t csr3_groups(index_t count, index_t group) {
  return count == 0 ? 0 : (count - 1) / group + 1;
}
// A row of `length` entries goes to the long-row blocks (our addition, see above).
SPMVKIT_CSR3_HD bool csr3_is_long_row(index_t length, index_t long_row_threshold) {
  return length > long_row_threshold;
}

// A long row is cut into chunks of at most kCsr3LongChunk entries, one extra thread block of
// the SpMV launch each (csr3_cuda.cu); its partial sums go to consecutive slots.
constexpr index_t kCsr3LongChunk = 2048;
struct Csr3LongChunk {
  index_t row;         // CSR-3 row
  index_t begin, end;  // this chunk's nonzeros
  index_t slot;        // its partial sum
  index_t first_slot;  // the row's first partial sum
  index_t slots;       // chunks of the row
  index_t counter;     // the row's arrival counter (its index in the long-row list)
};
SPMVKIT_CSR3_HD index_t csr3_long_row_chunks(index_t length) {
  return (length + kCsr3LongChunk - 1) / kCsr3LongChunk;
}
// Chunk c of long row `row` (entries [begin, end), `counter`-th in the long-row list), whose
// slots start at first_slot.
SPMVKIT_CSR3_HD Csr3LongChunk csr3_long_chunk(index_t row, index_t begin, index_t end,
                                              index_t counter, index_t first_slot, index_t c) {
  const index_t chunk_end = begin + (c + 1) * kCsr3LongChunk;
  return Csr3LongChunk{row,
                       begin + c * kCsr3LongChunk,
                       chunk_end < end ? chunk_end : end,
                       first_slot + c,
                       first_slot,
                       csr3_long_row_chunks(end - begin),
                       counter};
}

enum class Csr3Kernel { serial, parallel };
// auto_: Band-k, kept only when it shrinks the profile (sum of row spans) by >= 25%
// (our addition; the paper always reorders).
enum class Csr3Reorder { none, rcm, band, auto_ };
const char* to_string(Csr3Reorder r);  // none | rcm | band | auto
enum class Csr3Rule { paper, hopper };

// The parameters one CSR-3 operator runs with (paper: "super-row size, super-super-row size
// and grid dimensions").
struct Csr3Params {
  Csr3Kernel kernel = Csr3Kernel::serial;
  index_t super_row_size = 1;        // rows per super-row
  index_t super_super_row_size = 1;  // super-rows per super-super-row (= one thread block)
  int block_x = 8;                   // serial: rows of a super-row; parallel: nonzeros of a row
  int block_y = 12;                  // serial: super-rows;          parallel: rows of a super-row
  int block_z = 1;                   // serial: more super-rows;     parallel: super-rows
  Csr3Reorder reorder = Csr3Reorder::band;
  bool permute_x = false;          // renumber columns too (the paper's fully reordered
                                   // input); costs a gather of x into scratch per apply
  index_t long_row_threshold = 0;  // rows with more entries go to long-row blocks
  Csr3Rule rule = Csr3Rule::hopper;

  int threads() const { return block_x * block_y * block_z; }
  std::string to_string() const;  // the `details` text
};

// One row of a density-indexed rule table: applies to matrices with d = nnz/rows <= max_density.
struct Csr3RuleRow {
  double max_density;
  Csr3Kernel kernel;
  index_t super_row_size;
  index_t super_super_row_size;
  int block_x, block_y, block_z;
};

// The paper's "Heuristic Algorithm for Runtime Parameters", exactly, for density d. Outside
// the paper's range the formula 20/(d ln d) is undefined (d <= 1) or explodes (d -> 1+): we
// evaluate it at max(d, 2) (the paper's test matrices have d >= 2.76). Reorder: band.
Csr3Params csr3_paper_rule(double density);
// Tuned for Hopper: a table by density (csr3_hopper_table). PROVISIONAL until the lead runs
// `spmvkit tune csr3` on the H100 and pastes the fitted table in.
Csr3Params csr3_hopper_rule(double density);
const std::vector<Csr3RuleRow>& csr3_hopper_table();
Csr3Params csr3_rule_from_table(const std::vector<Csr3RuleRow>& table, double density);

// Default long-row threshold for density d: max(64, 8*d) entries (our addition).
index_t csr3_default_long_row(double density);

// The parameters for `a` from the rule named by p["rule"] (default hopper), then the
// explicit parameters of p (kernel, super_row_size, super_super_row_size, block_x/y/z,
// reorder, permute_x, long_row), validated (InputError): sizes >= 1; threads a multiple of
// 32 and <= 1024; block_z <= 64; parallel block_x a power of two <= 32.
template <class V>
Csr3Params csr3_choose(const Csr<V>& a, const Params& p);
Csr3Params csr3_choose(index_t rows, std::int64_t nnz, const Params& p);  // the same, by shape
void csr3_validate(const Csr3Params& p);

// What the byte model and the details are made of: counts, so that the device build, which
// keeps no host copy of the rows or the long-row list, reports what the host build reports.
struct Csr3Summary {
  Csr3Params params;
  index_t rows = 0;
  index_t cols = 0;       // of the CSR-3 rows (the user's unless permute_x renumbered them)
  index_t user_cols = 0;  // cols of the user's matrix
  std::int64_t nnz = 0;
  std::size_t long_rows = 0;
  bool reordered = false;
  double reorder_ms = 0;
  std::string reorder_note;

  index_t super_rows() const { return csr3_groups(rows, params.super_row_size); }
  index_t super_super_rows() const {
    return csr3_groups(super_rows(), params.super_super_row_size);
  }
  template <class V>
  std::size_t matrix_bytes() const;
  std::string details() const;
};

// The host-built format.
template <class V>
struct Csr3 {
  Csr<V> csr;                            // rows in CSR-3 order
  std::vector<index_t> perm;             // new row i = user row perm[i]; empty = identity
  std::vector<index_t> sup_row_ptr;      // super-rows -> rows (size super_rows + 1)
  std::vector<index_t> sup_sup_row_ptr;  // super-super-rows -> super-rows
  std::vector<index_t> long_rows;        // rows (CSR-3 order) longer than the threshold
  Csr3Params params;
  index_t user_cols = 0;     // cols of the user's matrix
  double reorder_ms = 0;     // computing the ordering and permuting the matrix
  std::string reorder_note;  // e.g. "rectangular: not reordered"

  index_t super_rows() const { return static_cast<index_t>(sup_row_ptr.size()) - 1; }
  index_t super_super_rows() const { return static_cast<index_t>(sup_sup_row_ptr.size()) - 1; }
  Csr3Summary summary() const;
  std::size_t matrix_bytes() const { return summary().template matrix_bytes<V>(); }
  std::string details() const { return summary().details(); }
};

// Builds CSR-3 from a validated CSR matrix. Reordering needs a square matrix: with the
// default (rule's) reorder a rectangular matrix is left in its order (noted in details); an
// explicit reorder=rcm|band on a rectangular matrix throws UnsupportedError.
template <class V>
Csr3<V> build_csr3(const Csr<V>& a, const Csr3Params& p, bool reorder_explicit = false);

// Super-row pointers for a uniform grouping (also used by the tuner and tests).
std::vector<index_t> csr3_uniform_ptr(index_t count, index_t group);

// The chunks of the long rows of a CSR-3 row pointer (rows in CSR-3 order), in long-row order
// (the host's; the device build makes the same on the device).
std::vector<Csr3LongChunk> csr3_long_chunks(const std::vector<index_t>& row_ptr,
                                            const std::vector<index_t>& long_rows);

FormatEntry csr3_format();

template <class V>
std::unique_ptr<Operator<V>> make_csr3_cpu(Csr3<V> host);

#if SPMVKIT_HAVE_CUDA
template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(Csr3<V> host);
// From a CSR on the device: `shape` holds the parameters, perm (empty: not reordered), the
// shape and the reordering's time and note, no arrays (no csr row pointer, super-row pointers
// or long rows). The layout is made on the device: perm uploaded, the rows permuted (or
// copied), the long rows and their chunks found there. shape.perm moves into the operator.
template <class V>
std::unique_ptr<Operator<V>> make_csr3_cuda(const DeviceCsrView<V>& a, Csr3<V>&& shape);

// For the tests: the arrays one CUDA operator holds, on the host. From the device build
// (csr3_device_arrays: make_csr3_cuda's layout, downloaded) or from a host-built Csr3
// (csr3_host_arrays: what make_csr3_cuda(host) uploads); equal member for member.
template <class V>
struct Csr3Arrays {
  Csr<V> csr;                         // rows in CSR-3 order
  std::vector<index_t> perm;          // empty: not reordered
  std::vector<index_t> long_rows;     // CSR-3 rows
  std::vector<Csr3LongChunk> chunks;  // the long rows' chunks
  index_t slots = 0;                  // partial sums
};
template <class V>
Csr3Arrays<V> csr3_device_arrays(const DeviceCsrView<V>& a, const Csr3<V>& shape);
template <class V>
Csr3Arrays<V> csr3_host_arrays(const Csr3<V>& host);

// For the tuner: times one device copy of `host` under each launch configuration (kernel,
// sizes, block shape taken from each entry; reorder/long rows are those of `host`). Median
// per-apply time in ms after warm-up, CUDA events; NaN where a configuration fails.
template <class V>
std::vector<double> csr3_time_launches(const Csr3<V>& host, const std::vector<Csr3Params>& configs,
                                       int warmup, int reps);
#endif

}  // namespace spmvkit
