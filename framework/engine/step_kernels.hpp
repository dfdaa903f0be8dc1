// The data-parallel kernels of one filter step: each is one Kokkos kernel over a rank's particles in
// ExecutionSpace, a free function of views, a model and plain values. BootstrapFilter
// (bootstrap_filter.hpp) calls them in order and does the MPI between them.
//
// Free functions rather than members of BootstrapFilter for two reasons: nvcc refuses extended
// (__host__ __device__) lambdas inside private member functions, and a phase that is a function of
// its inputs alone can be read, tested and timed on its own. Device code here uses no
// std::numeric_limits (its members are host-only constexpr functions to nvcc unless
// --expt-relaxed-constexpr is given): HUGE_VAL is +inf and DBL_MAX the largest finite double.
#pragma once

#include <Kokkos_Core.hpp>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/exact/exact_reduce.hpp"
#include "base/math/math.hpp"
#include "base/rng/stream.hpp"
#include "framework/model/state_view.hpp"
#include "framework/particles/particle_store.hpp"

namespace rsmc::step_kernels {

template <class ExecutionSpace>
using Particles = Kokkos::RangePolicy<ExecutionSpace>;

// x_0 ~ model.initial for each particle, with the INITIALISE stream of (global id first + i).
template <class ExecutionSpace, class Model, class StateView>
void initialise_states(const Model& model, const StateView& state, std::uint64_t first, std::uint64_t seed) {
  Kokkos::parallel_for(
      "rsmc::initialise", Particles<ExecutionSpace>(0, state.extent(0)), KOKKOS_LAMBDA(const std::size_t i) {
        rng::Stream stream(seed, rng::Purpose::initialise, 0, first + i);
        model.initial(particle_state(state, i), stream);
      });
}

// to_i ~ model.transition(from_i) at step t, with the PROPAGATE stream of (step t, global id first + i).
template <class ExecutionSpace, class Model, class StateView>
void propagate_states(const Model& model, const StateView& from, const StateView& to, int t, std::uint64_t first,
                      std::uint64_t seed) {
  const auto step = static_cast<std::uint32_t>(t);
  Kokkos::parallel_for(
      "rsmc::propagate", Particles<ExecutionSpace>(0, from.extent(0)), KOKKOS_LAMBDA(const std::size_t i) {
        rng::Stream stream(seed, rng::Purpose::propagate, step, first + i);
        model.transition(particle_state_const(from, i), particle_state(to, i), t, stream);
      });
}

// What weighting found on this rank: how many log-likelihoods were NaN or +inf, and the largest new
// log-weight (-DBL_MAX when there is none above it: Kokkos::Max starts from the lowest finite double).
struct WeightingOutcome {
  std::uint64_t invalid = 0;
  double local_max = -HUGE_VAL;
};

// next_i = log_weight_i + log p(y_t | x_i); a NaN or +inf log-likelihood is counted, and gives
// next_i = -inf when zero_weight (otherwise the caller fails the step).
template <class ExecutionSpace, class Model, class StateView, class WeightView, class ObservationDeviceView>
WeightingOutcome weight_particles(const Model& model, const StateView& state, const ObservationDeviceView& y,
                                  const WeightView& log_weight, const WeightView& next_log_weight, bool zero_weight,
                                  int t) {
  WeightingOutcome out;
  Kokkos::parallel_reduce(
      "rsmc::weight", Particles<ExecutionSpace>(0, state.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& count, double& m) {
        const double ll = model.log_likelihood(particle_state_const(state, i), ObservationView{y.data(), 1}, t);
        const bool bad = !(ll < HUGE_VAL);  // NaN or +inf
        if (bad) ++count;
        const double lw = bad && zero_weight ? -HUGE_VAL : log_weight(i) + ll;
        next_log_weight(i) = lw;
        if (lw > m) m = lw;
      },
      Kokkos::Sum<std::uint64_t>(out.invalid), Kokkos::Max<double>(out.local_max));
  return out;
}

// The lowest global id (first + i) whose log-weight is NaN or +inf; the largest uint64 when none is.
template <class ExecutionSpace, class WeightView>
std::uint64_t lowest_invalid_id(const WeightView& log_weight, std::uint64_t first) {
  std::uint64_t lowest = ~std::uint64_t{0};
  Kokkos::parallel_reduce(
      "rsmc::lowest_invalid_id", Particles<ExecutionSpace>(0, log_weight.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& low) {
        if (!(log_weight(i) < HUGE_VAL) && first + i < low) low = first + i;
      },
      Kokkos::Min<std::uint64_t>(lowest));
  return lowest;
}

// The largest log-weight of this rank (-DBL_MAX when all are -inf or there are none).
template <class ExecutionSpace, class WeightView>
double max_log_weight(const WeightView& log_weight) {
  double max_lw = -HUGE_VAL;
  Kokkos::parallel_reduce(
      "rsmc::max_log_weight", Particles<ExecutionSpace>(0, log_weight.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, double& m) {
        if (log_weight(i) > m) m = log_weight(i);
      },
      Kokkos::Max<double>(max_lw));
  return max_lw;
}

// Pass 1 of the moments, exact: sums[0] = sum w, sums[1] = sum w^2, sums[2 + c] = sum w x_c, with
// w_i = exp(log_weight_i - max_lw) (so w <= 1), which is kept in weight for pass 2 and resampling.
// The exp is rsmc::math::exp, the one exact::fixed_weight uses: resampling reuses w as its exp.
template <class ExecutionSpace, class StateView, class WeightView>
void weight_sums(const WeightView& log_weight, const StateView& state, double max_lw, const WeightView& weight,
                 exact::ExactSum* sums) {
  const int d = static_cast<int>(state.extent(1));
  exact::reduce_exact<ExecutionSpace>(
      "rsmc::weight_sums", log_weight.extent(0), 2 + d,
      KOKKOS_LAMBDA(const std::size_t i, const exact::ChunkSums& acc) {
        const double w = math::exp(log_weight(i) - max_lw);  // the same bits on host and device
        weight(i) = w;
        // A zero weight adds nothing, and its state may be inf or NaN (a model that failed there):
        // 0 * inf would make every sum NaN.
        if (!(w > 0.0)) return;
        acc.add(0, w);
        acc.add(1, w * w);
        for (int c = 0; c < d; ++c) acc.add(2 + c, w * state(i, c));
      },
      sums);
}

// Pass 2, exact: sq[c] = sum w (x_c - mean_c)^2, the numerically safe form of the variance.
template <class ExecutionSpace, class StateView, class WeightView, class MeanView>
void variance_sums(const WeightView& weight, const StateView& state, const MeanView& mean, exact::ExactSum* sq) {
  const int d = static_cast<int>(state.extent(1));
  exact::reduce_exact<ExecutionSpace>(
      "rsmc::variance_sums", weight.extent(0), d,
      KOKKOS_LAMBDA(const std::size_t i, const exact::ChunkSums& acc) {
        const double w = weight(i);
        if (!(w > 0.0)) return;  // as in pass 1
        for (int c = 0; c < d; ++c) {
          const double dev = state(i, c) - mean(c);
          acc.add(c, w * dev * dev);
        }
      },
      sq);
}

}  // namespace rsmc::step_kernels
