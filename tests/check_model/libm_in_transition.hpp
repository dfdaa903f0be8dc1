// A model whose transition calls std::exp: tests/check_model/check_model.sh expects
// rsmc_check_model to refuse it with one line naming LibmInTransition::transition and the rule.
#pragma once

#include <cmath>

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/state_view.hpp"

struct LibmInTransition {
  static constexpr const char* name = "libm_in_transition";
  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(rsmc::StateView x, rsmc::rng::ModelStream& rng) const { x[0] = rng.normal(); }
  RSMC_HOST_DEVICE void transition(rsmc::ConstStateView from, rsmc::StateView to, int,
                                   rsmc::rng::ModelStream& rng) const {
    to[0] = 0.9 * from[0] + std::exp(0.5 * from[0]) * rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(rsmc::ConstStateView x, rsmc::ObservationView y, int) const {
    return -0.5 * (y[0] - x[0]) * (y[0] - x[0]);
  }
  RSMC_HOST_DEVICE void simulate_observation(rsmc::ConstStateView x, rsmc::ObservationOut y, int,
                                             rsmc::rng::ModelStream& rng) const {
    y[0] = x[0] + rng.normal();
  }
};
