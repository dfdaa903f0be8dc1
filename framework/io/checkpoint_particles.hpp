// Between a rank's particles (ParticleStore, in any Kokkos memory space) and its block of a
// checkpoint (CheckpointBlock: host memory, component-major, framework/io/checkpoint_file.hpp): the
// copies a checkpoint write starts with and a restart ends with.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "base/core/error.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/particles/particle_store.hpp"

namespace rsmc {

// This rank's particles as a checkpoint block (global ids store.first_id ..).
template <class MemorySpace>
CheckpointBlock checkpoint_block(const ParticleStore<MemorySpace>& store) {
  // LayoutLeft: the host copy of the state is already component-major.
  auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.state);
  auto log_weight = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.log_weight);
  CheckpointBlock block;
  block.first_id = store.first_id;
  block.count = store.size();
  block.state.assign(state.data(), state.data() + block.count * store.state_dim());
  block.log_weight.assign(log_weight.data(), log_weight.data() + block.count);
  return block;
}

// Copies a block read for exactly this rank's ids (read_checkpoint_block with store.first_id and
// store.size()) into the store.
template <class MemorySpace>
void load_checkpoint_block(const CheckpointBlock& block, ParticleStore<MemorySpace>& store) {
  const int d = store.state_dim();
  if (block.first_id != store.first_id || block.count != store.size() ||
      block.state.size() != block.count * static_cast<std::uint64_t>(d) || block.log_weight.size() != block.count)
    throw Error("internal error: a checkpoint block of ids " + std::to_string(block.first_id) + " + " +
                std::to_string(block.count) + " does not fit the particles of ids " + std::to_string(store.first_id) +
                " + " + std::to_string(store.size()));
  auto state = Kokkos::create_mirror_view(store.state);
  auto log_weight = Kokkos::create_mirror_view(store.log_weight);
  for (std::uint64_t i = 0; i < block.count; ++i) {
    for (int c = 0; c < d; ++c) state(i, c) = block.state[c * block.count + i];
    log_weight(i) = block.log_weight[i];
  }
  Kokkos::deep_copy(store.state, state);
  Kokkos::deep_copy(store.log_weight, log_weight);
}

}  // namespace rsmc
