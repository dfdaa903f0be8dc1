// The smoothers: the exact RTS smoother (models/kalman_filter.hpp) against the Gaussian conditional
// computed directly from the joint covariance; and the genealogy-tracing smoother
// (framework/smooth/genealogy_smoother.hpp), run on trace files written by the filter, against RTS.
//
// Statistics of the genealogy test, fixed in advance: R = 10 independent filter seeds on one data
// set (2-D linear Gaussian, T = 30, N = 4000, resampling when ESS < N/2). At each step t of the window
// 21..30 and each component, the mean over the R runs of the smoothed mean (and variance) must lie
// within 5 standard errors (run-to-run sd / sqrt(R)) of the RTS value. The window is where the
// estimator is well posed: genealogy smoothers degenerate going back (few distinct ancestors
// remain), so at early t their spread says little; the test asserts that every run still has
// >= 100 distinct ancestors at t = 21 rather than assuming it. It also asserts that the window has
// a step where smoothing and filtering differ by more than the tolerance, so a smoother that
// returned the filtered moments would fail.
#include <mpi.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/trace_file.hpp"
#include "framework/smooth/genealogy_smoother.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/model_testing.hpp"

namespace {

using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;

// Solves A x = b (n x n, row-major) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const int n = static_cast<int>(b.size());
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
    for (int j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    std::swap(b[k], b[p]);
    for (int i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      for (int j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) b[i] -= a[i * n + j] * b[j];
    b[i] /= a[i * n + i];
  }
  return b;
}

std::string temporary_trace_name(const char* tag) {
  return (std::filesystem::temp_directory_path() /
          ("rsmc_test_" + std::string(tag) + "_" + std::to_string(::getpid()) + ".h5"))
      .string();
}

// One filter run writing a trace of every step, then the genealogy smoother on it.
rsmc::SmoothedMoments smoothed_run(const LinearGaussian& model, const rsmc::Observations& y, std::uint64_t particles,
                                   std::uint64_t seed, const std::string& path) {
  rsmc::FilterOptions options;
  options.particles = particles;
  options.seed = seed;
  rsmc::TraceInfo info;
  info.particles = particles;
  info.state_dim = model.state_dim();
  info.steps = y.steps;
  info.every = 1;
  info.model = LinearGaussian::name;
  {
    rsmc::BootstrapFilter<LinearGaussian> filter(MPI_COMM_SELF, model, options);
    rsmc::TraceWriter writer(MPI_COMM_SELF, path, info, true);
    filter.set_observer(&writer);
    filter.run(y);
    writer.finish(y.steps);
  }
  const rsmc::TraceReader reader(path);
  rsmc::SmoothedMoments m = rsmc::smooth_genealogy(reader);
  std::filesystem::remove(path);
  return m;
}

}  // namespace

TEST_CASE("RTS smoother equals the Gaussian conditional of the joint distribution", "[smoother][rts]") {
  // d = m = 1: x_t = a x_{t-1} + N(0, q), y_t = x_t + N(0, r), x_0 ~ N(m0, p0).
  LinearGaussianParams p;
  p.d = p.m = 1;
  const double a = 0.8, q = 0.5, r = 0.7, m0 = 0.3, p0 = 1.5;
  p.A = {a};
  p.Q = {q};
  p.C = {1.0};
  p.R = {r};
  p.m0 = {m0};
  p.P0 = {p0};
  const int T = 8;
  rsmc::Observations y;
  y.steps = T;
  y.dim = 1;
  y.values = {0.4, -0.3, 1.2, 0.9, -0.8, 0.1, 0.5, 2.0};
  const auto rts = rsmc::models::rts_smoother(p, y);

  // Joint moments of x_1..x_T: E x_t = a^t m0; Cov(x_s, x_t) = a^(t-s) V_s (s <= t), V_t = a^2 V_{t-1} + q.
  std::vector<double> mu(T), V(T), S(T * T), Syy(T * T);
  double v = p0, mean = m0;
  for (int t = 0; t < T; ++t) {
    v = a * a * v + q;
    mean *= a;
    V[t] = v;
    mu[t] = mean;
  }
  for (int s = 0; s < T; ++s)
    for (int t = 0; t < T; ++t) {
      const int lo = std::min(s, t), gap = std::abs(t - s);
      S[s * T + t] = std::pow(a, gap) * V[lo];
      Syy[s * T + t] = S[s * T + t] + (s == t ? r : 0.0);
    }
  // E[x | y] = mu + S Syy^{-1} (y - mu);  Var[x_t | y] = S_tt - S_t Syy^{-1} S_t'.
  std::vector<double> resid(T);
  for (int t = 0; t < T; ++t) resid[t] = y.values[t] - mu[t];
  const std::vector<double> alpha = solve(Syy, resid);
  for (int t = 0; t < T; ++t) {
    double m = mu[t];
    for (int s = 0; s < T; ++s) m += S[t * T + s] * alpha[s];
    const std::vector<double> st(S.begin() + t * T, S.begin() + (t + 1) * T);
    const std::vector<double> beta = solve(Syy, st);
    double var = S[t * T + t];
    for (int s = 0; s < T; ++s) var -= st[s] * beta[s];
    INFO("step " << t + 1);
    CHECK(rts.mean[t] == Approx(m).epsilon(1e-12).margin(1e-12));
    CHECK(rts.covariance[t] == Approx(var).epsilon(1e-12));
  }
}

TEST_CASE("genealogy smoother agrees with the RTS smoother within standard errors", "[smoother][statistics]") {
  const auto params = LinearGaussianParams::default_2d();
  const LinearGaussian model(params);
  const int T = 30, R = 10, first = 21, d = params.d;
  const std::uint64_t N = 4000;
  const auto y = rsmc::simulate(model, T, 4242).observations;
  const auto rts = rsmc::models::rts_smoother(params, y);
  const auto kalman = rsmc::models::kalman_filter(params, y);

  std::vector<rsmc::SmoothedMoments> runs;
  const std::string path = temporary_trace_name("smoother");
  for (int k = 0; k < R; ++k) runs.push_back(smoothed_run(model, y, N, 700 + static_cast<std::uint64_t>(k), path));

  int discriminating = 0;
  for (const auto& m : runs) {
    REQUIRE(m.steps.size() == static_cast<std::size_t>(T));
    CHECK(m.steps.front() == 1);
    CHECK(m.distinct_ancestors[first - 1] >= 100);
    CHECK(m.distinct_ancestors[T - 1] <= N);
  }
  for (int t = first; t <= T; ++t) {
    for (int c = 0; c < d; ++c) {
      std::vector<double> means, vars;
      for (const auto& m : runs) {
        means.push_back(m.mean[(t - 1) * d + c]);
        vars.push_back(m.variance[(t - 1) * d + c]);
      }
      const double se_mean = std::sqrt(rsmc::test::var_of(means) / R);
      const double se_var = std::sqrt(rsmc::test::var_of(vars) / R);
      const double exact_mean = rts.mean[(t - 1) * d + c];
      const double exact_var = rts.covariance[((t - 1) * d + c) * d + c];
      INFO("step " << t << " component " << c << ": smoothed mean " << rsmc::test::mean_of(means) << " (RTS "
                   << exact_mean << ", se " << se_mean << "), variance " << rsmc::test::mean_of(vars) << " (RTS "
                   << exact_var << ", se " << se_var << ")");
      CHECK(std::abs(rsmc::test::mean_of(means) - exact_mean) < 5.0 * se_mean);
      CHECK(std::abs(rsmc::test::mean_of(vars) - exact_var) < 5.0 * se_var);
      if (std::abs(kalman.mean[(t - 1) * d + c] - exact_mean) > 5.0 * se_mean) ++discriminating;
    }
  }
  // Smoothing must matter in the window, or the comparison could not tell it from filtering.
  CHECK(discriminating > 0);
}
