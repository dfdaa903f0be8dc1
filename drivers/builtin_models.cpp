// The models that ship with rsmc (models/), registered for --model with their [parameters].
// Defaults shown by `rsmc models` are the models' own defaults (the parameter structs in models/).
#include <initializer_list>
#include <limits>
#include <utility>

#include "drivers/register_model.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/nonlinear_growth.hpp"
#include "models/regime_switching.hpp"
#include "models/sir_epidemic.hpp"
#include "models/stochastic_volatility.hpp"

namespace rsmc::drivers {
namespace {

// Reads the real-valued parameters `fields` (name, member) that the configuration gives.
void read_numbers(const ModelParameters& given, std::initializer_list<std::pair<const char*, double*>> fields) {
  for (auto [key, field] : fields) *field = given.number(key, *field);
}

constexpr long long kIntMax = std::numeric_limits<int>::max();  // integer parameters held in an int

}  // namespace

void register_builtin_models() {
  register_model(
      "linear_gaussian",
      "x_t = A x_{t-1} + N(0, Q), y_t = C x_t + N(0, R), x_0 ~ N(m0, P0); exact likelihood by the Kalman filter",
      {{"A", "[[0.9, 0.2], [-0.2, 0.9]]", "d x d transition matrix (d = its number of rows)"},
       {"Q", "[[0.1, 0.0], [0.0, 0.1]]", "d x d transition noise covariance (positive definite)"},
       {"C", "[[1.0, 0.0], [0.0, 1.0]]", "m x d observation matrix (m = its number of rows)"},
       {"R", "[[0.5, 0.0], [0.0, 0.5]]", "m x m observation noise covariance (positive definite)"},
       {"m0", "[0.0, 0.0]", "prior mean of x_0"},
       {"P0", "[[1.0, 0.0], [0.0, 1.0]]", "prior covariance of x_0 (positive definite)"}},
      [](const ModelParameters& given) {
        models::LinearGaussianParams p = models::LinearGaussianParams::default_2d();
        int rows = 0, cols = 0;
        p.A = given.matrix("A", p.A, p.d, p.d, rows, cols);
        p.d = rows;
        p.Q = given.matrix("Q", p.Q, 2, 2, rows, cols);
        p.C = given.matrix("C", p.C, 2, 2, rows, cols);
        p.m = rows;
        p.R = given.matrix("R", p.R, 2, 2, rows, cols);
        p.m0 = given.vector("m0", p.m0);
        p.P0 = given.matrix("P0", p.P0, 2, 2, rows, cols);
        return models::LinearGaussian(p);  // validates: shapes and definiteness, naming the parameter
      });
  register_model(
      "local_level",
      "the local level model: x_t = x_{t-1} + N(0, sigma_eta2), y_t = x_t + N(0, sigma_eps2), x_0 ~ N(a1, p1) "
      "(a linear_gaussian with d = m = 1; exact likelihood by the Kalman filter)",
      {{"sigma_eta2", "1.0", "level noise variance (> 0)"},
       {"sigma_eps2", "1.0", "observation noise variance (> 0)"},
       {"a1", "0.0", "prior mean of x_0"},
       {"p1", "1.0", "prior variance of x_0 (> 0)"}},
      [](const ModelParameters& given) {
        return models::LinearGaussian(models::LinearGaussianParams::local_level(
            given.number("sigma_eta2", 1.0), given.number("sigma_eps2", 1.0), given.number("a1", 0.0),
            given.number("p1", 1.0)));
      });
  register_model(
      "stochastic_volatility",
      "x_t = mu + phi (x_{t-1} - mu) + sigma N(0,1), y_t = exp(x_t / 2) N(0,1) (Kim, Shephard & Chib)",
      {{"mu", "-0.8698", "mean of the log-variance"},
       {"phi", "0.97779", "persistence, |phi| < 1"},
       {"sigma", "0.1585", "sd of the log-variance innovation (> 0)"}},
      [](const ModelParameters& given) {
        models::StochasticVolatilityParams p;
        read_numbers(given, {{"mu", &p.mu}, {"phi", &p.phi}, {"sigma", &p.sigma}});
        return models::StochasticVolatility(p);
      });
  register_model(
      "nonlinear_growth",
      "x_t = alpha x + beta x/(1+x^2) + gamma cos(omega t) + N(0,q), y_t = kappa x_t^2 + N(0,r) (Gordon, Salmond & "
      "Smith 1993)",
      {{"alpha", "0.5", ""}, {"beta", "25.0", ""}, {"gamma", "8.0", ""}, {"omega", "1.2", "per step"},
       {"kappa", "0.05", ""}, {"q", "10.0", "process noise variance (> 0)"},
       {"r", "1.0", "observation noise variance (> 0)"}, {"m0", "0.0", "prior mean"},
       {"p0", "5.0", "prior variance (> 0)"}},
      [](const ModelParameters& given) {
        models::NonlinearGrowthParams p;
        read_numbers(given, {{"alpha", &p.alpha}, {"beta", &p.beta}, {"gamma", &p.gamma}, {"omega", &p.omega},
                             {"kappa", &p.kappa}, {"q", &p.q}, {"r", &p.r}, {"m0", &p.m0}, {"p0", &p.p0}});
        return models::NonlinearGrowth(p);
      });
  register_model(
      "lorenz96", "Lorenz-96 (RK4 step dt per filter step + Gaussian noise), every obs_every-th component observed",
      {{"d", "40", "state dimension, 4..1000 and beyond"}, {"F", "8.0", "forcing"}, {"dt", "0.05", "RK4 step"},
       {"process_sd", "0.1", "process noise sd (> 0)"}, {"obs_every", "1", "observe components 0, k, 2k, ..."},
       {"obs_sd", "1.0", "observation noise sd (> 0)"}, {"x0_mean", "8.0", ""}, {"x0_sd", "1.0", ""}},
      [](const ModelParameters& given) {
        models::Lorenz96Params p;
        p.d = static_cast<int>(given.integer("d", p.d, 4, kIntMax));
        p.obs_every = static_cast<int>(given.integer("obs_every", p.obs_every, 1, kIntMax));
        read_numbers(given, {{"F", &p.F}, {"dt", &p.dt}, {"process_sd", &p.process_sd}, {"obs_sd", &p.obs_sd},
                             {"x0_mean", &p.x0_mean}, {"x0_sd", &p.x0_sd}});
        return models::Lorenz96(p);
      });
  register_model(
      "sir_epidemic", "SIR with exact binomial transitions; observed incidence Poisson or negative binomial",
      {{"population", "763", "N = S + I + R"}, {"initial_infected", "1", ""},
       {"beta", "1.66", "transmission rate"}, {"gamma", "0.45", "recovery rate"}, {"dt", "1.0", "step length"},
       {"rho", "0.8", "reporting probability"}, {"observation", "\"poisson\"", "\"poisson\" or \"negative_binomial\""},
       {"k", "10.0", "negative binomial size"}},
      [](const ModelParameters& given) {
        models::SirEpidemicParams p;
        p.population = given.integer("population", p.population);
        p.initial_infected = given.integer("initial_infected", p.initial_infected);
        read_numbers(given, {{"beta", &p.beta}, {"gamma", &p.gamma}, {"dt", &p.dt}, {"rho", &p.rho}, {"k", &p.k}});
        if (given.has("observation"))
          p.observation = models::parse_count_observation(given.text("observation", "poisson"));
        return models::SirEpidemic(p);
      });
  register_model(
      "regime_switching",
      "jump Markov linear model: regime k_t ~ P[k_{t-1}], x_t = a_k x + b_k + s_k N(0,1), y_t = x_t + N(0, obs_sd^2)",
      {{"K", "2", "number of regimes, 1..31"}, {"P", "[[0.95, 0.05], [0.1, 0.9]]", "K x K transition matrix"},
       {"pi0", "[0.6667, 0.3333]", "distribution of k_0"}, {"a", "[0.9, 0.5]", ""}, {"b", "[0.0, 2.0]", ""},
       {"s", "[0.3, 1.0]", "noise sd per regime"}, {"obs_sd", "0.5", ""}, {"x0_mean", "0.0", ""},
       {"x0_sd", "1.0", ""}},
      [](const ModelParameters& given) {
        models::RegimeSwitchingParams p;
        int rows = 0, cols = 0;
        p.K = static_cast<int>(given.integer("K", p.K, 1, models::RegimeSwitchingParams::kMaxRegimes));
        p.P = given.matrix("P", p.P, p.K, p.K, rows, cols);
        p.pi0 = given.vector("pi0", p.pi0);
        p.a = given.vector("a", p.a);
        p.b = given.vector("b", p.b);
        p.s = given.vector("s", p.s);
        read_numbers(given, {{"obs_sd", &p.obs_sd}, {"x0_mean", &p.x0_mean}, {"x0_sd", &p.x0_sd}});
        return models::RegimeSwitching(p);
      });
}

}  // namespace rsmc::drivers
