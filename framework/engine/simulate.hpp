// Simulates a ground-truth trajectory x_0..x_T and observations y_1..y_T from a model.
//
// Draws use the OBSERVE purpose so they never coincide with a filter's own streams: the truth's
// transitions and initial state use global id 0, its observation noise global id 1. The result is
// a pure function of (model, steps, seed); steps < 1 and seeds of 2^56 or more are FieldErrors.
// Runs as a one-thread kernel so that the model's parameters may live in device memory.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "base/core/error.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/model/observations.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/counter_stream.hpp"

namespace rsmc {

struct Simulation {
  int state_dim = 0;
  std::vector<double> states;  // x_0..x_T, (T + 1) x d row-major
  Observations observations;   // y_1..y_T
};

template <class Model, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
Simulation simulate(const Model& model, long long step_count, std::uint64_t seed) {
  static_assert(check_model<Model>(), "simulate<Model>: Model is not a model (see the messages above)");
  check_step_count(step_count);
  check_seed(seed);
  const int steps = static_cast<int>(step_count);
  using Memory = typename ExecutionSpace::memory_space;
  const int d = model.state_dim(), m = model.obs_dim();
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> x("rsmc::truth", steps + 1, d);
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> y("rsmc::observations", steps, m);
  Kokkos::parallel_for(
      "rsmc::simulate", Kokkos::RangePolicy<ExecutionSpace>(0, 1), KOKKOS_LAMBDA(const int) {
        rng::ModelStream init(seed, rng::Purpose::observe, 0, 0);
        model.initial(StateView{&x(0, 0), 1}, init);
        for (int t = 1; t <= steps; ++t) {
          const auto step = static_cast<std::uint32_t>(t);
          rng::ModelStream state_noise(seed, rng::Purpose::observe, step, 0);
          model.transition(ConstStateView{&x(t - 1, 0), 1}, StateView{&x(t, 0), 1}, t, state_noise);
          rng::ModelStream obs_noise(seed, rng::Purpose::observe, step, 1);
          model.simulate_observation(ConstStateView{&x(t, 0), 1}, ObservationOut{&y(t - 1, 0), 1}, t, obs_noise);
        }
      });
  auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  Simulation sim;
  sim.state_dim = d;
  sim.states.assign(xh.data(), xh.data() + xh.size());
  sim.observations.steps = steps;
  sim.observations.dim = m;
  sim.observations.values.assign(yh.data(), yh.data() + yh.size());
  return sim;
}

}  // namespace rsmc
