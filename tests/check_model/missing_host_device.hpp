// A model whose transition is not marked RSMC_HOST_DEVICE: tests/check_model/check_model.sh expects
// rsmc_check_model to refuse it with one line naming MissingHostDevice::transition and the rule (the
// scan, and with nvcc the device compile too).
#pragma once

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/state_view.hpp"

struct MissingHostDevice {
  static constexpr const char* name = "missing_host_device";
  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(rsmc::StateView x, rsmc::rng::ModelStream& rng) const { x[0] = rng.normal(); }
  void transition(rsmc::ConstStateView from, rsmc::StateView to, int, rsmc::rng::ModelStream& rng) const {
    to[0] = 0.9 * from[0] + rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(rsmc::ConstStateView x, rsmc::ObservationView y, int) const {
    return -0.5 * (y[0] - x[0]) * (y[0] - x[0]);
  }
  RSMC_HOST_DEVICE void simulate_observation(rsmc::ConstStateView x, rsmc::ObservationOut y, int,
                                             rsmc::rng::ModelStream& rng) const {
    y[0] = x[0] + rng.normal();
  }
};
