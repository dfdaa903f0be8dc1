// Fixed-point particle weights relative to the global maximum log-weight.
//
// Why: the distributed roulette resampler (docs/reproducibility.md) selects
// offspring by comparing uniforms against cumulative sums of weights. With floating-point weights
// those sums depend on how the particles are split over ranks; with integers they are exact, so a
// selection never depends on where a rank boundary falls. Every weight w_i = exp(l_i) becomes
//
//     fixed_weight(l_i, l_max) = floor(exp(l_i - l_max) * 2^64), clamped to 2^64 - 1,
//
// a 64-bit integer with kFixedWeightFractionBits = 64 fractional bits; l_max is the global maximum
// log-weight (an exact reduction, the same on every rank), so each integer is a pure function of the
// particle and the global maximum. The maximum particle (exp(0) = 1) maps to 2^64 - 1. A weight below
// 2^-64 of the maximum, and a log-weight of -inf, map to 0 (never selected). The functions below
// take any shift >= every log-weight in place of l_max: the filter passes its step's shift, the
// maximum or, for a model with a log_likelihood_bound, a bound at most 8 nats above it.
//
// Quantisation bound. Write r_i = exp(l_i - l_max) <= 1 as computed in double, and q_i =
// fixed_weight * 2^-64. Flooring (and the clamp of the maximum) changes each r_i by less than 2^-64:
// 0 <= r_i - q_i < 2^-64. With R = sum r_i and Q = sum q_i the selection probabilities are r_i / R
// and q_i / Q, and
//     sum_i |r_i/R - q_i/Q| <= sum_i |r_i - q_i| / R + |R - Q| / R < 2 N 2^-64 / R,
// so the total-variation distance between the two selection distributions is below
// N * 2^-64 / sum_i(w_i / w_max) <= N * 2^-64 (the maximum contributes ~1 to the sum), e.g. below
// 5.5e-11 for N = 10^9.
//
// Beyond quantisation: exp() in double is itself accurate to about one ulp (relative 2^-52), the same
// order as the rounding already present in the log-weights; it perturbs each weight relatively, not
// the sums. The exp is rsmc::math::exp (base/math/), which returns the same bits on the host at any
// vector width and on CUDA devices, so the fixed weights are bitwise the same on every platform, for
// any number of ranks. (A libm exp would not be: its last ulp differs between machines and devices,
// which moves the low ~11 bits of 64 of a weight near the maximum.)
//
// RSMC_HOST_DEVICE: host, Kokkos kernels and raw CUDA kernels. No Kokkos, no MPI.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"

namespace rsmc::exact {

constexpr int kFixedWeightFractionBits = 64;
// exp(d) * 2^64 < 1 for d < -64 ln 2 = -44.36...; below -45.5 even a several-ulp error in exp cannot
// lift it to 1, so such weights are 0 without an exp.
constexpr double kFixedWeightUnderflow = -45.5;

// fixed_weight(log_weight, shift) when the caller has already computed
// e = math::exp(log_weight - shift) (the filter's weight-sum pass does): the same bits, one
// exp less. `e` is read only where fixed_weight would call exp, so it may be anything elsewhere.
RSMC_HOST_DEVICE std::uint64_t fixed_weight_given_exp(double log_weight, double shift, double e) {
  constexpr std::uint64_t kMax = ~static_cast<std::uint64_t>(0);
  constexpr double kTwo64 = 18446744073709551616.0;  // 2^64, exact
  if (!(log_weight > -HUGE_VAL)) return 0;           // -inf, NaN
  const double d = log_weight - shift;
  if (!(d < 0.0)) return d >= 0.0 ? kMax : 0;  // the maximum (or a violated precondition); NaN
  if (d < kFixedWeightUnderflow) return 0;
  const double scaled = e * kTwo64;   // exact scaling by a power of two
  if (scaled >= kTwo64) return kMax;  // exp(d) rounded to 1 for tiny |d|
  if (scaled < 1.0) return 0;
  // scaled in [1, 2^64): truncation is floor. Converted without a branch on scaled >= 2^63 (which
  // the compiler's own double-to-uint64 conversion takes, and which random weights mispredict half
  // the time): subtracting 2^63 from a double in [2^63, 2^64) is exact, and so is the int64 cast.
  constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact
  const std::uint64_t high = scaled >= kTwo63 ? 1 : 0;
  const double low_part = scaled - kTwo63 * static_cast<double>(high);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(low_part)) | (high << 63);
}

namespace fixed_weight_detail {

// floor(t) for 0 <= t < 2^51: t rounded to an integer by adding and subtracting 2^52, minus one where
// that rounded up. No conversion instruction (not vectorisable on x86 before AVX-512).
RSMC_VECTOR_INLINE double floor_small(double t) {
  const double r = (t + 0x1p52) - 0x1p52;
  return r > t ? r - 1.0 : r;
}

// The integer value of an integer-valued double 0 <= v < 2^52, from the mantissa of v + 2^52.
RSMC_VECTOR_INLINE std::uint64_t small_integer_bits(double v) {
  std::uint64_t u;
  const double shifted = v + 0x1p52;
  std::memcpy(&u, &shifted, sizeof u);
  return u & ((std::uint64_t{1} << 52) - 1);
}

}  // namespace fixed_weight_detail

// floor(w * 2^64) for a weight w = exp(log_weight - shift) already computed: 2^64 - 1 for w >= 1, 0
// for w <= 0 and NaN. Branch-free and without conversion instructions, so a loop over particles
// vectorises; the same bits as fixed_weight_given_exp(l, m, w) wherever w = exp(l - m) (w * 2^64 is
// split exactly into its 32-bit halves: t = w 2^32, hi = floor(t), lo = floor((t - hi) 2^32), and
// t - hi and both scalings are exact).
RSMC_VECTOR_INLINE std::uint64_t fixed_weight_of(double w) {
  using fixed_weight_detail::floor_small;
  using fixed_weight_detail::small_integer_bits;
  const double below_one = w < 1.0 ? w : 0.0;                     // two unconditional selects, no short-circuit branch
  const double t = (below_one > 0.0 ? below_one : 0.0) * 0x1p32;  // [0, 2^32); NaN gives 0
  const double hi = floor_small(t);
  const double lo = floor_small((t - hi) * 0x1p32);
  // w >= 1 gives 2^64 - 1: both halves all ones, selected as doubles (a select of 64-bit integers on
  // a floating-point condition has no SSE2 instruction, and the baseline build would not vectorise).
  const bool top = w >= 1.0;
  const double all_ones = 4294967295.0;  // 2^32 - 1
  return (small_integer_bits(top ? all_ones : hi) << 32) | small_integer_bits(top ? all_ones : lo);
}

// floor(exp(log_weight - shift) * 2^64), clamped to 2^64 - 1; 0 when log_weight is -inf (or NaN) or
// the weight underflows below 2^-64 of exp(shift). The shift is the step's: the maximum log-weight
// over all ranks, or a bound above it (BootstrapFilter::weight_shift).
// Precondition: log_weight <= shift, shift finite (or -inf together with a -inf log_weight, which
// gives 0). A violated log_weight > shift clamps to 2^64 - 1.
// exp is computed only where it matters (not for -inf, the maximum, or d < kFixedWeightUnderflow).
RSMC_HOST_DEVICE std::uint64_t fixed_weight(double log_weight, double shift) {
  const double d = log_weight - shift;
  const bool needs_exp = log_weight > -HUGE_VAL && d < 0.0 && d >= kFixedWeightUnderflow;
  return fixed_weight_given_exp(log_weight, shift, needs_exp ? math::exp(d) : 0.0);
}

}  // namespace rsmc::exact
