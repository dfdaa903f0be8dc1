// The exact log-likelihood of the data where one exists, printed beside the particle estimate:
// the Kalman filter for the linear Gaussian models; nothing for any other model.
#pragma once

#include <optional>

#include "framework/model/observations.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"

namespace rsmc::drivers {

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
