// TEMPORARY stand-in for rsmc::math (base/math/, written on branch h-math): exp, log and
// sincos_2pi with the same names and signatures, branch-free and built from +, -, *, / and bit
// operations only, so that loops over them vectorise and give the same bits at every vector width.
// Accuracy is a few ulp (Taylor polynomials, not minimax): good enough for timing and for the
// statistical tests, not for release. Delete this file when base/math/math.hpp is merged, and
// include that instead (base/rng/draws.hpp, bench/step_prototype.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "base/core/portability.hpp"

namespace rsmc::math {

struct SinCos {
    double sin;
    double cos;
};

namespace standin {

RSMC_VECTOR_INLINE std::uint64_t bits(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
RSMC_VECTOR_INLINE double from_bits(std::uint64_t u) {
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}
constexpr double kShifter = 0x1.8p52;
RSMC_VECTOR_INLINE double round_int(double x) { return (x + kShifter) - kShifter; }
// c0 + x (c1 + x (c2 + ...)): straight-line code (a loop over a coefficient array would be a loop
// inside the particle loop, which GCC does not vectorise).
RSMC_VECTOR_INLINE double horner(double, double c0) { return c0; }
template <class... Rest>
RSMC_VECTOR_INLINE double horner(double x, double c0, Rest... rest) {
    return horner(x, rest...) * x + c0;
}
// 2^k for an integer-valued k in [-1022, 1023], through the exponent field (no conversion instruction).
RSMC_VECTOR_INLINE double pow2(double k) { return from_bits(bits(k + (kShifter + 1023.0)) << 52); }

}  // namespace standin

// e^x for |x| < 708 (clamped outside: 0 below -745, +inf above 709.8); NaN is not handled.
RSMC_VECTOR_INLINE double exp(double x) {
    using namespace standin;
    // Two unconditional selects: a nested ?: would evaluate the second comparison only on one path,
    // and GCC (with its default -ftrapping-math) does not turn that into a branch-free select.
    const double low = x < -745.0 ? -745.0 : x;
    const double xc = low > 709.8 ? 709.8 : low;
    const double k = round_int(xc * 1.4426950408889634074);
    const double r = (xc - k * 0.693145751953125) - k * 1.42860682030941723212e-6;
    const double p = horner(r, 1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0,
                            1.0 / 40320.0, 1.0 / 362880.0, 1.0 / 3628800.0, 1.0 / 39916800.0, 1.0 / 479001600.0,
                            1.0 / 6227020800.0);
    // 2^k in two factors so that k down to -1075 stays representable step by step.
    const double k1 = round_int(k * 0.5), k2 = k - k1;
    return p * pow2(k1) * pow2(k2);
}

// log x for normal x > 0 (0 and subnormals: not handled; the rng draws never pass them).
RSMC_VECTOR_INLINE double log(double x) {
    using namespace standin;
    const std::uint64_t u = bits(x);
    double e = (from_bits((u >> 52) | 0x4330000000000000ull) - 0x1p52) - 1023.0;  // x > 0: no sign bit
    double m = from_bits((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    const bool above = m > 1.4142135623730951;
    m = above ? m * 0.5 : m;
    e = above ? e + 1.0 : e;
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double p = horner(z, 2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0, 2.0 / 11.0, 2.0 / 13.0, 2.0 / 15.0,
                            2.0 / 17.0, 2.0 / 19.0, 2.0 / 21.0);
    const double hf = 0.5 * f * f;
    return e * 0.693147180369123816490 + ((f - hf) + (s * (hf + z * p) + e * 1.90821492927058770002e-10));
}

// (sin 2 pi u, cos 2 pi u) for finite |u| < 2^51.
RSMC_VECTOR_INLINE SinCos sincos_2pi(double u) {
    using namespace standin;
    const double v = u - round_int(u);      // exact, |v| <= 1/2
    const double q = round_int(4.0 * v);   // quadrant -2..2
    const double t = (v - 0.25 * q) * 6.283185307179586477;  // |t| <= pi/4
    const double z = t * t;
    const double s = horner(z, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0, -1.0 / 39916800.0,
                            1.0 / 6227020800.0, -1.0 / 1307674368000.0);
    const double c = horner(z, -0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0, 1.0 / 479001600.0,
                            -1.0 / 87178291200.0, 1.0 / 20922789888000.0);
    const double sn = t + t * z * s, cs = 1.0 + z * c;
    const double j = q < 0.0 ? q + 4.0 : q;  // 0..3
    const bool odd = j == 1.0 || j == 3.0;
    const double a = odd ? cs : sn, b = odd ? sn : cs;
    return {j >= 2.0 ? -a : a, (j == 1.0 || j == 2.0) ? -b : b};
}

}  // namespace rsmc::math
