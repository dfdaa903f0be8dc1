// Reference values for the rebalancing traffic of `rsmc bench resample --balance-tolerance`,
// computed from the offspring counts alone and independently of the resampler:
//
//   dense_band_minimum  the fewest particles any contiguous layout in the band moves, by a plain
//                       dynamic programme over every integer position of every boundary (no
//                       sandwich, no piecewise-affine functions: the straightforward form of what
//                       choose_layout computes cleverly, framework/resample/rebalance/layout_choice.hpp).
//                       O(sum of the boundaries' ranges) time and memory: fine for the benchmark's
//                       8 ranks at N = 10^6, too slow for the filter at scale.
//   any_layout_bound    sum_k max(0, c_k - t_k): what any rebalancing to the target counts t_k must
//                       move, contiguous or not (the bound the issue compares against).
//
// Both use the separable form of the moves (docs/resampling.md, "The layout within a tolerance
// band"): moved(b) = sum_{j=1}^{p-1} phi_j(b_j), phi_j(b) = |clamp(b, q_{j-1}, q_{j+1}) - q_j|.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "base/core/error.hpp"
#include "framework/particles/load_band.hpp"

namespace rsmc::bench {

inline std::uint64_t any_layout_bound(const LoadBand& band, const std::vector<std::uint64_t>& held) {
  std::uint64_t bound = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const std::uint64_t t = band.targets()[k];
    bound += held[k] > t ? held[k] - t : 0;
  }
  return bound;
}

inline std::uint64_t dense_band_minimum(const LoadBand& band, const std::vector<std::uint64_t>& held) {
  using i64 = std::int64_t;
  const std::size_t p = held.size();
  if (p != static_cast<std::size_t>(band.ranks()))
    throw Error("internal error: dense_band_minimum: rank counts differ");
  if (p == 1) return 0;
  std::vector<i64> q(p + 1, 0), lower_sum(p + 1, 0), upper_sum(p + 1, 0);
  for (std::size_t k = 0; k < p; ++k) {
    q[k + 1] = q[k] + static_cast<i64>(held[k]);
    lower_sum[k + 1] = lower_sum[k] + static_cast<i64>(band.lowers()[k]);
    upper_sum[k + 1] = upper_sum[k] + static_cast<i64>(band.uppers()[k]);
  }
  const i64 n = q[p];
  // Boundary j ranges over [lo_j, hi_j]: j ranks to its left and p - j to its right within their bands.
  auto lo = [&](std::size_t j) { return std::max(lower_sum[j], n - (upper_sum[p] - upper_sum[j])); };
  auto hi = [&](std::size_t j) { return std::min(upper_sum[j], n - (lower_sum[p] - lower_sum[j])); };
  auto phi = [&](std::size_t j, i64 b) {
    const i64 c = std::min(std::max(b, q[j - 1]), q[j + 1]);
    return c >= q[j] ? c - q[j] : q[j] - c;
  };
  constexpr i64 kNone = std::numeric_limits<i64>::max();

  // cost[y - lo_j]: the fewest moves at boundaries 1..j with b_j = y (kNone: infeasible).
  std::vector<i64> cost(static_cast<std::size_t>(hi(1) - lo(1) + 1));
  for (i64 y = lo(1); y <= hi(1); ++y) cost[static_cast<std::size_t>(y - lo(1))] = phi(1, y);
  for (std::size_t j = 1; j < p; ++j) {  // rank j lies between boundaries j and j + 1
    const i64 from_lo = lo(j), to_lo = lo(j + 1), to_hi = hi(j + 1);
    const i64 width_lower = static_cast<i64>(band.lowers()[j]), width_upper = static_cast<i64>(band.uppers()[j]);
    std::vector<i64> next(static_cast<std::size_t>(to_hi - to_lo + 1), kNone);
    // Sliding-window minimum of cost over x in [y - upper_j, y - lower_j], y increasing.
    std::deque<i64> window;  // positions x, their costs increasing
    i64 added = from_lo;     // the next x to enter the window
    const i64 from_hi = from_lo + static_cast<i64>(cost.size()) - 1;
    for (i64 y = to_lo; y <= to_hi; ++y) {
      const i64 first = y - width_upper, last = std::min(y - width_lower, from_hi);
      for (; added <= last; ++added) {
        const i64 c = cost[static_cast<std::size_t>(added - from_lo)];
        if (c == kNone) continue;
        while (!window.empty() && cost[static_cast<std::size_t>(window.back() - from_lo)] >= c) window.pop_back();
        window.push_back(added);
      }
      while (!window.empty() && window.front() < first) window.pop_front();
      if (window.empty()) continue;
      const i64 best = cost[static_cast<std::size_t>(window.front() - from_lo)];
      next[static_cast<std::size_t>(y - to_lo)] = j + 1 < p ? best + phi(j + 1, y) : best;
    }
    cost = std::move(next);
  }
  // Boundary p is N, the only position in its range.
  if (cost.size() != 1 || cost[0] == kNone) throw Error("internal error: dense_band_minimum found no layout");
  return static_cast<std::uint64_t>(cost[0]);
}

}  // namespace rsmc::bench
