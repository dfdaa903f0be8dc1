// Poisson, gamma and negative binomial variates, for the count models (models/sir_epidemic.hpp);
// their log-probabilities are framework/model/densities.hpp's poisson_log and negative_binomial_log. RSMC_HOST_DEVICE:
// host, Kokkos kernels and raw CUDA kernels; no Kokkos, no MPI, no allocation. Draws come from a model's
// rng::ModelStream (any stream type works), so they are pure functions of the stream's (seed, purpose, step, id) and
// position.
//
// poisson(s, lambda): Poisson(lambda); lambda <= 0 (or NaN) gives 0 without a draw.
// - lambda < 10: Knuth's multiplication method (multiply uniforms until the product falls below
//   exp(-lambda)); expected lambda + 1 uniforms.
// - lambda >= 10: PTRS, transformed rejection with squeeze (W. Hoermann, "The transformed rejection
//   method for generating Poisson random variables", Insurance: Math. Econ. 12 (1993) 39-45), with
//   the constants of the paper; about 1.2 pairs of uniforms per variate, for any lambda.
// standard_gamma(s, shape): Gamma(shape, 1) by Marsaglia & Tsang (ACM TOMS 26 (2000) 363-372): a normal and
//   a uniform per try (~1.03 tries for shape >= 1); shape < 1 through Gamma(shape + 1) U^(1 / shape).
// negative_binomial(s, mean, size): the gamma-Poisson mixture Poisson(Gamma(size, mean / size)):
//   mean `mean`, variance mean + mean^2 / size.
// exp, log, lgamma and pow are rsmc::math's (never libm's), so the variates are the same bits on every
// machine and on a CUDA device.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"

namespace rsmc::models::counts {

template <class Rng>
RSMC_HOST_DEVICE double poisson(Rng& s, double lambda) {
  if (!(lambda > 0.0)) return 0.0;
  if (lambda < 10.0) {
    const double limit = math::exp(-lambda);
    double k = 0.0, product = s.uniform();
    while (product > limit) {
      k += 1.0;
      product *= s.uniform();
    }
    return k;
  }
  const double slam = sqrt(lambda), loglam = math::log(lambda);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double v_r = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = s.uniform() - 0.5;
    const double v = s.uniform();
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (math::log(v) + math::log(inv_alpha) - math::log(a / (us * us) + b) <=
        -lambda + k * loglam - math::lgamma(k + 1.0))
      return k;
  }
}

template <class Rng>
RSMC_HOST_DEVICE double standard_gamma(Rng& s, double shape) {
  const bool boost = shape < 1.0;  // Gamma(shape) = Gamma(shape + 1) U^(1 / shape)
  const double d = (boost ? shape + 1.0 : shape) - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  double g = 0.0;
  for (;;) {
    const double x = s.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = s.uniform();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || math::log(u) < 0.5 * x2 + d * (1.0 - v + math::log(v))) {
      g = d * v;
      break;
    }
  }
  return boost ? g * math::pow(s.uniform(), 1.0 / shape) : g;
}

template <class Rng>
RSMC_HOST_DEVICE double negative_binomial(Rng& s, double mean, double size) {
  if (!(mean > 0.0)) return 0.0;
  return poisson(s, standard_gamma(s, size) * (mean / size));
}

}  // namespace rsmc::models::counts
