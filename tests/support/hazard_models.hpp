// Small models and helpers for the numerical-hazard tests (tests/unit/test_numerical_hazards.cpp,
// tests/mpi/test_numerical_hazards_mpi.cpp). Each model is a plain struct of numbers, callable on
// the host and in kernels, and exercises one hazard deterministically:
//   InvalidAtIds   log-likelihood NaN / +inf for chosen global ids at a chosen step
//   Spread         log-weights spread uniformly over `scale` nats (1400: more than 600 orders of magnitude)
//   Ar1            a 1-D Gaussian AR(1) with Gaussian observations: an ordinary model whose filter
//                  can be recomputed by hand (N = 1)
// InvalidAtIds and Spread never move their particles (the transition is the identity, without random
// draws), so a particle's state tells which particle it descends from.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/core/portability.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/model/observations.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/counter_stream.hpp"

namespace rsmc::test {

// State: the particle's global id at the start (label_with_ids). At step `bad_step` the particles
// whose label is nan_id_a, nan_id_b or inf_id get a NaN / NaN / +inf log-likelihood (a negative id
// matches none; all_bad makes every particle's NaN), and the particle labelled inf_state_id moves to
// +inf, where its log-likelihood is 0 * inf = NaN (a model that overflowed); everything else gets
// -1e-3 * label, so weights differ.
// HUGE_VAL and NAN (<cmath>) rather than std::numeric_limits: these functions also run in device
// kernels, where numeric_limits' host functions are not callable (nvcc without --expt-relaxed-constexpr).
struct InvalidAtIds {
  static constexpr const char* name = "test_invalid_at_ids";
  int bad_step = 2;
  double nan_id_a = -1, nan_id_b = -1, inf_id = -1, inf_state_id = -1;
  bool all_bad = false;

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream&) const { x[0] = 0.0; }
  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int step, rng::ModelStream&) const {
    to[0] = step == bad_step && from[0] == inf_state_id ? HUGE_VAL : from[0];
  }
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView, int step) const {
    if (x[0] == HUGE_VAL) return 0.0 * x[0];
    if (step == bad_step) {
      if (all_bad || x[0] == nan_id_a || x[0] == nan_id_b) return static_cast<double>(NAN);
      if (x[0] == inf_id) return HUGE_VAL;
    }
    return -1e-3 * x[0];
  }
};

// State: u ~ U(0, 1) at the start, kept; log-likelihood -scale * u at every step.
struct Spread {
  static constexpr const char* name = "test_spread";
  double scale = 1400.0;  // e^-1400 = 10^-608

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const { x[0] = rng.uniform(); }
  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int, rng::ModelStream&) const { to[0] = from[0]; }
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView, int) const { return -scale * x[0]; }
};

// x_0 ~ N(0, 1), x_t = 0.9 x_{t-1} + 0.5 eta_t, y_t ~ N(x_t, 1).
struct Ar1 {
  static constexpr const char* name = "test_ar1";
  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const { x[0] = rng.normal(); }
  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int, rng::ModelStream& rng) const {
    to[0] = 0.9 * from[0] + 0.5 * rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int) const {
    const double e = y[0] - x[0];
    return -0.5 * (1.8378770664093454835606594728112 + e * e);
  }
};

// Invalid log-likelihoods at step 2 for ids 151 (+inf), 250 and 299 (NaN) of 300: on 3 ranks they
// lie on ranks 1 and 2, and the lowest is not on the rank with the most.
inline InvalidAtIds three_invalid_at_step_2() {
  InvalidAtIds m;
  m.bad_step = 2;
  m.inf_id = 151;
  m.nan_id_a = 250;
  m.nan_id_b = 299;
  return m;
}

// Filter options of the hazard tests.
inline FilterOptions hazard_options(std::uint64_t particles, double ess_threshold, InvalidLikelihood mode) {
  FilterOptions o;
  o.particles = particles;
  o.seed = 17;
  o.ess_threshold = ess_threshold;
  o.invalid_likelihood = mode;
  return o;
}

// The first k ranks of MPI_COMM_WORLD as a communicator (MPI_COMM_NULL on the others; free it
// there). Collective over MPI_COMM_WORLD.
inline MPI_Comm first_ranks(int k) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
  return sub;
}

// Observations of one component: values[t - 1] is y_t (NaN: missing).
inline Observations observations_of(const std::vector<double>& values) {
  Observations y;
  y.steps = static_cast<int>(values.size());
  y.dim = 1;
  y.values = values;
  return y;
}

// Sets every particle's (one-component) state to its global id.
template <class Filter>
void label_with_ids(Filter& filter) {
  auto& store = filter.particles_mut();
  auto state = Kokkos::create_mirror_view(store.state);
  for (std::size_t i = 0; i < store.size(); ++i) state(i, 0) = static_cast<double>(store.first_id + i);
  Kokkos::deep_copy(store.state, state);
}

// This rank's particles on the host: component 0 of the states, and the log-weights.
template <class Filter>
std::vector<double> host_states(const Filter& filter) {
  auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), filter.particles().state);
  std::vector<double> out(state.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = state(i, 0);
  return out;
}
template <class Filter>
std::vector<double> host_log_weights(const Filter& filter) {
  auto lw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), filter.particles().log_weight);
  return std::vector<double>(lw.data(), lw.data() + lw.extent(0));
}

// The weight statistics of one set of log-weights, in long double with log-sum-exp: the reference
// the filter's double-precision exact sums are compared with. exp() in long double (x87: range down
// to 1e-4951) represents every weight of a 600-orders-of-magnitude spread without underflow.
struct WeightReference {
  long double max_log_weight = 0, total = 0, total_sq = 0;  // totals relative to the maximum
  long double ess() const { return total * total / total_sq; }
  long double log_total() const { return max_log_weight + std::log(total); }
};
inline WeightReference weight_reference(const std::vector<double>& log_weights) {
  WeightReference r;
  r.max_log_weight = -std::numeric_limits<long double>::infinity();
  for (double lw : log_weights) r.max_log_weight = std::max<long double>(r.max_log_weight, lw);
  for (double lw : log_weights) {
    const long double w = std::exp(static_cast<long double>(lw) - r.max_log_weight);
    r.total += w;
    r.total_sq += w * w;
  }
  return r;
}

}  // namespace rsmc::test
