// The BSR paper's single-process multi-GPU scheme (section 5.6), its own mode beside the MPI
// row blocks: block rows sorted by length (descending), dealt 1D-cyclically to the GPUs; each
// GPU holds its block rows as an ordinary BSR matrix (through the registry, so the
// single-GPU kernel and, when the rows call for it, the balanced-BSR segments and their
// reduction run unchanged) and x whole; one apply is
//   (1) each GPU: y^_g = A_g x (its local BSRMV), (2) y^_g copied to GPU 0,
//   (3) GPU 0: the shuffle kernel undoes the cyclic order: z[row] = alpha y^[i] + beta y[row].
// With one GPU the scheme is degenerate (one part, the shuffle a row permutation) and is
// tested that way on the device. On the CPU backend the same bookkeeping runs with `parts`
// simulated parts in host memory, so CI tests the deal and the shuffle with 1..5 parts.
#pragma once

#include <memory>

#include "spmvkit/csr.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"

namespace spmvkit::dist {

// `params` go to each part's `bsr` build (block_size: as given, else detected). parts: CUDA,
// 0 for every visible GPU or at most their count; CPU, at least 1 (simulated parts).
// InputError for a bad part count; UnsupportedError where bsr refuses the matrix.
template <class V>
std::unique_ptr<Operator<V>> build_multigpu_bsr(const Csr<V>& a, const Params& params,
                                                Backend b, int parts = 0);

// The deal, exposed for tests: block rows sorted by nonzeros (descending, ties by index),
// then part g takes sorted positions g, g + parts, ...; part_rows[g] lists its block rows in
// that order.
std::vector<std::vector<index_t>> cyclic_block_rows(const std::vector<index_t>& row_ptr,
                                                    index_t rows, int block_size, int parts);

}  // namespace spmvkit::dist
