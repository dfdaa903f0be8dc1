// An out-of-tree model (random_walk.hpp) driving an installed rsmc's engine directly.
//
// The program simulates y_1..y_T with rsmc::simulate, runs rsmc::BootstrapFilter on MPI_COMM_WORLD
// for R seeds, and checks the mean of the R log-likelihood estimates and of the R filtered means
// E[x_T | y_1..T] against the exact Kalman values: each must lie within 4 standard errors
// (run-to-run sd / sqrt(R)). The exact values come from an inline scalar Kalman recursion, which is
// itself cross-checked against the installed rsmc::models::kalman_filter. Exit code 0 on success.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "base/math/math.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "random_walk.hpp"

#ifdef CONSUMER_HAS_CUDA_KERNELS
#include <string>

#include "kernels/cuda/cuda_kernels.hpp"
#endif

namespace {

struct Exact {
  double log_likelihood = 0.0;
  double final_mean = 0.0;
};

// The scalar Kalman filter for RandomWalk: predict (m, P + q), then update with y_t.
Exact scalar_kalman(const RandomWalkParams& model, const rsmc::Observations& y) {
  Exact e;
  double m = model.m0, p = model.p0;
  for (int t = 1; t <= y.steps; ++t) {
    const double pp = p + model.q;
    const double s = pp + model.r;
    const double v = y.row(t)[0] - m;
    e.log_likelihood += -0.5 * (rsmc::math::log(2.0 * rsmc::kPi * s) + v * v / s);
    const double k = pp / s;
    m += k * v;
    p = (1.0 - k) * pp;
  }
  e.final_mean = m;
  return e;
}

double mean_of(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double standard_error(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  const double n = static_cast<double>(v.size());
  return std::sqrt(s / (n - 1.0) / n);
}

int run(MPI_Comm comm) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      ++failures;
      if (rank == 0) std::printf("FAIL: %s\n", what);
    }
  };

  const RandomWalkParams params;  // the defaults RandomWalkParams declares
  const int T = 50, R = 10;
  const std::uint64_t N = 2000;
  const RandomWalk model(params);
  const rsmc::Observations y = rsmc::simulate(model, T, 2024).observations;

  // Exact reference, cross-checked against the installed library's Kalman filter (same time convention).
  const Exact exact = scalar_kalman(params, y);
  const auto library = rsmc::models::kalman_filter(
      rsmc::models::LinearGaussianParams::local_level(params.q, params.r, params.m0, params.p0), y);
  const double kalman_diff = std::abs(library.log_likelihood - exact.log_likelihood) +
                             std::abs(library.mean[static_cast<std::size_t>(T - 1)] - exact.final_mean);
  if (rank == 0)
    std::printf("Kalman log-likelihood: inline %.12f, rsmc::models::kalman_filter %.12f\n", exact.log_likelihood,
                library.log_likelihood);
  check(kalman_diff < 1e-8 * (1.0 + std::abs(exact.log_likelihood)),
        "inline Kalman recursion != rsmc::models::kalman_filter");

  std::vector<double> loglik, final_mean;
  for (int i = 0; i < R; ++i) {
    rsmc::FilterOptions options;
    options.particles = N;
    options.seed = 100 + static_cast<std::uint64_t>(i);
    rsmc::BootstrapFilter<RandomWalk> filter(comm, model, options);
    const rsmc::FilterResult result = filter.run(y);
    loglik.push_back(result.log_likelihood);
    final_mean.push_back(result.mean[static_cast<std::size_t>(T - 1)]);
  }

  const double ll_mean = mean_of(loglik), ll_se = standard_error(loglik);
  const double x_mean = mean_of(final_mean), x_se = standard_error(final_mean);
  if (rank == 0) {
    std::printf("%d ranks, N = %llu, T = %d, R = %d seeds\n", ranks, static_cast<unsigned long long>(N), T, R);
    std::printf("log-likelihood: exact %.6f, mean of estimates %.6f, SE %.6f, |diff| / SE = %.2f (limit 4)\n",
                exact.log_likelihood, ll_mean, ll_se, std::abs(ll_mean - exact.log_likelihood) / ll_se);
    std::printf("E[x_T | y_1..T]: exact %.6f, mean of estimates %.6f, SE %.6f, |diff| / SE = %.2f (limit 4)\n",
                exact.final_mean, x_mean, x_se, std::abs(x_mean - exact.final_mean) / x_se);
  }
  // A zero SE would mean the seeds were ignored (and would make the 4-SE test meaningless).
  check(ll_se > 0.0 && x_se > 0.0, "the estimates do not vary with the seed");
  check(std::abs(ll_mean - exact.log_likelihood) < 4.0 * ll_se, "log-likelihood not within 4 SE of the Kalman value");
  check(std::abs(x_mean - exact.final_mean) < 4.0 * x_se, "filtered mean not within 4 SE of the Kalman value");

#ifdef CONSUMER_HAS_CUDA_KERNELS
  // rsmc::cuda_kernels links and runs (0 devices is fine: this only proves the exported target works).
  std::string why;
  const int devices = rsmc::kernels::cuda::device_count(&why);
  if (rank == 0)
    std::printf("rsmc::cuda_kernels linked: %d CUDA device(s)%s%s\n", devices, why.empty() ? "" : ", ", why.c_str());
#endif

  if (rank == 0) std::printf("%s\n", failures == 0 ? "consumer: all checks passed" : "consumer: FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 1;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);  // finalised at the end of this block, before MPI
    try {
      code = run(MPI_COMM_WORLD);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "consumer: error: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);  // the other ranks may be waiting in a collective
    }
  }
  // Every rank computes the same (rank-invariant) results, so every rank returns the same code.
  MPI_Finalize();
  return code;
}
