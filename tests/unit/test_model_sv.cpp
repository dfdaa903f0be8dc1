// Unit tests for models/stochastic_volatility.hpp.
//
// - Parameters: defaults, describe(), validation messages naming the parameter.
// - Kernel functions: log_likelihood against the closed-form N(0, exp(x)) density; transition and
//   initial sample moments (10^5 draws) within 5 standard errors of the exact ones (mean: SE =
//   sd / sqrt(n); variance with known mean: SE = sqrt(2) var / sqrt(n)).
// - Tracking (T = 1000, N = 10^4, data simulated from the defaults): the identities (1) and (2) of
//   tests/support/model_testing.hpp within 4 batch-means standard errors (batches of 50 steps,
//   several times the correlation time 1 / (1 - phi) = 45 of the log-variance); and the filter is
//   informative: by the law of total variance E[v_t] <= Var(x_t) = sigma^2 / (1 - phi^2), the
//   stationary variance, with equality only when y carries no information.
// - Log-likelihood at N = 10^3 against N = 10^4 (T = 100, 40 and 20 replicate runs): the estimator
//   log Z_hat is close to N(log Z - s^2 / 2, s^2) for large N (the CLT for Z_hat / Z and the delta
//   method; s^2 = its variance, proportional to 1/N), so the bias-corrected means m + s^2 / 2 at the
//   two N estimate the same log Z; their difference must lie within 4 standard errors
//   sqrt(s_a^2 / R_a + s_b^2 / R_b) (s from the replicates).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/simulate.hpp"
#include "base/rng/counter_stream.hpp"
#include "models/stochastic_volatility.hpp"
#include "tests/support/model_testing.hpp"

namespace {

using rsmc::ConstStateView;
using rsmc::StateView;
using rsmc::models::StochasticVolatility;
using rsmc::models::StochasticVolatilityParams;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;
using rsmc::test::mean_of;
using rsmc::test::validation_message;
using rsmc::test::var_of;

}  // namespace

TEST_CASE("StochasticVolatilityParams: defaults, describe and validation", "[models][sv]") {
  const StochasticVolatilityParams p;
  CHECK(p.describe() == "mu = -0.8698\nphi = 0.97779\nsigma = 0.1585\n");
  CHECK(StochasticVolatilityParams::parameter_names() == std::vector<std::string>{"mu", "phi", "sigma"});
  CHECK_NOTHROW(p.validate());
  StochasticVolatilityParams q = p;
  q.phi = 1.0;
  CHECK(validation_message(q) ==
        "stochastic_volatility: phi = 1; expected -1 < phi < 1 (a stationary AR(1) log-variance)");
  q = p;
  q.sigma = 0.0;
  CHECK(validation_message(q) == "stochastic_volatility: sigma = 0; expected a finite number > 0");
  q = p;
  q.mu = NAN;
  CHECK(validation_message(q) == "stochastic_volatility: mu = nan; expected a finite number");
  CHECK_THROWS_AS(StochasticVolatility(q), rsmc::Error);
}

TEST_CASE("StochasticVolatility: density and draws", "[models][sv]") {
  const StochasticVolatility model(StochasticVolatilityParams{});
  const auto p = model.params();
  const double pi = 3.14159265358979323846;
  for (double x : {-3.0, -0.87, 0.0, 2.5})
    for (double y : {-2.0, 0.0, 0.3}) {
      const double v = std::exp(x);
      const double expected = -0.5 * std::log(2.0 * pi * v) - y * y / (2.0 * v);
      CHECK(model.log_likelihood(ConstStateView{&x, 1}, ConstStateView{&y, 1}, 1) == Approx(expected).epsilon(1e-14));
    }

  const int n = 100000;
  const double from = 1.0;
  std::vector<double> next(n), init(n);
  for (int i = 0; i < n; ++i) {
    ModelStream s(7, Purpose::propagate, 1, static_cast<std::uint64_t>(i));
    model.transition(ConstStateView{&from, 1}, StateView{&next[i], 1}, 1, s);
    ModelStream s0(7, Purpose::initialise, 0, static_cast<std::uint64_t>(i));
    model.initial(StateView{&init[i], 1}, s0);
  }
  const double m1 = p.mu + p.phi * (from - p.mu), v1 = p.sigma * p.sigma;
  const double v0 = v1 / (1.0 - p.phi * p.phi);
  CHECK(std::abs(mean_of(next) - m1) < 5.0 * std::sqrt(v1 / n));
  CHECK(std::abs(var_of(next) - v1) < 5.0 * std::sqrt(2.0) * v1 / std::sqrt(n));
  CHECK(std::abs(mean_of(init) - p.mu) < 5.0 * std::sqrt(v0 / n));
  CHECK(std::abs(var_of(init) - v0) < 5.0 * std::sqrt(2.0) * v0 / std::sqrt(n));
}

TEST_CASE("StochasticVolatility: the bootstrap filter tracks the simulated log-variance", "[models][sv][statistics]") {
  const StochasticVolatility model(StochasticVolatilityParams{});
  const auto p = model.params();
  const auto sim = rsmc::simulate(model, 1000, 11);
  const auto result = rsmc::test::run_filter(model, sim.observations, 10000, 3);
  const auto tr = rsmc::test::tracking(sim, result, 1, 50);
  const double stationary_var = p.sigma * p.sigma / (1.0 - p.phi * p.phi);
  INFO("mse " << tr.mse << ", mean filter variance " << tr.mean_var << " (stationary " << stationary_var << "), excess "
              << tr.excess << " +- " << tr.excess_se << ", NEES " << tr.nees << " +- " << tr.nees_se
              << ", 2-sd coverage " << tr.coverage2 << ", " << tr.batches << " batches");
  CHECK(std::abs(tr.excess) < 4.0 * tr.excess_se);
  CHECK(std::abs(tr.nees - 1.0) < 4.0 * tr.nees_se);
  CHECK(tr.mean_var < stationary_var);
}

TEST_CASE("StochasticVolatility: log-likelihood estimates at N = 1e3 and 1e4 agree", "[models][sv][statistics]") {
  const StochasticVolatility model(StochasticVolatilityParams{});
  const auto y = rsmc::simulate(model, 100, 21).observations;
  auto estimates = [&](std::uint64_t particles, int runs, std::uint64_t first_seed) {
    std::vector<double> out;
    for (int r = 0; r < runs; ++r)
      out.push_back(
          rsmc::test::run_filter(model, y, particles, first_seed + static_cast<std::uint64_t>(r)).log_likelihood);
    return out;
  };
  const std::vector<double> small = estimates(1000, 40, 100), big = estimates(10000, 20, 200);
  const double vs = var_of(small), vb = var_of(big);
  const double corrected_small = mean_of(small) + vs / 2.0, corrected_big = mean_of(big) + vb / 2.0;
  const double se = std::sqrt(vs / small.size() + vb / big.size());
  INFO("N=1e3: mean " << mean_of(small) << " sd " << std::sqrt(vs) << "; N=1e4: mean " << mean_of(big) << " sd "
                      << std::sqrt(vb) << "; corrected difference " << corrected_small - corrected_big << ", SE "
                      << se);
  CHECK(std::abs(corrected_small - corrected_big) < 4.0 * se);
  // The Monte Carlo sd scales as 1/sqrt(N): sqrt(10) = 3.16 expected; with 40 and 20 replicates the log
  // of the ratio has SE ~ sqrt(1/78 + 1/38) = 0.2, so [2, 5] is about +-2.3 SE.
  CHECK(std::sqrt(vs / vb) > 2.0);
  CHECK(std::sqrt(vs / vb) < 5.0);
}
