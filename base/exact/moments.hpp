// The weighted mean and variance of one pass: from the reproducible sums S0 = sum w,
// S1 = sum w (x - K) and S2 = sum w (x - K)^2 about a reference K fixed before the pass, without the
// second pass over the particles that sum w (x - mean)^2 needs.
//
// Why it is safe: with d = x - K, mean = K + S1 / S0 and variance = S2 / S0 - (S1 / S0)^2. The
// subtraction cancels (S1 / S0)^2 / variance = (mean - K)^2 / variance leading digits; the sums come
// as double-double values (BinnedSum::to_double_double, about 90 correct bits) and the combination
// runs in double-double, so the cancellation costs nothing below the terms' own rounding. What is left
// is the rounding of each term w d^2, relative 2^-52, amplified by 1 + (mean - K)^2 / variance. With K
// the previous step's filtered mean that factor stays near 1 (a step moves the mean by about a
// standard deviation); the two-pass form has the factor 1 exactly. docs/design/vectorised-step.md
// has the measurement (bench/step_prototype --mode accuracy).
//
// The double-double arithmetic is rsmc::math's (base/math/double_double.hpp): FMA-free, the same bits
// on every target. RSMC_HOST_DEVICE, no Kokkos, no MPI.
#pragma once

#include "base/core/portability.hpp"
#include "base/exact/binned_sum.hpp"  // DoubleDouble
#include "base/math/double_double.hpp"

namespace rsmc::exact {

struct WeightedMoments {
  double mean;
  double variance;
};

// From S0 = sum w > 0, S1 = sum w (x - k), S2 = sum w (x - k)^2 (double-double), the mean and the
// variance, each rounded once from double-double. A variance that rounding made negative is 0.
RSMC_HOST_DEVICE WeightedMoments one_pass_moments(double k, DoubleDouble s0, DoubleDouble s1, DoubleDouble s2) {
  using namespace math;
  const DoubleDouble m1 = dd_div(s1, s0);
  const DoubleDouble var = dd_add(dd_div(s2, s0), dd_neg(dd_mul(m1, m1)));
  const double v = var.hi + var.lo;
  return {dd_add({k, 0.0}, m1).hi, v > 0.0 ? v : 0.0};
}

}  // namespace rsmc::exact
