// Buffers the roulette resampler keeps between calls, so that a filter resampling every step does
// not allocate (and page-fault in) fresh arrays of N entries each time: at N = 10^7 the fresh
// allocations cost about a quarter of a resampling. Every buffer only grows (base/core/reserve.hpp);
// none carries a value from one call to the next. The step's weights reach the resampler in its
// request (RouletteRequest::weights, shifted_weights.hpp), not here.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "framework/resample/select/parallel_selection.hpp"
#include "framework/resample/rebalance/rebalance_transport.hpp"

namespace rsmc {

template <class MemorySpace>
struct ResampleWorkspace {
  Kokkos::View<std::uint64_t*, MemorySpace> fixed;     // fixed-point weights (device side)
  std::vector<std::uint64_t> fixed_host;               // the same on the host (the selection's input)
  std::vector<std::uint64_t> counts;                   // offspring per particle (Selection::counts)
  Kokkos::View<std::uint64_t*, MemorySpace> ancestor;  // ancestor of every held offspring
  Kokkos::View<double*, MemorySpace> send_buffer;      // outgoing particles, all messages
  Kokkos::View<double*, MemorySpace> receive_buffer;   // incoming particles, all messages
  // Their host copies where MPI cannot read MemorySpace (rebalance_transport.hpp; else empty).
  Kokkos::View<double*, PinnedHostSpace> send_staging, receive_staging;
  // The data-parallel selection's buffers (its ancestors become `ancestor` above).
  ParallelSelectionWorkspace<typename MemorySpace::execution_space> selection;
};

}  // namespace rsmc
