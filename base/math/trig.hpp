// rsmc::math::sincos_2pi (sine and cosine of 2 pi u, for Box-Muller) and sin, cos, sincos of a
// radian argument (for models such as nonlinear growth's cos(omega t)).
//
// Both reduce the argument to t in [-pi/4, pi/4] plus a quadrant j, evaluate sin t and cos t by
// polynomials (scripts/math_coefficients.py), and rotate by j quarter turns with selects.
// - sincos_2pi: u - round(u) and then v - q/4 with q = round(4 v) are exact in binary, so the
//   reduction loses nothing for any u; only 2 pi t is rounded, and it is carried in double-double.
// - sin/cos(x): Cody and Waite's reduction x - n pi/2 with pi/2 in five pieces (four of 27 bits,
//   so that n * piece is exact for |n| < 2^26, and a 53-bit tail: 161 bits of pi/2), the pieces
//   subtracted with exact two-sums. That is accurate for |x| <= 2^26; beyond, the functions return
//   NaN rather than a silently inaccurate value.
// Branch-free and built from base/math/arithmetic.hpp only: the same bits on every target.
#pragma once

#include "base/math/arithmetic.hpp"
#include "base/math/coefficients.hpp"
#include "base/math/double_double.hpp"

namespace rsmc::math {

struct SinCos {
  double sin;
  double cos;
};

namespace math_detail {

// sin and cos of th + tl for |th| <= pi/4 (a little beyond is harmless) and |tl| <= ulp(th).
// sin = th + (th z S(z) + tl cos th), cos = 1 - z/2 + z^2 C(z) - th tl, z = th^2; cos t is rounded
// once from w = 1 - z/2 plus the exact error of w and the small terms (as in fdlibm's k_cos.c).
RSMC_MATH_FUNCTION SinCos sincos_kernel(double th, double tl) {
  namespace c = coefficients;
  const double z = mul(th, th);
  const double half_z = mul(0.5, z);
  const double sin_small = add(mul(mul(th, z), c::sin_s(z)), mul(tl, sub(1.0, half_z)));
  const double w = sub(1.0, half_z);
  const double cos_small = add(sub(sub(1.0, w), half_z), sub(mul(mul(z, z), c::cos_c(z)), mul(th, tl)));
  return {add(th, sin_small), add(w, cos_small)};
}

// n mod 4 in {0, 1, 2, 3} for an integer-valued double |n| < 2^50: n/4 - 3/8 is never halfway
// between integers, so it rounds to floor(n/4).
RSMC_MATH_FUNCTION double quadrant(double n) { return sub(n, mul(4.0, round_to_integer(sub(mul(0.25, n), 0.375)))); }

// (sin, cos) of t + j pi/2 from (sin t, cos t).
RSMC_MATH_FUNCTION SinCos rotate(SinCos k, double j) {
  const bool odd = j == 1.0 || j == 3.0;
  const double s = odd ? k.cos : k.sin;
  const double c = odd ? k.sin : k.cos;
  return {j >= 2.0 ? -s : s, (j == 1.0 || j == 2.0) ? -c : c};
}

// The reduced argument of sin/cos(x): x - n pi/2 as hi + lo, and n.
struct Reduced {
  double hi;
  double lo;
  double n;
};

RSMC_MATH_FUNCTION Reduced reduce_pi_over_2(double x) {
  namespace c = coefficients;
  const double n = round_to_integer(mul(x, c::kTwoOverPi));
  const double a = sub(x, mul(n, c::kPiOver2Part1));  // exact: Sterbenz, n * part exact
  const DoubleDouble s1 = two_sum(a, -mul(n, c::kPiOver2Part2));
  const DoubleDouble s2 = two_sum(s1.hi, -mul(n, c::kPiOver2Part3));
  const DoubleDouble s3 = two_sum(s2.hi, -mul(n, c::kPiOver2Part4));
  const double lo = sub(add(add(s1.lo, s2.lo), s3.lo), mul(n, c::kPiOver2Part5));
  const DoubleDouble t = fast_two_sum(s3.hi, lo);
  return {t.hi, t.lo, n};
}

constexpr double kTrigMaxArgument = 0x1p26;

RSMC_MATH_FUNCTION SinCos sincos_radians(double x) {
  const Reduced r = reduce_pi_over_2(x);
  const SinCos v = rotate(sincos_kernel(r.hi, r.lo), quadrant(r.n));
  const bool in_domain = x >= -kTrigMaxArgument && x <= kTrigMaxArgument;  // false for NaN
  return {in_domain ? (x == 0.0 ? x : v.sin) : kNaN, in_domain ? v.cos : kNaN};
}

}  // namespace math_detail

// (sin 2 pi u, cos 2 pi u). Domain: every finite u (the reduction is exact for all of them; for
// |u| >= 2^52, u is an integer and the result is (+-0, 1)). Exact zeros are signed as IEEE 754's
// sinPi/cosPi: sin is +0 at u = +0 and positive integers and halves, -0 at -0 and negative ones;
// cos is +0 at quarter points. +-inf and NaN give (NaN, NaN).
RSMC_MATH_FUNCTION SinCos sincos_2pi(double u) {
  namespace c = coefficients;
  using math_detail::add;
  using math_detail::mul;
  using math_detail::sub;
  // n = an integer with |u - n| <= 1: round(u) for |u| < 2^51, beyond that the shifter's rounding
  // to a multiple of 2 (u is a multiple of 1/2 there); the shifter's sign keeps u + shifter at
  // least 2^52 in magnitude, where the rounding is to an integer.
  const double shifter = u < 0.0 ? -math_detail::kRoundShifter : math_detail::kRoundShifter;
  const double v = sub(u, sub(add(u, shifter), shifter));  // exact, |v| <= 1
  const double q = math_detail::round_to_integer(mul(4.0, v));
  const double t = sub(v, mul(0.25, q));  // exact, |t| <= 1/8
  // For |t| < 2^-900 (u itself tiny) the parts of the exact product 2 pi t would underflow, so t is
  // scaled by 2^200 (exactly) and sin t by 2^-200 after the kernel: one rounding, into the subnormals if due.
  const bool tiny = t > -0x1p-900 && t < 0x1p-900;
  const double ts = tiny ? mul(t, 0x1p200) : t;
  const DoubleDouble theta = two_prod(ts, c::kTwoPiHi);
  const SinCos k = math_detail::sincos_kernel(theta.hi, add(theta.lo, mul(ts, c::kTwoPiLo)));
  const SinCos r = math_detail::rotate({tiny ? mul(k.sin, 0x1p-200) : k.sin, k.cos}, math_detail::quadrant(q));
  return {r.sin == 0.0 ? mul(u, 0.0) : r.sin, add(r.cos, 0.0)};
}

RSMC_MATH_FUNCTION double sin_2pi(double u) { return sincos_2pi(u).sin; }
RSMC_MATH_FUNCTION double cos_2pi(double u) { return sincos_2pi(u).cos; }

// sin x, cos x of a radian argument. Domain: |x| <= 2^26 (about 6.7e7), where the reduction
// modulo pi/2 is accurate. Outside it (and for +-inf, NaN) the result is NaN: an argument that
// large has lost its meaning as an angle, and NaN is easier to notice than a wrong value.
// sin(+-0) = +-0, cos(+-0) = 1.
RSMC_MATH_FUNCTION SinCos sincos(double x) { return math_detail::sincos_radians(x); }
RSMC_MATH_FUNCTION double sin(double x) { return math_detail::sincos_radians(x).sin; }
RSMC_MATH_FUNCTION double cos(double x) { return math_detail::sincos_radians(x).cos; }

}  // namespace rsmc::math
