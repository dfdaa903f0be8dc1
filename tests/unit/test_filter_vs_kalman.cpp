// Acceptance of the end-to-end filter against the exact Kalman filter (2-D linear Gaussian, T = 50).
//
// Statistics, all with fixed seeds and tolerances derived from standard errors:
// - log-likelihood: the mean of R = 20 independent estimates at N = 10^4 lies within 4 standard
//   errors (sample sd / sqrt(R)) of the exact value. (The estimator's bias, about -var/2, is far
//   smaller than that standard error at this N.)
// - 1/sqrt(N) scaling: sd at N = 10^3 over sd at N = 10^4 lies in [2, 5] (sqrt(10) = 3.16 expected;
//   with 20 and 80 runs the log of the ratio has a standard error of about 0.18, so [2, 5] is
//   about +-2.5 standard errors).
// - filtered means and variances: at every step and component, the mean over the R runs lies
//   within 5 standard errors (run-to-run sd / sqrt(R), which scales as 1/sqrt(N)) of the Kalman value.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/model_testing.hpp"

using rsmc::test::mean_of;

namespace {

using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;

struct Runs {
  std::vector<double> log_likelihood;
  std::vector<std::vector<double>> mean, variance;  // per run, T x d
};

Runs run_many(const LinearGaussian& model, const rsmc::Observations& y, std::uint64_t particles, int runs,
              std::uint64_t first_seed) {
  Runs out;
  for (int r = 0; r < runs; ++r) {
    rsmc::FilterOptions options;
    options.particles = particles;
    options.seed = first_seed + static_cast<std::uint64_t>(r);
    options.ess_threshold = 0.5;
    rsmc::BootstrapFilter<LinearGaussian> filter(MPI_COMM_SELF, model, options);
    const auto result = filter.run(y);
    out.log_likelihood.push_back(result.log_likelihood);
    out.mean.push_back(result.mean);
    out.variance.push_back(result.variance);
  }
  return out;
}

double sd_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / (v.size() - 1));
}

}  // namespace

TEST_CASE("bootstrap filter agrees with the Kalman filter on a 2-D linear Gaussian model", "[engine][statistics]") {
  const auto params = LinearGaussianParams::default_2d();
  const LinearGaussian model(params);
  const int T = 50;
  const auto y = rsmc::simulate(model, T, 2026).observations;
  const auto exact = rsmc::models::kalman_filter(params, y);

  const int R = 20;
  const Runs big = run_many(model, y, 10000, R, 1000);
  const Runs small = run_many(model, y, 1000, 4 * R, 5000);

  const double m = mean_of(big.log_likelihood), sd_big = sd_of(big.log_likelihood);
  const double se = sd_big / std::sqrt(static_cast<double>(R));
  INFO("exact " << exact.log_likelihood << ", mean of estimates " << m << ", standard error " << se);
  CHECK(std::abs(m - exact.log_likelihood) < 4.0 * se);

  const double ratio = sd_of(small.log_likelihood) / sd_big;
  INFO("sd(N=1e3) / sd(N=1e4) = " << ratio);
  CHECK(ratio > 2.0);
  CHECK(ratio < 5.0);

  const int d = params.d;
  int checked = 0;
  for (int t = 0; t < T; ++t) {
    for (int c = 0; c < d; ++c) {
      std::vector<double> means, vars;
      for (int r = 0; r < R; ++r) {
        means.push_back(big.mean[r][t * d + c]);
        vars.push_back(big.variance[r][t * d + c]);
      }
      const double kalman_mean = exact.mean[t * d + c];
      const double kalman_var = exact.covariance[(t * d + c) * d + c];
      const double se_mean = sd_of(means) / std::sqrt(static_cast<double>(R));
      const double se_var = sd_of(vars) / std::sqrt(static_cast<double>(R));
      INFO("step " << t + 1 << " component " << c);
      CHECK(std::abs(mean_of(means) - kalman_mean) < 5.0 * se_mean);
      CHECK(std::abs(mean_of(vars) - kalman_var) < 5.0 * se_var);
      ++checked;
    }
  }
  CHECK(checked == T * d);
}
