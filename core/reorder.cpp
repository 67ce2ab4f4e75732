// Reverse Cuthill-McKee and multilevel banding (see include/spmvkit/reorder.hpp).
#include "spmvkit/reorder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

// An undirected graph in CSR form, no self loops; `weight` counts the fine edges a coarse
// edge stands for (all 1 on the finest level).
struct Graph {
  index_t n = 0;
  std::vector<std::int64_t> ptr{0};
  std::vector<index_t> adj;
  std::vector<index_t> weight;

  index_t degree(index_t v) const { return static_cast<index_t>(ptr[v + 1] - ptr[v]); }
};

template <class V>
void require_square(const Csr<V>& a, const char* what) {
  if (a.rows != a.cols)
    throw UnsupportedError(std::string(what) + " needs a square matrix (got " +
                           std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                           "): a rectangular matrix has no symmetric permutation");
}

// The pattern of A + A^T without the diagonal: row i of A merged with column i of A.
template <class V>
Graph symmetrised_graph(const Csr<V>& a) {
  const index_t n = a.rows;
  const index_t nnz = a.nnz();
  // Transposed pattern; filling rows in increasing order keeps each transposed row sorted.
  std::vector<index_t> tptr(static_cast<std::size_t>(n) + 1, 0);
  std::vector<index_t> tadj(static_cast<std::size_t>(nnz));
  for (index_t k = 0; k < nnz; ++k) ++tptr[a.col_idx[k] + 1];
  std::partial_sum(tptr.begin(), tptr.end(), tptr.begin());
  {
    std::vector<index_t> fill(tptr.begin(), tptr.end() - 1);
    for (index_t r = 0; r < n; ++r)
      for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) tadj[fill[a.col_idx[k]]++] = r;
  }
  Graph g;
  g.n = n;
  g.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  // Two passes over the same merge: count, then fill.
  for (int pass = 0; pass < 2; ++pass) {
    for (index_t i = 0; i < n; ++i) {
      index_t p = a.row_ptr[i], pe = a.row_ptr[i + 1];
      index_t q = tptr[i], qe = tptr[i + 1];
      std::int64_t out = pass == 0 ? 0 : g.ptr[i];
      while (p < pe || q < qe) {
        index_t c;
        if (q >= qe || (p < pe && a.col_idx[p] < tadj[q])) {
          c = a.col_idx[p++];
        } else if (p >= pe || tadj[q] < a.col_idx[p]) {
          c = tadj[q++];
        } else {
          c = a.col_idx[p++];
          ++q;
        }
        if (c == i) continue;
        if (pass == 1) g.adj[out] = c;
        ++out;
      }
      if (pass == 0) g.ptr[i + 1] = out;
    }
    if (pass == 0) {
      std::partial_sum(g.ptr.begin(), g.ptr.end(), g.ptr.begin());
      g.adj.resize(static_cast<std::size_t>(g.ptr[n]));
    }
  }
  g.weight.assign(g.adj.size(), 1);
  return g;
}

// Breadth-first search from `root` over vertices not yet stamped with `stamp`; the visited
// vertices end up in `queue` level after level. Returns the number of levels and sets
// `last_level_begin` to where the last level starts in `queue`.
index_t bfs_levels(const Graph& g, index_t root, std::vector<int>& mark, int stamp,
                   std::vector<index_t>& queue, std::size_t& last_level_begin) {
  queue.clear();
  queue.push_back(root);
  mark[root] = stamp;
  std::size_t level_begin = 0;
  index_t levels = 0;
  while (level_begin < queue.size()) {
    const std::size_t level_end = queue.size();
    last_level_begin = level_begin;
    ++levels;
    for (std::size_t h = level_begin; h < level_end; ++h) {
      const index_t v = queue[h];
      for (std::int64_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
        const index_t u = g.adj[e];
        if (mark[u] != stamp) {
          mark[u] = stamp;
          queue.push_back(u);
        }
      }
    }
    level_begin = level_end;
  }
  return levels;
}

// George & Liu's pseudo-peripheral node finder, started from the minimum-degree vertex of
// the component that holds `seed`: repeatedly jump to a minimum-degree vertex of the last
// BFS level while that lengthens the level structure (the eccentricity).
index_t pseudo_peripheral_node(const Graph& g, index_t seed, std::vector<int>& mark, int& stamp,
                               std::vector<index_t>& queue) {
  auto min_degree = [&](std::size_t begin) {
    index_t best = queue[begin];
    for (std::size_t h = begin + 1; h < queue.size(); ++h) {
      const index_t v = queue[h];
      if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
    }
    return best;
  };
  std::size_t last = 0;
  bfs_levels(g, seed, mark, ++stamp, queue, last);
  index_t root = min_degree(0);
  index_t ecc = bfs_levels(g, root, mark, ++stamp, queue, last);
  for (int iter = 0; iter < 64; ++iter) {  // converges in a few steps in practice
    const index_t candidate = min_degree(last);
    std::size_t cand_last = 0;
    const index_t cand_ecc = bfs_levels(g, candidate, mark, ++stamp, queue, cand_last);
    if (cand_ecc <= ecc) break;
    root = candidate;
    ecc = cand_ecc;
    last = cand_last;
  }
  return root;
}

// RCM over all components of g; returns new-to-old.
std::vector<index_t> rcm_graph(const Graph& g) {
  const index_t n = g.n;
  std::vector<index_t> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<char> placed(static_cast<std::size_t>(n), 0);
  std::vector<int> mark(static_cast<std::size_t>(n), 0);
  int stamp = 0;
  std::vector<index_t> queue, neighbours;
  queue.reserve(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v) {
    if (placed[v]) continue;
    const index_t start = g.degree(v) == 0 ? v : pseudo_peripheral_node(g, v, mark, stamp, queue);
    // Cuthill-McKee: breadth first, each vertex's new neighbours by increasing degree.
    std::size_t head = order.size();
    order.push_back(start);
    placed[start] = 1;
    while (head < order.size()) {
      const index_t u = order[head++];
      neighbours.clear();
      for (std::int64_t e = g.ptr[u]; e < g.ptr[u + 1]; ++e) {
        const index_t w = g.adj[e];
        if (!placed[w]) {
          placed[w] = 1;
          neighbours.push_back(w);
        }
      }
      std::sort(neighbours.begin(), neighbours.end(), [&](index_t p, index_t q) {
        return std::make_pair(g.degree(p), p) < std::make_pair(g.degree(q), q);
      });
      order.insert(order.end(), neighbours.begin(), neighbours.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// One coarsening step of the banding: greedy heavy-edge aggregation. Vertices are visited in
// index order; an unaggregated vertex seeds a coarse vertex and takes its unaggregated
// neighbours by decreasing edge weight (ties by index) until `max_size` members.
struct Coarsening {
  Graph coarse;
  std::vector<index_t> aggregate;  // fine vertex -> coarse vertex
  std::vector<index_t> rank;       // order in which the fine vertex joined its aggregate
};

Coarsening coarsen(const Graph& g, int max_size) {
  const index_t n = g.n;
  Coarsening c;
  c.aggregate.assign(static_cast<std::size_t>(n), -1);
  c.rank.assign(static_cast<std::size_t>(n), 0);
  index_t count = 0;
  std::vector<std::pair<index_t, index_t>> candidates;  // (-weight, vertex)
  for (index_t v = 0; v < n; ++v) {
    if (c.aggregate[v] >= 0) continue;
    const index_t id = count++;
    c.aggregate[v] = id;
    candidates.clear();
    for (std::int64_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e)
      if (c.aggregate[g.adj[e]] < 0) candidates.emplace_back(-g.weight[e], g.adj[e]);
    std::sort(candidates.begin(), candidates.end());
    index_t size = 1;
    for (const auto& [w, u] : candidates) {
      if (size >= max_size) break;
      c.aggregate[u] = id;
      c.rank[u] = size++;
    }
  }
  // Members of each aggregate, then the quotient graph with summed edge weights.
  std::vector<index_t> mptr(static_cast<std::size_t>(count) + 1, 0),
      members(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v) ++mptr[c.aggregate[v] + 1];
  std::partial_sum(mptr.begin(), mptr.end(), mptr.begin());
  {
    std::vector<index_t> fill(mptr.begin(), mptr.end() - 1);
    for (index_t v = 0; v < n; ++v) members[fill[c.aggregate[v]]++] = v;
  }
  Graph& cg = c.coarse;
  cg.n = count;
  cg.ptr.assign(static_cast<std::size_t>(count) + 1, 0);
  std::vector<std::int64_t> slot(static_cast<std::size_t>(count), -1);
  for (index_t a = 0; a < count; ++a) {
    const std::int64_t row_begin = static_cast<std::int64_t>(cg.adj.size());
    for (index_t m = mptr[a]; m < mptr[a + 1]; ++m) {
      const index_t v = members[m];
      for (std::int64_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
        const index_t b = c.aggregate[g.adj[e]];
        if (b == a) continue;
        if (slot[b] < row_begin) {
          slot[b] = static_cast<std::int64_t>(cg.adj.size());
          cg.adj.push_back(b);
          cg.weight.push_back(0);
        }
        cg.weight[slot[b]] += g.weight[e];
      }
    }
    cg.ptr[a + 1] = static_cast<std::int64_t>(cg.adj.size());
  }
  return c;
}

// Positions of the fine vertices from those of the coarse ones: aggregates stay contiguous
// in coarse order; inside one, members that touch earlier aggregates first, interior members
// next, members touching only later aggregates last (ties by joining rank).
std::vector<index_t> project_positions(const Graph& fine, const Coarsening& c,
                                       const std::vector<index_t>& coarse_pos) {
  const index_t n = fine.n;
  std::vector<std::tuple<index_t, index_t, index_t, index_t>> keys(static_cast<std::size_t>(n));
  for (index_t v = 0; v < n; ++v) {
    const index_t own = coarse_pos[c.aggregate[v]];
    index_t key = std::numeric_limits<index_t>::max();
    for (std::int64_t e = fine.ptr[v]; e < fine.ptr[v + 1]; ++e) {
      const index_t b = c.aggregate[fine.adj[e]];
      if (b != c.aggregate[v]) key = std::min(key, coarse_pos[b]);
    }
    if (key == std::numeric_limits<index_t>::max()) key = own;
    keys[v] = {own, key, c.rank[v], v};
  }
  std::sort(keys.begin(), keys.end());
  std::vector<index_t> pos(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) pos[std::get<3>(keys[i])] = i;
  return pos;
}

}  // namespace

std::string_view to_string(ReorderMethod m) {
  switch (m) {
    case ReorderMethod::rcm:
      return "rcm";
    case ReorderMethod::band:
      return "band";
    default:
      return "none";
  }
}

ReorderMethod parse_reorder_method(std::string_view name) {
  if (name == "none") return ReorderMethod::none;
  if (name == "rcm") return ReorderMethod::rcm;
  if (name == "band") return ReorderMethod::band;
  throw InputError("unknown reordering '" + std::string(name) + "' (known: none, rcm, band)");
}

template <class V>
std::vector<index_t> rcm_order(const Csr<V>& a) {
  require_square(a, "RCM");
  return rcm_graph(symmetrised_graph(a));
}

template <class V>
std::vector<index_t> band_order(const Csr<V>& a, const BandOptions& options) {
  require_square(a, "banding");
  if (options.levels < 0 || options.aggregate_size < 1)
    throw InputError("banding: levels must be >= 0 and aggregate_size >= 1");
  std::vector<Graph> graphs;
  std::vector<Coarsening> steps;
  graphs.push_back(symmetrised_graph(a));
  for (int l = 0; l < options.levels && options.aggregate_size > 1; ++l) {
    Coarsening c = coarsen(graphs.back(), options.aggregate_size);
    if (c.coarse.n == graphs.back().n) break;  // nothing merged: no edges left
    graphs.push_back(std::move(c.coarse));
    c.coarse = Graph{};
    steps.push_back(std::move(c));
  }
  // RCM on the coarsest graph, then back down to the rows.
  const std::vector<index_t> coarsest = rcm_graph(graphs.back());
  std::vector<index_t> pos(coarsest.size());
  for (std::size_t i = 0; i < coarsest.size(); ++i) pos[coarsest[i]] = static_cast<index_t>(i);
  for (std::size_t l = steps.size(); l-- > 0;) pos = project_positions(graphs[l], steps[l], pos);
  std::vector<index_t> order(pos.size());
  for (std::size_t v = 0; v < pos.size(); ++v) order[pos[v]] = static_cast<index_t>(v);
  return order;
}

template <class V>
std::vector<index_t> reorder_order(const Csr<V>& a, ReorderMethod method, const BandOptions& band) {
  switch (method) {
    case ReorderMethod::rcm:
      return rcm_order(a);
    case ReorderMethod::band:
      return band_order(a, band);
    default: {
      std::vector<index_t> id(static_cast<std::size_t>(a.rows));
      std::iota(id.begin(), id.end(), 0);
      return id;
    }
  }
}

bool is_permutation(const std::vector<index_t>& perm, index_t n) {
  if (n < 0 || perm.size() != static_cast<std::size_t>(n)) return false;
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (index_t p : perm) {
    if (p < 0 || p >= n || seen[p]) return false;
    seen[p] = 1;
  }
  return true;
}

std::vector<index_t> inverse_permutation(const std::vector<index_t>& perm) {
  const auto n = static_cast<index_t>(perm.size());
  if (!is_permutation(perm, n))
    throw InputError("not a permutation of 0.." + std::to_string(n - 1));
  std::vector<index_t> inv(perm.size());
  for (index_t i = 0; i < n; ++i) inv[perm[i]] = i;
  return inv;
}

template <class V>
Csr<V> permute_rows(const Csr<V>& a, const std::vector<index_t>& perm) {
  if (!is_permutation(perm, a.rows))
    throw InputError("permute_rows: perm is not a permutation of the " + std::to_string(a.rows) +
                     " rows");
  Csr<V> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t i = 0; i < a.rows; ++i) b.row_ptr[i + 1] = b.row_ptr[i] + a.row_length(perm[i]);
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t src = a.row_ptr[perm[i]];
    std::copy_n(a.col_idx.begin() + src, a.row_length(perm[i]), b.col_idx.begin() + b.row_ptr[i]);
    std::copy_n(a.values.begin() + src, a.row_length(perm[i]), b.values.begin() + b.row_ptr[i]);
  }
  return b;
}

template <class V>
Csr<V> permute_symmetric(const Csr<V>& a, const std::vector<index_t>& perm) {
  if (a.rows != a.cols)
    throw InputError("permute_symmetric needs a square matrix (got " + std::to_string(a.rows) +
                     "x" + std::to_string(a.cols) + ")");
  Csr<V> b = permute_rows(a, perm);
  const std::vector<index_t> inv = inverse_permutation(perm);
  std::vector<std::pair<index_t, V>> row;
  for (index_t i = 0; i < b.rows; ++i) {
    row.clear();
    for (index_t k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k)
      row.emplace_back(inv[b.col_idx[k]], b.values[k]);
    std::sort(row.begin(), row.end(),
              [](const auto& p, const auto& q) { return p.first < q.first; });
    for (std::size_t t = 0; t < row.size(); ++t) {
      b.col_idx[b.row_ptr[i] + t] = row[t].first;
      b.values[b.row_ptr[i] + t] = row[t].second;
    }
  }
  return b;
}

template <class T>
std::vector<T> to_permuted(const std::vector<T>& v, const std::vector<index_t>& perm) {
  if (v.size() != perm.size()) throw InputError("to_permuted: vector and perm sizes differ");
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = v[perm[i]];
  return out;
}

template <class T>
std::vector<T> from_permuted(const std::vector<T>& v, const std::vector<index_t>& perm) {
  if (v.size() != perm.size()) throw InputError("from_permuted: vector and perm sizes differ");
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[perm[i]] = v[i];
  return out;
}

template <class V>
Reordered<V> reorder_matrix(const Csr<V>& a, ReorderMethod method, const BandOptions& band) {
  using clock = std::chrono::steady_clock;
  if (method != ReorderMethod::none) require_square(a, std::string(to_string(method)).c_str());
  Reordered<V> r;
  r.method = method;
  const auto t0 = clock::now();
  r.perm = reorder_order(a, method, band);
  const auto t1 = clock::now();
  r.matrix = permute_symmetric(a, r.perm);
  const auto t2 = clock::now();
  r.order_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  r.permute_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return r;
}

#define SPMVKIT_INSTANTIATE(V)                                                                   \
  template std::vector<index_t> rcm_order(const Csr<V>&);                                        \
  template std::vector<index_t> band_order(const Csr<V>&, const BandOptions&);                   \
  template std::vector<index_t> reorder_order(const Csr<V>&, ReorderMethod, const BandOptions&); \
  template Csr<V> permute_symmetric(const Csr<V>&, const std::vector<index_t>&);                 \
  template Csr<V> permute_rows(const Csr<V>&, const std::vector<index_t>&);                      \
  template std::vector<V> to_permuted(const std::vector<V>&, const std::vector<index_t>&);       \
  template std::vector<V> from_permuted(const std::vector<V>&, const std::vector<index_t>&);     \
  template Reordered<V> reorder_matrix(const Csr<V>&, ReorderMethod, const BandOptions&);
SPMVKIT_INSTANTIATE(float)
SPMVKIT_INSTANTIATE(double)
#undef SPMVKIT_INSTANTIATE
template std::vector<index_t> to_permuted(const std::vector<index_t>&, const std::vector<index_t>&);
template std::vector<index_t> from_permuted(const std::vector<index_t>&,
                                            const std::vector<index_t>&);

}  // namespace spmvkit
