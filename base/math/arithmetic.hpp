// The building blocks of rsmc::math: IEEE basic operations that round the same way on every target,
// bit casts, rounding to an integer without a conversion instruction (double-double arithmetic, built
// on these, is in base/math/double_double.hpp).
//
// Why these and nothing else: +, -, *, / and sqrt are correctly rounded (IEEE 754, round to nearest
// even) on x86-64 at every vector width and on CUDA devices, so an expression built from them in a
// fixed order has one result everywhere. What breaks that is contraction of a*b + c into a fused
// multiply-add, which some targets do and others do not. On the device, mul/add/sub below are the
// __dmul_rn/__dadd_rn/__dsub_rn intrinsics, which nvcc never fuses, so the functions are FMA-free
// whatever --fmad says. On the host they are plain operators: GCC must not contract
// (-ffp-contract=off, which rsmc_framework sets; GCC's default in ISO C++ mode), and
// tests/unit/test_math.cpp fails if its own build contracts; Clang gets a pragma (below).
//
// No double-to-integer conversion instructions are used (their rounding and range behaviour differ
// between x86 vector widths and CUDA): round_to_integer() adds and subtracts 1.5 * 2^52, and
// integers are moved into and out of exponent fields through the bits.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"

// Every function of rsmc::math is forced inline: a call left out of line inside a loop stops the
// loop from vectorising (GCC declines to inline the larger ones, lgamma and pow, on its own).
#if defined(__GNUC__) || defined(__CUDACC__)
#define RSMC_MATH_FUNCTION RSMC_HOST_DEVICE __attribute__((always_inline))
#else
#define RSMC_MATH_FUNCTION RSMC_HOST_DEVICE
#endif

// Clang marks each operation as contractible or not where it is written, so this pragma at the top
// of mul/add/sub keeps their products and sums out of any FMA under -ffp-contract=on (Clang's C++
// default) and fast-honor-pragmas (HIP's default); plain `fast` ignores pragmas and is not allowed.
// GCC has no such pragma and relies on -ffp-contract=off.
#if defined(__clang__) && !defined(__CUDACC__)
#define RSMC_MATH_NO_CONTRACTION _Pragma("clang fp contract(off)")
#else
#define RSMC_MATH_NO_CONTRACTION
#endif

namespace rsmc::math::math_detail {

// Bit casts (memcpy on the host, __double_as_longlong on the device), shared with the exact sums.
using exact::exact_detail::double_bits;
using exact::exact_detail::double_from_bits;

// Correctly rounded products, sums and differences that are never fused with a neighbour.
RSMC_MATH_FUNCTION double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  RSMC_MATH_NO_CONTRACTION
  return a * b;
#endif
}

RSMC_MATH_FUNCTION double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  RSMC_MATH_NO_CONTRACTION
  return a + b;
#endif
}

RSMC_MATH_FUNCTION double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  RSMC_MATH_NO_CONTRACTION
  return a - b;
#endif
}

// a * b + c with two roundings, in that order.
RSMC_MATH_FUNCTION double mul_add(double a, double b, double c) { return add(mul(a, b), c); }

// Horner's scheme c0 + x (c1 + x (c2 + ...)), coefficients in ascending order.
RSMC_MATH_FUNCTION double horner(double, double c0) { return c0; }

template <class... Rest>
RSMC_MATH_FUNCTION double horner(double x, double c0, Rest... rest) {
  return mul_add(x, horner(x, rest...), c0);
}

// One of four values by an integer-valued index 0..3 held in a double: three selects, which
// compile to blends in a vectorised loop (no table, no gather).
RSMC_MATH_FUNCTION double pick4(double index, double a, double b, double c, double d) {
  const double low = index < 0.5 ? a : b;
  const double high = index < 2.5 ? c : d;
  return index < 1.5 ? low : high;
}

constexpr double kInf = __builtin_huge_val();
constexpr double kNaN = __builtin_nan("");

// 1.5 * 2^52: adding it to |x| < 2^51 leaves round-to-nearest-even(x) in the low mantissa bits.
constexpr double kRoundShifter = 0x1.8p52;

// x rounded to the nearest integer (ties to even), as a double; exact for |x| < 2^51. Relies on the
// compiler not simplifying (x + c) - c, which no IEEE-conforming mode does.
RSMC_MATH_FUNCTION double round_to_integer(double x) { return sub(add(x, kRoundShifter), kRoundShifter); }

// 2^k for an integer-valued double k in [-1022, 1023], built in the exponent field. k + 1023 goes
// into the low bits of (k + 1023) + 1.5 * 2^52, and the shift moves those 11 bits to the exponent.
RSMC_MATH_FUNCTION double pow2(double k) { return double_from_bits(double_bits(add(k, kRoundShifter + 1023.0)) << 52); }

// The 11-bit biased exponent field of a double with the sign bit clear, as a double in [0, 2047]:
// the field goes into the low mantissa bits of 2^52 and 2^52 is subtracted again.
RSMC_MATH_FUNCTION double biased_exponent(double x) {
  return sub(double_from_bits((double_bits(x) >> 52) | 0x4330000000000000ull), 0x1p52);
}

}  // namespace rsmc::math::math_detail
