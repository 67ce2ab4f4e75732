// Row partitions: contiguous blocks balanced by nonzeros (the default), even blocks, and METIS
// k-way parts made contiguous by renumbering (for irregular matrices, where a contiguous
// block of rows touches columns everywhere).
#include <algorithm>
#include <numeric>
#include <string>

#include "dist/dist.hpp"

#if SPMVKIT_HAVE_METIS
#include <metis.h>
#endif

namespace spmvkit::dist {

Partition partition_even(index_t n, int ranks) {
  if (ranks < 1) throw InputError("a partition needs at least one rank");
  Partition p;
  p.begin.resize(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    p.begin[r] = static_cast<index_t>(static_cast<std::int64_t>(n) * r / ranks);
  return p;
}

Partition partition_by_nnz(const std::vector<index_t>& row_ptr, int ranks) {
  if (ranks < 1) throw InputError("a partition needs at least one rank");
  const index_t n = static_cast<index_t>(row_ptr.size()) - 1;
  // Row i weighs its length + 1: prefix(i) = row_ptr[i] + i, monotone in i.
  auto prefix = [&](index_t i) { return static_cast<double>(row_ptr[i]) + i; };
  const double total = prefix(n);
  Partition p;
  p.begin.assign(static_cast<std::size_t>(ranks) + 1, 0);
  p.begin[ranks] = n;
  for (int r = 1; r < ranks; ++r) {
    const double target = total * r / ranks;
    index_t lo = p.begin[r - 1], hi = n;  // smallest i with prefix(i) >= target
    while (lo < hi) {
      const index_t mid = lo + (hi - lo) / 2;
      if (prefix(mid) >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    p.begin[r] = lo;
  }
  return p;
}

Partition partition_by_nnz(MPI_Comm comm, const Partition& slice,
                           const std::vector<index_t>& lengths, index_t unit) {
  const int me = comm_rank(comm);
  const int ranks = comm_size(comm);
  collective(comm, [&] {
    if (slice.ranks() != ranks || unit < 1 || slice.size() % unit != 0 ||
        slice.begin[me] % unit != 0 || slice.count(me) % unit != 0 ||
        lengths.size() != static_cast<std::size_t>(slice.count(me)))
      throw InputError("partition_by_nnz: rank " + std::to_string(me) + " passes " +
                       std::to_string(lengths.size()) + " row lengths for its slice of " +
                       std::to_string(slice.ranks() == ranks ? slice.count(me) : -1) +
                       " rows (units of " + std::to_string(unit) + ")");
  });
  // prefix(u): the weight of units [0, u), a row weighing its length + 1 (partition_by_nnz);
  // this rank knows prefix over its slice's units [u0, u0 + m] from the others' totals.
  const std::size_t u_rows = static_cast<std::size_t>(unit), m = lengths.size() / u_rows;
  std::vector<std::int64_t> prefix(m + 1, 0);
  for (std::size_t k = 0; k < lengths.size(); ++k)
    prefix[k / u_rows + 1] += std::int64_t{lengths[k]} + 1;
  for (std::size_t u = 0; u < m; ++u) prefix[u + 1] += prefix[u];
  std::int64_t mine = prefix[m], before = 0, total = 0;
  check_mpi(MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
  if (me == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  check_mpi(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  for (std::int64_t& p : prefix) p += before;
  // Cut r: the smallest u with prefix(u) >= total * r / ranks (as partition_by_nnz); each
  // rank offers the smallest in its slice (or none), the least offer wins.
  const index_t units = slice.size() / unit, u0 = slice.begin[me] / unit;
  std::vector<std::int64_t> cut(static_cast<std::size_t>(std::max(ranks - 1, 0)),
                                std::int64_t{units} + 1);
  for (int r = 1; r < ranks; ++r) {
    const double target = static_cast<double>(total) * r / ranks;
    const auto it = std::find_if(prefix.begin(), prefix.end(),
                                 [&](std::int64_t p) { return static_cast<double>(p) >= target; });
    if (it != prefix.end()) cut[r - 1] = u0 + (it - prefix.begin());
  }
  if (ranks > 1)
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, cut.data(), ranks - 1, MPI_INT64_T, MPI_MIN, comm),
              "MPI_Allreduce");
  Partition p;
  p.begin.assign(static_cast<std::size_t>(ranks) + 1, 0);
  p.begin[ranks] = units * unit;
  for (int r = 1; r < ranks; ++r) p.begin[r] = static_cast<index_t>(cut[r - 1]) * unit;
  return p;
}

bool metis_compiled() { return SPMVKIT_HAVE_METIS != 0; }

Reordering partition_metis(const Csr<double>& a, int ranks) {
  if (a.rows != a.cols)
    throw InputError("METIS partitioning needs a square matrix (A is " + std::to_string(a.rows) +
                     " x " + std::to_string(a.cols) + ")");
  if (ranks < 1) throw InputError("a partition needs at least one rank");
  const index_t n = a.rows;
  std::vector<int> part(static_cast<std::size_t>(n), 0);
#if SPMVKIT_HAVE_METIS
  if (ranks > 1 && n > ranks) {
    // The graph of A + A^T without the diagonal, as METIS wants it.
    const Csr<double> t = transpose(a);
    std::vector<idx_t> xadj(static_cast<std::size_t>(n) + 1, 0), adj;
    adj.reserve(static_cast<std::size_t>(a.nnz()) * 2);
    for (index_t i = 0; i < n; ++i) {
      std::vector<idx_t> nb;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) nb.push_back(a.col_idx[k]);
      for (index_t k = t.row_ptr[i]; k < t.row_ptr[i + 1]; ++k) nb.push_back(t.col_idx[k]);
      std::sort(nb.begin(), nb.end());
      nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
      for (idx_t j : nb)
        if (j != i) adj.push_back(j);
      xadj[i + 1] = static_cast<idx_t>(adj.size());
    }
    idx_t nv = n, ncon = 1, nparts = ranks, objval = 0;
    std::vector<idx_t> where(static_cast<std::size_t>(n), 0);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    const int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adj.empty() ? nullptr : adj.data(),
                                       nullptr, nullptr, nullptr, &nparts, nullptr, nullptr,
                                       options, &objval, where.data());
    if (rc != METIS_OK)
      throw Error("METIS_PartGraphKway: status " + std::to_string(rc) +
                  (rc == METIS_ERROR_MEMORY ? " (out of memory)" : " (input or internal error)"));
    std::copy(where.begin(), where.end(), part.begin());
  }
#else
  if (ranks > 1) throw UnsupportedError("this build of spmvkit has no METIS (libmetis-dev)");
#endif
  Reordering out;
  out.perm.resize(static_cast<std::size_t>(n));
  std::iota(out.perm.begin(), out.perm.end(), 0);
  std::stable_sort(out.perm.begin(), out.perm.end(),
                   [&](index_t x, index_t y) { return part[x] < part[y]; });
  out.part.begin.assign(static_cast<std::size_t>(ranks) + 1, 0);
  for (index_t i = 0; i < n; ++i) ++out.part.begin[part[i] + 1];
  for (int r = 0; r < ranks; ++r) out.part.begin[r + 1] += out.part.begin[r];
  return out;
}

Csr<double> permute_symmetric(const Csr<double>& a, const std::vector<index_t>& perm) {
  const index_t n = a.rows;
  std::vector<index_t> inv(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) inv[perm[i]] = i;
  Coo<double> c;
  c.rows = a.rows;
  c.cols = a.cols;
  c.row_idx.reserve(a.values.size());
  c.col_idx.reserve(a.values.size());
  c.values.reserve(a.values.size());
  for (index_t i = 0; i < n; ++i)
    for (index_t k = a.row_ptr[perm[i]]; k < a.row_ptr[perm[i] + 1]; ++k) {
      c.row_idx.push_back(i);
      c.col_idx.push_back(inv[a.col_idx[k]]);
      c.values.push_back(a.values[k]);
    }
  return to_csr(c, "permuted matrix");
}

template <class V>
std::vector<V> permute(const std::vector<V>& v, const std::vector<index_t>& perm) {
  std::vector<V> out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = v[perm[i]];
  return out;
}
template <class V>
std::vector<V> unpermute(const std::vector<V>& v, const std::vector<index_t>& perm) {
  std::vector<V> out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[perm[i]] = v[i];
  return out;
}
template std::vector<float> permute(const std::vector<float>&, const std::vector<index_t>&);
template std::vector<double> permute(const std::vector<double>&, const std::vector<index_t>&);
template std::vector<float> unpermute(const std::vector<float>&, const std::vector<index_t>&);
template std::vector<double> unpermute(const std::vector<double>&, const std::vector<index_t>&);

}  // namespace spmvkit::dist
