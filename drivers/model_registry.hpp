// The models the `rsmc` command line knows by name (--model).
//
// with_model(name, parameters, f) builds the named model from its defaults and the configuration's
// [parameters] (drivers/model_parameters.hpp) and calls f(model) with
// the concrete model type, so everything downstream (engine, simulation) is compiled per model.
// exact_log_likelihood(model, y) gives the exact answer where one exists (linear Gaussian: the
// Kalman filter), so the drivers can print it beside the particle estimate.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "drivers/model_parameters.hpp"
#include "framework/core/error.hpp"
#include "framework/model/observations.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/nonlinear_growth.hpp"
#include "models/regime_switching.hpp"
#include "models/sir_epidemic.hpp"
#include "models/stochastic_volatility.hpp"

namespace rsmc::drivers {

// What `rsmc models` lists: each model, one line about it, and its parameters (name, default,
// meaning), settable in a run configuration's [parameters] table.
struct ModelEntry {
  std::string name;
  std::string summary;
  std::vector<std::array<std::string, 3>> parameters;  // {name, default, meaning}
};

inline const std::vector<ModelEntry>& model_entries() {
  static const std::vector<ModelEntry> entries{
      {"linear_gaussian",
       "x_t = A x_{t-1} + N(0, Q), y_t = C x_t + N(0, R), x_0 ~ N(m0, P0); exact likelihood by the Kalman filter",
       {{"A", "[[0.9, 0.2], [-0.2, 0.9]]", "d x d transition matrix (d = its number of rows)"},
        {"Q", "[[0.1, 0.0], [0.0, 0.1]]", "d x d transition noise covariance (positive definite)"},
        {"C", "[[1.0, 0.0], [0.0, 1.0]]", "m x d observation matrix (m = its number of rows)"},
        {"R", "[[0.5, 0.0], [0.0, 0.5]]", "m x m observation noise covariance (positive definite)"},
        {"m0", "[0.0, 0.0]", "prior mean of x_0"},
        {"P0", "[[1.0, 0.0], [0.0, 1.0]]", "prior covariance of x_0 (positive definite)"}}},
      {"local_level",
       "the local level model: x_t = x_{t-1} + N(0, sigma_eta2), y_t = x_t + N(0, sigma_eps2), x_0 ~ N(a1, p1) "
       "(a linear_gaussian with d = m = 1; exact likelihood by the Kalman filter)",
       {{"sigma_eta2", "1.0", "level noise variance (> 0)"},
        {"sigma_eps2", "1.0", "observation noise variance (> 0)"},
        {"a1", "0.0", "prior mean of x_0"},
        {"p1", "1.0", "prior variance of x_0 (> 0)"}}},
      {"stochastic_volatility",
       "x_t = mu + phi (x_{t-1} - mu) + sigma N(0,1), y_t = exp(x_t / 2) N(0,1) (Kim, Shephard & Chib)",
       {{"mu", "-0.8698", "mean of the log-variance"},
        {"phi", "0.97779", "persistence, |phi| < 1"},
        {"sigma", "0.1585", "sd of the log-variance innovation (> 0)"}}},
      {"nonlinear_growth",
       "x_t = alpha x + beta x/(1+x^2) + gamma cos(omega t) + N(0,q), y_t = kappa x_t^2 + N(0,r) (Gordon, Salmond & "
       "Smith 1993)",
       {{"alpha", "0.5", ""}, {"beta", "25.0", ""}, {"gamma", "8.0", ""}, {"omega", "1.2", "per step"},
        {"kappa", "0.05", ""}, {"q", "10.0", "process noise variance (> 0)"},
        {"r", "1.0", "observation noise variance (> 0)"}, {"m0", "0.0", "prior mean"},
        {"p0", "5.0", "prior variance (> 0)"}}},
      {"lorenz96",
       "Lorenz-96 (RK4 step dt per filter step + Gaussian noise), every obs_every-th component observed",
       {{"d", "40", "state dimension, 4..1000 and beyond"}, {"F", "8.0", "forcing"}, {"dt", "0.05", "RK4 step"},
        {"process_sd", "0.1", "process noise sd (> 0)"}, {"obs_every", "1", "observe components 0, k, 2k, ..."},
        {"obs_sd", "1.0", "observation noise sd (> 0)"}, {"x0_mean", "8.0", ""}, {"x0_sd", "1.0", ""}}},
      {"sir_epidemic",
       "SIR with exact binomial transitions; observed incidence Poisson or negative binomial",
       {{"population", "763", "N = S + I + R"}, {"initial_infected", "1", ""},
        {"beta", "1.66", "transmission rate"}, {"gamma", "0.45", "recovery rate"}, {"dt", "1.0", "step length"},
        {"rho", "0.8", "reporting probability"}, {"observation", "\"poisson\"", "\"poisson\" or \"negative_binomial\""},
        {"k", "10.0", "negative binomial size"}}},
      {"regime_switching",
       "jump Markov linear model: regime k_t ~ P[k_{t-1}], x_t = a_k x + b_k + s_k N(0,1), y_t = x_t + N(0, obs_sd^2)",
       {{"K", "2", "number of regimes, 1..31"}, {"P", "[[0.95, 0.05], [0.1, 0.9]]", "K x K transition matrix"},
        {"pi0", "[0.6667, 0.3333]", "distribution of k_0"}, {"a", "[0.9, 0.5]", ""}, {"b", "[0.0, 2.0]", ""},
        {"s", "[0.3, 1.0]", "noise sd per regime"}, {"obs_sd", "0.5", ""}, {"x0_mean", "0.0", ""},
        {"x0_sd", "1.0", ""}}},
  };
  return entries;
}

// The text of `rsmc models`.
inline std::string models_text() {
  std::string out;
  for (const auto& e : model_entries()) {
    out += e.name + "\n    " + e.summary + "\n    [parameters]\n";
    for (const auto& p : e.parameters) {
      std::string line = "      " + p[0] + " = " + p[1];
      line.resize(std::max<std::size_t>(line.size() + 2, 44), ' ');
      out += line + "# " + p[2] + "\n";
    }
  }
  return out;
}

inline std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& e : model_entries()) names.push_back(e.name);
  return names;
}

// The parameter names of a model entry (for checking a configuration's [parameters]).
inline std::vector<std::string> parameter_names(const std::string& model) {
  std::vector<std::string> names;
  for (const auto& e : model_entries())
    if (e.name == model)
      for (const auto& p : e.parameters) names.push_back(p[0]);
  return names;
}

// Builds model `name` from its defaults overridden by `parameters` and calls f(model).
template <class F>
void with_model(const std::string& name, const ModelParameters& parameters, F&& f) {
  if (name == "linear_gaussian") {
    parameters.check_known(name, parameter_names(name));
    models::LinearGaussianParams p = models::LinearGaussianParams::default_2d();
    int rows = 0, cols = 0;
    p.A = parameters.matrix("A", p.A, p.d, p.d, rows, cols);
    p.d = rows;
    p.Q = parameters.matrix("Q", p.Q, 2, 2, rows, cols);
    p.C = parameters.matrix("C", p.C, 2, 2, rows, cols);
    p.m = rows;
    p.R = parameters.matrix("R", p.R, 2, 2, rows, cols);
    p.m0 = parameters.vector("m0", p.m0);
    p.P0 = parameters.matrix("P0", p.P0, 2, 2, rows, cols);
    f(models::LinearGaussian(p));  // validates: shapes and definiteness, naming the parameter
    return;
  }
  if (name == "local_level") {
    parameters.check_known(name, parameter_names(name));
    f(models::LinearGaussian(models::LinearGaussianParams::local_level(
        parameters.number("sigma_eta2", 1.0), parameters.number("sigma_eps2", 1.0), parameters.number("a1", 0.0),
        parameters.number("p1", 1.0))));
    return;
  }
  if (name == "stochastic_volatility") {
    parameters.check_known(name, parameter_names(name));
    models::StochasticVolatilityParams p;
    p.mu = parameters.number("mu", p.mu);
    p.phi = parameters.number("phi", p.phi);
    p.sigma = parameters.number("sigma", p.sigma);
    f(models::StochasticVolatility(p));
    return;
  }
  if (name == "nonlinear_growth") {
    parameters.check_known(name, parameter_names(name));
    models::NonlinearGrowthParams p;
    for (auto [key, field] : {std::pair<const char*, double*>{"alpha", &p.alpha}, {"beta", &p.beta}, {"gamma", &p.gamma},
                              {"omega", &p.omega}, {"kappa", &p.kappa}, {"q", &p.q}, {"r", &p.r}, {"m0", &p.m0},
                              {"p0", &p.p0}})
      *field = parameters.number(key, *field);
    f(models::NonlinearGrowth(p));
    return;
  }
  if (name == "lorenz96") {
    parameters.check_known(name, parameter_names(name));
    models::Lorenz96Params p;
    p.d = static_cast<int>(parameters.integer("d", p.d));
    p.obs_every = static_cast<int>(parameters.integer("obs_every", p.obs_every));
    for (auto [key, field] : {std::pair<const char*, double*>{"F", &p.F}, {"dt", &p.dt}, {"process_sd", &p.process_sd},
                              {"obs_sd", &p.obs_sd}, {"x0_mean", &p.x0_mean}, {"x0_sd", &p.x0_sd}})
      *field = parameters.number(key, *field);
    f(models::Lorenz96(p));
    return;
  }
  if (name == "sir_epidemic") {
    parameters.check_known(name, parameter_names(name));
    models::SirEpidemicParams p;
    p.population = parameters.integer("population", p.population);
    p.initial_infected = parameters.integer("initial_infected", p.initial_infected);
    for (auto [key, field] : {std::pair<const char*, double*>{"beta", &p.beta}, {"gamma", &p.gamma}, {"dt", &p.dt},
                              {"rho", &p.rho}, {"k", &p.k}})
      *field = parameters.number(key, *field);
    if (parameters.has("observation"))
      p.observation = models::parse_count_observation(parameters.text("observation", "poisson"));
    f(models::SirEpidemic(p));
    return;
  }
  if (name == "regime_switching") {
    parameters.check_known(name, parameter_names(name));
    models::RegimeSwitchingParams p;
    int rows = 0, cols = 0;
    p.K = static_cast<int>(parameters.integer("K", p.K));
    p.P = parameters.matrix("P", p.P, p.K, p.K, rows, cols);
    p.pi0 = parameters.vector("pi0", p.pi0);
    p.a = parameters.vector("a", p.a);
    p.b = parameters.vector("b", p.b);
    p.s = parameters.vector("s", p.s);
    p.obs_sd = parameters.number("obs_sd", p.obs_sd);
    p.x0_mean = parameters.number("x0_mean", p.x0_mean);
    p.x0_sd = parameters.number("x0_sd", p.x0_sd);
    f(models::RegimeSwitching(p));
    return;
  }
  std::string known;
  for (const auto& n : model_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("--model: unknown model '" + name + "'; available models: " + known);
}

// The model with its default parameters.
template <class F>
void with_model(const std::string& name, F&& f) {
  with_model(name, ModelParameters{}, std::forward<F>(f));
}

template <class Model>
std::optional<double> exact_log_likelihood(const Model&, const Observations&, int) {
  return std::nullopt;
}

inline std::optional<double> exact_log_likelihood(const models::LinearGaussian& model, const Observations& y,
                                                  int steps) {
  Observations head = y;
  head.steps = steps;
  head.values.resize(static_cast<std::size_t>(steps) * y.dim);
  return models::kalman_filter(model.params(), head).log_likelihood;
}

}  // namespace rsmc::drivers
