// The stochastic volatility model of Kim, Shephard & Chib, "Stochastic volatility: likelihood
// inference and comparison with ARCH models", Rev. Econ. Stud. 65 (1998) 361-393:
//
//   x_0 ~ N(mu, sigma^2 / (1 - phi^2))            (the stationary distribution of the log-variance)
//   x_t = mu + phi (x_{t-1} - mu) + sigma eta_t,  y_t = exp(x_t / 2) eps_t,  eta_t, eps_t ~ N(0, 1)
//
// x_t is the log-variance of the return y_t (d = m = 1); KSC's y_t = beta exp(h_t / 2) eps_t is this
// with x_t = h_t + mu, mu = 2 log beta. Defaults: KSC's posterior means for the daily pound/dollar
// returns, phi = 0.97779, sigma = 0.15850, beta = 0.64733 (mu = 2 log beta = -0.8698).
// One standard normal per initial(), transition() and simulate_observation(); only doubles inside.
#pragma once

#include <cmath>
#include <string>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"

namespace rsmc::models {

struct StochasticVolatilityParams : ParameterSet<StochasticVolatilityParams> {
  static constexpr const char* model = "stochastic_volatility";
  double mu, phi, sigma;
  StochasticVolatilityParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(real("mu", mu, -0.8698, "mean of the log-variance x_t (2 log beta)"));
    declare(real("phi", phi, 0.97779, "persistence").between(-1.0, 1.0, "a stationary AR(1) log-variance"));
    declare(real("sigma", sigma, 0.15850, "sd of the log-variance innovation").positive());
  }
};

class StochasticVolatility {
 public:
  static constexpr const char* name = StochasticVolatilityParams::model;
  static constexpr int transition_normals = 1;  // transition() draws one normal (a speed hint)

  explicit StochasticVolatility(const StochasticVolatilityParams& params)
      : p_(validated(params)), stationary_sd_(p_.sigma / std::sqrt(1.0 - p_.phi * p_.phi)) {}

  StochasticVolatilityParams params() const { return p_; }
  static std::string state_name(int /*c*/) { return "log_variance"; }
  static std::string observation_name(int /*j*/) { return "return"; }

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const {
    x[0] = p_.mu + stationary_sd_ * rng.normal();
  }
  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::ModelStream& rng) const {
    to[0] = p_.mu + p_.phi * (from[0] - p_.mu) + p_.sigma * rng.normal();
  }
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    return normal_log_given_log_variance(y[0], x[0]);  // log N(y; 0, exp(x))
  }
  // The largest log_likelihood over all x (host only; +inf for y = 0): lets the engine fuse its passes.
  static double log_likelihood_bound(ObservationView y, int /*step*/) {
    return normal_log_given_log_variance_bound(y[0]);
  }
  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    y[0] = math::exp(0.5 * x[0]) * rng.normal();
  }

 private:
  StochasticVolatilityParams p_;
  double stationary_sd_;  // sigma / sqrt(1 - phi^2)
};

}  // namespace rsmc::models
