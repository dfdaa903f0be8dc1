// The bits of a double, and the double with given bits, without aliasing tricks on either side.
//
// Shared by exact_sum.hpp and uint128.hpp. RSMC_HOST_DEVICE: host, Kokkos kernels and raw CUDA
// kernels. No Kokkos, no MPI.
#pragma once

#include <cstdint>
#include <cstring>

#include "base/core/portability.hpp"

namespace rsmc::exact::exact_detail {

RSMC_HOST_DEVICE std::uint64_t double_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

RSMC_HOST_DEVICE double double_from_bits(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// The fields of a double's bits, as the exact accumulators use them: a finite x is
// x = +-mantissa * 2^(position - 1074), mantissa < 2^53 (with the hidden bit; subnormals have
// none), position = max(biased - 1, 0) in [0, 2045]. biased == 0x7ff: inf (fraction 0) or NaN.
struct DoubleParts {
  unsigned biased;         // the biased exponent, 0..0x7ff
  std::uint64_t fraction;  // the 52 stored mantissa bits
  std::uint64_t mantissa;  // fraction plus the hidden bit of normal numbers
  int position;            // the weight of the mantissa's lowest bit, in units of 2^-1074
  std::int64_t sign_mask;  // 0 for +, -1 for -: (v ^ sign_mask) - sign_mask is +-v, branch-free
};

RSMC_HOST_DEVICE DoubleParts double_parts(std::uint64_t bits) {
  DoubleParts p;
  p.biased = static_cast<unsigned>(bits >> 52) & 0x7ffu;
  p.fraction = bits & ((std::uint64_t{1} << 52) - 1);
  p.mantissa = p.fraction | (static_cast<std::uint64_t>(p.biased != 0) << 52);
  p.position = p.biased != 0 ? static_cast<int>(p.biased) - 1 : 0;
  p.sign_mask = -static_cast<std::int64_t>(bits >> 63);
  return p;
}

}  // namespace rsmc::exact::exact_detail
