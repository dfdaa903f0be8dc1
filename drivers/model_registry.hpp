// The models the `rsmc` command line knows by name (--model).
//
// with_model(name, f) builds the named model with its default parameters and calls f(model) with
// the concrete model type, so everything downstream (engine, simulation) is compiled per model.
// exact_log_likelihood(model, y) gives the exact answer where one exists (linear Gaussian: the
// Kalman filter), so the drivers can print it beside the particle estimate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/model/observations.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"

namespace rsmc::drivers {

inline const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names{"linear_gaussian"};
  return names;
}

template <class F>
void with_model(const std::string& name, F&& f) {
  if (name == "linear_gaussian") {
    f(models::LinearGaussian(models::LinearGaussianParams::default_2d()));
    return;
  }
  std::string known;
  for (const auto& n : model_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("--model: unknown model '" + name + "'; available models: " + known);
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
