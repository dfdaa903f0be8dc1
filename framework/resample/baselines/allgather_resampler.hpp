// Baseline resampler: the roulette paper's naive approach 1 (Nemeth et al., ICCS 2018, sec. 2.1).
//
// Every rank gathers all N log-weights, builds the cumulative sum in global id order, and computes
// the ancestor of every offspring with systematic resampling (one uniform per step from the
// RESAMPLE stream of particle 0). Each rank then sends the states its particles contribute to the
// ranks that own the offspring (MPI_Alltoallv: any-to-any traffic, O(N) work and memory per rank).
//
// Because the cumulative sum is always formed over the same global sequence in the same order,
// the ancestors are identical for any number of ranks. It stays in the code for good as the
// baseline that the distributed roulette resampler (framework/resample) is measured against.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "framework/parallel/mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/resample_stats.hpp"

namespace rsmc {

// Systematic ancestors a_0 <= a_1 <= ... <= a_{N-1} of all N offspring from the log-weights of all
// N particles (global id order), with weights exp(log_weight - shift) (shift >= every log-weight: the
// filter's step shift). Zero-weight particles are never chosen. Host-side, O(N).
std::vector<std::uint64_t> systematic_ancestors(const std::vector<double>& log_weights, double shift, double uniform);

// Moves states so that local particle i afterwards holds the state of its ancestor
// (offspring id = first_id + i). The communication plan depends only on `ancestors`, which every
// rank holds in full. Host buffers; states of a device memory space are staged through the host.
ResampleStats exchange_ancestor_states(MPI_Comm comm, const BlockDistribution& dist,
                                       const std::vector<std::uint64_t>& ancestors,
                                       const Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& from,
                                       const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& to);

// Gathers all log-weights to every rank (global id order).
std::vector<double> allgather_log_weights(MPI_Comm comm, const BlockDistribution& dist,
                                          const Kokkos::View<const double*, Kokkos::HostSpace>& local);

// Moves this rank's states to `to` given every offspring's ancestor, on host buffers: the signature
// of exchange_ancestor_states and of fetch_ancestor_states (gather_root_resampler.hpp).
using HostStateExchange =
    ResampleStats (*)(MPI_Comm comm, const BlockDistribution& dist, const std::vector<std::uint64_t>& ancestors,
                      const Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& from,
                      const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& to);

// One resampling step of a host-side baseline, for a store in any memory space: copies the
// log-weights to the host, draws the ancestors with draw_ancestors(host log-weights) (a
// std::vector<std::uint64_t>, as `exchange` expects them), stages the states through host mirrors
// for `exchange`, copies the result back into the store, swaps it in and resets the log-weights to
// 0. Returns what `exchange` returns.
template <class MemorySpace, class DrawAncestors>
ResampleStats resample_through_host(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                                    const DrawAncestors& draw_ancestors, HostStateExchange exchange) {
  auto log_weight = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.log_weight);
  const std::vector<std::uint64_t> ancestors = draw_ancestors(log_weight);
  auto from = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.state);
  auto to = Kokkos::create_mirror_view(Kokkos::HostSpace(), store.scratch);
  const ResampleStats stats = exchange(comm, dist, ancestors, from, to);
  Kokkos::deep_copy(store.scratch, to);
  store.swap_state();
  Kokkos::deep_copy(store.log_weight, 0.0);
  return stats;
}

template <class MemorySpace>
ResampleStats resample_allgather(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                                 double shift, double uniform) {
  const auto draw_ancestors = [&](const Kokkos::View<const double*, Kokkos::HostSpace>& log_weight) {
    return systematic_ancestors(allgather_log_weights(comm, dist, log_weight), shift, uniform);
  };
  return resample_through_host(comm, dist, store, draw_ancestors, &exchange_ancestor_states);
}

}  // namespace rsmc
