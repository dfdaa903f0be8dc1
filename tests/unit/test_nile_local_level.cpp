// A real series end to end: the annual Nile flow (examples/nile/nile.csv, 100 observations, read by
// the CSV reader) under the local level model, at Durbin & Koopman's maximum likelihood estimates.
//
// 1. The exact reference (models/kalman_filter) is anchored to independently computed values:
//    statsmodels' UnobservedComponents('llevel').loglike([15099, 1469.1]) on the same data, with
//    its approximate-diffuse and its exact-diffuse initialisation.
// 2. The particle filter's log-likelihood agrees with the exact Kalman value for a proper prior
//    within Monte Carlo error: R independent seeds give estimates with mean m and sd s; the
//    estimator log Z^ is biased by about -Var(log Z^)/2 (Jensen; delta method), so the check is
//    |m - (exact - s^2/2)| < 4 s / sqrt(R). Seeds are fixed, the bound is set in advance.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/io/csv_observations.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/model_testing.hpp"

namespace {

using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;

constexpr double kSigmaEps2 = 15099.0, kSigmaEta2 = 1469.1;  // Durbin & Koopman's MLE

rsmc::Observations nile() {
  return rsmc::read_observations_csv(std::string(RSMC_SOURCE_DIR) + "/examples/nile/nile.csv");
}

}  // namespace

TEST_CASE("the Nile series is the 100 annual flows of 1871-1970", "[models][nile]") {
  const rsmc::Observations y = nile();
  REQUIRE(y.steps == 100);
  REQUIRE(y.dim == 1);
  CHECK(y.row(1)[0] == 1120.0);   // 1871
  CHECK(y.row(43)[0] == 456.0);   // 1913, the driest year
  CHECK(y.row(100)[0] == 740.0);  // 1970
  double sum = 0.0;
  for (int t = 1; t <= y.steps; ++t) sum += y.row(t)[0];
  CHECK(sum == 91935.0);  // mean 919.35, as R's mean(Nile)
}

TEST_CASE("the Kalman log-likelihood of the Nile data matches statsmodels' published values", "[models][nile]") {
  const rsmc::Observations y = nile();
  // (a) statsmodels' default for this model, approximate diffuse: x_1 ~ N(0, 10^6) and the first
  //     observation left out. rsmc's prior is on x_0, so p1 = 10^6 - sigma_eta2 makes Var x_1 = 10^6.
  {
    const auto k = rsmc::models::kalman_filter(
        LinearGaussianParams::local_level(kSigmaEta2, kSigmaEps2, 0.0, 1e6 - kSigmaEta2), y);
    const double without_first = k.log_likelihood - k.log_likelihood_increment.at(0);
    INFO("approximate diffuse: " << without_first);
    CHECK(std::abs(without_first - (-632.5376950475525)) < 1e-8);
  }
  // (b) exact diffuse initialisation (statsmodels, use_exact_diffuse=True: -633.4645636488787, which
  //     keeps the -0.5 log(2 pi) of y_1's density): the limit p1 -> infinity of the Kalman
  //     log-likelihood less y_1's terms that vanish or diverge, -0.5 log(F_1) - v_1^2 / (2 F_1). What remains of
  //     the prior at p1 = 10^12 is O(sigma^2 / p1) ~ 1e-8.
  {
    const double a1 = 1000.0, p1 = 1e12;
    const auto k = rsmc::models::kalman_filter(LinearGaussianParams::local_level(kSigmaEta2, kSigmaEps2, a1, p1), y);
    const double f1 = p1 + kSigmaEta2 + kSigmaEps2;  // the variance of y_1 under the prior
    const double v1 = y.row(1)[0] - a1;
    const double diffuse = k.log_likelihood + 0.5 * std::log(f1) + 0.5 * v1 * v1 / f1;
    INFO("exact diffuse: " << diffuse);
    CHECK(std::abs(diffuse - (-633.4645636488787)) < 1e-6);
  }
}

TEST_CASE("the particle filter's Nile log-likelihood agrees with the Kalman filter within Monte Carlo error",
          "[models][nile]") {
  const rsmc::Observations y = nile();
  const LinearGaussianParams params = LinearGaussianParams::local_level(kSigmaEta2, kSigmaEps2, 1000.0, 1e5);
  const double exact = rsmc::models::kalman_filter(params, y).log_likelihood;
  constexpr int R = 32;  // enough replicates that s itself is known to ~13%
  std::vector<double> estimates;
  for (int r = 0; r < R; ++r) {
    rsmc::FilterOptions options;
    options.particles = 10000;
    options.seed = 1871 + static_cast<std::uint64_t>(r);
    rsmc::BootstrapFilter<LinearGaussian> filter(MPI_COMM_WORLD, LinearGaussian(params), options);
    estimates.push_back(filter.run(y).log_likelihood);
  }
  const double m = rsmc::test::mean_of(estimates), s2 = rsmc::test::var_of(estimates);
  const double se = std::sqrt(s2 / R), expected = exact - s2 / 2.0;
  INFO("exact " << exact << ", mean of " << R << " estimates " << m << ", sd " << std::sqrt(s2) << ", SE " << se
                << ", |m - (exact - s^2/2)| / SE = " << std::abs(m - expected) / se);
  REQUIRE(se > 0.0);  // the seeds must matter
  CHECK(std::abs(m - expected) < 4.0 * se);
}
