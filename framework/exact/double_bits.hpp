// The bits of a double, and the double with given bits, without aliasing tricks on either side.
//
// Shared by exact_sum.hpp and uint128.hpp. RSMC_HOST_DEVICE: host, Kokkos kernels and raw CUDA
// kernels. No Kokkos, no MPI.
#pragma once

#include <cstdint>
#include <cstring>

#include "framework/core/portability.hpp"

namespace rsmc::exact::detail {

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

}  // namespace rsmc::exact::detail
