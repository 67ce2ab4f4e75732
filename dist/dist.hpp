// The distributed layer (DESIGN.md layer 8): a matrix's rows partitioned over the ranks of an
// MPI communicator, each rank's rows split into a local operator (the columns it owns) and a
// halo operator (the ghost columns it receives, compressed numbering). Both are ordinary
// registry operators, so every format works unchanged; the halo exchange runs beside the
// local SpMV. A distributed vector is each rank's Vector<V> of its owned entries; the solvers
// run unchanged on it, their dot products summed over the ranks by Operator::reduce_sum.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spmvkit/csr.hpp"
#include "spmvkit/error.hpp"
#include "spmvkit/operator.hpp"
#include "spmvkit/params.hpp"
#include "spmvkit/vector.hpp"

namespace spmvkit::dist {

// An MPI or NCCL failure: the call and the library's own status text.
class CommError : public Error {
 public:
  using Error::Error;
};

// Throws CommError("call: <MPI_Error_string text>") when rc is not MPI_SUCCESS.
void check_mpi(int rc, const char* call);
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Runs `work` on every rank, then agrees: when it threw on any rank, every rank throws the
// lowest failing rank's error ("rank R: message"), the same type class (InputError,
// UnsupportedError, else Error). So a rank that fails alone never leaves the others waiting
// in a later collective.
void collective(MPI_Comm comm, const std::function<void()>& work);

// Contiguous blocks of rows (or columns): rank r holds [begin[r], begin[r+1]).
struct Partition {
  std::vector<index_t> begin{0};
  int ranks() const { return static_cast<int>(begin.size()) - 1; }
  index_t size() const { return begin.back(); }
  index_t count(int r) const { return begin[r + 1] - begin[r]; }
  int owner(index_t i) const;  // the rank holding index i (0 <= i < size())
};
Partition partition_even(index_t n, int ranks);
// Blocks balanced by nonzeros (each rank about nnz/ranks, a row counted as nnz + 1 so empty
// rows spread too), from the row pointer.
Partition partition_by_nnz(const std::vector<index_t>& row_ptr, int ranks);
// The same partition when no rank holds the row pointer of the whole matrix: `slice` (any
// contiguous split, its bounds multiples of `unit`) gives each rank some rows, and each rank
// passes their lengths. Cuts fall at multiples of `unit` rows (a generator's block row; with
// unit 1 the result is partition_by_nnz of the whole row pointer, exactly). One prefix scan
// and one reduction of ranks - 1 cuts; collective.
Partition partition_by_nnz(MPI_Comm comm, const Partition& slice,
                           const std::vector<index_t>& lengths, index_t unit = 1);

// METIS (k-way, on the symmetrised pattern) for irregular square matrices: the ranks' parts
// made contiguous by renumbering. perm[new] = old; the matrix to distribute is
// P A P^T, vectors are permuted the same way (permute / unpermute below).
struct Reordering {
  std::vector<index_t> perm;
  Partition part;
};
bool metis_compiled();
Reordering partition_metis(const Csr<double>& a, int ranks);
Csr<double> permute_symmetric(const Csr<double>& a, const std::vector<index_t>& perm);
template <class V>
std::vector<V> permute(const std::vector<V>& v, const std::vector<index_t>& perm);  // v[perm]
template <class V>
std::vector<V> unpermute(const std::vector<V>& v, const std::vector<index_t>& perm);

// One rank's rows of a distributed matrix: `rows` has rows.count(me) rows and the global
// column count, with global column indices; x is split by `cols`, y by `row_part`.
template <class V>
struct LocalRows {
  Csr<V> rows;
  Partition row_part, col_part;
};

// Rank 0 holds `whole` (other ranks pass nullptr); each rank receives its rows. The
// partitions must cover the matrix.
template <class V>
LocalRows<V> scatter_rows(MPI_Comm comm, const Csr<V>* whole, const Partition& row_part,
                          const Partition& col_part);

enum class PartitionMethod { nnz, metis };
// Loads a matrix by name (spmvkit::load_matrix: a file, a bundled name, a generator) for a
// distributed run. Generated matrices (generate_rows_by_name) are made row range by row
// range, each rank its own rows, the ranges balanced by nonzeros from the generator's row
// lengths alone; anything else is read by rank 0 and scattered (partitioned by nonzeros, or
// by METIS: then `perm` is the renumbering, else empty). A failure on rank 0 (a bad file)
// throws on every rank.
struct Loaded {
  LocalRows<double> local;
  std::vector<index_t> perm;
  std::int64_t global_nnz = 0;
};
Loaded load_distributed(MPI_Comm comm, const std::string& name, PartitionMethod method);

// Vectors: the whole vector lives on rank 0 only (scatter's input, gather's output).
template <class V>
std::vector<V> scatter_vector(MPI_Comm comm, const Partition& part, const std::vector<V>& whole);
template <class V>
std::vector<V> gather_vector(MPI_Comm comm, const Partition& part, const std::vector<V>& local);
// Sum over ranks of the local dot product (MPI_Allreduce), accumulated in double.
template <class V>
double dot(MPI_Comm comm, const std::vector<V>& x, const std::vector<V>& y);

enum class Transport { mpi, nccl };
Transport parse_transport(const std::string& name);  // "mpi" | "nccl"; InputError
bool nccl_compiled();
// CUDA devices this process sees (0 without the CUDA build or a GPU). NCCL needs a GPU a
// rank: on one host, ranks <= visible_gpus() (select_device gives each its own).
int visible_gpus();

// What the halo exchange moves on this rank.
struct HaloInfo {
  index_t ghosts = 0;       // ghost columns received each apply
  index_t sent = 0;         // owned values sent each apply
  int neighbours = 0;       // ranks it exchanges with
  std::int64_t local_nnz = 0, halo_nnz = 0;
  index_t halo_rows = 0;    // rows the halo operator passes over (only those reading ghosts
                            // when they are at most half of the rank's rows)
};

template <class V>
class DistOperator;

// Builds this rank's part of the distributed operator: `format` (a registry name) with
// `params` for both the local and the halo operator, on backend b. Collective; a format that
// refuses one rank's part fails every rank. rows() and cols() are the local row count and the
// owned column count, so the solvers see a square operator when the partitions agree.
template <class V>
std::unique_ptr<DistOperator<V>> build_distributed(MPI_Comm comm, const LocalRows<V>& local,
                                                   const std::string& format,
                                                   const Params& params = {},
                                                   Backend b = Backend::cpu,
                                                   Transport t = Transport::mpi);

template <class V>
class DistOperator final : public Operator<V> {
 public:
  struct Impl;
  DistOperator(OperatorInfo info, std::unique_ptr<Impl> impl);
  ~DistOperator() override;
  // z = alpha*A*x + beta*y on this rank's rows; x holds the owned columns. Collective.
  void apply(const V* x, const V* y, V* z, V alpha, V beta) const override;
  bool reduce_sum(double* partial, int count) const override;
  // Several ranks over NCCL: ncclAllReduce on the context stream (no host wait).
  bool reduce_sum_device(double* partial, int count) const override;
  // The global index of this rank's first row (the row partition's offset).
  std::int64_t first_row() const override;
  const HaloInfo& halo() const;
  // Overlap (the default): the halo values travel while the local part is computed. Off:
  // the exchange completes first, then the local and halo parts run (the comparison the
  // scaling runs make; the result is the same).
  void set_overlap(bool on);
  bool overlap() const;
  MPI_Comm comm() const;
  Transport transport() const;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace spmvkit::dist
