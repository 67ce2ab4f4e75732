// The MPI datatype of a C++ value or index type.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace spmvkit::dist {

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
inline MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <>
inline MPI_Datatype mpi_type<std::int32_t>() { return MPI_INT32_T; }
template <>
inline MPI_Datatype mpi_type<std::int64_t>() { return MPI_INT64_T; }

}  // namespace spmvkit::dist
