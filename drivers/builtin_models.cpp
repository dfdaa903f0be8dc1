// The models that ship with rsmc (models/), registered for --model. Their names, [parameters],
// defaults and checks come from the parameter declarations in models/; here each gets its summary.
#include "drivers/register_model.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/nonlinear_growth.hpp"
#include "models/regime_switching.hpp"
#include "models/sir_epidemic.hpp"
#include "models/stochastic_volatility.hpp"

namespace rsmc::drivers {

void register_builtin_models() {
  register_model<models::LinearGaussian>(
      "x_t = A x_{t-1} + N(0, Q), y_t = C x_t + N(0, R), x_0 ~ N(m0, P0); exact likelihood by the Kalman filter");
  register_model(
      "the local level model: x_t = x_{t-1} + N(0, sigma_eta2), y_t = x_t + N(0, sigma_eps2), x_0 ~ N(a1, p1) "
      "(a linear_gaussian with d = m = 1; exact likelihood by the Kalman filter)",
      [](const models::LocalLevelParams& p) { return models::LinearGaussian(p.linear_gaussian()); });
  register_model<models::StochasticVolatility>(
      "x_t = mu + phi (x_{t-1} - mu) + sigma N(0,1), y_t = exp(x_t / 2) N(0,1) (Kim, Shephard & Chib)");
  register_model<models::NonlinearGrowth>(
      "x_t = alpha x + beta x/(1+x^2) + gamma cos(omega t) + N(0,q), y_t = kappa x_t^2 + N(0,r) (Gordon, Salmond & "
      "Smith 1993)");
  register_model<models::Lorenz96>(
      "Lorenz-96 (RK4 step dt per filter step + Gaussian noise), every obs_every-th component observed");
  register_model<models::SirEpidemic>(
      "SIR with exact binomial transitions; observed incidence Poisson or negative binomial");
  register_model<models::RegimeSwitching>(
      "jump Markov linear model: regime k_t ~ P[k_{t-1}], x_t = a_k x + b_k + s_k N(0,1), y_t = x_t + N(0, obs_sd^2)");
}

}  // namespace rsmc::drivers
