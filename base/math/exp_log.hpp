// rsmc::math::exp, expm1, log, log1p, and the double-double logarithm behind pow and lgamma.
//
// All are RSMC_HOST_DEVICE, branch-free (special cases are selects on values already computed, so a
// loop over them vectorises) and built only from the operations in base/math/arithmetic.hpp, so they
// return the same bits on every x86-64 vector width and on CUDA devices. docs/math.md lists the
// measured accuracy.
//
// exp(x) = 2^k e^r with k = round(x / ln 2), r = x - k ln 2 (Cody and Waite's two-piece ln 2, the
// first piece short enough that k * piece is exact), e^r - 1 = r + r^2 Q(r) with a degree-10
// polynomial Q. 2^k is applied as two factors 2^k1 2^k2, so that results in the subnormal range are
// rounded once, from a normal intermediate.
// log(x) = k ln 2 + log1p(f), x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)], through
// s = f / (2 + f): log1p(f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)), the arrangement of
// fdlibm's e_log.c (Sun Microsystems, 1993), whose rounding errors stay below 1 ulp; R is our own
// polynomial (scripts/math_coefficients.py).
#pragma once

#include "base/math/arithmetic.hpp"
#include "base/math/coefficients.hpp"
#include "base/math/double_double.hpp"

namespace rsmc::math {

namespace math_detail {

// e^(x + xlo) = 2^k e^r, e^r - 1 = r + small, |r| <= ln 2 / 2 (a little more after rounding);
// needs |x| < 2^11 ln 2 and |xlo| <= ulp(x). `small` = r^2 Q(r) plus the rounding error of r.
struct ExpReduced {
  double k;
  double r;
  double small;
};

// c + e^r - 1 rounded once from c + r (exact, by FastTwoSum: |c| >= |r| or c = 0) and the small
// terms; without the two-sum, rounding r + small first would cost up to an extra ulp when c = 1/2.
RSMC_MATH_FUNCTION double add_expm1(double c, ExpReduced e) {
  const DoubleDouble s = fast_two_sum(c, e.r);
  return add(s.hi, add(s.lo, e.small));
}

RSMC_MATH_FUNCTION ExpReduced exp_reduce(double x, double xlo) {
  namespace c = coefficients;
  const double k = round_to_integer(mul(x, c::kInvLn2));
  const double hi = sub(x, mul(k, c::kLn2Hi));  // exact: k * kLn2Hi is exact and close to x
  const double lo = sub(mul(k, c::kLn2Lo), xlo);
  const double r = sub(hi, lo);
  const double r_error = sub(sub(hi, r), lo);  // (hi - lo) - r: what rounding r lost
  const double r2_q = mul(mul(r, r), c::expm1_q(r));
  return {k, r, add(r_error, r2_q)};
}

// y 2^k for an integer-valued k in [-1076, 1024], as two exact power-of-two factors (each within
// the normal range), so that y 2^k1 is exact and only the second product rounds.
RSMC_MATH_FUNCTION double scale_by_pow2(double y, double k) {
  const double k1 = round_to_integer(mul(k, 0.5));
  const double k2 = sub(k, k1);
  return mul(mul(y, pow2(k1)), pow2(k2));
}

// x and xlo clamped so that exp overflows to +inf above and underflows to 0 below, whatever x is.
constexpr double kExpOverflowArgument = 710.0;    // e^710 > 2^1024
constexpr double kExpUnderflowArgument = -746.0;  // e^-746 < 2^-1075

// e^(x + xlo) for |xlo| <= ulp(x); NaN x gives NaN.
RSMC_MATH_FUNCTION double exp_dd(double x, double xlo) {
  double xc = x > kExpOverflowArgument ? kExpOverflowArgument : x;
  xc = xc < kExpUnderflowArgument ? kExpUnderflowArgument : xc;
  const ExpReduced e = exp_reduce(xc, xlo);
  return scale_by_pow2(add_expm1(1.0, e), e.k);
}

// x = 2^e (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2)], for x > 0 (subnormals included); the values
// for x <= 0, inf or NaN are meaningless and replaced by the callers' selects.
struct LogReduced {
  double e;
  double f;
};

RSMC_MATH_FUNCTION LogReduced log_reduce(double x) {
  const bool subnormal = x < 0x1p-1022;
  const double xs = subnormal ? mul(x, 0x1p54) : x;  // exact
  const double e = sub(biased_exponent(xs), subnormal ? 1077.0 : 1023.0);
  const double m = double_from_bits((double_bits(xs) & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  const bool above = m > coefficients::kSqrt2;
  return {above ? add(e, 1.0) : e, sub(above ? mul(m, 0.5) : m, 1.0)};  // m - 1 is exact
}

// U(z) = (2 atanh(s)/s - 2) / z = 2/3 + 2z/5 + z^2 U2(z), z = s^2, in double.
RSMC_MATH_FUNCTION double log_u(double z) {
  namespace c = coefficients;
  return mul_add(z, mul_add(z, c::log_u2(z), c::kTwoFifthsHi), c::kTwoThirdsHi);
}

// e ln 2 + log1p(f) + c for |c| <= 2^-52 |f| or so (c is log1p's correction for rounding 1 + x).
RSMC_MATH_FUNCTION double log_core(double e, double f, double c) {
  namespace cf = coefficients;
  const double s = f / add(2.0, f);
  const double z = mul(s, s);
  const double r = mul(z, log_u(z));
  const double half_f2 = mul(mul(0.5, f), f);
  const double small = add(mul(s, add(half_f2, r)), add(mul(e, cf::kLn2Lo), c));
  return sub(mul(e, cf::kLn2Hi), sub(sub(half_f2, small), f));
}

// The value for arguments outside (0, inf): -inf at +-0, +inf at +inf, NaN below 0 and for NaN.
RSMC_MATH_FUNCTION double log_special(double x) { return x == 0.0 ? -kInf : (x < 0.0 ? kNaN : add(x, x)); }

// log(x) as hi + lo with a relative error below 2^-70 or so (measured against libquadmath), for
// pow and lgamma, where the logarithm is multiplied by a large number. Same reduction as log; the
// series 2 atanh(s) is summed in double-double with s = f / (2 + f) corrected by the exact
// remainder f - s (2 + f). At 0, inf, negative and NaN arguments hi is log's value and lo is 0.
RSMC_MATH_FUNCTION DoubleDouble log_dd(double x) {
  namespace c = coefficients;
  const LogReduced r = log_reduce(x);
  const double d = add(2.0, r.f);
  const double sh = r.f / d;
  const DoubleDouble sf = two_prod(sh, r.f);
  const double remainder = sub(sub(sub(r.f, mul(2.0, sh)), sf.hi), sf.lo);  // f - sh (2 + f)
  const DoubleDouble s = fast_two_sum(sh, remainder / d);
  const DoubleDouble z = dd_mul(s, s);
  // U = 2/3 + 2z/5 + z^2 U2(z): 2/3 in double-double, the rest (below 2^-5.8 U) in double. The
  // series term s z U is below 1% of log1p(f), so U needs a relative error of about 2^-60 only.
  const double rest = mul_add(z.hi, mul(z.hi, c::log_u2(z.hi)), mul(z.hi, c::kTwoFifthsHi));
  const DoubleDouble u0 = two_sum(c::kTwoThirdsHi, rest);
  const DoubleDouble u = fast_two_sum(u0.hi, add(u0.lo, c::kTwoThirdsLo));
  const DoubleDouble series = dd_add({mul(2.0, s.hi), mul(2.0, s.lo)}, dd_mul(dd_mul(s, z), u));
  const DoubleDouble k_ln2 = fast_two_sum(mul(r.e, c::kLn2Hi), mul(r.e, c::kLn2Lo));
  const DoubleDouble sum = dd_add(k_ln2, series);
  const bool regular = x > 0.0 && x < kInf;
  return {regular ? sum.hi : log_special(x), regular ? sum.lo : 0.0};
}

}  // namespace math_detail

// e^x. Domain: every double. Overflows to +inf for x > 709.78, rounds through the subnormals to
// +0 for x < -745.13; exp(+-inf) = +inf, +0; NaN gives NaN.
RSMC_MATH_FUNCTION double exp(double x) { return math_detail::exp_dd(x, 0.0); }

// e^x - 1, accurate near 0. Domain: every double. -1 for x < -37.4 (rounded), +inf for x > 709.78;
// expm1(+-0) = +-0, expm1(-inf) = -1, expm1(+inf) = +inf, NaN gives NaN.
RSMC_MATH_FUNCTION double expm1(double x) {
  double xc = x > math_detail::kExpOverflowArgument ? math_detail::kExpOverflowArgument : x;
  xc = xc < -40.0 ? -40.0 : xc;  // e^-40 < 2^-57: the result is -1 after rounding
  const math_detail::ExpReduced e = math_detail::exp_reduce(xc, 0.0);
  // e^x - 1 = 2^k (1 - 2^-k + e^r - 1). 1 - 2^-k is exact for k <= 53; above, 1 and -2^-k go
  // separately (-2^-k joins the small terms; beyond 2^-100 it no longer matters).
  const double two_to_minus_k = math_detail::pow2(math_detail::mul(-1.0, e.k < 100.0 ? e.k : 100.0));
  const bool split_one = e.k > 53.0;
  const double one_minus = split_one ? 1.0 : math_detail::sub(1.0, two_to_minus_k);
  const math_detail::ExpReduced shifted = {e.k, e.r, split_one ? math_detail::sub(e.small, two_to_minus_k) : e.small};
  const double y = math_detail::scale_by_pow2(math_detail::add_expm1(one_minus, shifted), e.k);
  return x == 0.0 ? x : y;
}

// Natural logarithm. Domain: x > 0, subnormals included. log(+-0) = -inf, log(+inf) = +inf,
// log(x < 0) = NaN, NaN gives NaN; log(1) = +0.
RSMC_MATH_FUNCTION double log(double x) {
  const math_detail::LogReduced r = math_detail::log_reduce(x);
  const double y = math_detail::log_core(r.e, r.f, 0.0);
  return x > 0.0 && x < math_detail::kInf ? y : math_detail::log_special(x);
}

// log(1 + x), accurate near 0. Domain: x > -1. log1p(-1) = -inf, log1p(x < -1) = NaN,
// log1p(+inf) = +inf, log1p(+-0) = +-0, NaN gives NaN.
// 1 + x is rounded to u and the rounding error e (exact, by TwoSum) enters as log(u) + e / u.
RSMC_MATH_FUNCTION double log1p(double x) {
  const DoubleDouble u = two_sum(1.0, x);
  const math_detail::LogReduced r = math_detail::log_reduce(u.hi);
  const double y = math_detail::log_core(r.e, r.f, u.lo / u.hi);
  const double special = x == -1.0 ? -math_detail::kInf : (x < -1.0 ? math_detail::kNaN : math_detail::add(x, x));
  const double regular = x > -1.0 && x < math_detail::kInf ? y : special;
  return x == 0.0 ? x : regular;
}

}  // namespace rsmc::math
