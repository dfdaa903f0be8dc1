// The particles one rank holds: a structure of arrays in a Kokkos memory space.
//
// state(i, c) is component c of local particle i; with LayoutLeft a component is contiguous over
// particles (coalesced on GPUs, vectorisable on CPUs). Local particle i has global id first_id + i:
// between steps every rank holds one contiguous range of ids, its range in the current Layout
// (framework/particles/layout.hpp: the block distribution, or after a resampling with a load
// tolerance the range the rebalancer chose), so ids need no storage.
// `scratch` is a second state buffer of the same shape: transitions write into it and the two swap,
// so models never need temporary arrays, and resampling reuses it as its destination.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <utility>

#include "framework/model/state_view.hpp"

namespace rsmc {

template <class MemorySpace>
struct ParticleStore {
  using memory_space = MemorySpace;
  using StateArray = Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace>;
  using WeightArray = Kokkos::View<double*, MemorySpace>;

  StateArray state;                // local particles x state dimension
  StateArray scratch;              // same shape; see above
  WeightArray log_weight;          // unnormalised log-weights
  WeightArray scratch_log_weight;  // same shape: weighting writes here and the two swap, so a step
                                   // whose weights all vanish can be undone
  std::uint64_t first_id = 0;

  ParticleStore() = default;
  ParticleStore(std::uint64_t local_count, int state_dim, std::uint64_t first_global_id)
      : state(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::state"), local_count, state_dim),
        scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::state_scratch"), local_count, state_dim),
        log_weight("rsmc::log_weight", local_count),
        scratch_log_weight(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::log_weight_scratch"), local_count),
        first_id(first_global_id) {}

  std::uint64_t size() const { return state.extent(0); }
  int state_dim() const { return static_cast<int>(state.extent(1)); }
  void swap_state() { std::swap(state, scratch); }
  void swap_log_weight() { std::swap(log_weight, scratch_log_weight); }
};

// One particle's state inside a kernel, as the model API sees it.
template <class View>
KOKKOS_INLINE_FUNCTION StateView particle_state(const View& state, std::size_t i) {
  return StateView{&state(i, 0), static_cast<std::ptrdiff_t>(state.stride(1))};
}
template <class View>
KOKKOS_INLINE_FUNCTION ConstStateView particle_state_const(const View& state, std::size_t i) {
  return ConstStateView{&state(i, 0), static_cast<std::ptrdiff_t>(state.stride(1))};
}

}  // namespace rsmc
