// A layout: which contiguous range of global particle ids each rank holds. Rank k holds the ids
// [first(k), end(k)) = [b_k, b_{k+1}) for boundaries 0 = b_0 <= b_1 <= ... <= b_p = N, so the ranges
// are ordered by rank and together cover 0..N-1 exactly once.
//
// The block distribution (BlockDistribution) is one layout; resampling may choose another at every
// step (framework/resample/rebalance/layout_choice.hpp), because every random draw and every sum is keyed by
// global id, so which rank holds an id never changes a result. The type allows empty ranges; the
// filter's layouts never have one (every band's lower bound is >= 1, framework/particles/load_band.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "framework/particles/block_distribution.hpp"

namespace rsmc {

class Layout {
 public:
  // The layout with these boundaries: b_0 = 0, non-decreasing, p + 1 of them for p >= 1 ranks.
  explicit Layout(std::vector<std::uint64_t> boundaries) : b_(std::move(boundaries)) {
    if (b_.size() < 2) throw Error("internal error: a layout needs at least one rank");
    if (b_.front() != 0) throw Error("internal error: a layout must start at global id 0");
    if (!std::is_sorted(b_.begin(), b_.end())) throw Error("internal error: layout boundaries must not decrease");
  }
  // The block distribution as a layout (the same first/count/end/owner for every rank and id).
  explicit Layout(const BlockDistribution& dist) : b_(static_cast<std::size_t>(dist.ranks()) + 1, 0) {
    for (int k = 0; k < dist.ranks(); ++k) b_[static_cast<std::size_t>(k) + 1] = dist.end(k);
  }
  // Rank k holds counts[k] ids, in rank order.
  static Layout from_counts(const std::vector<std::uint64_t>& counts) {
    std::vector<std::uint64_t> b(counts.size() + 1, 0);
    for (std::size_t k = 0; k < counts.size(); ++k) b[k + 1] = b[k] + counts[k];
    return Layout(std::move(b));
  }

  std::uint64_t size() const { return b_.back(); }
  int ranks() const { return static_cast<int>(b_.size() - 1); }
  std::uint64_t first(int k) const { return b_[static_cast<std::size_t>(k)]; }
  std::uint64_t end(int k) const { return b_[static_cast<std::size_t>(k) + 1]; }
  std::uint64_t count(int k) const { return end(k) - first(k); }
  const std::vector<std::uint64_t>& boundaries() const { return b_; }

  // The rank whose range holds `gid` (0 <= gid < N): binary search, O(log p).
  int owner(std::uint64_t gid) const {
    return static_cast<int>(std::upper_bound(b_.begin() + 1, b_.end(), gid) - b_.begin()) - 1;
  }

  bool operator==(const Layout& other) const { return b_ == other.b_; }
  bool operator!=(const Layout& other) const { return b_ != other.b_; }

 private:
  std::vector<std::uint64_t> b_;  // p + 1 boundaries
};

}  // namespace rsmc
