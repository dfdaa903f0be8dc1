// Posterior summaries and convergence diagnostics (framework/inference/diagnostics.hpp).
//
// - mean/sd/quantiles on hand-computed cases (the mean is exact: 1e16 + 1 - 1e16 sums to 1);
// - the normal quantile (AS 241) against libm's erfc in long double, over 1e-300 .. 1 - 1e-16;
// - ESS against the exact integrated autocorrelation time of AR(1) series, tau = (1 + rho)/(1 - rho),
//   and of i.i.d. draws; the batch-means standard error against sqrt(tau sigma^2 / n); fixed seeds,
//   tolerances a few times the estimators' own relative spread (stated at each check);
// - R-hat near 1 for chains from one distribution, above 1 for a shifted chain, and the rank
//   version's folded part catching a chain with a different scale that classic R-hat misses;
// - errors on unusable input.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/inference/diagnostics.hpp"
#include "tests/support/inference_testing.hpp"

namespace {

using rsmc::testing::error_of;
using namespace rsmc::inference;

// x_t = rho x_{t-1} + e_t, e_t ~ N(0, 1), x_0 from the stationary N(0, 1 / (1 - rho^2)).
std::vector<double> ar1(double rho, std::size_t n, std::uint64_t seed, std::uint32_t chain) {
  const std::vector<double> e = rsmc::testing::portable_normals(seed, chain, n);
  std::vector<double> x(n);
  x[0] = e[0] / std::sqrt(1 - rho * rho);
  for (std::size_t t = 1; t < n; ++t) x[t] = rho * x[t - 1] + e[t];
  return x;
}

Chains ar1_chains(double rho, std::size_t n, std::size_t m, std::uint64_t seed) {
  Chains c;
  for (std::size_t k = 0; k < m; ++k) c.push_back(ar1(rho, n, seed, static_cast<std::uint32_t>(k)));
  return c;
}

}  // namespace

TEST_CASE("mean, sd and type-7 quantiles", "[inference]") {
  CHECK(mean({1e16, 1.0, -1e16}) == 1.0 / 3.0);  // exact sum; a naive left-to-right sum gives 0
  CHECK(standard_deviation({2, 4, 4, 4, 5, 5, 7, 9}) == std::sqrt(32.0 / 7.0));
  const std::vector<double> x = {10, 1, 4, 3, 2};
  CHECK(quantile(x, 0.0) == 1.0);
  CHECK(quantile(x, 0.3) == Approx(2.2).epsilon(1e-15));
  CHECK(quantile(x, 0.9) == Approx(7.6).epsilon(1e-15));
  CHECK(quantile(x, 1.0) == 10.0);
  CHECK(quantile({5.0}, 0.5) == 5.0);
  const Summary s = summarise(x, {0.5});
  CHECK(s.mean == 4.0);
  CHECK(s.quantiles == std::vector<double>{3.0});
  CHECK(acceptance_rate(25, 100) == 0.25);
  CHECK(std::isnan(acceptance_rate(0, 0)));
}

TEST_CASE("normal_quantile inverts the normal distribution function", "[inference]") {
  CHECK(normal_quantile(0.5) == 0.0);
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-15));
  CHECK(normal_quantile(0.0) == -INFINITY);
  CHECK(normal_quantile(1.0) == INFINITY);
  CHECK(std::isnan(normal_quantile(1.5)));
  // Phi(z(p)) = p in relative terms, with Phi from libm's erfc in long double.
  for (double lp = -300; lp < -0.302; lp += 0.25) {
    const double p = std::pow(10.0, lp);
    const long double z = normal_quantile(p);
    const long double phi = 0.5L * std::erfc(-z / std::sqrt(2.0L));
    INFO("p = " << p);
    CHECK(std::fabs(static_cast<double>(phi / p - 1)) < 1e-13 * (1 + std::fabs(static_cast<double>(z))));
    CHECK(normal_quantile(1 - p) == Approx(-normal_quantile(1 - (1 - p))).epsilon(1e-12).margin(1e-300));
  }
}

TEST_CASE("ESS matches the integrated autocorrelation time of AR(1) chains", "[inference]") {
  // 4 chains of 40000: ESS = 160000 / tau. The estimator's relative spread is a few percent at
  // tau = 19 (rho = 0.9); 15% is several of them.
  for (double rho : {0.0, 0.5, 0.9}) {
    const Chains c = ar1_chains(rho, 40000, 4, 123);
    const double tau = (1 + rho) / (1 - rho);
    INFO("rho = " << rho);
    CHECK(ess_basic(c) == Approx(160000 / tau).epsilon(0.15));
    CHECK(ess_bulk(c) == Approx(160000 / tau).epsilon(0.15));  // normal draws: ranks change little
    CHECK(rhat_split(c) < 1.01);
    CHECK(rhat_rank(c) < 1.01);
  }
}

TEST_CASE("batch-means standard error matches sqrt(tau sigma^2 / n)", "[inference]") {
  // rho = 0.5: sigma^2 = 1 / (1 - rho^2) = 4/3, tau = 3, n = 10^5 draws in 50 batches: the estimate's
  // relative sd is about 1 / sqrt(2 * 49) = 10%; the bound is 35%.
  const std::vector<double> x = ar1(0.5, 100000, 9, 0);
  const double expected = std::sqrt(3.0 * (4.0 / 3.0) / 100000.0);
  CHECK(batch_means_standard_error(x, 50) == Approx(expected).epsilon(0.35));
  CHECK(error_of([&] { batch_means_standard_error(x, 1); }) == "batch means: 1 batches; expected at least 2");
}

TEST_CASE("R-hat flags chains that disagree in location or scale", "[inference]") {
  Chains c = ar1_chains(0.0, 2000, 4, 77);
  for (double& v : c[3]) v += 1.0;  // one chain shifted by one sd
  CHECK(rhat_split(c) > 1.05);
  CHECK(rhat_rank(c) > 1.05);
  Chains scale = ar1_chains(0.0, 2000, 4, 78);
  for (double& v : scale[3]) v *= 3.0;  // same mean, three times the sd
  CHECK(rhat_split(scale) < 1.02);      // classic R-hat compares means only
  CHECK(rhat_rank(scale) > 1.05);       // the folded draws |x - median| catch it
}

TEST_CASE("diagnostics refuse unusable input", "[inference]") {
  CHECK(error_of([] { rhat_split({{1, 2, 3, 4}, {1, 2, 3, 4, 5}}); }) == "rhat: chains of different lengths (5 and 4)");
  CHECK(error_of([] { ess_basic({{1, 2, 3}}); }) == "ess: 3 draws; expected at least 4");
  CHECK(error_of([] { ess_bulk({}); }) == "ess_bulk: no chains");
  CHECK(error_of([] { mean({1, NAN}); }) == "mean: a draw is not finite");
  CHECK(std::isnan(rhat_split({{2, 2, 2, 2}, {2, 2, 2, 2}})));
  CHECK(std::isnan(ess_basic({{2, 2, 2, 2}})));
}
