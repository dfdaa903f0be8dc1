// Host-only parts of the Lorenz-96 model; see lorenz96.hpp.
#include "models/lorenz96.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "models/model_support.hpp"

namespace rsmc::models {

void Lorenz96Params::validate() const {
  const char* model = Lorenz96::name;
  support::require_at_least(model, "d", d, 4, "the tendency reads x_{j-2}..x_{j+1}");
  support::require_finite(model, "F", F);
  support::require_positive(model, "dt", dt);
  support::require_positive(model, "process_sd", process_sd);
  support::require_at_least(model, "obs_every", obs_every, 1, "");
  if (obs_every > d)
    support::bad_parameter(model, "obs_every", std::to_string(obs_every),
                           "an integer 1 <= obs_every <= d = " + std::to_string(d));
  support::require_positive(model, "obs_sd", obs_sd);
  support::require_finite(model, "x0_mean", x0_mean);
  support::require_positive(model, "x0_sd", x0_sd);
}

std::string Lorenz96Params::describe() const {
  using support::describe_line;
  return describe_line("d", std::int64_t{d}) + describe_line("F", F) + describe_line("dt", dt) +
         describe_line("process_sd", process_sd) + describe_line("obs_every", std::int64_t{obs_every}) +
         describe_line("obs_sd", obs_sd) + describe_line("x0_mean", x0_mean) + describe_line("x0_sd", x0_sd);
}

Lorenz96::Lorenz96(const Lorenz96Params& params) : p_(params) {
  p_.validate();
  m_ = (p_.d + p_.obs_every - 1) / p_.obs_every;
  inv_sd_ = 1.0 / p_.obs_sd;
  log_norm1_ = -0.5 * std::log(2.0 * 3.14159265358979323846 * p_.obs_sd * p_.obs_sd);
}

}  // namespace rsmc::models
