// Buffers the roulette resampler keeps between calls, so that a filter resampling every step does
// not allocate (and page-fault in) fresh arrays of N entries each time: at N = 10^7 the fresh
// allocations cost about a quarter of a resampling. Every buffer only grows (capacity is kept).
//
// exp_weight is an input, not a buffer: the caller may set it to exp(log_weight - max_log_weight)
// (rsmc::math::exp) for every local particle with a finite log-weight, when it has computed those
// already (the filter's weight-sum pass does); the fixed-point weights are then computed without a
// second exp, in a vectorised loop, with the same bits (selection_kernels::fixed_weights_from_exps).
// Empty: the resampler computes the exps itself.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/resample/select/parallel_selection.hpp"
#include "framework/resample/rebalance/rebalance_transport.hpp"

namespace rsmc {

template <class MemorySpace>
struct ResampleWorkspace {
  Kokkos::View<const double*, MemorySpace> exp_weight;  // optional input, see above
  Kokkos::View<std::uint64_t*, MemorySpace> fixed;      // fixed-point weights (device side)
  std::vector<std::uint64_t> fixed_host;                // the same on the host (the selection's input)
  std::vector<std::uint64_t> counts;                    // offspring per particle (Selection::counts)
  Kokkos::View<std::uint64_t*, MemorySpace> ancestor;   // ancestor of every held offspring
  Kokkos::View<double*, MemorySpace> send_buffer;       // outgoing particles, all messages
  Kokkos::View<double*, MemorySpace> receive_buffer;    // incoming particles, all messages
  // Their host copies where MPI cannot read MemorySpace (rebalance_transport.hpp; else empty).
  Kokkos::View<double*, PinnedHostSpace> send_staging, receive_staging;
  // The data-parallel selection's buffers (its ancestors become `ancestor` above).
  ParallelSelectionWorkspace<typename MemorySpace::execution_space> selection;

  // `view` with room for at least n entries (reallocated, uninitialised, only when too small).
  template <class View>
  static void reserve(View& view, std::size_t n, const char* label) {
    if (view.extent(0) < n) view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  }
};

}  // namespace rsmc
