// The stochastic volatility model in the form of Kim, Shephard & Chib (1998):
//
//   x_0 ~ N(mu, sigma^2 / (1 - phi^2))           (the stationary distribution of the log-variance)
//   x_t = mu + phi (x_{t-1} - mu) + sigma eta_t,  eta_t ~ N(0, 1)   for t = 1..T
//   y_t = exp(x_t / 2) eps_t,                     eps_t ~ N(0, 1)
//
// x_t is the log-variance of the return y_t (state dimension d = 1, observation dimension m = 1).
// KSC write y_t = beta exp(h_t / 2) eps_t with a zero-mean h_t; here x_t = h_t + mu, mu = 2 log beta.
//
// Defaults: the posterior means KSC (1998, J. Rev. Econ. Stud. 65, 361-393) report for the daily
// pound/dollar exchange-rate returns: phi = 0.97779, sigma = sigma_eta = 0.15850, beta = 0.64733, so
// mu = 2 log(0.64733) = -0.8698 (rounded to 4 digits). The stationary sd of x is then
// sigma / sqrt(1 - phi^2) = 0.755.
//
// Random draws: initial() and transition() draw one standard normal each, simulate_observation() one.
// The struct holds only doubles, so copying it into Kokkos / CUDA kernels is free and legal.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "base/core/portability.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::models {

struct StochasticVolatilityParams {
  double mu = -0.8698;     // mean of the log-variance x_t (2 log beta)
  double phi = 0.97779;    // persistence, |phi| < 1
  double sigma = 0.15850;  // sd of the log-variance innovation, > 0

  // Throws rsmc::Error naming the parameter unless mu is finite, -1 < phi < 1 and sigma > 0.
  void validate() const;
  // "mu = -0.8698\nphi = 0.97779\nsigma = 0.1585\n" (shortest round-trip numbers).
  std::string describe() const;
  static std::vector<std::string> parameter_names() { return {"mu", "phi", "sigma"}; }
};

class StochasticVolatility {
 public:
  static constexpr const char* name = "stochastic_volatility";

  // Validates the parameters (throws rsmc::Error).
  explicit StochasticVolatility(const StochasticVolatilityParams& params);

  StochasticVolatilityParams params() const { return p_; }
  static std::string state_name(int /*c*/) { return "log_variance"; }
  static std::string observation_name(int /*j*/) { return "return"; }

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }

  RSMC_HOST_DEVICE void initial(StateView x, rng::Stream& rng) const { x[0] = p_.mu + stationary_sd_ * rng.normal(); }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::Stream& rng) const {
    to[0] = p_.mu + p_.phi * (from[0] - p_.mu) + p_.sigma * rng.normal();
  }

  // log N(y; 0, exp(x)) = -(log(2 pi) + x + y^2 exp(-x)) / 2.
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    return -0.5 * (kLog2Pi + x[0] + y[0] * y[0] * exp(-x[0]));
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, StateView y, int /*step*/, rng::Stream& rng) const {
    y[0] = exp(0.5 * x[0]) * rng.normal();
  }

 private:
  static constexpr double kLog2Pi = 1.8378770664093454835606594728112;
  StochasticVolatilityParams p_;
  double stationary_sd_ = 0.0;  // sigma / sqrt(1 - phi^2)
};

}  // namespace rsmc::models
