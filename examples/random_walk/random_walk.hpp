// The example's model: a 1-D Gaussian random walk observed in noise (the local level model).
//   x_0 ~ N(m0, p0)                       (before the first transition, as in rsmc's models)
//   x_t = x_{t-1} + N(0, q),   y_t = x_t + N(0, r),   t = 1..T
// This is all a user writes for a model (docs/models.md): its parameters, each declared once, and the
// model. rsmc_random_walk.cpp registers it with the standard command line, consumer.cpp drives the
// engine directly.
#pragma once

#include <cmath>

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"

struct RandomWalkParams : rsmc::ParameterSet<RandomWalkParams> {
  static constexpr const char* model = "random_walk";
  double q, r, m0, p0;
  RandomWalkParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(rsmc::real("q", q, 0.5, "process noise variance").positive());
    declare(rsmc::real("r", r, 1.0, "observation noise variance").positive());
    declare(rsmc::real("m0", m0, 0.0, "prior mean of x_0"));
    declare(rsmc::real("p0", p0, 2.0, "prior variance of x_0").positive());
  }
};

// Plain doubles only: copyable into any kernel, owns no Kokkos View, so it may outlive Kokkos.
class RandomWalk {
 public:
  static constexpr const char* name = RandomWalkParams::model;
  static constexpr int transition_normals = 1;  // transition() draws one normal (a speed hint)

  explicit RandomWalk(const RandomWalkParams& params)
      : p_(rsmc::validated(params)),
        sd_q_(std::sqrt(p_.q)),
        sd_r_(std::sqrt(p_.r)),
        sd_p0_(std::sqrt(p_.p0)),
        log_norm_(rsmc::normal_log_normaliser(p_.r)) {}

  RandomWalkParams params() const { return p_; }

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(rsmc::StateView x, rsmc::rng::ModelStream& rng) const {
    x[0] = p_.m0 + sd_p0_ * rng.normal();
  }
  RSMC_HOST_DEVICE void transition(rsmc::ConstStateView from, rsmc::StateView to, int /*step*/,
                                   rsmc::rng::ModelStream& rng) const {
    to[0] = from[0] + sd_q_ * rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(rsmc::ConstStateView x, rsmc::ObservationView y, int /*step*/) const {
    return rsmc::normal_log(y[0], x[0], p_.r, log_norm_);  // log N(y; x, r)
  }
  RSMC_HOST_DEVICE void simulate_observation(rsmc::ConstStateView x, rsmc::ObservationOut y, int /*step*/,
                                             rsmc::rng::ModelStream& rng) const {
    y[0] = x[0] + sd_r_ * rng.normal();
  }

 private:
  RandomWalkParams p_;
  double sd_q_, sd_r_, sd_p0_, log_norm_;
};
