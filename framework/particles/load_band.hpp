// How many particles each rank may hold: its target and its band.
//
// target_k is rank k's share of the N particles by its capacity (--rank-capacity; equal by default),
// as integers that sum to N: floor(N w_k / W) for W = sum of the w_k, plus one for the N - sum floor
// ranks with the largest remainders N w_k mod W (ties: the lower rank). Equal capacities give
// exactly the block distribution (BlockDistribution: the first N mod p ranks hold one more).
//
// The band of rank k, for a tolerance tau >= 0 (--balance-tolerance): with slack_k = floor(tau target_k),
//     lower_k = max(1, target_k - slack_k) = max(1, ceil((1 - tau) target_k)),
//     upper_k = min(N, target_k + slack_k) = min(N, floor((1 + tau) target_k)).
// tau = 0 gives lower = upper = target: the block layout of every resampling before layouts could
// move. Because the targets sum to N and lie in their bands, the bands always admit a layout; every
// lower bound is at least 1, so no rank is ever left empty. The one input without a layout is a
// target of 0 (a capacity too small for its share of N to reach one particle): refused.
//
// Integer arithmetic only, identical on every rank: tau is used in millionths (rounded), the
// capacities through their ratios to the largest one, in units of 2^-32 of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/particles/layout.hpp"

namespace rsmc {

// The default tolerance: 0, the targets' layout (the blocks for equal capacities). Chosen by the
// step-time model of docs/sim-scale.md ("Choosing the default tolerance"): over p = 16..65,536 and
// N = 10^6..10^10, tau = 0 is never more than 2% slower than the best tau, every tau > 0 up to 2x
// (the allgather of the p offspring counts and the slowest rank's extra particles cost more than
// the moves they save).
inline constexpr double kDefaultBalanceTolerance = 0.0;

// What the user chose. Empty capacities: equal.
struct BalanceOptions {
  double tolerance = kDefaultBalanceTolerance;
  std::vector<double> capacities;

  // Throws rsmc::Error naming --balance-tolerance or --rank-capacity.
  void validate(int ranks) const;
};

class LoadBand {
 public:
  // Throws rsmc::Error (naming the option) for a tolerance or capacities without a valid band.
  LoadBand(std::uint64_t particles, int ranks, const BalanceOptions& options = {});

  std::uint64_t size() const { return n_; }
  int ranks() const { return static_cast<int>(target_.size()); }
  std::uint64_t tolerance_ppm() const { return ppm_; }  // tau in millionths
  std::uint64_t target(int k) const { return target_[static_cast<std::size_t>(k)]; }
  std::uint64_t lower(int k) const { return lower_[static_cast<std::size_t>(k)]; }
  std::uint64_t upper(int k) const { return upper_[static_cast<std::size_t>(k)]; }
  const std::vector<std::uint64_t>& targets() const { return target_; }
  const std::vector<std::uint64_t>& lowers() const { return lower_; }
  const std::vector<std::uint64_t>& uppers() const { return upper_; }
  // Whether every rank's band is its target alone (tau rounds to 0): the only layout is the targets'.
  bool fixed() const { return ppm_ == 0; }

  // The layout of the targets: the block distribution for equal capacities.
  Layout target_layout() const { return Layout::from_counts(target_); }
  // max_k count_k / target_k: 1 for the target layout, at most 1 + tau within the band.
  double imbalance(const Layout& layout) const;
  // Whether every rank's count lies in its band.
  bool admits(const Layout& layout) const;

 private:
  std::uint64_t n_;
  std::uint64_t ppm_;
  std::vector<std::uint64_t> target_, lower_, upper_;
};

// Integer capacity weights from the user's (positive, finite) capacities: round(2^32 c_k / max c),
// each >= 1 (throws naming --rank-capacity otherwise). Empty: all 1.
std::vector<std::uint64_t> capacity_weights(const std::vector<double>& capacities, int ranks);

// Integer targets summing to `particles` in proportion to `weights` (largest remainder, ties to the
// lower rank); equal weights give the block distribution.
std::vector<std::uint64_t> proportional_targets(std::uint64_t particles, const std::vector<std::uint64_t>& weights);

}  // namespace rsmc
