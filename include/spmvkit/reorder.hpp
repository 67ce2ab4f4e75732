// Bandwidth-reducing reorderings: reverse Cuthill-McKee and a multilevel banding in the spirit
// of the CSR-k papers' Band-k, applied as symmetric permutations.
//
// Conventions (every function here):
// - A permutation `perm` of n lists old indices in their new order: new row i is old row
//   perm[i] ("new-to-old"). Its inverse maps old index -> new index.
// - Orderings are computed on the symmetrised pattern of a SQUARE matrix (A + A^T, diagonal
//   ignored, values ignored), so unsymmetric square matrices are fine. A rectangular matrix
//   has no symmetric permutation: rcm_order / band_order / reorder_matrix throw
//   UnsupportedError for it (callers wanting a row-only ordering use permute_rows).
// - Each connected component is ordered on its own (isolated vertices are components of size
//   one); components follow each other in the order of their lowest-numbered vertex, before
//   the final reversal of RCM.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spmvkit/csr.hpp"

namespace spmvkit {

enum class ReorderMethod { none, rcm, band };

std::string_view to_string(ReorderMethod m);
ReorderMethod parse_reorder_method(std::string_view name);  // none|rcm|band, else InputError

// Reverse Cuthill-McKee (George & Liu): per component, a pseudo-peripheral start node (the
// George-Liu iteration from a minimum-degree node), breadth-first levels with neighbours
// taken in increasing degree (ties by index), then the whole order reversed.
template <class V>
std::vector<index_t> rcm_order(const Csr<V>& a);

// Multilevel banding (CSR-k's Band-k, CSR-k GPU paper: "reordered to RCM using a multilevel
// banding algorithm"): the symmetrised graph is coarsened `levels` times by greedy heavy-edge
// aggregation (at most `aggregate_size` vertices a coarse vertex), the coarsest graph is
// ordered by RCM, and the order is projected back level by level, the members of each coarse
// vertex kept consecutive (so groups of strongly connected rows become neighbouring rows,
// which is what CSR-3's super-rows group). Within a coarse vertex, members that touch
// earlier-placed vertices come first. levels = 0 gives plain RCM.
struct BandOptions {
  int levels = 2;          // coarsenings: 2 gives the three levels of CSR-3 (Band-3)
  int aggregate_size = 4;  // max fine vertices merged into one coarse vertex per level
};
template <class V>
std::vector<index_t> band_order(const Csr<V>& a, const BandOptions& options = {});

// The order for `method` (identity for none).
template <class V>
std::vector<index_t> reorder_order(const Csr<V>& a, ReorderMethod method,
                                   const BandOptions& band = {});

// True when perm holds each of 0..n-1 exactly once.
bool is_permutation(const std::vector<index_t>& perm, index_t n);
// inverse[perm[i]] = i. InputError when perm is not a permutation of its size.
std::vector<index_t> inverse_permutation(const std::vector<index_t>& perm);

// B = P A P^T: new row i is old row perm[i], and old column j becomes column inverse[j]
// (columns re-sorted). Square matrices only (InputError otherwise, or for a bad perm).
template <class V>
Csr<V> permute_symmetric(const Csr<V>& a, const std::vector<index_t>& perm);
// Rows only: new row i is old row perm[i], columns unchanged (any shape).
template <class V>
Csr<V> permute_rows(const Csr<V>& a, const std::vector<index_t>& perm);

// Vector gathers/scatters for moving between the user's order and a permuted one:
// to_permuted: out[i] = v[perm[i]]  (x for the permuted matrix: xp = P x)
// from_permuted: out[perm[i]] = v[i] (the user's result from a permuted one: y = P^T yp)
template <class T>
std::vector<T> to_permuted(const std::vector<T>& v, const std::vector<index_t>& perm);
template <class T>
std::vector<T> from_permuted(const std::vector<T>& v, const std::vector<index_t>& perm);

// A reordered matrix with its permutation and what it cost (for `spmvkit bench --reorder`
// and `spmvkit info`): order_ms is the time to compute the ordering, permute_ms the time to
// build P A P^T. Their sum over one SpMV's time is the cost in SpMV-equivalents (the SURAA
// paper's unit for setup cost): see spmv_equivalents.
template <class V>
struct Reordered {
  Csr<V> matrix;
  std::vector<index_t> perm;  // new row i = old row perm[i]
  ReorderMethod method = ReorderMethod::none;
  double order_ms = 0;
  double permute_ms = 0;
  double total_ms() const { return order_ms + permute_ms; }
};
template <class V>
Reordered<V> reorder_matrix(const Csr<V>& a, ReorderMethod method, const BandOptions& band = {});

// cost_ms / spmv_ms (0 when spmv_ms is not positive).
inline double spmv_equivalents(double cost_ms, double spmv_ms) {
  return spmv_ms > 0 ? cost_ms / spmv_ms : 0.0;
}

}  // namespace spmvkit
