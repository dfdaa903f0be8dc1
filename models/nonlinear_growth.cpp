// Host-only parts of the nonlinear growth model; see nonlinear_growth.hpp.
#include "models/nonlinear_growth.hpp"

#include <cmath>
#include <string>

#include "models/model_support.hpp"

namespace rsmc::models {

void NonlinearGrowthParams::validate() const {
  const char* model = NonlinearGrowth::name;
  support::require_finite(model, "alpha", alpha);
  support::require_finite(model, "beta", beta);
  support::require_finite(model, "gamma", gamma);
  support::require_finite(model, "omega", omega);
  support::require_finite(model, "kappa", kappa);
  support::require_positive(model, "q", q);
  support::require_positive(model, "r", r);
  support::require_finite(model, "m0", m0);
  support::require_positive(model, "p0", p0);
}

std::string NonlinearGrowthParams::describe() const {
  using support::describe_line;
  return describe_line("alpha", alpha) + describe_line("beta", beta) + describe_line("gamma", gamma) +
         describe_line("omega", omega) + describe_line("kappa", kappa) + describe_line("q", q) +
         describe_line("r", r) + describe_line("m0", m0) + describe_line("p0", p0);
}

NonlinearGrowth::NonlinearGrowth(const NonlinearGrowthParams& params) : p_(params) {
  p_.validate();
  sd0_ = std::sqrt(p_.p0);
  sdq_ = std::sqrt(p_.q);
  sdr_ = std::sqrt(p_.r);
  log_norm_ = -0.5 * std::log(2.0 * 3.14159265358979323846 * p_.r);
}

}  // namespace rsmc::models
