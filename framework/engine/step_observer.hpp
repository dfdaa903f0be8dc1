// A hook for outputs that need more than the per-step summary: the particle cloud after weighting
// (before any resampling), and the genealogy of every resampling. BootstrapFilter::set_observer
// installs one; the trace file (framework/io/trace_file.hpp) is the observer rsmc ships.
//
// Every call is collective: every rank calls it at the same step with its own block of particles,
// so an observer may do collective I/O.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "framework/particles/particle_store.hpp"
#include "framework/resample/select/selection.hpp"

namespace rsmc {

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // Whether step t's weighted cloud is wanted; the engine copies the particles to the host only then.
  virtual bool wants_cloud(int t) const = 0;
  // This rank's particles after weighting at step t, before resampling: global ids first_id ..
  // first_id + count - 1; state component-major (state[c * count + i] = component c of particle i).
  virtual void cloud(int t, std::uint64_t first_id, std::uint64_t count, int state_dim, const double* state,
                     const double* log_weight) = 0;
  // Step t ended with a resampling. This rank's pre-resampling particles, ids first_id + i, got
  // selection.counts[i] offspring each, and those offspring have the new ids selection.first_id,
  // selection.first_id + 1, ... in ancestor order (renumbering).
  virtual void resampled(int t, std::uint64_t first_id, const Selection& selection) = 0;
};

// Hands the host copy of `store` (this rank's block) to observer.cloud().
template <class MemorySpace>
void report_cloud(StepObserver& observer, int t, const ParticleStore<MemorySpace>& store) {
  const auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.state);  // LayoutLeft
  const auto log_weight = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.log_weight);
  observer.cloud(t, store.first_id, store.size(), store.state_dim(), state.data(), log_weight.data());
}

}  // namespace rsmc
