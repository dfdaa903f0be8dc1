// The example's model: a 1-D Gaussian random walk observed in noise (the local level model).
//   x_0 ~ N(m0, p0)                       (before the first transition, as in rsmc's models)
//   x_t = x_{t-1} + N(0, q),   y_t = x_t + N(0, r),   t = 1..T
// This is all a user writes for a model (docs/models.md); rsmc_random_walk.cpp registers it with
// the standard command line, consumer.cpp drives the engine directly.
#pragma once

#include <cmath>

#include "base/core/portability.hpp"
#include "framework/model/observations.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/stream.hpp"

inline constexpr double kPi = 3.14159265358979323846;

// Plain doubles only: copyable into any kernel, owns no Kokkos View, so it may outlive Kokkos.
struct RandomWalk {
  static constexpr const char* name = "random_walk";

  RandomWalk(double q_, double r_, double m0_, double p0_)
      : q(q_), r(r_), m0(m0_), p0(p0_), sd_q(std::sqrt(q_)), sd_r(std::sqrt(r_)), sd_p0(std::sqrt(p0_)),
        log_norm(-0.5 * std::log(2.0 * kPi * r_)) {}

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(rsmc::StateView x, rsmc::rng::Stream& rng) const { x[0] = m0 + sd_p0 * rng.normal(); }
  RSMC_HOST_DEVICE void transition(rsmc::ConstStateView from, rsmc::StateView to, int /*step*/,
                                   rsmc::rng::Stream& rng) const {
    to[0] = from[0] + sd_q * rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(rsmc::ConstStateView x, rsmc::ObservationView y, int /*step*/) const {
    const double u = y[0] - x[0];
    return log_norm - 0.5 * u * u / r;
  }
  RSMC_HOST_DEVICE void simulate_observation(rsmc::ConstStateView x, rsmc::StateView y, int /*step*/,
                                             rsmc::rng::Stream& rng) const {
    y[0] = x[0] + sd_r * rng.normal();
  }

  double q, r, m0, p0;
  double sd_q, sd_r, sd_p0, log_norm;
};
