// Unit tests for models/lorenz96.hpp.
//
// - Parameters: defaults, describe(), validation messages naming the parameter.
// - The one-sweep RK4 (O(1) memory) against a reference RK4 with full stage arrays, bit for bit, for
//   d = 4, 5, 7, 8, 40 and 1000 (every cyclic wrap case: d below, at and above the ring size 8).
// - RK4's order: the error of one step of length h against a fine-step solution shrinks by
//   2^5 = 32 when h halves (local error O(h^5)); accepted in [24, 40] (the next term of the error
//   expansion shifts the ratio by O(h)).
// - transition() = rk4() + process_sd * (d standard normals, component 0 first), exactly.
// - log_likelihood against the closed form, with obs_every = 3 (m = ceil(d / 3)) and a NaN component.
// - Tracking (d = 10, all components observed, process_sd = 0.3, T = 200, N = 10^4): the identities
//   (1) and (2) of tests/support/model_testing.hpp, averaged over the components, within 4
//   batch-means standard errors (batches of 10 steps = 0.5 time units, several e-folding times
//   1 / 1.7 of the leading Lyapunov exponent), and the filter beats the raw observation:
//   E[(x_t - m_t)^2] <= E[(x_t - y_t)^2] = obs_sd^2 for each observed component (m_t is the best
//   estimator given y_1..t, y_t one of them), so the mean filter variance (the expected squared
//   error, by (1)) must lie below obs_sd^2 = 1.
//   Why not d = 40: the bootstrap filter's weights degenerate when the variance of the log-likelihood
//   grows (Snyder, Bengtsson, Bickel & Anderson, Mon. Wea. Rev. 136 (2008) 4629-4640: N must grow
//   exponentially with it, i.e. with the number of observed components). Measured here with
//   N = 10^4, T = 100: d = 40 collapses to an ESS of 1-2 and a NEES in the thousands (process_sd 0.1
//   or 0.3); d = 20 is overconfident (NEES 1.7 +- 0.1); d = 10 with process_sd 0.3 is calibrated.
// - d = 1000 runs through the filter (N = 64, 3 steps): finite likelihood, means and variances.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/simulate.hpp"
#include "base/rng/counter_stream.hpp"
#include "models/lorenz96.hpp"
#include "tests/support/model_testing.hpp"

namespace {

using rsmc::ConstStateView;
using rsmc::StateView;
using rsmc::models::Lorenz96;
using rsmc::models::Lorenz96Params;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;
using rsmc::test::validation_message;

// The textbook RK4 step with full stage arrays, the same expression per component as the model.
std::vector<double> reference_rk4(const std::vector<double>& x, double F, double h) {
  const int d = static_cast<int>(x.size());
  auto f = [&](const std::vector<double>& y, int j) {
    return (y[(j + 1) % d] - y[(j + d - 2) % d]) * y[(j + d - 1) % d] - y[j] + F;
  };
  std::vector<double> k1(d), k2(d), k3(d), k4(d), y(d), out(d);
  for (int j = 0; j < d; ++j) k1[j] = f(x, j);
  for (int j = 0; j < d; ++j) y[j] = x[j] + (0.5 * h) * k1[j];
  for (int j = 0; j < d; ++j) k2[j] = f(y, j);
  for (int j = 0; j < d; ++j) y[j] = x[j] + (0.5 * h) * k2[j];
  for (int j = 0; j < d; ++j) k3[j] = f(y, j);
  for (int j = 0; j < d; ++j) y[j] = x[j] + h * k3[j];
  for (int j = 0; j < d; ++j) k4[j] = f(y, j);
  for (int j = 0; j < d; ++j) out[j] = x[j] + (h / 6.0) * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
  return out;
}

std::vector<double> random_state(int d, std::uint64_t seed) {
  ModelStream s(seed, Purpose::model, 0, 0);
  std::vector<double> x(d);
  for (double& v : x) v = 2.3 + 3.6 * s.normal();
  return x;
}

std::vector<double> model_rk4(const Lorenz96& model, const std::vector<double>& x) {
  std::vector<double> out(x.size());
  model.rk4(ConstStateView{x.data(), 1}, StateView{out.data(), 1});
  return out;
}

Lorenz96 with_d(int d, double dt = 0.05) {
  Lorenz96Params p;
  p.d = d;
  p.dt = dt;
  return Lorenz96(p);
}

}  // namespace

TEST_CASE("Lorenz96Params: defaults, describe and validation", "[models][lorenz96]") {
  const Lorenz96Params p;
  CHECK(p.describe() ==
        "d = 40\nF = 8\ndt = 0.05\nprocess_sd = 0.1\nobs_every = 1\nobs_sd = 1\nx0_mean = 8\nx0_sd = 1\n");
  CHECK(Lorenz96Params::parameter_names().size() == 8);
  CHECK(validation_message(p) == "no error");
  Lorenz96Params q = p;
  q.d = 3;
  CHECK(validation_message(q) == "lorenz96: d = 3; expected an integer d >= 4 (the tendency reads x_{j-2}..x_{j+1})");
  q = p;
  q.obs_every = 41;
  CHECK(validation_message(q) == "lorenz96: obs_every = 41; expected an integer 1 <= obs_every <= d = 40");
  q = p;
  q.dt = 0.0;
  CHECK(validation_message(q) == "lorenz96: dt = 0; expected a finite number > 0");
  q = p;
  q.obs_sd = NAN;
  CHECK(validation_message(q) == "lorenz96: obs_sd = nan; expected a finite number > 0");
  CHECK_THROWS_AS(Lorenz96(q), rsmc::Error);
  const Lorenz96 model(p);
  CHECK(model.state_dim() == 40);
  CHECK(model.obs_dim() == 40);
  CHECK(Lorenz96::state_name(7) == "x7");
}

TEST_CASE("Lorenz96: the one-sweep RK4 equals the full-storage RK4 bit for bit", "[models][lorenz96]") {
  for (int d : {4, 5, 7, 8, 9, 40, 1000}) {
    const Lorenz96 model = with_d(d);
    const auto x = random_state(d, static_cast<std::uint64_t>(d));
    const auto got = model_rk4(model, x);
    const auto expected = reference_rk4(x, 8.0, 0.05);
    int equal = 0;
    for (int j = 0; j < d; ++j) equal += got[j] == expected[j] ? 1 : 0;
    INFO("d = " << d);
    CHECK(equal == d);
  }
}

TEST_CASE("Lorenz96: RK4 is fourth order", "[models][lorenz96]") {
  const int d = 40;
  const auto x = random_state(d, 3);
  // "Exact": 1000 steps of h / 1000 with the reference integrator.
  auto fine = [&](double h) {
    std::vector<double> y = x;
    for (int i = 0; i < 1000; ++i) y = reference_rk4(y, 8.0, h / 1000.0);
    return y;
  };
  auto error = [&](double h) {
    const auto exact = fine(h);
    const auto one = model_rk4(with_d(d, h), x);
    double e = 0.0;
    for (int j = 0; j < d; ++j) e = std::fmax(e, std::fabs(one[j] - exact[j]));
    return e;
  };
  const double ratio = error(0.02) / error(0.01);
  INFO("error ratio " << ratio);
  CHECK(ratio > 24.0);
  CHECK(ratio < 40.0);
}

TEST_CASE("Lorenz96: transition, observation and density", "[models][lorenz96]") {
  Lorenz96Params p;
  p.d = 10;
  p.obs_every = 3;  // components 0, 3, 6, 9
  p.obs_sd = 0.5;
  const Lorenz96 model(p);
  REQUIRE(model.obs_dim() == 4);
  const auto x = random_state(10, 5);
  std::vector<double> to(10);
  ModelStream s(1, Purpose::propagate, 4, 77);
  model.transition(ConstStateView{x.data(), 1}, StateView{to.data(), 1}, 4, s);
  const auto det = model_rk4(model, x);
  ModelStream replay(1, Purpose::propagate, 4, 77);
  for (int j = 0; j < 10; ++j) CHECK(to[j] == det[j] + 0.1 * replay.normal());

  std::vector<double> y = {1.0, NAN, -2.0, 4.0};
  const double pi = 3.14159265358979323846;
  double expected = 0.0;
  for (int j : {0, 2, 3}) {
    const double u = (y[j] - x[3 * j]) / 0.5;
    expected += -0.5 * std::log(2.0 * pi * 0.25) - 0.5 * u * u;
  }
  CHECK(model.log_likelihood(ConstStateView{x.data(), 1}, ConstStateView{y.data(), 1}, 1) ==
        Approx(expected).epsilon(1e-13));
  ModelStream o(1, Purpose::observe, 4, 1);
  model.simulate_observation(ConstStateView{x.data(), 1}, rsmc::ObservationOut{y.data(), 1}, 4, o);
  ModelStream o2(1, Purpose::observe, 4, 1);
  for (int j = 0; j < 4; ++j) CHECK(y[j] == x[3 * j] + 0.5 * o2.normal());
}

TEST_CASE("Lorenz96: the bootstrap filter tracks a 10-dimensional state", "[models][lorenz96][statistics]") {
  Lorenz96Params p;
  p.d = 10;
  p.process_sd = 0.3;
  const Lorenz96 model(p);
  const auto sim = rsmc::simulate(model, 200, 8);
  const auto result = rsmc::test::run_filter(model, sim.observations, 10000, 6);
  const auto tr = rsmc::test::tracking(sim, result, 1, 10);
  INFO("mse " << tr.mse << ", mean filter variance " << tr.mean_var << ", excess " << tr.excess << " +- "
              << tr.excess_se << ", NEES " << tr.nees << " +- " << tr.nees_se << ", 2-sd coverage " << tr.coverage2);
  CHECK(std::abs(tr.excess) < 4.0 * tr.excess_se);
  CHECK(std::abs(tr.nees - 1.0) < 4.0 * tr.nees_se);
  CHECK(tr.mean_var < p.obs_sd * p.obs_sd);
}

TEST_CASE("Lorenz96: d = 1000 runs through the filter", "[models][lorenz96]") {
  Lorenz96Params p;
  p.d = 1000;
  p.obs_every = 10;
  const Lorenz96 model(p);
  REQUIRE(model.obs_dim() == 100);
  const auto sim = rsmc::simulate(model, 3, 2);
  const auto result = rsmc::test::run_filter(model, sim.observations, 64, 2);
  CHECK(std::isfinite(result.log_likelihood));
  REQUIRE(result.mean.size() == 3000);
  int finite = 0;
  for (std::size_t i = 0; i < result.mean.size(); ++i)
    finite += std::isfinite(result.mean[i]) && std::isfinite(result.variance[i]) ? 1 : 0;
  CHECK(finite == 3000);
}
