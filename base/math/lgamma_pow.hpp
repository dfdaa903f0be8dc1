// rsmc::math::lgamma (x > 0) and pow (x >= 0), for the count distributions
// (models/count_distributions.hpp: Poisson and negative-binomial log-pmfs, PTRS, the gamma sampler).
//
// lgamma(x), branch-free, by range of x (every piece is computed; selects pick one):
//   x < 0.5      -log x + lgamma(1 + x), lgamma(1 + x) = x P1(x - 1/4);
//   [0.5, 1.5)   (x - 1) P(x - 1 -+ 1/4), pieces P0 on [0.5, 1) and P1 on [1, 1.5);
//   [1.5, 2)     (x - 2) P2(x - 2 + 1/4);
//   [2, 8)       log((x - 1) ... (x - k)) + (z - 2) P3(z - 2.5), z = x - k in [2, 3);
//   x >= 8       Stirling: (x - 1/2)(log x - 1) + log(2 pi)/2 - 1/2 + R(1/x^2) / x, with log x in
//                double-double (the product (x - 1/2) log x would otherwise lose ~1 ulp).
// The factors x - 1, x - 2 are exact, so the zeros at 1 and 2 come out with full relative accuracy.
// pow(x, y) = exp(y log x) with log x in double-double and the product y log x kept as hi + lo, so
// that the exponent's rounding does not grow with |y log x|.
#pragma once

#include "base/math/arithmetic.hpp"
#include "base/math/coefficients.hpp"
#include "base/math/double_double.hpp"
#include "base/math/exp_log.hpp"

namespace rsmc::math {

namespace math_detail {

// (x - 1)(x - 2)...(x - k) and k for x in [3, 8), k = number of integers i in 1..5 with x >= 2 + i;
// 1 and 0 below 3. The factors are exact; the product is rounded k - 1 times.
struct LgammaShift {
  double k;
  double product;
};

RSMC_MATH_FUNCTION LgammaShift lgamma_shift(double x) {
  double k = 0.0;
  double product = 1.0;
  for (int i = 1; i <= 5; ++i) {
    const double di = static_cast<double>(i);
    const bool on = x >= 2.0 + di;
    k = on ? di : k;
    product = on ? mul(product, sub(x, di)) : product;
  }
  return {k, product};
}

RSMC_MATH_FUNCTION double lgamma_stirling(double x, DoubleDouble log_x) {
  namespace c = coefficients;
  // M = log x - 1 in double-double; (x - 1/2) M = x M - M/2.
  const DoubleDouble m0 = two_sum(log_x.hi, -1.0);
  const DoubleDouble m = fast_two_sum(m0.hi, add(m0.lo, log_x.lo));
  const double inv_x = 1.0 / x;
  const double tail = mul_add(inv_x, c::stirling_r(mul(inv_x, inv_x)), c::kHalfLog2PiMinusHalf);
  // x M.hi exactly (two_prod; from 2^996 on, x scaled by 2^-64 first so that its split cannot
  // overflow, and the parts scaled back exactly), plus the small terms, rounded once.
  const double scale = x < 0x1p996 ? 1.0 : 0x1p64;
  const double xs = mul(x, 1.0 / scale);
  const DoubleDouble p = two_prod(xs, m.hi);
  const double small = add(sub(mul(add(p.lo, mul(xs, m.lo)), scale), mul(0.5, m.hi)), tail);
  return add(mul(p.hi, scale), small);
}

}  // namespace math_detail

// log |Gamma(x)| for x > 0. Domain: x >= 0, subnormals included. lgamma(+-0) = +inf,
// lgamma(+inf) = +inf, overflows to +inf above about 2.5e305; lgamma(1) = lgamma(2) = +0.
// x < 0 gives NaN (unlike libm, which returns log|Gamma(x)| there: no rsmc caller needs it), NaN
// gives NaN.
RSMC_MATH_FUNCTION double lgamma(double x) {
  using namespace math_detail;
  const LgammaShift shift = lgamma_shift(x);
  const double z = sub(x, shift.k);  // exact: z in [2, 3) for x in [2, 8)
  // Piece index and t (the exact factor that vanishes at the zeros 1 and 2).
  const double piece = x < 1.0 ? (x < 0.5 ? 1.0 : 0.0) : (x < 1.5 ? 1.0 : (x < 2.0 ? 2.0 : 3.0));
  const double t = x < 0.5 ? x : (x < 1.5 ? sub(x, 1.0) : sub(z, 2.0));
  const double u = sub(t, coefficients::lgamma_piece_centre(piece));
  const DoubleDouble p = coefficients::lgamma_piece(piece, u);
  const DoubleDouble p0 = two_prod(t, p.hi);
  const DoubleDouble poly = {p0.hi, add(p0.lo, mul(t, p.lo))};  // t P(u), not normalised
  const bool below_8 = x < 8.0;
  const DoubleDouble log_arg = log_dd(x < 0.5 || !below_8 ? x : shift.product);
  // x < 0.5: t P - log x; [0.5, 8): t P + log(product) (the log is 0 below 3). Rounded once.
  const DoubleDouble signed_log = x < 0.5 ? DoubleDouble{-log_arg.hi, -log_arg.lo} : log_arg;
  const double small = dd_add(poly, signed_log).hi;
  const double large = lgamma_stirling(x, log_arg);
  const double y = below_8 ? small : large;
  return x < 0.0 ? kNaN : (x == kInf || x == 0.0 ? kInf : y);  // the poles' infinities would make NaN in dd_add
}

// x^y for x >= 0. Domain: x >= 0, any y. As IEEE 754 pow: pow(x, +-0) = 1 and pow(1, y) = 1
// even for NaN; pow(+0, y > 0) = +0, pow(+0, y < 0) = +inf; pow(+inf, y > 0) = +inf,
// pow(+inf, y < 0) = +0; pow(x > 1, +inf) = +inf, pow(x < 1, +inf) = +0 (and the mirror for -inf);
// overflow to +inf, underflow through the subnormals to +0. x < 0 gives NaN (unlike libm, which
// returns +-|x|^y for integer y: no rsmc caller needs it; -0 counts as +0); other NaN gives NaN.
RSMC_MATH_FUNCTION double pow(double x, double y) {
  using namespace math_detail;
  const DoubleDouble log_x = log_dd(x);  // -inf at -0 as at +0
  const double plain = mul(y, log_x.hi);
  // y log x as hi + lo while |y log x| < 1000 (beyond, exp is 0 or inf anyway and the split in
  // two_prod could overflow).
  const DoubleDouble p0 = two_prod(y, log_x.hi);
  const DoubleDouble p = fast_two_sum(p0.hi, add(p0.lo, mul(y, log_x.lo)));
  const bool moderate = plain > -1000.0 && plain < 1000.0;  // false for NaN
  const double r = exp_dd(moderate ? p.hi : plain, moderate ? p.lo : 0.0);
  return (x == 1.0 || y == 0.0) ? 1.0 : (x < 0.0 ? kNaN : r);
}

}  // namespace rsmc::math
