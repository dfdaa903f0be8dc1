// Host-only parts of the stochastic volatility model; see stochastic_volatility.hpp.
#include "models/stochastic_volatility.hpp"

#include <cmath>
#include <string>

#include "models/model_support.hpp"

namespace rsmc::models {

void StochasticVolatilityParams::validate() const {
  const char* model = StochasticVolatility::name;
  support::require_finite(model, "mu", mu);
  support::require_between(model, "phi", phi, -1.0, 1.0, false, "a stationary AR(1) log-variance");
  support::require_positive(model, "sigma", sigma);
}

std::string StochasticVolatilityParams::describe() const {
  return support::describe_line("mu", mu) + support::describe_line("phi", phi) + support::describe_line("sigma", sigma);
}

StochasticVolatility::StochasticVolatility(const StochasticVolatilityParams& params) : p_(params) {
  p_.validate();
  stationary_sd_ = p_.sigma / std::sqrt(1.0 - p_.phi * p_.phi);
}

}  // namespace rsmc::models
