// Baseline resampler: everything through rank 0 (what LibBi and ParticleDA.jl do).
//
// Rank 0 gathers all N log-weights, draws the systematic ancestors of all offspring (the same rule
// as the all-gather baseline), and scatters to every rank the ancestors of its block of offspring.
// Each rank then fetches its ancestors' states from their owners (counts, ids and states through
// MPI_Alltoall / MPI_Alltoallv). O(N) work and memory on rank 0; kept as a benchmark baseline.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "framework/parallel/mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/baselines/allgather_resampler.hpp"
#include "framework/resample/resample_stats.hpp"

namespace rsmc {

// The ancestors (global ids) of this rank's offspring, drawn on rank 0 and scattered.
std::vector<std::uint64_t> gather_root_ancestors(MPI_Comm comm, const BlockDistribution& dist,
                                                 const Kokkos::View<const double*, Kokkos::HostSpace>& log_weight,
                                                 double shift, double uniform);

// Fills `to` (this rank's block of offspring) with the states of `ancestors`, fetched from their owners.
ResampleStats fetch_ancestor_states(MPI_Comm comm, const BlockDistribution& dist,
                                    const std::vector<std::uint64_t>& ancestors,
                                    const Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& from,
                                    const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& to);

template <class MemorySpace>
ResampleStats resample_gather_root(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                                   double shift, double uniform) {
  const auto draw_ancestors = [&](const Kokkos::View<const double*, Kokkos::HostSpace>& log_weight) {
    return gather_root_ancestors(comm, dist, log_weight, shift, uniform);
  };
  return resample_through_host(comm, dist, store, draw_ancestors, &fetch_ancestor_states);
}

}  // namespace rsmc
