// Log-densities and log-probabilities for models, with the constants log(2 pi) and pi. Callable on
// the host, in Kokkos kernels and in CUDA device code (RSMC_HOST_DEVICE: no allocation, no
// exceptions).
//
// Each helper evaluates one fixed floating-point expression, in one fixed order, so a model's
// results do not change when it switches from its own formula to the helper. This is why the normal
// density comes in variants that look redundant: with the variance (u^2 / variance), with the sd
// ((u / sd)^2) and with the inverse sd ((u * inv_sd)^2). They round differently, and each model
// keeps the variant it has always used.
//
// Models that evaluate a density per particle precompute its normalising constant once, on the host,
// with the *_log_normaliser functions, and pass it in.
//
// Every transcendental function here is rsmc::math's (base/math/), never libm's: a density that
// feeds a log-weight or a log-likelihood must give the same bits on every machine and on a CUDA
// device, and libm's last bits differ between glibc code paths, libm versions and the device.
#pragma once

#include <cmath>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"

namespace rsmc {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kLog2Pi = 1.8378770664093454835606594728112;  // log(2 pi)

// ---- the normal distribution ------------------------------------------------------------------

// -log(2 pi variance) / 2, the log normalising constant of N(., variance).
RSMC_HOST_DEVICE double normal_log_normaliser(double variance) { return -0.5 * math::log(2.0 * kPi * variance); }

// -log(2 pi sd sd) / 2, the same constant from the sd. The product is formed left to right,
// (2 pi sd) sd, which can differ in the last bit from 2 pi (sd^2).
RSMC_HOST_DEVICE double normal_log_normaliser_sd(double sd) { return -0.5 * math::log(2.0 * kPi * sd * sd); }

// log N(y; mean, variance) = log_normaliser - (y - mean)^2 / (2 variance), with
// log_normaliser = normal_log_normaliser(variance).
RSMC_HOST_DEVICE double normal_log(double y, double mean, double variance, double log_normaliser) {
  const double u = y - mean;
  return log_normaliser - 0.5 * u * u / variance;
}

// log N(y; mean, sd^2) = log_normaliser - ((y - mean) / sd)^2 / 2, with
// log_normaliser = normal_log_normaliser_sd(sd).
RSMC_HOST_DEVICE double normal_log_sd(double y, double mean, double sd, double log_normaliser) {
  const double u = (y - mean) / sd;
  return log_normaliser - 0.5 * u * u;
}

// log N(y; mean, sd^2) = log_normaliser - ((y - mean) inv_sd)^2 / 2, with inv_sd = 1 / sd and
// log_normaliser = normal_log_normaliser_sd(sd).
RSMC_HOST_DEVICE double normal_log_inv_sd(double y, double mean, double inv_sd, double log_normaliser) {
  const double u = (y - mean) * inv_sd;
  return log_normaliser - 0.5 * u * u;
}

// log N(y; 0, exp(log_variance)) = -(log(2 pi) + log_variance + y^2 exp(-log_variance)) / 2: a
// zero-mean normal given its log-variance (e.g. stochastic volatility).
RSMC_HOST_DEVICE double normal_log_given_log_variance(double y, double log_variance) {
  return -0.5 * (kLog2Pi + log_variance + y * y * math::exp(-log_variance));
}

// The largest normal_log_given_log_variance(y, v) over all log-variances v: at v = log y^2 it is
// -(log(2 pi) + log y^2 + 1) / 2; +inf for y = 0 (no bound). For a model's log_likelihood_bound.
inline double normal_log_given_log_variance_bound(double y) {
  return y != 0.0 ? -0.5 * (kLog2Pi + math::log(y * y) + 1.0) : HUGE_VAL;
}

// ---- the multivariate normal ------------------------------------------------------------------

// sum_i log L_ii = log det(L L') / 2 for an n x n lower triangular L stored row-major (full
// storage), summed in order i = 0..n-1.
RSMC_HOST_DEVICE double half_log_det_from_cholesky(const double* l, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += math::log(l[i * n + i]);
  return sum;
}

// -dim/2 log(2 pi) - log det(S) / 2, the log normalising constant of an n-dimensional N(., S), from
// half_log_det = log det(S) / 2 (half_log_det_from_cholesky of S's Cholesky factor).
RSMC_HOST_DEVICE double mvnormal_log_normaliser(int dim, double half_log_det) {
  return -0.5 * dim * kLog2Pi - half_log_det;
}

// log N(y; mean, S) = log_normaliser - q / 2, where q = (y - mean)' S^{-1} (y - mean) is the squared
// Mahalanobis distance and log_normaliser = mvnormal_log_normaliser(dim, half_log_det).
RSMC_HOST_DEVICE double mvnormal_log(double squared_distance, double log_normaliser) {
  return log_normaliser - 0.5 * squared_distance;
}

// The largest mvnormal_log over all means: its log_normaliser (at distance 0). For a model's
// log_likelihood_bound.
inline double mvnormal_log_bound(double log_normaliser) { return log_normaliser; }

// ---- counts -----------------------------------------------------------------------------------
// The count is a double (observations are doubles): a count that is negative or not an integer gives
// NaN; a mean of 0 (or less, or NaN) is the point mass at 0.

// Whether y is a count (a non-negative integer).
RSMC_HOST_DEVICE bool is_count(double y) { return y >= 0.0 && floor(y) == y; }

// The point mass at 0: log 1 = 0 for y = 0, log 0 = -inf otherwise.
RSMC_HOST_DEVICE double log_point_mass_at_zero(double y) { return y == 0.0 ? 0.0 : -HUGE_VAL; }

// log Poisson(y; lambda) = y log(lambda) - lambda - log(y!).
RSMC_HOST_DEVICE double poisson_log(double y, double lambda) {
  if (!is_count(y)) return NAN;
  if (!(lambda > 0.0)) return log_point_mass_at_zero(y);
  return y * math::log(lambda) - lambda - math::lgamma(y + 1.0);
}

// The negative binomial with mean `mean` and size r (variance mean + mean^2 / r):
// lgamma(y + r) - lgamma(r) - lgamma(y + 1) + r log(r / (r + mean)) + y log(mean / (r + mean)).
RSMC_HOST_DEVICE double negative_binomial_log(double y, double mean, double size) {
  if (!is_count(y)) return NAN;
  if (!(mean > 0.0)) return log_point_mass_at_zero(y);
  const double total = size + mean;
  return math::lgamma(y + size) - math::lgamma(size) - math::lgamma(y + 1.0) + size * math::log(size / total) +
         y * math::log(mean / total);
}

}  // namespace rsmc
