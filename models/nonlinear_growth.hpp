// The univariate nonlinear growth model of Gordon, Salmond & Smith (1993), the classic bootstrap
// filter benchmark (also Kitagawa 1996; Carlin, Polson & Stoffer 1992):
//
//   x_0 ~ N(m0, p0)
//   x_t = alpha x_{t-1} + beta x_{t-1} / (1 + x_{t-1}^2) + gamma cos(omega t) + v_t,  v_t ~ N(0, q)
//   y_t = kappa x_t^2 + w_t,                                                      w_t ~ N(0, r)
//
// for t = 1..T, with state and observation dimension 1. The observation depends on x_t only through
// x_t^2, so the filtering distribution is often bimodal (the sign of x_t is ambiguous), which is what
// makes the model a test of particle methods.
//
// Defaults: alpha = 0.5, beta = 25, gamma = 8, omega = 1.2, kappa = 1/20, q = 10, r = 1 and the prior
// N(0, 5), as in Gordon, Salmond & Smith, "Novel approach to nonlinear/non-Gaussian Bayesian state
// estimation", IEE Proc. F 140 (1993) 107-113. Time convention: the forcing of the transition INTO
// x_t is gamma cos(omega t), t the filter step (1-based). GSS write their recursion with index k and
// cos(1.2 (k - 1)); that is this model with the time axis shifted by one step.
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

struct NonlinearGrowthParams {
  double alpha = 0.5;    // linear autoregression coefficient
  double beta = 25.0;    // coefficient of the growth term x / (1 + x^2)
  double gamma = 8.0;    // amplitude of the periodic forcing
  double omega = 1.2;    // angular frequency of the forcing, per step
  double kappa = 0.05;   // observation coefficient: y = kappa x^2 + noise
  double q = 10.0;       // process noise variance, > 0
  double r = 1.0;        // observation noise variance, > 0
  double m0 = 0.0;       // prior mean of x_0
  double p0 = 5.0;       // prior variance of x_0, > 0

  // Throws rsmc::Error naming the parameter unless every value is finite and q, r, p0 > 0.
  void validate() const;
  // One "name = value" line per parameter, in the order above.
  std::string describe() const;
  static std::vector<std::string> parameter_names() {
    return {"alpha", "beta", "gamma", "omega", "kappa", "q", "r", "m0", "p0"};
  }
};

class NonlinearGrowth {
 public:
  static constexpr const char* name = "nonlinear_growth";

  // Validates the parameters (throws rsmc::Error).
  explicit NonlinearGrowth(const NonlinearGrowthParams& params);

  NonlinearGrowthParams params() const { return p_; }
  static std::string state_name(int /*c*/) { return "x"; }

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }

  RSMC_HOST_DEVICE void initial(StateView x, rng::Stream& rng) const { x[0] = p_.m0 + sd0_ * rng.normal(); }

  // The deterministic part of the transition into step t.
  RSMC_HOST_DEVICE double drift(double x, int t) const {
    return p_.alpha * x + p_.beta * x / (1.0 + x * x) + p_.gamma * cos(p_.omega * static_cast<double>(t));
  }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int step, rng::Stream& rng) const {
    to[0] = drift(from[0], step) + sdq_ * rng.normal();
  }

  // log N(y; kappa x^2, r).
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    const double u = y[0] - p_.kappa * x[0] * x[0];
    return log_norm_ - 0.5 * u * u / p_.r;
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, StateView y, int /*step*/, rng::Stream& rng) const {
    y[0] = p_.kappa * x[0] * x[0] + sdr_ * rng.normal();
  }

 private:
  NonlinearGrowthParams p_;
  double sd0_ = 0.0, sdq_ = 0.0, sdr_ = 0.0;  // sqrt(p0), sqrt(q), sqrt(r)
  double log_norm_ = 0.0;                     // -log(2 pi r) / 2
};

}  // namespace rsmc::models
