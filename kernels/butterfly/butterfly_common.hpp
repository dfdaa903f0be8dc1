// Shared pieces of the butterfly-patterned partial-sums sampler (Steele & Tristan, "Using
// butterfly-patterned partial sums to draw from discrete distributions", PPoPP 2017): accumulator types, mapping a
// uniform onto a row's total, and the edge rules. Used by the host twins (kernels/host/butterfly_*.hpp), the portable
// batched draw (kernels/butterfly/batched_categorical.hpp) and the CUDA kernels (kernels/cuda/butterfly.cu), so that
// all of them turn a uniform into the same point u' bit for bit.
//
// The draw, for one row of K non-negative weights a_0..a_{K-1} with prefix sums p_j = a_0 + .. + a_j:
//   total = p_{K-1};  u' = point(u, total);  index = the smallest j with u' < p_j.
// Edge rules (every sampler in this family follows them; tests/unit/test_butterfly.cpp checks them):
// - Strict "<": a zero weight is never drawn (p_j = p_{j-1} cannot exceed a u' that p_{j-1} did not).
// - u' is clamped into [0, total): u' >= total (u >= 1, or a floating-point product that rounded up to
//   the total) becomes the largest representable value below the total, so it draws the LAST index
//   with a positive weight (the project's convention, as in systematic_ancestor); u' < 0 or NaN
//   becomes 0, the first index with a positive weight.
// - A row without positive total (all zero, or a NaN total) has no index to draw: the result is the
//   sentinel K (one past the last index), never an index into the row. (The paper's search returns 0
//   for K < W and K-1 otherwise in that case; both would be silent wrong draws.)
// Preconditions: weights finite and >= 0, the total finite (floating point) or free of overflow in the
// accumulator (integers; the default u128 accumulator holds any sum of up to 2^64 u64 weights).
//
// Exactness: with integer weights (u64, accumulated in u64 or u128) every partial sum is exact, the
// point is floor(u * total) computed exactly, and the butterfly search returns exactly the sequential
// index. With float/double weights the butterfly sums round in a different order (tree sums, and
// highValue - y), so a u' within a few rounding errors of some p_j may give the neighbouring index.
//
// RSMC_HOST_DEVICE throughout; no Kokkos, no MPI.
#pragma once

#include <cstdint>
#include <cstring>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"
#include "base/exact/uint128.hpp"

namespace rsmc::kernels::butterfly {

using exact::u128;

// The warp width of the CUDA kernels (and of the host twins that mirror them bit for bit).
constexpr unsigned kCudaWarpWidth = 32;

// The accumulator a weight type is summed in unless the caller chooses another one:
// float -> float (the paper's 32-bit variant; choose double for more accuracy), double -> double,
// std::uint64_t -> u128 (exact for any row of up to 2^64 weights; u64 is allowed when the caller
// knows every row total is below 2^64).
template <class Weight>
struct default_accumulator;
template <>
struct default_accumulator<float> {
  using type = float;
};
template <>
struct default_accumulator<double> {
  using type = double;
};
template <>
struct default_accumulator<std::uint64_t> {
  using type = u128;
};
template <class Weight>
using accumulator_t = typename default_accumulator<Weight>::type;

// Whether partial sums in Acc are exact (integer accumulators).
template <class Acc>
struct is_exact_accumulator {
  static constexpr bool value = false;
};
template <>
struct is_exact_accumulator<std::uint64_t> {
  static constexpr bool value = true;
};
template <>
struct is_exact_accumulator<u128> {
  static constexpr bool value = true;
};

namespace common_detail {

RSMC_HOST_DEVICE std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

RSMC_HOST_DEVICE float float_from_bits(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// floor(u * 2^64-or-2^128-bounded total) for u in (0, 1): u = mant * 2^-shift exactly, shift >= 53.
RSMC_HOST_DEVICE void split_unit(double u, std::uint64_t& mant, int& shift) {
  const std::uint64_t bits = exact::exact_detail::double_bits(u);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t frac = bits & ((std::uint64_t(1) << 52) - 1);
  if (biased == 0) {  // subnormal: frac * 2^-1074
    mant = frac;
    shift = 1074;
  } else {
    mant = frac | (std::uint64_t(1) << 52);
    shift = 1075 - biased;
  }
}

// Bits [s, s + 128) of a 256-bit value, for 0 <= s < 256.
RSMC_HOST_DEVICE std::uint64_t word_or_zero(const exact::U256& x, unsigned i) { return i < 4 ? x.w[i] : 0; }
RSMC_HOST_DEVICE u128 shift_right_low128(const exact::U256& x, unsigned s) {
  const unsigned q = s / 64, b = s % 64;
  std::uint64_t lo = word_or_zero(x, q), hi = word_or_zero(x, q + 1);
  if (b != 0) {
    lo = (lo >> b) | (hi << (64 - b));
    hi = (hi >> b) | (word_or_zero(x, q + 2) << (64 - b));
  }
  return (static_cast<u128>(hi) << 64) | lo;
}

}  // namespace common_detail

// Whether a row total leaves anything to draw (false for zero and, in floating point, NaN).
RSMC_HOST_DEVICE bool positive(float total) { return total > 0.0f; }
RSMC_HOST_DEVICE bool positive(double total) { return total > 0.0; }
RSMC_HOST_DEVICE bool positive(std::uint64_t total) { return total != 0; }
RSMC_HOST_DEVICE bool positive(u128 total) { return total != 0; }

// The largest value of the type below x, for positive x (+inf gives the largest finite value).
RSMC_HOST_DEVICE float below(float x) { return common_detail::float_from_bits(common_detail::float_bits(x) - 1u); }
RSMC_HOST_DEVICE double below(double x) {
  return exact::exact_detail::double_from_bits(exact::exact_detail::double_bits(x) - 1u);
}
RSMC_HOST_DEVICE std::uint64_t below(std::uint64_t x) { return x - 1; }
RSMC_HOST_DEVICE u128 below(u128 x) { return x - 1; }

// A point clamped into [0, total) as the edge rules say; total must be positive().
RSMC_HOST_DEVICE float clamp_point(float point, float total) {
  if (!(point >= 0.0f)) point = 0.0f;
  if (!(point < total)) point = below(total);
  return point;
}
RSMC_HOST_DEVICE double clamp_point(double point, double total) {
  if (!(point >= 0.0)) point = 0.0;
  if (!(point < total)) point = below(total);
  return point;
}
RSMC_HOST_DEVICE std::uint64_t clamp_point(std::uint64_t point, std::uint64_t total) {
  return point < total ? point : total - 1;
}
RSMC_HOST_DEVICE u128 clamp_point(u128 point, u128 total) { return point < total ? point : total - 1; }

// The point u' of a uniform u in [0, 1) on a row with the given total, in [0, total) (clamped; see the
// edge rules). Zero when the total is not positive (the draw then returns the sentinel anyway).
//   double: u * total, one correctly rounded product.
//   float:  the double product u * total rounded to float (never float(u) * total: float(u) rounds
//           values of u near 1 up to 1).
//   integers: floor(u * total), computed exactly (u = mant * 2^-shift; a 53 x 64-bit product in 128
//           bits, or a 53 x 128-bit product in 256 bits). With total = 2^t and u = c / 2^t the point
//           is exactly c; it is monotonic in u and always < total for u < 1.
RSMC_HOST_DEVICE double scaled_point(double u, double total) {
  if (!positive(total)) return 0.0;
  return clamp_point(u * total, total);
}
RSMC_HOST_DEVICE float scaled_point(double u, float total) {
  if (!positive(total)) return 0.0f;
  return clamp_point(static_cast<float>(u * static_cast<double>(total)), total);
}
RSMC_HOST_DEVICE std::uint64_t scaled_point(double u, std::uint64_t total) {
  if (total == 0 || !(u > 0.0)) return 0;
  if (!(u < 1.0)) return total - 1;
  std::uint64_t mant;
  int shift;
  common_detail::split_unit(u, mant, shift);
  if (shift >= 128) return 0;
  return static_cast<std::uint64_t>((static_cast<u128>(mant) * total) >> shift);
}
RSMC_HOST_DEVICE u128 scaled_point(double u, u128 total) {
  if (total == 0 || !(u > 0.0)) return 0;
  if (!(u < 1.0)) return total - 1;
  std::uint64_t mant;
  int shift;
  common_detail::split_unit(u, mant, shift);
  if (shift >= 256) return 0;
  return common_detail::shift_right_low128(exact::mul_wide(mant, total), static_cast<unsigned>(shift));
}

}  // namespace rsmc::kernels::butterfly
