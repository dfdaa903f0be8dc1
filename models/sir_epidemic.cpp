// Host-only parts of the SIR epidemic model; see sir_epidemic.hpp.
#include "models/sir_epidemic.hpp"

#include <cmath>
#include <string>

#include "models/model_support.hpp"

namespace rsmc::models {

const char* count_observation_name(CountObservation o) {
  return o == CountObservation::poisson ? "poisson" : "negative_binomial";
}

CountObservation parse_count_observation(const std::string& name) {
  if (name == "poisson") return CountObservation::poisson;
  if (name == "negative_binomial") return CountObservation::negative_binomial;
  support::bad_parameter(SirEpidemic::name, "observation", "'" + name + "'", "'poisson' or 'negative_binomial'");
}

void SirEpidemicParams::validate() const {
  const char* model = SirEpidemic::name;
  constexpr std::int64_t kMaxExact = std::int64_t{1} << 53;  // counts stay exact doubles
  support::require_at_least(model, "population", population, 1, "");
  if (population >= kMaxExact)
    support::bad_parameter(model, "population", std::to_string(population),
                           "an integer below 2^53 (counts are stored exactly as doubles)");
  support::require_at_least(model, "initial_infected", initial_infected, 1, "");
  if (initial_infected > population)
    support::bad_parameter(model, "initial_infected", std::to_string(initial_infected),
                           "an integer <= population = " + std::to_string(population));
  support::require_nonnegative(model, "beta", beta);
  support::require_nonnegative(model, "gamma", gamma);
  support::require_positive(model, "dt", dt);
  if (!(rho > 0.0 && rho <= 1.0))
    support::bad_parameter(model, "rho", support::number_text(rho), "0 < rho <= 1 (a reporting probability)");
  if (observation != CountObservation::poisson && observation != CountObservation::negative_binomial)
    support::bad_parameter(model, "observation", std::to_string(static_cast<int>(observation)),
                           "poisson or negative_binomial");
  support::require_positive(model, "k", k);
}

std::string SirEpidemicParams::describe() const {
  using support::describe_line;
  return describe_line("population", population) + describe_line("initial_infected", initial_infected) +
         describe_line("beta", beta) + describe_line("gamma", gamma) + describe_line("dt", dt) +
         describe_line("rho", rho) + describe_line("observation", std::string(count_observation_name(observation))) +
         describe_line("k", k);
}

std::string SirEpidemic::state_name(int c) {
  static const char* const names[] = {"S", "I", "R", "incidence"};
  return c >= 0 && c < 4 ? names[c] : "";
}

SirEpidemic::SirEpidemic(const SirEpidemicParams& params) : p_(params) {
  p_.validate();
  infection_scale_ = p_.beta * p_.dt / static_cast<double>(p_.population);
  p_recover_ = -std::expm1(-p_.gamma * p_.dt);
}

}  // namespace rsmc::models
