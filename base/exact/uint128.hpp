// 128-bit unsigned integers and exact 256-bit products for the fixed-point resampling weights.
//
// Why: the distributed roulette resampler (docs/reproducibility.md) turns
// weights into 64-bit fixed-point integers relative to the global maximum; a rank's total, the
// exclusive scan over ranks and the grand total of N such integers need up to 64 + log2(N) bits, so
// they are held in 128 bits. Comparing a uniform draw against a cumulative weight scaled by a ratio
// needs exact products of two 128-bit values, i.e. 256 bits (compare_products).
//
// u128 is the compiler's `unsigned __int128`, an extension of GCC, Clang and nvcc (device code
// included, CUDA >= 11.5) on 64-bit targets. The alias carries `__extension__` so that -Wpedantic
// stays quiet wherever this header is included. Its arithmetic is modulo 2^128; every function here
// is exact.
//
// Everything marked RSMC_HOST_DEVICE works on the host, in Kokkos kernels and in raw CUDA kernels and
// gives bitwise identical results on all of them (integer arithmetic only; to_double() uses one
// correctly rounded 64-bit integer conversion and an exact power-of-two scaling). to_string() is
// host only. No Kokkos, no MPI here.
#pragma once

#include <cstdint>
#include <string>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"

namespace rsmc::exact {

__extension__ using u128 = unsigned __int128;

// A 256-bit unsigned integer, value = sum_k w[k] * 2^(64 k) (little-endian words).
struct U256 {
  std::uint64_t w[4];
};

namespace u128_detail {

RSMC_HOST_DEVICE std::uint64_t lo64(u128 x) { return static_cast<std::uint64_t>(x); }
RSMC_HOST_DEVICE std::uint64_t hi64(u128 x) { return static_cast<std::uint64_t>(x >> 64); }

// Number of leading zero bits of a non-zero 64-bit word.
RSMC_HOST_DEVICE int clz64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

// The bits of a double, and the double with given bits (double_bits.hpp).
using exact_detail::double_bits;
using exact_detail::double_from_bits;

// 2^e, exactly, for -1022 <= e <= 1023 (the normal range). Cheaper than ldexp, a library call on
// the host.
RSMC_HOST_DEVICE double pow2(int e) { return double_from_bits(static_cast<std::uint64_t>(e + 1023) << 52); }

}  // namespace u128_detail

// The exact 256-bit product a * b (schoolbook on 64-bit halves; each partial product is a 64 x 64
// -> 128-bit multiplication, and the carries are propagated explicitly).
RSMC_HOST_DEVICE U256 mul_wide(u128 a, u128 b) {
  const u128 a0 = u128_detail::lo64(a), a1 = u128_detail::hi64(a);
  const u128 b0 = u128_detail::lo64(b), b1 = u128_detail::hi64(b);
  const u128 p00 = a0 * b0;  // weight 2^0
  const u128 p01 = a0 * b1;  // weight 2^64
  const u128 p10 = a1 * b0;  // weight 2^64
  const u128 p11 = a1 * b1;  // weight 2^128
  // Column of weight 2^64: three 64-bit terms, the sum fits in 66 bits, so no u128 overflow.
  const u128 mid = static_cast<u128>(u128_detail::hi64(p00)) + u128_detail::lo64(p01) + u128_detail::lo64(p10);
  // Column of weight 2^128: the carry of `mid` (<= 2), the high halves of p01 and p10 and the low
  // half of p11, four terms below 2^64 (sum < 2^66). Its high word and the high half of p11 make
  // the top word.
  const u128 top_lo = static_cast<u128>(u128_detail::hi64(mid)) + u128_detail::hi64(p01) + u128_detail::hi64(p10) +
                      u128_detail::lo64(p11);
  U256 r;
  r.w[0] = u128_detail::lo64(p00);
  r.w[1] = u128_detail::lo64(mid);
  r.w[2] = u128_detail::lo64(top_lo);
  r.w[3] = u128_detail::hi64(p11) + u128_detail::hi64(top_lo);  // the full product is < 2^256: no overflow
  return r;
}

// -1, 0 or +1 as x <, ==, > y.
RSMC_HOST_DEVICE int compare(const U256& x, const U256& y) {
  for (int k = 3; k >= 0; --k) {
    if (x.w[k] != y.w[k]) return x.w[k] < y.w[k] ? -1 : 1;
  }
  return 0;
}

// The sign of a * b - c * d (-1, 0, +1), computed exactly.
RSMC_HOST_DEVICE int compare_products(u128 a, u128 b, u128 c, u128 d) {
  return compare(mul_wide(a, b), mul_wide(c, d));
}

// x rounded to the nearest double, ties to even (x = 2^128 - 1 gives 2^128, a finite double).
//
// Below 2^64 the 64-bit conversion is already correctly rounded (round-to-nearest-even is the
// default mode on the host and the rounding of cvt.rn on the device). Above, the top 64 bits are
// taken and every bit shifted out is ORed into their lowest bit (a "sticky" bit): that bit lies 11
// places below the last kept significand bit, so the rounding of the 64-bit word sees exactly the
// same round bit and the same "anything below it" as the rounding of x would. The result is then
// scaled by a power of two, which is exact.
RSMC_HOST_DEVICE double to_double(u128 x) {
  const std::uint64_t hi = u128_detail::hi64(x);
  if (hi == 0) return static_cast<double>(u128_detail::lo64(x));
  const int shift = 64 - u128_detail::clz64(hi);  // 1..64: bits to drop so that 64 remain
  const u128 dropped_mask = (static_cast<u128>(1) << shift) - 1;
  std::uint64_t top = static_cast<std::uint64_t>(x >> shift);
  if ((x & dropped_mask) != 0) top |= 1;
  return static_cast<double>(top) * u128_detail::pow2(shift);
}

// Decimal digits of x ("0" for zero). Host only.
inline std::string to_string(u128 x) {
  if (x == 0) return "0";
  char buf[40];  // 2^128 - 1 has 39 decimal digits
  int pos = 40;
  while (x != 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(x % 10));
    x /= 10;
  }
  return std::string(buf + pos, buf + 40);
}

}  // namespace rsmc::exact
