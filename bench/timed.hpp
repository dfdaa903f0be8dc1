// Timing one phase of a benchmark across ranks: all ranks start together after a barrier, the
// device work is fenced, and the phase takes as long as its slowest rank.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <Kokkos_Core.hpp>

namespace rsmc::bench {

// Seconds `work` took on the slowest rank of `comm`. Collective.
template <class Work>
double timed(MPI_Comm comm, Work&& work) {
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  work();
  Kokkos::fence();
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

}  // namespace rsmc::bench
