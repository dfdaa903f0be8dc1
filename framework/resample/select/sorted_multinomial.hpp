// Sorted multinomial sample points, generated per wheel interval by binomial splitting on a fixed tree.
//
// What: the multinomial resampling scheme throws N points i.i.d. uniform on the integer wheel [0, T)
// (T = the exact integer total of all fixed-point weights). Rank k owns the wheel interval
// [lo, hi) = [W_below, W_below + W_k). sorted_multinomial_points() hands a rank, in increasing
// order, exactly the points of ONE global draw that fall into its interval, plus the number of points
// of that draw that fall below lo (the first new global id of its offspring), in
// O(log N + points in [lo, hi)) expected work, without ever looking at the other ranks' points.
//
// How: a fixed binary tree over the wheel, independent of the number of ranks.
//   - The root is [0, T) holding all N points; its heap index is h = 1; children of h are 2h and 2h+1.
//   - A node [a, b) at depth d holding n > 0 points is a LEAF when
//       b - a == 1                      (all n points equal a; no random numbers are drawn), or
//       n <= kSortedMultinomialLeafSize (32), or
//       d == kSortedMultinomialMaxDepth (60; depth cap, so heap indices stay below 2^61).
//     Otherwise it splits at mid = a + (b - a) / 2: the left child [a, mid) gets
//       L = rng::binomial(stream, n, p),  p = to_double(mid - a) / to_double(b - a),
//     points and the right child [mid, b) gets n - L.
//   - A leaf that is not of width 1 draws its n points as a + rng::uniform_below(stream, b - a), one
//     after the other, and sorts them.
//   - The stream of node h is rng::Stream(seed, Purpose::resample, step, (1 << 63) | h). The top bit
//     keeps node streams apart from the per-sample streams (global id < 2^63) that other schemes use.
// Because the tree, the node counts and the node streams do not depend on [lo, hi), every rank that
// visits a node draws the same count (or the same leaf points) for it; so the concatenation over
// consecutive intervals is the same single draw for any partition of the wheel (p-invariance).
// A rank expands only the nodes that intersect [lo, hi) (or contain lo strictly inside, to split the
// count below lo); a node entirely below lo adds its count to `below` without being expanded, a node
// entirely at/above max(lo, hi) is dropped.
//
// Distribution: conditional on n points uniform on [a, b), the number left of mid is exactly
// Binomial(n, (mid - a)/(b - a)) and, given it, both halves hold i.i.d. uniform points; so with exact
// p every leaf rule gives an exact multinomial. p is a double, off by at most ~3 * 2^-53 relative;
// see docs/resampling-multinomial.md for the bound on the resulting error.
//
// This is not the point set of the paper's Algorithm 1 (which draws point i from the stream of sample
// i): same distribution, different points for the same seed, by design.
//
// Host code (one call per rank per resampling step); not callable on a device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/exact/uint128.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

// Tree shape. Part of the definition of the draw: changing either changes every point for a seed.
inline constexpr std::uint64_t kSortedMultinomialLeafSize = 32;
inline constexpr unsigned kSortedMultinomialMaxDepth = 60;
// Top bit of the stream's global id: node streams never collide with per-sample streams.
inline constexpr std::uint64_t kSortedMultinomialNodeTag = std::uint64_t(1) << 63;

// Work counters of one call (for tests and benchmarks).
struct SortedMultinomialStats {
  std::uint64_t nodes_visited = 0;  // nodes expanded: splits + leaves (nodes with 0 points are not counted)
  std::uint64_t splits = 0;         // binomial draws
  std::uint64_t leaves = 0;         // leaves whose points were produced (width-1 leaves included)
  std::uint64_t leaf_points = 0;    // points produced in those leaves (in range, below lo or above hi)
  unsigned max_depth = 0;           // deepest expanded node (root = 0)
};

namespace sorted_multinomial_detail {

struct SortedMultinomialShape {
  std::uint64_t leaf_size = kSortedMultinomialLeafSize;
  unsigned max_depth = kSortedMultinomialMaxDepth;  // at most 61 so that heap indices fit in 62 bits
};

template <class Emit>
class SortedMultinomialDescent {
 public:
  SortedMultinomialDescent(SortedMultinomialShape shape, std::uint64_t seed, std::uint32_t step, exact::u128 lo,
                           exact::u128 hi, Emit& emit, SortedMultinomialStats* stats)
      : shape_(shape),
        seed_(seed),
        step_(step),
        lo_(lo),
        hi_(hi),
        top_(hi > lo ? hi : lo),
        emit_(emit),
        stats_(stats) {}

  // Node [a, b) with n points, heap index h, depth d: account for it without expanding it when it is
  // empty or entirely outside the region of interest, expand it otherwise.
  void visit(exact::u128 a, exact::u128 b, std::uint64_t n, std::uint64_t h, unsigned d) {
    if (n == 0) return;
    if (b <= lo_) {
      below_ += n;
      return;
    }
    if (a >= top_) return;
    expand(a, b, n, h, d);
  }

  std::uint64_t below() const { return below_; }

 private:
  void expand(exact::u128 a, exact::u128 b, std::uint64_t n, std::uint64_t h, unsigned d) {
    if (stats_ != nullptr) {
      ++stats_->nodes_visited;
      if (d > stats_->max_depth) stats_->max_depth = d;
    }
    const exact::u128 width = b - a;
    if (width == 1) {  // every point of the node is a; nothing random left to draw
      if (stats_ != nullptr) {
        ++stats_->leaves;
        stats_->leaf_points += n;
      }
      if (a < lo_) {
        below_ += n;
      } else if (a < hi_) {
        for (std::uint64_t i = 0; i < n; ++i) emit_(a);
      }
      return;
    }
    rng::Stream stream(seed_, rng::Purpose::resample, step_, kSortedMultinomialNodeTag | h);
    if (n <= shape_.leaf_size || d >= shape_.max_depth) {
      leaf(stream, a, width, n);
      return;
    }
    if (stats_ != nullptr) ++stats_->splits;
    const exact::u128 mid = a + width / 2;
    const double p = exact::to_double(mid - a) / exact::to_double(width);
    const std::uint64_t left = rng::binomial(stream, n, p);
    visit(a, mid, left, 2 * h, d + 1);
    visit(mid, b, n - left, 2 * h + 1, d + 1);
  }

  void leaf(rng::Stream& stream, exact::u128 a, exact::u128 width, std::uint64_t n) {
    if (stats_ != nullptr) {
      ++stats_->leaves;
      stats_->leaf_points += n;
    }
    points_.resize(static_cast<std::size_t>(n));
    for (auto& x : points_) x = a + rng::uniform_below(stream, width);
    std::sort(points_.begin(), points_.end());
    for (const exact::u128 x : points_) {
      if (x < lo_) {
        ++below_;
      } else if (x < hi_) {
        emit_(x);
      } else {
        break;
      }
    }
  }

  SortedMultinomialShape shape_;
  std::uint64_t seed_;
  std::uint32_t step_;
  exact::u128 lo_, hi_, top_;
  Emit& emit_;
  SortedMultinomialStats* stats_;
  std::uint64_t below_ = 0;
  std::vector<exact::u128> points_;  // leaf scratch, reused
};

// The draw with an explicit tree shape (tests use small shapes to reach the depth cap). The public
// functions below use the default shape; only the default shape is the reproducible scheme.
template <class Emit>
std::uint64_t sorted_multinomial_points_shaped(SortedMultinomialShape shape, std::uint64_t seed, std::uint32_t step,
                                               std::uint64_t samples, exact::u128 total, exact::u128 lo, exact::u128 hi,
                                               Emit&& emit, SortedMultinomialStats* stats) {
  if (!rng::seed_is_valid(seed)) {
    throw std::invalid_argument("sorted_multinomial_points: seed " + std::to_string(seed) +
                                " is out of range; expected at most " + std::to_string(rng::kMaxSeed));
  }
  if (!(lo <= hi && hi <= total)) {
    throw std::invalid_argument("sorted_multinomial_points: interval [" + exact::to_string(lo) + ", " +
                                exact::to_string(hi) + ") is not inside the wheel [0, " + exact::to_string(total) +
                                "); expected lo <= hi <= total");
  }
  if (samples > (std::uint64_t(1) << 63)) {  // rng::binomial's limit
    throw std::invalid_argument("sorted_multinomial_points: " + std::to_string(samples) +
                                " samples is too many; expected at most 2^63");
  }
  if (samples > 0 && total == 0) {
    throw std::invalid_argument("sorted_multinomial_points: " + std::to_string(samples) +
                                " samples on an empty wheel (total weight 0); expected total > 0");
  }
  if (shape.max_depth > 61 || shape.leaf_size == 0) {
    throw std::invalid_argument("sorted_multinomial_points: tree shape (leaf size " + std::to_string(shape.leaf_size) +
                                ", max depth " + std::to_string(shape.max_depth) +
                                ") is invalid; expected leaf size >= 1 and max depth <= 61");
  }
  SortedMultinomialDescent<std::remove_reference_t<Emit>> descent(shape, seed, step, lo, hi, emit, stats);
  descent.visit(0, total, samples, 1, 0);
  return descent.below();
}

}  // namespace sorted_multinomial_detail

// Calls emit(point) (point: exact::u128) for every point of the multinomial draw of `samples` points
// uniform on [0, total) that lies in [lo, hi), in increasing order (equal points repeated), and returns
// how many points of the draw lie below lo. The draw is a function of (seed, step, samples, total) only.
// Requires lo <= hi <= total, total > 0 unless samples == 0, samples <= 2^63 and seed <= rng::kMaxSeed (throws
// std::invalid_argument otherwise). Optional `stats` receives the work counters (added to, not reset).
template <class Emit>
std::uint64_t sorted_multinomial_points(std::uint64_t seed, std::uint32_t step, std::uint64_t samples,
                                        exact::u128 total, exact::u128 lo, exact::u128 hi, Emit&& emit,
                                        SortedMultinomialStats* stats) {
  return sorted_multinomial_detail::sorted_multinomial_points_shaped(
      sorted_multinomial_detail::SortedMultinomialShape{}, seed, step, samples, total, lo, hi, emit, stats);
}

template <class Emit>
std::uint64_t sorted_multinomial_points(std::uint64_t seed, std::uint32_t step, std::uint64_t samples,
                                        exact::u128 total, exact::u128 lo, exact::u128 hi, Emit&& emit) {
  return sorted_multinomial_points(seed, step, samples, total, lo, hi, emit, nullptr);
}

}  // namespace rsmc
