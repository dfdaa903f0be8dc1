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
// The forcing's cos is rsmc::math::cos (the same bits on every machine and device), which is defined
// for |omega t| <= 2^26 (6.7e7: 5.6e7 steps at omega = 1.2). Beyond that it is NaN, so are the
// states, and the filter stops with its NaN log-likelihood error rather than run on a meaningless angle.
// The struct holds only doubles, so copying it into Kokkos / CUDA kernels is free and legal.
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

struct NonlinearGrowthParams : ParameterSet<NonlinearGrowthParams> {
  static constexpr const char* model = "nonlinear_growth";
  double alpha, beta, gamma, omega, kappa, q, r, m0, p0;
  NonlinearGrowthParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(real("alpha", alpha, 0.5, "linear autoregression coefficient"));
    declare(real("beta", beta, 25.0, "coefficient of the growth term x / (1 + x^2)"));
    declare(real("gamma", gamma, 8.0, "amplitude of the periodic forcing"));
    declare(real("omega", omega, 1.2, "angular frequency of the forcing, per step"));
    declare(real("kappa", kappa, 0.05, "observation coefficient: y = kappa x^2 + noise"));
    declare(real("q", q, 10.0, "process noise variance").positive());
    declare(real("r", r, 1.0, "observation noise variance").positive());
    declare(real("m0", m0, 0.0, "prior mean of x_0"));
    declare(real("p0", p0, 5.0, "prior variance of x_0").positive());
  }
};

class NonlinearGrowth {
 public:
  static constexpr const char* name = NonlinearGrowthParams::model;
  static constexpr int transition_normals = 1;  // transition() draws one normal (a speed hint)

  // Validates the parameters (throws rsmc::Error).
  explicit NonlinearGrowth(const NonlinearGrowthParams& params)
      : p_(validated(params)),
        sd0_(std::sqrt(p_.p0)),
        sdq_(std::sqrt(p_.q)),
        sdr_(std::sqrt(p_.r)),
        log_norm_(normal_log_normaliser(p_.r)) {}

  NonlinearGrowthParams params() const { return p_; }
  static std::string state_name(int /*c*/) { return "x"; }

  RSMC_HOST_DEVICE int state_dim() const { return 1; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }

  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const { x[0] = p_.m0 + sd0_ * rng.normal(); }

  // The deterministic part of the transition into step t.
  RSMC_HOST_DEVICE double drift(double x, int t) const {
    return p_.alpha * x + p_.beta * x / (1.0 + x * x) + p_.gamma * math::cos(p_.omega * static_cast<double>(t));
  }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int step, rng::ModelStream& rng) const {
    to[0] = drift(from[0], step) + sdq_ * rng.normal();
  }

  // log N(y; kappa x^2, r).
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    return normal_log(y[0], p_.kappa * x[0] * x[0], p_.r, log_norm_);
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    y[0] = p_.kappa * x[0] * x[0] + sdr_ * rng.normal();
  }

 private:
  NonlinearGrowthParams p_;
  double sd0_, sdq_, sdr_;  // sqrt(p0), sqrt(q), sqrt(r)
  double log_norm_;         // -log(2 pi r) / 2
};

}  // namespace rsmc::models
