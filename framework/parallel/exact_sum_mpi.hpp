// Reproducible MPI reduction of exact sums (see exact_sum.hpp and the reproducibility contract in
// docs/reproducibility.md).
#pragma once

#include "framework/parallel/mpi.hpp"
#include "base/exact/exact_sum.hpp"

namespace rsmc {
namespace exact {

// In place: sums[i] becomes the exact sum of sums[i] over all ranks of comm, for i in [0, count).
// Collective over comm. On return every rank holds the same, normalised (hence canonical) bytes,
// whatever the number of ranks and the reduction order MPI chooses, so sums[i].to_double() is
// bitwise identical everywhere. The inputs are normalised before sending.
//
// The MPI datatype and the commutative user-defined MPI_Op are created on the first call and freed
// automatically in MPI_Finalize (through a delete callback of an attribute cached on MPI_COMM_SELF,
// which the standard runs first thing in MPI_Finalize). Thread-safe creation; the reduction itself
// follows the thread level MPI was initialised with.
//
// Throws std::invalid_argument for count < 0 or a null pointer with count > 0, and
// std::runtime_error when an MPI call returns an error (only under a non-fatal error handler).
void allreduce_exact(ExactSum* sums, int count, MPI_Comm comm);

}  // namespace exact
}  // namespace rsmc
