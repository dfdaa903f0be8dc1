// Block distribution of N particles over p ranks: rank k owns the contiguous global ids
// [first(k), first(k) + count(k)). The first N mod p ranks own one particle more than the rest,
// so any N >= p >= 1 works (N need not divide by p).
//
// This is the layout every rank agrees on without communication; resampling renumbers offspring
// and then moves them back to this layout (see framework/resample).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/core/error.hpp"

namespace rsmc {

class BlockDistribution {
 public:
  BlockDistribution(std::uint64_t particles, int ranks) : n_(particles), p_(ranks) {
    if (ranks < 1) throw Error("number of ranks must be at least 1, got " + std::to_string(ranks));
    if (particles == 0) throw Error("particle count is 0; expected at least 1 particle per rank");
    if (particles < static_cast<std::uint64_t>(ranks))
      throw Error("particle count " + std::to_string(particles) + " is smaller than the number of ranks (" +
                  std::to_string(ranks) + "); expected at least one particle per rank");
    base_ = n_ / static_cast<std::uint64_t>(p_);
    extra_ = n_ % static_cast<std::uint64_t>(p_);
  }

  std::uint64_t size() const { return n_; }
  int ranks() const { return p_; }

  std::uint64_t first(int k) const {
    const auto kk = static_cast<std::uint64_t>(k);
    return kk * base_ + std::min(kk, extra_);
  }
  std::uint64_t count(int k) const { return base_ + (static_cast<std::uint64_t>(k) < extra_ ? 1 : 0); }
  std::uint64_t end(int k) const { return first(k) + count(k); }

  // The rank that owns global id `gid` (0 <= gid < N).
  int owner(std::uint64_t gid) const {
    const std::uint64_t big = extra_ * (base_ + 1);  // ids held by the ranks with one extra particle
    if (gid < big) return static_cast<int>(gid / (base_ + 1));
    return static_cast<int>(extra_ + (gid - big) / base_);
  }

 private:
  std::uint64_t n_;
  int p_;
  std::uint64_t base_ = 0;
  std::uint64_t extra_ = 0;
};

}  // namespace rsmc
