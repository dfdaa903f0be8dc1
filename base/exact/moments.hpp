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
// Double-double arithmetic after Dekker, "A floating-point technique for extending the available
// precision" (1971): FMA-free, so the same bits on every target (rsmc builds with -ffp-contract=off).
// RSMC_HOST_DEVICE, no Kokkos, no MPI.
#pragma once

#include "base/core/portability.hpp"
#include "base/exact/binned_sum.hpp"  // DoubleDouble

namespace rsmc::exact {

namespace dd {

// a + b = s + e exactly (Knuth's TwoSum).
RSMC_HOST_DEVICE DoubleDouble two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// a * b = p + e exactly for |a|, |b| < 2^996 without underflow (Dekker's product, Veltkamp's split).
RSMC_HOST_DEVICE DoubleDouble two_prod(double a, double b) {
  const double p = a * b;
  const double ca = 134217729.0 * a, cb = 134217729.0 * b;  // 2^27 + 1
  const double ah = ca - (ca - a), al = a - ah;
  const double bh = cb - (cb - b), bl = b - bh;
  return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}

RSMC_HOST_DEVICE DoubleDouble add(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble s = two_sum(a.hi, b.hi);
  const double lo = s.lo + (a.lo + b.lo);
  const double hi = s.hi + lo;
  return {hi, lo - (hi - s.hi)};
}

RSMC_HOST_DEVICE DoubleDouble neg(DoubleDouble a) { return {-a.hi, -a.lo}; }

RSMC_HOST_DEVICE DoubleDouble mul(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble p = two_prod(a.hi, b.hi);
  const double lo = p.lo + (a.hi * b.lo + a.lo * b.hi);
  const double hi = p.hi + lo;
  return {hi, lo - (hi - p.hi)};
}

// a / b: two quotient digits (relative error about 2^-100).
RSMC_HOST_DEVICE DoubleDouble div(DoubleDouble a, DoubleDouble b) {
  const double q1 = a.hi / b.hi;
  const DoubleDouble r = add(a, neg(mul(b, {q1, 0.0})));
  const double q2 = r.hi / b.hi;
  const double hi = q1 + q2;
  return {hi, q2 - (hi - q1)};
}

}  // namespace dd

struct WeightedMoments {
  double mean;
  double variance;
};

// From S0 = sum w > 0, S1 = sum w (x - k), S2 = sum w (x - k)^2 (double-double), the mean and the
// variance, each rounded once from double-double. A variance that rounding made negative is 0.
RSMC_HOST_DEVICE WeightedMoments one_pass_moments(double k, DoubleDouble s0, DoubleDouble s1, DoubleDouble s2) {
  const DoubleDouble m1 = dd::div(s1, s0);
  const DoubleDouble var = dd::add(dd::div(s2, s0), dd::neg(dd::mul(m1, m1)));
  const double v = var.hi + var.lo;
  return {dd::add({k, 0.0}, m1).hi, v > 0.0 ? v : 0.0};
}

}  // namespace rsmc::exact
