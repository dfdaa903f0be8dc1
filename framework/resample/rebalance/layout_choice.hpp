// The layout after a resampling: of all contiguous layouts whose counts lie in the band
// (framework/particles/load_band.hpp), one that moves the fewest particles.
//
// After selection and renumbering rank k holds the offspring ids H_k = [q_k, q_k + c_k),
// q_k = c_0 + ... + c_{k-1}. A layout with boundaries b (rank k gets B_k = [b_k, b_{k+1})) moves
//     moved(b) = sum_k (c_k - |H_k ∩ B_k|)
// particles: every offspring outside its holder's new range. choose_layout() returns a layout in
// the band with the least moved(b), computed from the counts alone (the same on every rank), in
// integer arithmetic. docs/resampling.md ("The layout within a tolerance band") has the proof; in short:
//   1. moved(b) = sum_{j=1}^{p-1} phi_j(b_j), phi_j(b) = |clamp(b, q_{j-1}, q_{j+1}) - q_j|: a boundary
//      moved from q_j to b hands over the offspring of ranks j-1 and j lying between (and no more:
//      beyond a neighbouring held boundary the ids belong to ranks further on and are counted at
//      their own boundary). Separable, but each phi_j is flat beyond the neighbours: not convex.
//   2. The layouts in the band form a lattice (closed under componentwise min and max). With r_j =
//      q_j clamped into the range of b_j over the band, M = the least layout >= r and m = the greatest
//      <= r (two O(p) passes each), every layout b can be replaced by (b ∧ M) ∨ m without moving more:
//      each phi_j is unimodal with its minimum at q_j, and the replacement only moves boundaries
//      towards q_j (or keeps them). So an optimum lies in the sandwich m <= b <= M; boundaries with
//      m_j = M_j are decided, and the rest fall into independent runs.
//   3. On each run, an exact dynamic programme over the boundaries, F_{j+1}(y) = phi_{j+1}(y) +
//      min { F_j(x) : y - upper_j <= x <= y - lower_j }, with the F_j as piecewise-affine functions
//      of the integer boundary (integer_pwl.hpp), then backwards the minimising boundaries.
// Cost: O(p) for the sandwich, plus O(K log K) per free boundary with K the pieces of its F_j
// (at most the boundary's sandwich width + 1); nothing beyond the O(p) passes when the counts
// already fit the band or the band is the target alone (tau = 0).
//
// Any two contiguous layouts ordered by rank send each particle to a rank whose new range overlaps
// its holder's held range, and never in both directions between two ranks (RebalancePlan).
#pragma once

#include <cstdint>
#include <vector>

#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"

namespace rsmc {

// moved(b): the offspring (held[k] on rank k, renumbered in rank order) outside their holder's
// range in `to`. O(p).
std::uint64_t particles_moved(const std::vector<std::uint64_t>& held, const Layout& to);

// sum_k max(0, held[k] - count_k(to)): what any rebalancing to `to`'s counts must move, however
// the ranges were placed.
std::uint64_t surplus(const std::vector<std::uint64_t>& held, const Layout& to);

// A layout within `band` with the fewest particles moved from the held offspring counts (which sum
// to band.size()). Of several, the one the backward pass meets first, each boundary as close to
// its target boundary as the minimum allows.
Layout choose_layout(const LoadBand& band, const std::vector<std::uint64_t>& held);

}  // namespace rsmc
