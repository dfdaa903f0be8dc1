// A stochastic SIR epidemic in discrete time with binomial transitions (the chain-binomial form of
// the Reed-Frost / Greenwood models, with the hazards of the continuous-time SIR over a step dt):
//
//   S_0 = population - initial_infected,  I_0 = initial_infected,  R_0 = 0,  C_0 = 0
//   C_t = new infections  ~ Binomial(S_{t-1}, 1 - exp(-beta I_{t-1} / population * dt))
//   D_t = new recoveries  ~ Binomial(I_{t-1}, 1 - exp(-gamma dt))
//   S_t = S_{t-1} - C_t,  I_t = I_{t-1} + C_t - D_t,  R_t = R_{t-1} + D_t
//   y_t | C_t ~ Poisson(rho C_t)                                   (observation = "poisson"), or
//   y_t | C_t ~ NegativeBinomial(mean rho C_t, size k)             (observation = "negative_binomial",
//                                                                   variance mu + mu^2 / k)
//
// The state is (S, I, R, C) (d = 4, integers stored as doubles, exact below 2^53); C_t, the step's
// incidence, is in the state because the observation is the reported incidence (m = 1). The binomial
// draws are exact (rng::binomial: inversion for n p < 10, BTRD otherwise), infections first, then
// recoveries; the initial state is deterministic (no draws). An observation must be a count (a
// non-negative integer); anything else makes log_likelihood NaN, which the engine reports as an error
// naming the step.
//
// Defaults: population = 763, initial_infected = 1, beta = 1.66 and gamma = 0.45 per day, dt = 1 day
// are approximately the values usually fitted to the influenza outbreak in an English boarding school
// in 1978 (763 boys; "Influenza in a boarding school", BMJ 1 (1978) 587; R0 = beta / gamma ~ 3.7).
// rho = 0.8, observation = poisson and k = 10 (used only by negative_binomial) are illustrative.
// With initial_infected = 1 the epidemic dies out early with probability ~ gamma / beta ~ 0.27.
#pragma once

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"
#include "models/count_distributions.hpp"

namespace rsmc::models {

enum class CountObservation : int { poisson = 0, negative_binomial = 1 };
inline constexpr ChoiceOption<CountObservation> kCountObservations[] = {
    {"poisson", CountObservation::poisson}, {"negative_binomial", CountObservation::negative_binomial}};

struct SirEpidemicParams : ParameterSet<SirEpidemicParams> {
  static constexpr const char* model = "sir_epidemic";
  std::int64_t population, initial_infected;
  double beta, gamma, dt, rho;
  CountObservation observation;
  double k;
  SirEpidemicParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(integer<std::int64_t>("population", population, 763, "N = S + I + R")
                .at_least(1)
                .at_most((std::int64_t{1} << 53) - 1, "counts are stored exactly as doubles"));
    declare(integer<std::int64_t>("initial_infected", initial_infected, 1, "I_0, at most population").at_least(1));
    declare(real("beta", beta, 1.66, "transmission rate per unit time").nonnegative());
    declare(real("gamma", gamma, 0.45, "recovery rate per unit time").nonnegative());
    declare(real("dt", dt, 1.0, "length of a step").positive());
    declare(real("rho", rho, 0.8, "reporting probability").above(0.0).at_most(1.0).because("a reporting probability"));
    declare(choice("observation", observation, CountObservation::poisson, "distribution of the reported incidence",
                   kCountObservations));
    declare(real("k", k, 10.0, "negative binomial size (dispersion)").positive());
  }
  void check_relations() const {
    if (initial_infected > population)
      bad_parameter(model, "initial_infected", std::to_string(initial_infected),
                    "an integer <= population = " + std::to_string(population));
  }
};

// "poisson" / "negative_binomial"; parse_count_observation throws rsmc::Error naming the parameter
// `observation` for anything else.
inline const char* count_observation_name(CountObservation o) {
  return choice_name(kCountObservations, std::size(kCountObservations), o);
}
inline CountObservation parse_count_observation(const std::string& name) {
  return parse_choice(SirEpidemicParams::model, "observation", kCountObservations, name);
}

class SirEpidemic {
 public:
  static constexpr const char* name = SirEpidemicParams::model;
  enum Component : int { kS = 0, kI = 1, kR = 2, kIncidence = 3 };

  // Validates the parameters (throws rsmc::Error).
  explicit SirEpidemic(const SirEpidemicParams& params)
      : p_(validated(params)),
        infection_scale_(p_.beta * p_.dt / static_cast<double>(p_.population)),
        p_recover_(-math::expm1(-p_.gamma * p_.dt)) {}

  SirEpidemicParams params() const { return p_; }
  static std::string state_name(int c) {
    static const char* const names[] = {"S", "I", "R", "incidence"};
    return c >= 0 && c < 4 ? names[c] : "";
  }

  RSMC_HOST_DEVICE int state_dim() const { return 4; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }

  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& /*rng*/) const {
    x[kS] = static_cast<double>(p_.population - p_.initial_infected);
    x[kI] = static_cast<double>(p_.initial_infected);
    x[kR] = 0.0;
    x[kIncidence] = 0.0;
  }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::ModelStream& rng) const {
    const double s = from[kS], i = from[kI];
    const double p_infect = -math::expm1(-infection_scale_ * i);  // 1 - exp(-beta I / N dt)
    const auto infected = static_cast<double>(rng::binomial(rng, static_cast<std::uint64_t>(s), p_infect));
    const auto recovered = static_cast<double>(rng::binomial(rng, static_cast<std::uint64_t>(i), p_recover_));
    to[kS] = s - infected;
    to[kI] = i + infected - recovered;
    to[kR] = from[kR] + recovered;
    to[kIncidence] = infected;
  }

  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    const double mean = p_.rho * x[kIncidence];
    return p_.observation == CountObservation::poisson ? poisson_log(y[0], mean)
                                                       : negative_binomial_log(y[0], mean, p_.k);
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    const double mean = p_.rho * x[kIncidence];
    y[0] = p_.observation == CountObservation::poisson ? counts::poisson(rng, mean)
                                                       : counts::negative_binomial(rng, mean, p_.k);
  }

 private:
  SirEpidemicParams p_;
  double infection_scale_;  // beta dt / population
  double p_recover_;        // 1 - exp(-gamma dt)
};

}  // namespace rsmc::models
