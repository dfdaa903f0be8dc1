// Inverse CDF by binary search: the baseline of the inverse-CDF kernel family.
//
// Given a non-decreasing cumulative weight table C[0..n-1], returns the first index i with
// C[i] > u (n if there is none). This "upper bound" rule never returns an index whose own weight
// C[i] - C[i-1] is zero, and it is monotonic in u, so offspring come out in ancestor order.
#pragma once

#include <cstddef>

#include "framework/core/portability.hpp"

namespace rsmc::kernels {

// For any ordered key type: double CDFs and the exact fixed-point wheels (std::uint64_t,
// rsmc::exact::u128).
template <class K>
RSMC_HOST_DEVICE std::size_t upper_bound_index(const K* cumulative, std::size_t n, K u) {
  std::size_t lo = 0, hi = n;  // invariant: C[lo-1] <= u < C[hi] (with C[-1] = -inf, C[n] = +inf)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (cumulative[mid] > u)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// The double table, spelled out so that arguments convertible to double (e.g. an integer literal
// point) still find it.
RSMC_HOST_DEVICE std::size_t upper_bound_index(const double* cumulative, std::size_t n, double u) {
  return upper_bound_index<double>(cumulative, n, u);
}

// The ancestor of systematic offspring j of `total` offspring: the wheel point (j + uniform) *
// C[n-1] / total, looked up in C. Points that rounding pushes past the end belong to the last
// index with positive weight, `last_positive`.
RSMC_HOST_DEVICE std::size_t systematic_ancestor(const double* cumulative, std::size_t n, std::size_t last_positive,
                                                 double uniform, std::size_t j, std::size_t total) {
  const double point = (static_cast<double>(j) + uniform) * (cumulative[n - 1] / static_cast<double>(total));
  const std::size_t i = upper_bound_index(cumulative, n, point);
  return i < n ? i : last_positive;
}

}  // namespace rsmc::kernels
