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
