// What one resampling cost in communication, as every resampler reports it (totals over all ranks,
// identical on every rank).
#pragma once

#include <cstdint>

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

}  // namespace rsmc
