// Unit tests for models/regime_switching.hpp.
//
// - Parameters: defaults, describe(), validation messages naming the parameter; params() round trip.
// - The regime draw is the butterfly kernel's: for n = 4099 particles with random previous regimes,
//   transition()'s regimes equal kernels::butterfly::batched_categorical<host exec, double> run on the
//   particles' rows of P with each particle's uniform (the first uniform() of its stream), bit for
//   bit, for K = 2, 3 and 31 (random rows, some zero entries, which are never drawn).
// - Regime frequencies from one row (2 * 10^5 draws): Pearson's chi-square against the row, p > 0.001.
// - x replays as a_k x + b_k + s_k z from the stream (uniform first, then the normal).
// - Tracking (K = 2 defaults, T = 500, N = 10^4): on x, the identities (1) and (2) of
//   tests/support/model_testing.hpp within 4 batch-means standard errors (batches of 25 steps, beyond
//   the regimes' expected durations of 20 and 10 steps), and the filter beats the raw observation
//   (mean filter variance < obs_sd^2, as for Lorenz96: E[(x_t - m_t)^2] <= E[(x_t - y_t)^2]). On the
//   regime (0/1 for K = 2, so the filtered mean is p_t = P(k_t = 1 | y_1..t) and the filtered variance
//   p_t (1 - p_t)): identity (1) within 4 standard errors — the Brier score matches the filter's own
//   variance — and the filter knows the regime better than the prior: E[p_t (1 - p_t)] <=
//   Var(1{k_t = 1}) = pi_1 (1 - pi_1) = 2/9 by the law of total variance.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/simulate.hpp"
#include "base/rng/counter_stream.hpp"
#include "kernels/butterfly/batched_categorical.hpp"
#include "models/regime_switching.hpp"
#include "tests/support/model_testing.hpp"
#include "tests/support/statistics.hpp"

namespace {

using rsmc::ConstStateView;
using rsmc::StateView;
using rsmc::models::RegimeSwitching;
using rsmc::models::RegimeSwitchingParams;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;
using rsmc::test::validation_message;

// K regimes with random rows (about a fifth of the entries zero), random coefficients.
RegimeSwitchingParams random_params(int k, std::uint64_t seed) {
  ModelStream s(seed, Purpose::model, 0, 0);
  RegimeSwitchingParams p;
  p.K = k;
  p.P.assign(static_cast<std::size_t>(k) * k, 0.0);
  for (int i = 0; i < k; ++i) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) {
      const double w = (j != i && s.uniform() < 0.2) ? 0.0 : s.uniform();
      p.P[i * k + j] = w;
      sum += w;
    }
    for (int j = 0; j < k; ++j) p.P[i * k + j] /= sum;
  }
  p.pi0.assign(static_cast<std::size_t>(k), 1.0 / k);
  p.a.assign(static_cast<std::size_t>(k), 0.5);
  p.b.assign(static_cast<std::size_t>(k), 0.0);
  p.s.assign(static_cast<std::size_t>(k), 1.0);
  for (int j = 0; j < k; ++j) p.b[j] = j;
  return p;
}

}  // namespace

TEST_CASE("RegimeSwitchingParams: defaults, describe and validation", "[models][regime]") {
  const RegimeSwitchingParams p;
  CHECK(p.describe() ==
        "K = 2\nP = [[0.95, 0.05], [0.1, 0.9]]\npi0 = [0.6666666666666666, 0.3333333333333333]\n"
        "a = [0.9, 0.5]\nb = [0, 2]\ns = [0.3, 1]\nobs_sd = 0.5\nx0_mean = 0\nx0_sd = 1\n");
  CHECK(RegimeSwitchingParams::parameter_names().size() == 9);
  CHECK(validation_message(p) == "no error");
  RegimeSwitchingParams q = p;
  q.P = {0.9, 0.2, 0.1, 0.9};
  CHECK(validation_message(q) ==
        "regime_switching: P row 0 = [0.9, 0.2]; expected probabilities summing to 1 (they sum to 1.1)");
  q = p;
  q.a = {0.9};
  CHECK(validation_message(q) == "regime_switching: a = 1 entries; expected K = 2 entries");
  q = p;
  q.K = 32;
  CHECK(validation_message(q) ==
        "regime_switching: K = 32; expected an integer K <= 31 (below the butterfly warp width)");
  q = p;
  q.s = {0.3, 0.0};
  CHECK(validation_message(q) == "regime_switching: s[1] = 0; expected a finite number > 0");
  q = p;
  q.pi0 = {1.5, -0.5};
  CHECK(validation_message(q) == "regime_switching: pi0 = [1.5, -0.5]; expected non-negative probabilities");
  CHECK_THROWS_AS(RegimeSwitching(q), rsmc::Error);
  const RegimeSwitching model(random_params(3, 4));
  CHECK(model.params().describe() == random_params(3, 4).describe());
  CHECK(RegimeSwitching::state_name(1) == "regime");
}

TEST_CASE("RegimeSwitching: regime draws equal the butterfly batched_categorical kernel", "[models][regime]") {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const int n = 4099;  // not a multiple of the warp width
  for (int k : {2, 3, 31}) {
    const auto params = random_params(k, 10 + static_cast<std::uint64_t>(k));
    const RegimeSwitching model(params);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> rows("rows", n, k);
    Kokkos::View<double*, Kokkos::HostSpace> u("u", n);
    Kokkos::View<std::uint32_t*, Kokkos::HostSpace> kernel_draw("draw", n);
    std::vector<int> model_draw(n);
    int zero_drawn = 0;
    for (int i = 0; i < n; ++i) {
      const int prev = static_cast<int>(ModelStream(5, Purpose::model, 1, static_cast<std::uint64_t>(i)).integer(k));
      for (int j = 0; j < k; ++j) rows(i, j) = params.P[prev * k + j];
      u(i) = ModelStream(5, Purpose::propagate, 3, static_cast<std::uint64_t>(i)).uniform();
      const double from[2] = {0.0, static_cast<double>(prev)};
      double to[2];
      ModelStream s(5, Purpose::propagate, 3, static_cast<std::uint64_t>(i));
      model.transition(ConstStateView{from, 1}, StateView{to, 1}, 3, s);
      model_draw[i] = static_cast<int>(to[1]);
      zero_drawn += params.P[prev * k + model_draw[i]] == 0.0 ? 1 : 0;
    }
    rsmc::kernels::butterfly::batched_categorical<Exec, double>(rows, u, kernel_draw);
    int equal = 0;
    for (int i = 0; i < n; ++i) equal += static_cast<int>(kernel_draw(i)) == model_draw[i] ? 1 : 0;
    INFO("K = " << k);
    CHECK(equal == n);
    CHECK(zero_drawn == 0);
  }
}

TEST_CASE("RegimeSwitching: regime frequencies and the x update", "[models][regime][statistics]") {
  const auto params = random_params(3, 21);
  const RegimeSwitching model(params);
  const int n = 200000, prev = 1;
  std::vector<double> observed(3, 0.0), expected(3, 0.0);
  for (int i = 0; i < n; ++i) {
    const double from[2] = {1.5, static_cast<double>(prev)};
    double to[2];
    ModelStream s(6, Purpose::propagate, 1, static_cast<std::uint64_t>(i));
    model.transition(ConstStateView{from, 1}, StateView{to, 1}, 1, s);
    const int k = static_cast<int>(to[1]);
    observed[k] += 1.0;
    if (i < 100) {
      ModelStream replay(6, Purpose::propagate, 1, static_cast<std::uint64_t>(i));
      replay.uniform();
      CHECK(to[0] == params.a[k] * 1.5 + params.b[k] + params.s[k] * replay.normal());
    }
  }
  for (int j = 0; j < 3; ++j) expected[j] = n * params.P[prev * 3 + j];
  const double p = rsmc::test::chi_square(observed, expected).p_value();
  INFO("chi-square p = " << p);
  CHECK(p > 0.001);
}

TEST_CASE("RegimeSwitching: the bootstrap filter tracks x and the regime", "[models][regime][statistics]") {
  const RegimeSwitching model(RegimeSwitchingParams{});
  const auto sim = rsmc::simulate(model, 500, 13);
  const auto result = rsmc::test::run_filter(model, sim.observations, 10000, 14);
  const auto x = rsmc::test::tracking(sim, result, 1, 25, {RegimeSwitching::kX});
  const auto k = rsmc::test::tracking(sim, result, 1, 25, {RegimeSwitching::kRegime});
  INFO("x: mse " << x.mse << ", mean filter variance " << x.mean_var << ", excess " << x.excess << " +- " << x.excess_se
                 << ", NEES " << x.nees << " +- " << x.nees_se << "; regime: Brier " << k.mse << ", mean p(1 - p) "
                 << k.mean_var << ", excess " << k.excess << " +- " << k.excess_se);
  CHECK(std::abs(x.excess) < 4.0 * x.excess_se);
  CHECK(std::abs(x.nees - 1.0) < 4.0 * x.nees_se);
  CHECK(x.mean_var < 0.25);
  CHECK(std::abs(k.excess) < 4.0 * k.excess_se);
  CHECK(k.mean_var < 2.0 / 9.0);
}
