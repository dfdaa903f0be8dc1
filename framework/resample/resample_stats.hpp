// What one resampling cost in communication, as every resampler reports it (totals over all ranks,
// identical on every rank).
#pragma once

#include <cstdint>

#include "framework/parallel/mpi.hpp"

namespace rsmc {

struct ResampleStats {
  std::uint64_t particles_moved = 0;  // offspring whose state was sent to another rank
  std::uint64_t bytes_moved = 0;      // particle-state bytes sent between ranks
  std::uint64_t messages = 0;         // point-to-point messages carrying particles
  std::uint64_t max_partners = 0;     // most distinct ranks one rank exchanged particles with
  // Lower bound for ANY rebalancing to the new layout's counts: sum over ranks of the offspring a
  // rank holds beyond its new count (max(0, c_k - n_k); n_k the block count when tau = 0).
  // Renumbered, order-preserving rebalancing to the block distribution can exceed it when
  // imbalances accumulate over several ranks (a shift passes through the chain); a layout with
  // tau > 0 has other counts, so its moves may fall below the block layout's bound.
  std::uint64_t minimum_moves = 0;
};

// The stats of one resampling over all ranks (collective), from this rank's share: the particles it
// sent, its messages, its part of the minimum moves, and its partners (of which the maximum over
// ranks is kept); d doubles per particle.
inline ResampleStats resample_stats_over_ranks(MPI_Comm comm, std::uint64_t particles_sent, std::uint64_t messages,
                                               std::uint64_t minimum_moves, std::uint64_t partners, int d) {
  std::uint64_t sums[3] = {particles_sent, messages, minimum_moves};
  MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &partners, 1, MPI_UINT64_T, MPI_MAX, comm);
  ResampleStats stats;
  stats.particles_moved = sums[0];
  stats.messages = sums[1];
  stats.minimum_moves = sums[2];
  stats.bytes_moved = stats.particles_moved * static_cast<std::uint64_t>(d) * sizeof(double);
  stats.max_partners = partners;
  return stats;
}

}  // namespace rsmc
