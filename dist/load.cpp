// Loading a distributed matrix: rank 0 reads and scatters (each rank receives only its rows),
// or each rank generates its own rows of a generated matrix, so no rank holds one whole.
#include <string>

#include "dist/dist.hpp"
#include "dist/mpi_types.hpp"
#include "spmvkit/generators.hpp"

namespace spmvkit::dist {

template <class V>
LocalRows<V> scatter_rows(MPI_Comm comm, const Csr<V>* whole, const Partition& row_part,
                          const Partition& col_part) {
  const int me = comm_rank(comm);
  const int ranks = comm_size(comm);
  collective(comm, [&] {
    if (row_part.ranks() != ranks || col_part.ranks() != ranks)
      throw InputError("scatter_rows: the partitions must have one part per rank (" +
                       std::to_string(ranks) + ")");
    if (me == 0 &&
        (whole == nullptr || whole->rows != row_part.size() || whole->cols != col_part.size()))
      throw InputError("scatter_rows: rank 0 must hold the " + std::to_string(row_part.size()) +
                       " x " + std::to_string(col_part.size()) + " matrix the partitions cover");
  });
  LocalRows<V> out;
  out.row_part = row_part;
  out.col_part = col_part;
  Csr<V>& a = out.rows;
  a.rows = row_part.count(me);
  a.cols = col_part.size();
  // Row lengths by the row partition, then entries by each rank's nonzero range.
  std::vector<index_t> lengths;
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(counts.size());
  if (me == 0) {
    lengths.resize(static_cast<std::size_t>(whole->rows));
    for (index_t i = 0; i < whole->rows; ++i) lengths[i] = whole->row_length(i);
    for (int r = 0; r < ranks; ++r) {
      displs[r] = whole->row_ptr[row_part.begin[r]];
      counts[r] = whole->row_ptr[row_part.begin[r + 1]] - displs[r];
    }
  }
  const std::vector<index_t> mine = scatter_vector(comm, row_part, lengths);
  a.row_ptr.assign(mine.size() + 1, 0);
  for (std::size_t i = 0; i < mine.size(); ++i) a.row_ptr[i + 1] = a.row_ptr[i] + mine[i];
  a.col_idx.resize(static_cast<std::size_t>(a.row_ptr.back()));
  a.values.resize(a.col_idx.size());
  const int n = static_cast<int>(a.col_idx.size());
  check_mpi(MPI_Scatterv(me == 0 ? whole->col_idx.data() : nullptr, counts.data(), displs.data(),
                         mpi_type<index_t>(), a.col_idx.data(), n, mpi_type<index_t>(), 0, comm),
            "MPI_Scatterv");
  check_mpi(MPI_Scatterv(me == 0 ? whole->values.data() : nullptr, counts.data(), displs.data(),
                         mpi_type<V>(), a.values.data(), n, mpi_type<V>(), 0, comm),
            "MPI_Scatterv");
  return out;
}

template LocalRows<float> scatter_rows<float>(MPI_Comm, const Csr<float>*, const Partition&,
                                              const Partition&);
template LocalRows<double> scatter_rows<double>(MPI_Comm, const Csr<double>*, const Partition&,
                                                const Partition&);

Loaded load_distributed(MPI_Comm comm, const std::string& name, PartitionMethod method) {
  const int me = comm_rank(comm);
  const int ranks = comm_size(comm);
  Loaded out;
  // Generated row by row where the generator can (every rank parses the name: a bad one fails
  // on every rank alike), in whole block rows (row_unit rows each), balanced by nonzeros.
  Csr<double> none;
  index_t global_rows = 0, row_unit = 1;
  bool by_rows = false;
  collective(comm, [&] {
    by_rows = method == PartitionMethod::nnz &&
              generate_rows_by_name(name, 0, -1, none, global_rows, &row_unit);
  });
  if (by_rows) {
    // Each rank weighs an even share of the block rows by their lengths alone (no entries
    // made), then the ranks agree on cuts balanced by nonzeros: a power-law matrix's long rows
    // do not pile up on one rank.
    Partition slice = partition_even(global_rows / row_unit, ranks);
    for (index_t& b : slice.begin) b *= row_unit;
    std::vector<index_t> lengths;
    collective(comm, [&] {
      generate_row_lengths_by_name(name, slice.begin[me], slice.begin[me + 1], lengths);
    });
    const Partition p = partition_by_nnz(comm, slice, lengths, row_unit);
    lengths = {};
    collective(comm, [&] {
      generate_rows_by_name(name, p.begin[me], p.begin[me + 1], out.local.rows, global_rows);
    });
    const index_t cols = out.local.rows.cols;
    out.local.row_part = p;
    out.local.col_part = cols == global_rows ? p : partition_even(cols, ranks);
    std::int64_t nnz = out.local.rows.nnz();
    check_mpi(MPI_Allreduce(&nnz, &out.global_nnz, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
    return out;
  }
  // Rank 0 reads (or generates) the whole matrix and partitions it; a failure there fails all.
  Csr<double> whole;
  Partition rows_part, cols_part;
  index_t dims[2] = {0, 0};
  collective(comm, [&] {
    if (me != 0) return;
    whole = load_matrix(name);
    if (method == PartitionMethod::metis) {
      Reordering ro = partition_metis(whole, ranks);
      whole = permute_symmetric(whole, ro.perm);
      out.perm = std::move(ro.perm);
      rows_part = cols_part = ro.part;
    } else {
      rows_part = partition_by_nnz(whole.row_ptr, ranks);
      cols_part = whole.rows == whole.cols ? rows_part : partition_even(whole.cols, ranks);
    }
    dims[0] = whole.rows;
    dims[1] = whole.cols;
  });
  check_mpi(MPI_Bcast(dims, 2, mpi_type<index_t>(), 0, comm), "MPI_Bcast");
  rows_part.begin.resize(static_cast<std::size_t>(ranks) + 1);
  cols_part.begin.resize(rows_part.begin.size());
  check_mpi(MPI_Bcast(rows_part.begin.data(), ranks + 1, mpi_type<index_t>(), 0, comm),
            "MPI_Bcast");
  check_mpi(MPI_Bcast(cols_part.begin.data(), ranks + 1, mpi_type<index_t>(), 0, comm),
            "MPI_Bcast");
  if (method == PartitionMethod::metis) {
    out.perm.resize(static_cast<std::size_t>(dims[0]));
    check_mpi(MPI_Bcast(out.perm.data(), dims[0], mpi_type<index_t>(), 0, comm), "MPI_Bcast");
  }
  out.global_nnz = whole.nnz();
  check_mpi(MPI_Bcast(&out.global_nnz, 1, MPI_INT64_T, 0, comm), "MPI_Bcast");
  out.local = scatter_rows(comm, me == 0 ? &whole : nullptr, rows_part, cols_part);
  return out;
}

}  // namespace spmvkit::dist
