#include "framework/particles/load_band.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "base/core/error.hpp"
#include "base/exact/uint128.hpp"

namespace rsmc {

namespace {

using exact::u128;

constexpr double kMaxTolerance = 1000.0;                         // beyond it every band is [1, N] anyway
constexpr std::uint64_t kPpm = 1000000;                          // tau is used in millionths
constexpr std::uint64_t kMaxParticles = std::uint64_t(1) << 62;  // boundaries fit int64 (layout_choice)

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// The library's error about one of its fields (drivers/field_flags.hpp maps it to the flag):
// "<field>: <rest>".
FieldError field_error(const std::string& field, const std::string& rest) {
  return FieldError(field, "", FieldError::Template{"{" + field + "}: " + rest}, "");
}

}  // namespace

void BalanceOptions::validate(int ranks) const {
  if (!(tolerance >= 0.0) || !(tolerance <= kMaxTolerance))
    throw field_error("balance_tolerance",
                      "" + number_text(tolerance) +
                          " is out of range; expected a number tau with 0 <= tau <= " + number_text(kMaxTolerance) +
                          " (each rank holds between (1 - tau) and (1 + tau) times its target)");
  capacity_weights(capacities, ranks);  // throws on bad capacities
}

std::vector<std::uint64_t> capacity_weights(const std::vector<double>& capacities, int ranks) {
  if (capacities.empty()) return std::vector<std::uint64_t>(static_cast<std::size_t>(ranks), 1);
  if (capacities.size() != static_cast<std::size_t>(ranks))
    throw field_error("rank_capacity", "" + std::to_string(capacities.size()) + " capacit" +
                                           (capacities.size() == 1 ? "y" : "ies") + " given for " +
                                           std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s") +
                                           "; expected one positive weight per rank");
  double largest = 0.0;
  for (std::size_t k = 0; k < capacities.size(); ++k) {
    if (!(capacities[k] > 0.0) || !std::isfinite(capacities[k]))
      throw field_error("rank_capacity", "the capacity of rank " + std::to_string(k) + " is " +
                                             number_text(capacities[k]) + "; expected a finite number > 0");
    largest = std::max(largest, capacities[k]);
  }
  std::vector<std::uint64_t> w(capacities.size());
  for (std::size_t k = 0; k < capacities.size(); ++k) {
    w[k] = static_cast<std::uint64_t>(std::llround(std::ldexp(capacities[k] / largest, 32)));
    if (w[k] == 0)
      throw field_error("rank_capacity", "the capacity of rank " + std::to_string(k) + " (" +
                                             number_text(capacities[k]) + ") is below 2^-33 of the largest (" +
                                             number_text(largest) + "); expected ratios rsmc can resolve");
  }
  return w;
}

std::vector<std::uint64_t> proportional_targets(std::uint64_t particles, const std::vector<std::uint64_t>& weights) {
  const std::size_t p = weights.size();
  u128 total = 0;
  for (auto w : weights) total += w;
  std::vector<std::uint64_t> target(p);
  std::vector<u128> remainder(p);
  std::uint64_t assigned = 0;
  for (std::size_t k = 0; k < p; ++k) {
    const u128 share = u128(particles) * weights[k];  // < 2^64 * 2^32
    target[k] = static_cast<std::uint64_t>(share / total);
    remainder[k] = share % total;
    assigned += target[k];
  }
  // The N - assigned (< p) largest remainders get one more; ties to the lower rank.
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::uint64_t i = 0; i < particles - assigned; ++i) ++target[order[i]];
  return target;
}

LoadBand::LoadBand(std::uint64_t particles, int ranks, const BalanceOptions& options) : n_(particles) {
  if (ranks < 1) throw Error("number of ranks must be at least 1, got " + std::to_string(ranks));
  if (particles > kMaxParticles)
    throw field_error("particles", "" + std::to_string(particles) + " is too large; expected at most 2^62");
  options.validate(ranks);
  ppm_ = static_cast<std::uint64_t>(std::llround(options.tolerance * static_cast<double>(kPpm)));
  target_ = proportional_targets(particles, capacity_weights(options.capacities, ranks));
  lower_.resize(target_.size());
  upper_.resize(target_.size());
  for (std::size_t k = 0; k < target_.size(); ++k) {
    const std::uint64_t t = target_[k];
    if (t == 0) {
      if (options.capacities.empty())
        throw field_error("particles", "" + std::to_string(particles) + " particles cannot be spread over " +
                                           std::to_string(ranks) + " ranks; expected at least one particle per rank");
      throw field_error("rank_capacity", "rank " + std::to_string(k) + "'s share of the " + std::to_string(particles) +
                                             " particles is below one particle (capacity " +
                                             number_text(options.capacities[k]) +
                                             "); give it a larger capacity or use more particles");
    }
    const u128 slack128 = u128(t) * ppm_ / kPpm;
    const std::uint64_t slack = slack128 > particles ? particles : static_cast<std::uint64_t>(slack128);
    lower_[k] = slack >= t ? 1 : std::max<std::uint64_t>(1, t - slack);
    upper_[k] = slack >= particles - t ? particles : t + slack;
  }
}

double LoadBand::imbalance(const Layout& layout) const {
  double worst = 0.0;
  for (int k = 0; k < ranks(); ++k)
    worst = std::max(worst, static_cast<double>(layout.count(k)) / static_cast<double>(target(k)));
  return worst;
}

bool LoadBand::admits(const Layout& layout) const {
  if (layout.ranks() != ranks() || layout.size() != size()) return false;
  for (int k = 0; k < ranks(); ++k)
    if (layout.count(k) < lower(k) || layout.count(k) > upper(k)) return false;
  return true;
}

}  // namespace rsmc
