// Unit tests for models/nonlinear_growth.hpp (Gordon, Salmond & Smith 1993).
//
// - Parameters: defaults, describe(), validation messages naming the parameter.
// - Kernel functions: the drift and log_likelihood against their closed forms; transition sample
//   moments (10^5 draws) within 5 standard errors (mean: sqrt(q / n); variance: sqrt(2) q / sqrt(n)).
// - Tracking (T = 500, N = 10^4, data simulated from the defaults): the identities (1) and (2) of
//   tests/support/model_testing.hpp within 4 batch-means standard errors (batches of 25 steps; the
//   drift contracts for |x| > 5, where its slope 0.5 + 25 (1 - x^2) / (1 + x^2)^2 lies in (-0.39, 0.5),
//   and the noise sd sqrt(10) is large, so errors decorrelate within a few steps), and the filter is
//   informative: the mean filtered variance lies below the variance of the true path about its own
//   time average. E[v_t] <= Var(x_t) by the law of total variance, and the path variance estimates
//   the time average of E[(x_t - c)^2] >= Var(x_t) (c: the overall mean; the forcing moves E[x_t]),
//   up to an O(1/T) correction. The posterior is often bimodal (the sign of x_t), so the filtered
//   mean can be far from the truth at single steps; the identities hold all the same.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/simulate.hpp"
#include "base/rng/counter_stream.hpp"
#include "models/nonlinear_growth.hpp"
#include "tests/support/model_testing.hpp"

namespace {

using rsmc::ConstStateView;
using rsmc::StateView;
using rsmc::models::NonlinearGrowth;
using rsmc::models::NonlinearGrowthParams;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;
using rsmc::test::mean_of;
using rsmc::test::validation_message;
using rsmc::test::var_of;

}  // namespace

TEST_CASE("NonlinearGrowthParams: defaults, describe and validation", "[models][growth]") {
  const NonlinearGrowthParams p;
  CHECK(p.describe() ==
        "alpha = 0.5\nbeta = 25\ngamma = 8\nomega = 1.2\nkappa = 0.05\nq = 10\nr = 1\nm0 = 0\np0 = 5\n");
  CHECK(NonlinearGrowthParams::parameter_names().size() == 9);
  CHECK(validation_message(p) == "no error");
  NonlinearGrowthParams q = p;
  q.q = -1.0;
  CHECK(validation_message(q) == "nonlinear_growth: q = -1; expected a finite number > 0");
  q = p;
  q.beta = INFINITY;
  CHECK(validation_message(q) == "nonlinear_growth: beta = inf; expected a finite number");
  q = p;
  q.p0 = 0.0;
  CHECK(validation_message(q) == "nonlinear_growth: p0 = 0; expected a finite number > 0");
  CHECK_THROWS_AS(NonlinearGrowth(q), rsmc::Error);
}

TEST_CASE("NonlinearGrowth: drift, density and draws", "[models][growth]") {
  const NonlinearGrowth model(NonlinearGrowthParams{});
  CHECK(model.drift(2.0, 3) == Approx(1.0 + 50.0 / 5.0 + 8.0 * std::cos(3.6)).epsilon(1e-15));
  const double pi = 3.14159265358979323846;
  for (double x : {-4.0, 0.0, 1.5})
    for (double y : {-1.0, 0.8, 10.0}) {
      const double u = y - x * x / 20.0;
      CHECK(model.log_likelihood(ConstStateView{&x, 1}, ConstStateView{&y, 1}, 1) ==
            Approx(-0.5 * std::log(2.0 * pi) - 0.5 * u * u).epsilon(1e-14));
    }
  const int n = 100000;
  const double from = 3.0;
  const int t = 5;
  std::vector<double> next(n);
  for (int i = 0; i < n; ++i) {
    ModelStream s(9, Purpose::propagate, t, static_cast<std::uint64_t>(i));
    model.transition(ConstStateView{&from, 1}, StateView{&next[i], 1}, t, s);
  }
  const double m = 1.5 + 75.0 / 10.0 + 8.0 * std::cos(6.0);
  CHECK(std::abs(mean_of(next) - m) < 5.0 * std::sqrt(10.0 / n));
  CHECK(std::abs(var_of(next) - 10.0) < 5.0 * std::sqrt(2.0) * 10.0 / std::sqrt(n));
}

TEST_CASE("NonlinearGrowth: the bootstrap filter tracks the simulated state", "[models][growth][statistics]") {
  const NonlinearGrowth model(NonlinearGrowthParams{});
  const int T = 500;
  const auto sim = rsmc::simulate(model, T, 5);
  const auto result = rsmc::test::run_filter(model, sim.observations, 10000, 4);
  const auto tr = rsmc::test::tracking(sim, result, 1, 25);
  const std::vector<double> path(sim.states.begin() + 1, sim.states.end());
  const double path_var = var_of(path);
  INFO("mse " << tr.mse << ", mean filter variance " << tr.mean_var << " (path variance " << path_var << "), excess "
              << tr.excess << " +- " << tr.excess_se << ", NEES " << tr.nees << " +- " << tr.nees_se
              << ", 2-sd coverage " << tr.coverage2 << ", " << tr.batches << " batches");
  CHECK(std::abs(tr.excess) < 4.0 * tr.excess_se);
  CHECK(std::abs(tr.nees - 1.0) < 4.0 * tr.nees_se);
  CHECK(tr.mean_var < path_var);
}
