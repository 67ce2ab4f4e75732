// MPI plumbing: checked calls, the collective error agreement, vector scatter/gather/dot.
#include <algorithm>
#include <cstring>
#include <string>

#include "dist/dist.hpp"
#include "dist/mpi_types.hpp"

namespace spmvkit::dist {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw CommError(std::string(call) + ": " + (len > 0 ? std::string(text, len) : "MPI error " + std::to_string(rc)));
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}
int comm_size(MPI_Comm comm) {
  int s = 0;
  check_mpi(MPI_Comm_size(comm, &s), "MPI_Comm_size");
  return s;
}

void collective(MPI_Comm comm, const std::function<void()>& work) {
  const int me = comm_rank(comm);
  const int ranks = comm_size(comm);
  std::string message;
  int kind = 0;  // 1 InputError, 2 UnsupportedError, 3 any other
  try {
    work();
  } catch (const InputError& e) {
    message = e.what();
    kind = 1;
  } catch (const UnsupportedError& e) {
    message = e.what();
    kind = 2;
  } catch (const std::exception& e) {
    message = e.what();
    kind = 3;
  }
  int first = kind ? me : ranks;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == ranks) return;
  int head[2] = {kind, static_cast<int>(message.size())};
  check_mpi(MPI_Bcast(head, 2, MPI_INT, first, comm), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(head[1]));
  check_mpi(MPI_Bcast(message.data(), head[1], MPI_CHAR, first, comm), "MPI_Bcast");
  const std::string text = "rank " + std::to_string(first) + ": " + message;
  if (head[0] == 1) throw InputError(text);
  if (head[0] == 2) throw UnsupportedError(text);
  throw Error(text);
}

int Partition::owner(index_t i) const {
  const auto it = std::upper_bound(begin.begin() + 1, begin.end(), i);
  return static_cast<int>(it - begin.begin()) - 1;
}

namespace {
// Counts and displacements of a partition, for MPI_Scatterv / MPI_Gatherv.
void counts_of(const Partition& part, std::vector<int>& counts, std::vector<int>& displs) {
  counts.resize(static_cast<std::size_t>(part.ranks()));
  displs.resize(counts.size());
  for (int r = 0; r < part.ranks(); ++r) {
    counts[r] = part.count(r);
    displs[r] = part.begin[r];
  }
}
}  // namespace

template <class V>
std::vector<V> scatter_vector(MPI_Comm comm, const Partition& part, const std::vector<V>& whole) {
  const int me = comm_rank(comm);
  collective(comm, [&] {  // rank 0's size check fails every rank, not rank 0 alone
    if (part.ranks() != comm_size(comm))
      throw InputError("scatter_vector: the partition has " + std::to_string(part.ranks()) +
                       " parts for " + std::to_string(comm_size(comm)) + " ranks");
    if (me == 0 && whole.size() != static_cast<std::size_t>(part.size()))
      throw InputError("scatter_vector: the vector has " + std::to_string(whole.size()) +
                       " entries, the partition " + std::to_string(part.size()));
  });
  std::vector<int> counts, displs;
  counts_of(part, counts, displs);
  std::vector<V> local(static_cast<std::size_t>(part.count(me)));
  check_mpi(MPI_Scatterv(me == 0 ? whole.data() : nullptr, counts.data(), displs.data(),
                         mpi_type<V>(), local.data(), counts[me], mpi_type<V>(), 0, comm),
            "MPI_Scatterv");
  return local;
}

template <class V>
std::vector<V> gather_vector(MPI_Comm comm, const Partition& part, const std::vector<V>& local) {
  const int me = comm_rank(comm);
  collective(comm, [&] {
    if (part.ranks() != comm_size(comm) || local.size() != static_cast<std::size_t>(part.count(me)))
      throw InputError("gather_vector: rank " + std::to_string(me) + " holds " +
                       std::to_string(local.size()) + " entries, its part " +
                       std::to_string(part.ranks() == comm_size(comm) ? part.count(me) : -1));
  });
  std::vector<int> counts, displs;
  counts_of(part, counts, displs);
  std::vector<V> whole(me == 0 ? static_cast<std::size_t>(part.size()) : 0);
  check_mpi(MPI_Gatherv(local.data(), counts[me], mpi_type<V>(), whole.data(), counts.data(),
                        displs.data(), mpi_type<V>(), 0, comm),
            "MPI_Gatherv");
  return whole;
}

template <class V>
double dot(MPI_Comm comm, const std::vector<V>& x, const std::vector<V>& y) {
  double s = 0;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    s += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return s;
}

#define SPMVKIT_DIST_VECTORS(V)                                                              \
  template std::vector<V> scatter_vector<V>(MPI_Comm, const Partition&, const std::vector<V>&); \
  template std::vector<V> gather_vector<V>(MPI_Comm, const Partition&, const std::vector<V>&);  \
  template double dot<V>(MPI_Comm, const std::vector<V>&, const std::vector<V>&);
SPMVKIT_DIST_VECTORS(float)
SPMVKIT_DIST_VECTORS(double)
SPMVKIT_DIST_VECTORS(index_t)

}  // namespace spmvkit::dist
