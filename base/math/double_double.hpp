// Double-double arithmetic, rsmc's one home for it: a value is hi + lo with |lo| <= ulp(hi) / 2,
// about 106 significant bits (Dekker 1971, "A floating-point technique for extending the available
// precision"; Knuth, TAOCP vol. 2, 4.2.2). FMA-free, built on math_detail's mul/add/sub, which are
// never fused with a neighbour, so every function has the same bits on every host and on a GPU.
// Users: rsmc::math's functions (their extra-precise intermediate steps), the exact sums'
// BinnedSum::to_double_double and the one-pass moments (base/exact/moments.hpp).
#pragma once

#include "base/math/arithmetic.hpp"

namespace rsmc::math {

struct DoubleDouble {
  double hi;
  double lo;  // |lo| <= ulp(hi) / 2
};

// a + b = s + e exactly, for any a, b (Knuth's TwoSum, six operations).
RSMC_MATH_FUNCTION DoubleDouble two_sum(double a, double b) {
  using namespace math_detail;
  const double s = add(a, b);
  const double bb = sub(s, a);
  const double e = add(sub(a, sub(s, bb)), sub(b, bb));
  return {s, e};
}

// a + b = s + e exactly when |a| >= |b| or a == 0 (Dekker's FastTwoSum).
RSMC_MATH_FUNCTION DoubleDouble fast_two_sum(double a, double b) {
  using namespace math_detail;
  const double s = add(a, b);
  return {s, sub(b, sub(s, a))};
}

// Veltkamp's splitting: a = hi + lo with hi and lo of at most 26 significant bits, so products of
// halves are exact. Needs |a| < 2^996 (the product with 2^27 + 1 must not overflow).
RSMC_MATH_FUNCTION DoubleDouble split(double a) {
  using namespace math_detail;
  const double c = mul(134217729.0, a);  // 2^27 + 1
  const double hi = sub(c, sub(c, a));
  return {hi, sub(a, hi)};
}

// a * b = p + e exactly (Dekker's TwoProduct without FMA), for |a|, |b| < 2^996 and no underflow
// of the partial products.
RSMC_MATH_FUNCTION DoubleDouble two_prod(double a, double b) {
  using namespace math_detail;
  const double p = mul(a, b);
  const DoubleDouble as = split(a);
  const DoubleDouble bs = split(b);
  const double e = add(add(add(sub(mul(as.hi, bs.hi), p), mul(as.hi, bs.lo)), mul(as.lo, bs.hi)), mul(as.lo, bs.lo));
  return {p, e};
}

// (a.hi + a.lo) + (b.hi + b.lo), relative error about 2^-104 unless the sum cancels.
RSMC_MATH_FUNCTION DoubleDouble dd_add(DoubleDouble a, DoubleDouble b) {
  using namespace math_detail;
  const DoubleDouble s = two_sum(a.hi, b.hi);
  return fast_two_sum(s.hi, add(s.lo, add(a.lo, b.lo)));
}

RSMC_MATH_FUNCTION DoubleDouble dd_neg(DoubleDouble a) { return {-a.hi, -a.lo}; }

// (a.hi + a.lo) * (b.hi + b.lo), relative error about 2^-102.
RSMC_MATH_FUNCTION DoubleDouble dd_mul(DoubleDouble a, DoubleDouble b) {
  using namespace math_detail;
  const DoubleDouble p = two_prod(a.hi, b.hi);
  return fast_two_sum(p.hi, add(p.lo, add(mul(a.hi, b.lo), mul(a.lo, b.hi))));
}

// a / b: two quotient digits (relative error about 2^-100). Division is correctly rounded
// everywhere and never fused.
RSMC_MATH_FUNCTION DoubleDouble dd_div(DoubleDouble a, DoubleDouble b) {
  const double q1 = a.hi / b.hi;
  const DoubleDouble r = dd_add(a, dd_neg(dd_mul(b, {q1, 0.0})));
  const double q2 = r.hi / b.hi;
  return fast_two_sum(q1, q2);
}

namespace math_detail {

// c0 + u (c1 + u rest) in double-double, for coefficients c0, c1 given as hi + lo and a double `rest`
// (the tail of a Horner scheme, small enough that its rounding no longer matters).
RSMC_MATH_FUNCTION DoubleDouble horner2_dd(double u, DoubleDouble c0, DoubleDouble c1, double rest) {
  const DoubleDouble a0 = two_sum(c1.hi, mul(u, rest));
  const DoubleDouble a = fast_two_sum(a0.hi, add(a0.lo, c1.lo));
  const DoubleDouble b0 = two_prod(u, a.hi);
  const DoubleDouble b = fast_two_sum(b0.hi, add(b0.lo, mul(u, a.lo)));
  return dd_add(c0, b);
}

}  // namespace math_detail

}  // namespace rsmc::math
