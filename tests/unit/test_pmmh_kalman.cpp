// The Metropolis-Hastings machinery against an exact posterior (issue 18, acceptance 1, library level).
//
// Model: the local level model (models/linear_gaussian.hpp, d = m = 1) with fixed a1 = 0, p1 = 10 and
// unknown (sigma_eta2, sigma_eps2), 50 observations simulated from it at (0.3, 1.0) with a fixed seed.
// Priors: sigma_eta2 ~ inverse_gamma(shape 2, scale 0.5), sigma_eps2 ~ log_normal(0, 1), both walked
// on the log scale (so the Jacobian matters).
//
// Reference: the posterior on a 201 x 201 grid of (log sigma_eta2, log sigma_eps2) with the exact
// Kalman log-likelihood (models/kalman_filter.hpp): density exp(loglik + log prior + phi1 + phi2),
// moments of theta = exp(phi) by the trapezoid rule over a box outside which the density is below
// e^-30 of its maximum (checked on the box's edges). Independent of the chain code except for the
// prior densities, which test_inference_priors checks against closed forms.
//
// Chains: C = 4 chains (chain indices 0..3) of 12500 iterations, the first 2500 (which include all
// adaptation) dropped. For each parameter:
//   mean:      m^ = mean of the C * 10000 draws;  SE = sqrt(sum_c SE_c^2) / C,  SE_c the batch-means
//              standard error of chain c's draws (25 batches of 400);
//   variance:  v^ = mean of g = (theta - m_ref)^2 over the draws, whose expectation is exactly the
//              reference variance; SE from the batch means of g the same way;
//   pass iff |m^ - m_ref| < 4 SE and |v^ - v_ref| < 4 SE (a 4-sigma bound, set in advance; seeds fixed).
// Power: a chain whose target omits the log-Jacobian (the classic bug) must fail at least one of these
// comparisons, so the tolerance is tight enough to matter.
//
// PMMH: the same chains driven by the bootstrap particle filter (N = 100 particles, MPI_COMM_SELF,
// seeded with each iteration's filter seed), 4 x 5000 iterations (2500 after burn-in, 25 batches of
// 100; RSMC_PMMH_KEPT sets the kept iterations for a larger run), compared with the grid reference as above and with
// exact-likelihood chains of the same length: |m^_pmmh - m^_exact| < 4 sqrt(SE_pmmh^2 + SE_exact^2), the two runs being
// independent.
//
// Pseudo-marginal: the same, with the log-likelihood replaced by exact + s z - s^2/2 (s = 1, z a
// standard normal keyed by the filter seed): exp of it is an unbiased, noisy likelihood estimate, so
// the chain still targets the exact posterior (Andrieu & Roberts, "The pseudo-marginal approach for
// efficient Monte Carlo computations", Annals of Statistics 2009), with 4 x 30000 iterations.
#include <mpi.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/rng/stream.hpp"
#include "framework/inference/chain_random.hpp"
#include "framework/inference/diagnostics.hpp"
#include "framework/inference/filter_likelihood.hpp"
#include "framework/inference/pmmh.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/inference_testing.hpp"

namespace {

using namespace rsmc::inference;
using rsmc::models::LinearGaussianParams;

constexpr double kA1 = 0.0, kP1 = 10.0;
constexpr int kSteps = 50;

// y_1..50 from the local level model at sigma_eta2 = 0.3, sigma_eps2 = 1 (portable normals).
const rsmc::Observations& data() {
  static const rsmc::Observations y = [] {
    const std::vector<double> z = rsmc::testing::portable_normals(2026, 0, 2 * kSteps + 1);
    rsmc::Observations obs;
    obs.steps = kSteps;
    obs.dim = 1;
    double x = kA1 + std::sqrt(kP1) * z[0];
    for (int t = 0; t < kSteps; ++t) {
      x += std::sqrt(0.3) * z[static_cast<std::size_t>(1 + 2 * t)];
      obs.values.push_back(x + z[static_cast<std::size_t>(2 + 2 * t)]);
    }
    return obs;
  }();
  return y;
}

double exact_log_likelihood(const std::vector<double>& theta, std::uint64_t) {
  return rsmc::models::kalman_filter(LinearGaussianParams::local_level(theta[0], theta[1], kA1, kP1), data())
      .log_likelihood;
}

using rsmc::testing::local_level_priors;

struct Moments {
  double mean[2];
  double variance[2];
};

// The grid reference described in the header.
const Moments& reference() {
  static const Moments m = [] {
    const InferredParameterSet set = local_level_priors();
    const auto log_density = [&](double p0, double p1) {
      const std::vector<double> theta = {std::exp(p0), std::exp(p1)};
      return exact_log_likelihood(theta, 0) + set.log_prior(theta.data()) + p0 + p1;
    };
    // Coarse scan of [-10, 5]^2 for the box where the density is within e^-30 of its maximum.
    double best = -INFINITY;
    std::vector<double> coarse;
    for (int i = 0; i <= 75; ++i)
      for (int j = 0; j <= 75; ++j) {
        coarse.push_back(log_density(-10 + 0.2 * i, -10 + 0.2 * j));
        best = std::fmax(best, coarse.back());
      }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i <= 75; ++i)
      for (int j = 0; j <= 75; ++j)
        if (coarse[static_cast<std::size_t>(i * 76 + j)] > best - 30) {
          const double p[2] = {-10 + 0.2 * i, -10 + 0.2 * j};
          for (int k = 0; k < 2; ++k) lo[k] = std::fmin(lo[k], p[k] - 0.4), hi[k] = std::fmax(hi[k], p[k] + 0.4);
        }
    REQUIRE(lo[0] > -10);
    REQUIRE(lo[1] > -10);
    REQUIRE(hi[0] < 5);
    REQUIRE(hi[1] < 5);
    const int n = 200;  // the trapezoid rule is spectrally accurate for a smooth density vanishing at the box
    const double h[2] = {(hi[0] - lo[0]) / n, (hi[1] - lo[1]) / n};
    long double w_sum = 0, s1[2] = {0, 0}, s2[2] = {0, 0};
    double edge_max = -INFINITY;
    for (int i = 0; i <= n; ++i)
      for (int j = 0; j <= n; ++j) {
        const double p0 = lo[0] + h[0] * i, p1 = lo[1] + h[1] * j;
        const double ld = log_density(p0, p1);
        if (i == 0 || j == 0 || i == n || j == n) edge_max = std::fmax(edge_max, ld);
        const long double w = std::exp(static_cast<long double>(ld - best)) * ((i == 0 || i == n) ? 0.5L : 1.0L) *
                              ((j == 0 || j == n) ? 0.5L : 1.0L);
        const long double t[2] = {std::exp(static_cast<long double>(p0)), std::exp(static_cast<long double>(p1))};
        w_sum += w;
        for (int k = 0; k < 2; ++k) s1[k] += w * t[k], s2[k] += w * t[k] * t[k];
      }
    REQUIRE(edge_max < best - 25);  // the box holds all but a negligible part of the mass
    Moments r;
    for (int k = 0; k < 2; ++k) {
      const long double mean = s1[k] / w_sum;
      r.mean[k] = static_cast<double>(mean);
      r.variance[k] = static_cast<double>(s2[k] / w_sum - mean * mean);
    }
    return r;
  }();
  return m;
}

ChainOptions chain_options(std::uint32_t chain) {
  ChainOptions o = rsmc::testing::adaptive_chain_options(2026, chain, 2, 0.25, 250, 50);
  o.adaptation.stop = 2500;  // a fixed kernel after burn-in: batch means apply to a Markov chain
  return o;
}

struct Comparison {
  double estimate, reference, se;
  double z() const { return (estimate - reference) / se; }
};

// The mean and variance comparisons of the header for parameter k, over chains' draws.
void compare(const std::vector<std::vector<double>>& draws, double ref_mean, double ref_var, Comparison& mean_cmp,
             Comparison& var_cmp) {
  const double c = static_cast<double>(draws.size());
  double sum_mean = 0, sum_var = 0, se2_mean = 0, se2_var = 0;
  for (const std::vector<double>& x : draws) {
    std::vector<double> g;
    for (double v : x) g.push_back((v - ref_mean) * (v - ref_mean));
    sum_mean += mean(x);
    sum_var += mean(g);
    se2_mean += std::pow(batch_means_standard_error(x, 25), 2);
    se2_var += std::pow(batch_means_standard_error(g, 25), 2);
  }
  mean_cmp = {sum_mean / c, ref_mean, std::sqrt(se2_mean) / c};
  var_cmp = {sum_var / c, ref_var, std::sqrt(se2_var) / c};
}

struct Outcome4 {
  Comparison mean[2], variance[2];
  double rhat[2], ess[2], acceptance;
  bool all_within(double bound) const {
    for (int k = 0; k < 2; ++k)
      if (!(std::fabs(mean[k].z()) < bound && std::fabs(variance[k].z()) < bound)) return false;
    return true;
  }
};

Outcome4 run_and_compare(const LogLikelihood& f, std::uint64_t iterations, std::uint64_t burn_in, const char* label) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::vector<std::vector<double>>> by_param(2);
  std::uint64_t accepted = 0, total = 0;
  for (std::uint32_t c = 0; c < 4; ++c) {
    const PmmhChain chain(local_level_priors(), chain_options(c));
    const auto run = rsmc::testing::run_chain(chain, {1.0, 1.0}, f, iterations, burn_in);
    for (int k = 0; k < 2; ++k) by_param[static_cast<std::size_t>(k)].push_back(run.draws[static_cast<std::size_t>(k)]);
    accepted += run.state.counters.accepted;
    total += run.state.iteration;
  }
  const Moments& ref = reference();
  Outcome4 o;
  for (int k = 0; k < 2; ++k) {
    const auto& d = by_param[static_cast<std::size_t>(k)];
    compare(d, ref.mean[k], ref.variance[k], o.mean[k], o.variance[k]);
    o.rhat[k] = rhat_rank(d);
    o.ess[k] = ess_bulk(d);
  }
  o.acceptance = acceptance_rate(accepted, total);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const char* names[2] = {"sigma_eta2", "sigma_eps2"};
  for (int k = 0; k < 2; ++k)
    std::printf(
        "%s %s: mean %.5f (exact %.5f, SE %.5f, z %+.2f)  var %.5f (exact %.5f, SE %.5f, z %+.2f)  "
        "rhat %.4f  ess_bulk %.0f\n",
        label, names[k], o.mean[k].estimate, o.mean[k].reference, o.mean[k].se, o.mean[k].z(), o.variance[k].estimate,
        o.variance[k].reference, o.variance[k].se, o.variance[k].z(), o.rhat[k], o.ess[k]);
  std::printf("%s: acceptance %.3f, %.1f s\n", label, o.acceptance, seconds);
  return o;
}

// |a - b| < bound * the standard error of the difference of two independent estimates.
bool agree(const Comparison& a, const Comparison& b, double bound) {
  return std::fabs(a.estimate - b.estimate) < bound * std::hypot(a.se, b.se);
}

// The bootstrap filter's log-likelihood estimate on one rank, seeded by the chain.
LogLikelihood particle_filter_log_likelihood() {
  rsmc::FilterOptions options;
  options.particles = 100;
  const auto local_level_at = [](const std::vector<double>& theta) {
    return rsmc::models::LinearGaussian(LinearGaussianParams::local_level(theta[0], theta[1], kA1, kP1));
  };
  return filter_log_likelihood(MPI_COMM_SELF, local_level_at, data(), options);
}

void check_against_reference(const Outcome4& o) {
  for (int k = 0; k < 2; ++k) {
    INFO("parameter " << k);
    CHECK(std::fabs(o.mean[k].z()) < 4);
    CHECK(std::fabs(o.variance[k].z()) < 4);
    // The comparison is informative only if the standard errors are small against the spread.
    CHECK(o.mean[k].se < 0.05 * std::sqrt(reference().variance[k]));
    CHECK(o.rhat[k] < 1.01);
  }
}

}  // namespace

TEST_CASE("adaptive MH with the exact Kalman likelihood matches the grid posterior", "[inference]") {
  const Outcome4 o = run_and_compare(exact_log_likelihood, 12500, 2500, "exact");
  check_against_reference(o);
  CHECK(o.acceptance > 0.15);
  CHECK(o.acceptance < 0.6);

  // Power: without the log-Jacobian (a target off by the factor 1 / (sigma_eta2 sigma_eps2)) the
  // same comparisons must fail.
  const LogLikelihood no_jacobian = [](const std::vector<double>& theta, std::uint64_t seed) {
    return exact_log_likelihood(theta, seed) - std::log(theta[0]) - std::log(theta[1]);
  };
  CHECK_FALSE(run_and_compare(no_jacobian, 12500, 2500, "no-jacobian (must differ)").all_within(4));
}

// Kept iterations per chain of the PMMH comparison: 2500 in CI; RSMC_PMMH_KEPT=N for a larger run
// (docs/inference.md records one).
std::uint64_t pmmh_kept_iterations() {
  const char* text = std::getenv("RSMC_PMMH_KEPT");
  return text != nullptr && std::atoll(text) > 0 ? static_cast<std::uint64_t>(std::atoll(text)) : 2500;
}

TEST_CASE("PMMH with the bootstrap filter matches the grid posterior and exact-likelihood MH", "[inference]") {
  const std::uint64_t burn_in = 2500, iterations = burn_in + pmmh_kept_iterations();
  const Outcome4 exact = run_and_compare(exact_log_likelihood, iterations, burn_in, "exact");
  const Outcome4 pmmh = run_and_compare(particle_filter_log_likelihood(), iterations, burn_in, "pmmh");
  check_against_reference(exact);
  check_against_reference(pmmh);
  for (int k = 0; k < 2; ++k) {
    INFO("parameter " << k);
    CHECK(agree(pmmh.mean[k], exact.mean[k], 4));
    CHECK(agree(pmmh.variance[k], exact.variance[k], 4));
  }
  CHECK(pmmh.acceptance > 0.05);  // the filter's noise lowers the acceptance rate, but not to nothing
}

TEST_CASE("pseudo-marginal MH with a noisy unbiased likelihood targets the same posterior", "[inference]") {
  constexpr double s = 1.0;  // sd of the log-likelihood noise
  const LogLikelihood noisy = [](const std::vector<double>& theta, std::uint64_t filter_seed) {
    rsmc::rng::Stream stream(filter_seed, rsmc::rng::Purpose::model, 0, 0);
    double z[1];
    standard_normals(stream, z, 1);
    return exact_log_likelihood(theta, filter_seed) + s * z[0] - 0.5 * s * s;
  };
  const Outcome4 o = run_and_compare(noisy, 30000, 2500, "noisy");
  check_against_reference(o);
}
