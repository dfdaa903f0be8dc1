// Unit tests for models/sir_epidemic.hpp and models/count_distributions.hpp.
//
// - Parameters: defaults, describe(), validation messages naming the parameter, the observation
//   model's names.
// - Count variates against their distributions (2 * 10^5 draws each; fixed seeds): Pearson's
//   chi-square (cells merged to expected counts >= 5) with p-value > 0.001 for Poisson(3) (Knuth),
//   Poisson(40) and Poisson(1000) (PTRS), NB(mean 20, size 2); Gamma(0.5) and Gamma(3) sample mean and
//   variance within 5 standard errors (mean: sqrt(shape / n); variance: sqrt((mu4 - shape^2) / n) with
//   the central fourth moment mu4 = 3 shape^2 + 6 shape).
// - log-pmfs against direct products; NaN for non-counts; the point mass at 0 for mean 0.
// - transition(): replays as two exact binomial draws (infections, then recoveries) from the stream;
//   S + I + R stays the population.
// - Tracking (population 763, initial_infected 5, T = 40 days, N = 10^4, both observation models,
//   20 independent simulated epidemics, each filtered once): identity (1) of
//   tests/support/model_testing.hpp on S and I, each epidemic's time average one replicate, within 4
//   standard errors of the replicates' mean (sd / sqrt(20); the replicates are independent, so this
//   SE is sound although a single epidemic is far from stationary); Chebyshev's bound on the
//   fraction of |x_t - m_t| > 2 sd_t (at most 1/4 for any posterior; NEES, identity (2), is too
//   heavy-tailed here for a standard-error rule, see the test), and the
//   filter knows the epidemic's course: the mean filter variance of I is below the variance of the
//   true I path about its time average (E[v_t] <= Var(I_t) by the law of total variance; the path
//   variance estimates the time average of E[(I_t - c)^2] >= Var(I_t)). initial_infected = 5 makes
//   early extinction (probability ~ (gamma / beta)^5 = 0.0015) unlikely; the seeds are fixed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/model/densities.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/counter_stream.hpp"
#include "models/count_distributions.hpp"
#include "models/sir_epidemic.hpp"
#include "tests/support/model_testing.hpp"
#include "tests/support/statistics.hpp"

namespace {

using rsmc::ConstStateView;
using rsmc::StateView;
using rsmc::models::CountObservation;
using rsmc::models::SirEpidemic;
using rsmc::models::SirEpidemicParams;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;
using rsmc::test::mean_of;
using rsmc::test::validation_message;
using rsmc::test::var_of;
namespace counts = rsmc::models::counts;

constexpr int kSirDraws = 200000;

// Chi-square p-value of kSirDraws draws against a log-pmf over 0..max (the tail beyond max is one cell).
template <class Draw, class LogPmf>
double count_p_value(Draw draw, LogPmf log_pmf, int max, std::uint64_t seed) {
  std::vector<double> observed(static_cast<std::size_t>(max) + 2, 0.0), expected(observed.size(), 0.0);
  for (int i = 0; i < kSirDraws; ++i) {
    ModelStream s(seed, Purpose::model, 0, static_cast<std::uint64_t>(i));
    const double k = draw(s);
    if (!(k >= 0.0 && std::floor(k) == k)) {
      FAIL("draw " << i << " is " << k << ", not a count");
    }
    observed[k <= max ? static_cast<std::size_t>(k) : observed.size() - 1] += 1.0;
  }
  double inside = 0.0;
  for (int k = 0; k <= max; ++k) {
    expected[k] = kSirDraws * std::exp(log_pmf(static_cast<double>(k)));
    inside += expected[k];
  }
  expected.back() = std::fmax(kSirDraws - inside, 0.0);
  return rsmc::test::chi_square(observed, expected).p_value();
}

}  // namespace

TEST_CASE("SirEpidemicParams: defaults, describe and validation", "[models][sir]") {
  const SirEpidemicParams p;
  CHECK(p.describe() ==
        "population = 763\ninitial_infected = 1\nbeta = 1.66\ngamma = 0.45\ndt = 1\nrho = 0.8\n"
        "observation = poisson\nk = 10\n");
  CHECK(SirEpidemicParams::parameter_names().size() == 8);
  CHECK(validation_message(p) == "no error");
  SirEpidemicParams q = p;
  q.initial_infected = 800;
  CHECK(validation_message(q) == "sir_epidemic: initial_infected = 800; expected an integer <= population = 763");
  q = p;
  q.rho = 0.0;
  CHECK(validation_message(q) == "sir_epidemic: rho = 0; expected 0 < rho <= 1 (a reporting probability)");
  q = p;
  q.beta = -1.0;
  CHECK(validation_message(q) == "sir_epidemic: beta = -1; expected a finite number >= 0");
  q = p;
  q.population = 0;
  CHECK(validation_message(q) == "sir_epidemic: population = 0; expected an integer population >= 1");
  CHECK_THROWS_AS(SirEpidemic(q), rsmc::Error);
  CHECK(rsmc::models::parse_count_observation("negative_binomial") == CountObservation::negative_binomial);
  CHECK(std::string(rsmc::models::count_observation_name(CountObservation::poisson)) == "poisson");
  try {
    rsmc::models::parse_count_observation("binomial");
    FAIL("no error");
  } catch (const rsmc::Error& e) {
    CHECK(std::string(e.what()) == "sir_epidemic: observation = 'binomial'; expected 'poisson' or 'negative_binomial'");
  }
  CHECK(SirEpidemic::state_name(3) == "incidence");
}

TEST_CASE("count variates follow their distributions", "[models][sir][statistics]") {
  for (double lambda : {3.0, 40.0, 1000.0}) {
    const int max = static_cast<int>(lambda + 8.0 * std::sqrt(lambda) + 10.0);
    const double p = count_p_value([&](ModelStream& s) { return counts::poisson(s, lambda); },
                                   [&](double k) { return rsmc::poisson_log(k, lambda); }, max, 17);
    INFO("Poisson(" << lambda << "): p = " << p);
    CHECK(p > 0.001);
  }
  const double p_nb = count_p_value([](ModelStream& s) { return counts::negative_binomial(s, 20.0, 2.0); },
                                    [](double k) { return rsmc::negative_binomial_log(k, 20.0, 2.0); }, 300, 18);
  INFO("NB(20, 2): p = " << p_nb);
  CHECK(p_nb > 0.001);
  for (double shape : {0.5, 3.0}) {
    std::vector<double> g(kSirDraws);
    for (int i = 0; i < kSirDraws; ++i) {
      ModelStream s(19, Purpose::model, 0, static_cast<std::uint64_t>(i));
      g[i] = counts::standard_gamma(s, shape);
    }
    const double mu4 = 3.0 * shape * shape + 6.0 * shape;
    INFO("Gamma(" << shape << "): mean " << mean_of(g) << ", variance " << var_of(g));
    CHECK(std::abs(mean_of(g) - shape) < 5.0 * std::sqrt(shape / kSirDraws));
    CHECK(std::abs(var_of(g) - shape) < 5.0 * std::sqrt((mu4 - shape * shape) / kSirDraws));
  }
}

TEST_CASE("count log-pmfs", "[models][sir]") {
  // Poisson(2.5) at 4: e^-2.5 2.5^4 / 24; NB(mean 3, size 2) at 2: C(3, 2) (2/5)^2 (3/5)^2.
  CHECK(rsmc::poisson_log(4.0, 2.5) == Approx(std::log(std::exp(-2.5) * std::pow(2.5, 4) / 24.0)).epsilon(1e-13));
  CHECK(rsmc::negative_binomial_log(2.0, 3.0, 2.0) == Approx(std::log(3.0 * 0.16 * 0.36)).epsilon(1e-13));
  CHECK(rsmc::poisson_log(0.0, 0.0) == 0.0);
  CHECK(rsmc::poisson_log(1.0, 0.0) == -HUGE_VAL);
  CHECK(rsmc::negative_binomial_log(3.0, 0.0, 2.0) == -HUGE_VAL);
  CHECK(std::isnan(rsmc::poisson_log(1.5, 2.0)));
  CHECK(std::isnan(rsmc::negative_binomial_log(-1.0, 2.0, 1.0)));
}

TEST_CASE("SirEpidemic: transition is two exact binomial draws", "[models][sir]") {
  SirEpidemicParams p;
  p.population = 1000;
  const SirEpidemic model(p);
  const double from[4] = {700.0, 200.0, 100.0, 3.0};
  double to[4];
  ModelStream s(3, Purpose::propagate, 2, 9);
  model.transition(ConstStateView{from, 1}, StateView{to, 1}, 2, s);
  ModelStream replay(3, Purpose::propagate, 2, 9);
  const auto c = rsmc::rng::binomial(replay, 700, 1.0 - std::exp(-1.66 * 200.0 / 1000.0));
  const auto d = rsmc::rng::binomial(replay, 200, 1.0 - std::exp(-0.45));
  CHECK(to[3] == static_cast<double>(c));
  CHECK(to[0] == 700.0 - static_cast<double>(c));
  CHECK(to[1] == 200.0 + static_cast<double>(c) - static_cast<double>(d));
  CHECK(to[2] == 100.0 + static_cast<double>(d));
  CHECK(to[0] + to[1] + to[2] == 1000.0);
}

TEST_CASE("SirEpidemic: the bootstrap filter tracks S and I", "[models][sir][statistics]") {
  const int T = 40, replicates = 20;
  for (CountObservation observation : {CountObservation::poisson, CountObservation::negative_binomial}) {
    SirEpidemicParams p;
    p.initial_infected = 5;
    p.observation = observation;
    const SirEpidemic model(p);
    std::vector<double> excess, outside, var_i, path_var_i;
    for (int r = 0; r < replicates; ++r) {
      const auto sim = rsmc::simulate(model, T, 31 + static_cast<std::uint64_t>(r));
      const auto result = rsmc::test::run_filter(model, sim.observations, 10000, 7 + static_cast<std::uint64_t>(r));
      CHECK(std::isfinite(result.log_likelihood));
      const auto tr = rsmc::test::tracking(sim, result, 1, T, {SirEpidemic::kS, SirEpidemic::kI});
      excess.push_back(tr.excess);
      outside.push_back(1.0 - tr.coverage2);
      var_i.push_back(rsmc::test::tracking(sim, result, 1, T, {SirEpidemic::kI}).mean_var);
      std::vector<double> infected;
      for (int t = 1; t <= T; ++t) infected.push_back(sim.states[static_cast<std::size_t>(t) * 4 + SirEpidemic::kI]);
      path_var_i.push_back(var_of(infected));
    }
    const double se_excess = std::sqrt(var_of(excess) / replicates);
    const double se_outside = std::sqrt(var_of(outside) / replicates);
    INFO(rsmc::models::count_observation_name(observation)
         << ": excess " << mean_of(excess) << " +- " << se_excess << ", outside 2 sd " << mean_of(outside) << " +- "
         << se_outside << "; I: mean filter variance " << mean_of(var_i) << ", mean path variance "
         << mean_of(path_var_i));
    CHECK(std::abs(mean_of(excess)) < 4.0 * se_excess);
    // Not the NEES, (x - m)^2 / v, against 1: for SIR it is heavy-tailed (100 replicates: 0.18 to 38,
    // median 0.7), so the mean of 20 replicates usually lies below 1 with a sample standard error
    // that is too small, and a 4-SE rule on it passed or failed with the seeds (with stream layout 1
    // as with layout 2; measured 2026-11-26). Chebyshev instead: for the exact posterior,
    // P(|x - m| > 2 sd) <= 1/4 whatever its shape; the per-replicate fractions are bounded, so their
    // standard error is reliable. It fails when the filter is overconfident (degenerate particles).
    CHECK(mean_of(outside) < 0.25 + 4.0 * se_outside);
    CHECK(mean_of(var_i) < mean_of(path_var_i));
  }
}
