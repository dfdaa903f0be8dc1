// Inverse CDF by binary search: the baseline of the inverse-CDF kernel family.
//
// Given a non-decreasing cumulative weight table C[0..n-1], returns the first index i with
// C[i] > u (n if there is none). This "upper bound" rule never returns an index whose own weight
// C[i] - C[i-1] is zero, and it is monotonic in u, so offspring come out in ancestor order.
#pragma once

#include <cstddef>

#include "base/core/portability.hpp"

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

// The same index for a u known to satisfy C[hint - 1] <= u (hint = 0: no knowledge), found by
// galloping from `hint` (steps 1, 2, 4, .. until C[hint + step - 1] > u), then a binary search inside
// the bracket: O(log distance) instead of O(log n). For sorted queries (a rank's sample points) pass
// the previous result as the hint: the whole batch then costs O(n + m) comparisons.
template <class K>
RSMC_HOST_DEVICE std::size_t upper_bound_index_from(const K* cumulative, std::size_t n, std::size_t hint, K u) {
  std::size_t lo = hint, step = 1;  // invariant: C[lo - 1] <= u
  while (lo < n && !(cumulative[lo] > u)) {
    const std::size_t probe = lo + step < n ? lo + step : n;
    if (probe < n && !(cumulative[probe] > u)) {
      lo = probe + 1;
      step *= 2;
    } else {
      return lo + 1 + upper_bound_index(cumulative + lo + 1, probe - lo - 1, u);
    }
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
