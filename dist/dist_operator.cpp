// The distributed operator: one rank's rows split into a local operator (owned columns) and a
// halo operator (ghost columns, numbered 0..ghosts-1 in global order), both built through the
// registry. apply() overlaps the halo exchange with the local SpMV: receives posted and sends
// packed first, the local part computed while the values travel, the halo part added when
// they have arrived (y = alpha*A_local*x + beta*y, then y += alpha*A_halo*x_ghost). Where
// few rows read ghosts (a grid's boundary layers), the halo operator holds those rows alone
// and its result is added into y at them (scatter), so it never passes over every row; over
// NCCL that product runs on the exchange's stream as soon as the ghosts arrive, beside the
// local SpMV, and only the scatter follows it.
#include <algorithm>
#include <string>

#include "dist/dist.hpp"
#include "dist/halo.hpp"
#include "dist/mpi_types.hpp"
#include "ops/blas.hpp"
#include "spmvkit/registry.hpp"

namespace spmvkit::dist {

Transport parse_transport(const std::string& name) {
  if (name == "mpi") return Transport::mpi;
  if (name == "nccl") return Transport::nccl;
  throw InputError("unknown transport '" + name + "' (mpi, nccl)");
}
bool nccl_compiled() { return SPMVKIT_HAVE_NCCL != 0; }

template <class V>
void post_exchange(MPI_Comm comm, const HaloPlan& plan, const V* send, V* ghosts,
                   std::vector<MPI_Request>& requests) {
  constexpr int kTag = 27;
  for (std::size_t r = 0; r < plan.recv_counts.size(); ++r)
    if (plan.recv_counts[r] > 0) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(ghosts + plan.recv_displs[r], plan.recv_counts[r], mpi_type<V>(),
                          static_cast<int>(r), kTag, comm, &requests.back()),
                "MPI_Irecv");
    }
  for (std::size_t r = 0; r < plan.send_counts.size(); ++r)
    if (plan.send_counts[r] > 0) {
      requests.emplace_back();
      check_mpi(MPI_Isend(send + plan.send_displs[r], plan.send_counts[r], mpi_type<V>(),
                          static_cast<int>(r), kTag, comm, &requests.back()),
                "MPI_Isend");
    }
}
template void post_exchange<float>(MPI_Comm, const HaloPlan&, const float*, float*,
                                   std::vector<MPI_Request>&);
template void post_exchange<double>(MPI_Comm, const HaloPlan&, const double*, double*,
                                    std::vector<MPI_Request>&);

void wait_exchange(std::vector<MPI_Request>& requests) {
  if (requests.empty()) return;
  const int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
  check_mpi(rc, "MPI_Waitall");
}

template <class V>
struct DistOperator<V>::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int ranks = 1;
  index_t first_row = 0;
  Backend backend = Backend::cpu;
  Transport transport = Transport::mpi;
  bool overlap = true;
  std::unique_ptr<Operator<V>> local, halo;
  // The rows of the compressed halo operator (empty: it holds every row).
  std::vector<index_t> halo_rows;
  mutable std::vector<V> halo_host;  // CPU backend: its result before the scatter
  HaloPlan plan;
  HaloInfo info;
  mutable std::vector<V> send_host, ghost_host;  // CPU backend
  mutable std::vector<MPI_Request> requests;
#if SPMVKIT_HAVE_CUDA
  std::unique_ptr<CudaHalo<V>> cuda;
#endif

  // z = alpha*A_local*x + beta*y; z = beta*y where this rank owns no column.
  void apply_local(const V* x, const V* y, V* z, V alpha, V beta, std::size_t rows) const {
    if (rows == 0) return;
    if (local) {
      local->apply(x, y, z, alpha, beta);
    } else if (beta == V(0)) {
      ops::fill_zero(backend, rows, z);
    } else {
      if (y != z) ops::copy(backend, rows, y, z);
      ops::scal(backend, rows, beta, z);
    }
  }
};

template <class V>
DistOperator<V>::DistOperator(OperatorInfo info, std::unique_ptr<Impl> impl)
    : Operator<V>(std::move(info)), impl_(std::move(impl)) {}
template <class V>
DistOperator<V>::~DistOperator() = default;
template <class V>
const HaloInfo& DistOperator<V>::halo() const {
  return impl_->info;
}
template <class V>
void DistOperator<V>::set_overlap(bool on) {
  impl_->overlap = on;
}
template <class V>
bool DistOperator<V>::overlap() const {
  return impl_->overlap;
}
template <class V>
MPI_Comm DistOperator<V>::comm() const {
  return impl_->comm;
}
template <class V>
Transport DistOperator<V>::transport() const {
  return impl_->transport;
}

template <class V>
void DistOperator<V>::apply(const V* x, const V* y, V* z, V alpha, V beta) const {
  Impl& m = *impl_;
  const std::size_t rows = static_cast<std::size_t>(this->rows());
  const V* ghosts = nullptr;
  if (m.backend == Backend::cpu) {
    // Pack and send first (the peers wait for it), compute the local part while it travels.
    for (std::size_t i = 0; i < m.plan.send_idx.size(); ++i) m.send_host[i] = x[m.plan.send_idx[i]];
    post_exchange(m.comm, m.plan, m.send_host.data(), m.ghost_host.data(), m.requests);
    if (!m.overlap) wait_exchange(m.requests);
    m.apply_local(x, y, z, alpha, beta, rows);
    wait_exchange(m.requests);
    ghosts = m.ghost_host.data();
  } else {
#if SPMVKIT_HAVE_CUDA
    m.cuda->start(x);
    // NCCL with a compressed halo part: its product goes to its own buffer, so it can run on
    // the exchange's stream as soon as the ghosts arrive, beside the local SpMV; only the
    // scatter into z waits for both.
    if (m.overlap && m.halo && !m.halo_rows.empty() &&
        m.cuda->queue_after_exchange([&](const V* g) {
          m.halo->apply(g, nullptr, m.cuda->halo_result(), alpha, V(0));
        })) {
      m.apply_local(x, y, z, alpha, beta, rows);
      m.cuda->finish();
      m.cuda->add_halo_result(z);
      return;
    }
    if (!m.overlap) ghosts = m.cuda->finish();
    m.apply_local(x, y, z, alpha, beta, rows);
    if (m.overlap) ghosts = m.cuda->finish();
#endif
  }
  if (!m.halo) return;
  if (m.halo_rows.empty()) {
    m.halo->apply(ghosts, z, z, alpha, V(1));
  } else if (m.backend == Backend::cpu) {
    m.halo->apply(ghosts, nullptr, m.halo_host.data(), alpha, V(0));
    for (std::size_t k = 0; k < m.halo_rows.size(); ++k) z[m.halo_rows[k]] += m.halo_host[k];
  } else {
#if SPMVKIT_HAVE_CUDA
    m.halo->apply(ghosts, nullptr, m.cuda->halo_result(), alpha, V(0));
    m.cuda->add_halo_result(z);
#endif
  }
}

template <class V>
std::int64_t DistOperator<V>::first_row() const {
  return impl_->first_row;
}

template <class V>
bool DistOperator<V>::reduce_sum(double* partial, int count) const {
  const Impl& m = *impl_;
  if (m.ranks == 1) return false;
  if (count == 0) return true;
#if SPMVKIT_HAVE_CUDA
  if (m.transport == Transport::nccl) {
    m.cuda->allreduce(partial, count);
    return true;
  }
#endif
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, partial, count, MPI_DOUBLE, MPI_SUM, m.comm),
            "MPI_Allreduce");
  return true;
}

template <class V>
bool DistOperator<V>::reduce_sum_device(double* partial, int count) const {
  const Impl& m = *impl_;
  if (m.ranks == 1 || m.transport != Transport::nccl || m.backend != Backend::cuda) return false;
#if SPMVKIT_HAVE_CUDA
  if (count > 0) m.cuda->allreduce_device(partial, count);
  return true;
#else
  (void)partial;
  (void)count;
  return false;
#endif
}

namespace {

// The local and halo parts of one rank's rows, and the ghost columns (sorted, global).
template <class V>
struct Split {
  Csr<V> local, halo;
  std::vector<index_t> ghosts;
};

template <class V>
Split<V> split_rows(const Csr<V>& a, index_t c0, index_t c1) {
  Split<V> s;
  for (index_t k = 0; k < a.nnz(); ++k)
    if (a.col_idx[k] < c0 || a.col_idx[k] >= c1) s.ghosts.push_back(a.col_idx[k]);
  std::sort(s.ghosts.begin(), s.ghosts.end());
  s.ghosts.erase(std::unique(s.ghosts.begin(), s.ghosts.end()), s.ghosts.end());
  s.local.rows = s.halo.rows = a.rows;
  s.local.cols = c1 - c0;
  s.halo.cols = static_cast<index_t>(s.ghosts.size());
  s.local.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  s.halo.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t c = a.col_idx[k];
      if (c >= c0 && c < c1) {
        s.local.col_idx.push_back(c - c0);
        s.local.values.push_back(a.values[k]);
      } else {
        const auto g = std::lower_bound(s.ghosts.begin(), s.ghosts.end(), c) - s.ghosts.begin();
        s.halo.col_idx.push_back(static_cast<index_t>(g));
        s.halo.values.push_back(a.values[k]);
      }
    }
    s.local.row_ptr[i + 1] = static_cast<index_t>(s.local.col_idx.size());
    s.halo.row_ptr[i + 1] = static_cast<index_t>(s.halo.col_idx.size());
  }
  return s;
}

// Keeps only the rows of h that hold entries, when they are at most half of its rows (a
// grid's boundary layers; not a power-law matrix, where most rows read ghosts): the rows
// kept, in order, or empty when h stays whole. Empty rows add nothing to the row pointer, so
// its entries at the kept rows are the compressed pointer.
template <class V>
std::vector<index_t> compress_rows(Csr<V>& h) {
  std::vector<index_t> rows;
  for (index_t i = 0; i < h.rows; ++i)
    if (h.row_ptr[i + 1] > h.row_ptr[i]) rows.push_back(i);
  if (rows.size() * 2 > static_cast<std::size_t>(h.rows)) return {};
  std::vector<index_t> ptr(rows.size() + 1, 0);
  for (std::size_t k = 0; k < rows.size(); ++k) ptr[k + 1] = h.row_ptr[rows[k] + 1];
  h.row_ptr = std::move(ptr);
  h.rows = static_cast<index_t>(rows.size());
  return rows;
}

std::string partition_problem(const Partition& p, int ranks, const char* what) {
  if (p.ranks() != ranks)
    return std::string(what) + " partition has " + std::to_string(p.ranks()) + " parts for " +
           std::to_string(ranks) + " ranks";
  if (p.begin.front() != 0) return std::string(what) + " partition does not start at 0";
  for (int r = 0; r < p.ranks(); ++r)
    if (p.begin[r + 1] < p.begin[r]) return std::string(what) + " partition is not monotone";
  return "";
}

}  // namespace

template <class V>
std::unique_ptr<DistOperator<V>> build_distributed(MPI_Comm comm, const LocalRows<V>& in,
                                                   const std::string& format,
                                                   const Params& params, Backend b,
                                                   Transport t) {
  auto m = std::make_unique<typename DistOperator<V>::Impl>();
  m->comm = comm;
  m->ranks = comm_size(comm);
  m->backend = b;
  m->transport = t;
  const int me = comm_rank(comm);
  const int ranks = m->ranks;
  if (in.row_part.ranks() == ranks) m->first_row = in.row_part.begin[me];
  Split<V> s;
  // Checks and the split touch no other rank: one agreement covers them.
  collective(comm, [&] {
    for (const std::string& p : {partition_problem(in.row_part, ranks, "the row"),
                                 partition_problem(in.col_part, ranks, "the column")})
      if (!p.empty()) throw InputError(p);
    if (in.rows.rows != in.row_part.count(me) || in.rows.cols != in.col_part.size())
      throw InputError("rank " + std::to_string(me) + " holds a " + std::to_string(in.rows.rows) +
                       " x " + std::to_string(in.rows.cols) + " block, its partition says " +
                       std::to_string(in.row_part.count(me)) + " x " +
                       std::to_string(in.col_part.size()));
    if (t == Transport::nccl && (b != Backend::cuda || !nccl_compiled()))
      throw UnsupportedError(b != Backend::cuda
                                 ? "the NCCL transport needs the CUDA backend"
                                 : "this build of spmvkit has no NCCL (CUDA build with NCCL found)");
    s = split_rows(in.rows, in.col_part.begin[me], in.col_part.begin[me + 1]);
  });

  // The plan: ghosts (sorted) come grouped by owner; each owner learns what to send.
  HaloPlan& plan = m->plan;
  plan.recv_counts.assign(static_cast<std::size_t>(ranks), 0);
  for (index_t g : s.ghosts) ++plan.recv_counts[in.col_part.owner(g)];
  plan.send_counts.assign(static_cast<std::size_t>(ranks), 0);
  check_mpi(MPI_Alltoall(plan.recv_counts.data(), 1, MPI_INT, plan.send_counts.data(), 1, MPI_INT,
                         comm),
            "MPI_Alltoall");
  plan.recv_displs.assign(static_cast<std::size_t>(ranks), 0);
  plan.send_displs.assign(static_cast<std::size_t>(ranks), 0);
  for (int r = 1; r < ranks; ++r) {
    plan.recv_displs[r] = plan.recv_displs[r - 1] + plan.recv_counts[r - 1];
    plan.send_displs[r] = plan.send_displs[r - 1] + plan.send_counts[r - 1];
  }
  plan.send_idx.resize(static_cast<std::size_t>(plan.send_displs.back() + plan.send_counts.back()));
  check_mpi(MPI_Alltoallv(s.ghosts.data(), plan.recv_counts.data(), plan.recv_displs.data(),
                          mpi_type<index_t>(), plan.send_idx.data(), plan.send_counts.data(),
                          plan.send_displs.data(), mpi_type<index_t>(), comm),
            "MPI_Alltoallv");
  for (index_t& i : plan.send_idx) i -= in.col_part.begin[me];

  HaloInfo& hi = m->info;
  hi.ghosts = static_cast<index_t>(s.ghosts.size());
  hi.sent = static_cast<index_t>(plan.send_idx.size());
  for (int r = 0; r < ranks; ++r)
    hi.neighbours += (plan.recv_counts[r] > 0 || plan.send_counts[r] > 0) ? 1 : 0;
  hi.local_nnz = s.local.nnz();
  hi.halo_nnz = s.halo.nnz();
  m->halo_rows = compress_rows(s.halo);
  hi.halo_rows = m->halo_rows.empty() ? s.halo.rows : static_cast<index_t>(m->halo_rows.size());

  OperatorInfo info;
  info.rows = in.rows.rows;
  info.cols = s.local.cols;
  info.nnz = in.rows.nnz();
  info.backend = b;
  info.format = format;
  collective(comm, [&] {
    if (s.local.rows > 0 && s.local.cols > 0) m->local = build_operator<V>(format, s.local, params, b);
    if (s.halo.rows > 0 && s.halo.cols > 0) m->halo = build_operator<V>(format, s.halo, params, b);
    if (b == Backend::cpu) {
      m->send_host.resize(plan.send_idx.size());
      m->ghost_host.resize(s.ghosts.size());
      m->halo_host.resize(m->halo_rows.size());
    } else {
#if SPMVKIT_HAVE_CUDA
      m->cuda = std::make_unique<CudaHalo<V>>(comm, plan, t, m->halo_rows);
#else
      throw UnsupportedError("this build of spmvkit has no CUDA backend");
#endif
    }
  });
  for (const Operator<V>* op : {m->local.get(), m->halo.get()})
    if (op) info.matrix_bytes += op->info().matrix_bytes;
  info.details = "ranks=" + std::to_string(ranks) + ",transport=" +
                 (t == Transport::nccl ? "nccl" : "mpi") +
                 (m->local ? ",local:" + m->local->info().details : std::string()) +
                 (m->halo ? ",halo:" + m->halo->info().details : std::string());
  return std::make_unique<DistOperator<V>>(std::move(info), std::move(m));
}

template class DistOperator<float>;
template class DistOperator<double>;
template std::unique_ptr<DistOperator<float>> build_distributed<float>(
    MPI_Comm, const LocalRows<float>&, const std::string&, const Params&, Backend, Transport);
template std::unique_ptr<DistOperator<double>> build_distributed<double>(
    MPI_Comm, const LocalRows<double>&, const std::string&, const Params&, Backend, Transport);

}  // namespace spmvkit::dist

#if !SPMVKIT_HAVE_CUDA
namespace spmvkit::dist {
void select_device(MPI_Comm) {}
int visible_gpus() { return 0; }
}  // namespace spmvkit::dist
#endif
