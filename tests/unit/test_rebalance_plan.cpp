// The rebalancing plan, checked for every rank of random held-range layouts and random target
// layouts (the block distribution, and arbitrary contiguous layouts with empty ranges) without MPI.
//
// Expected: every offspring id is kept or sent exactly once, to the rank whose new range holds it;
// a rank sends only to ranks whose new range overlaps its held range (neighbour-like traffic); two
// ranks never send to each other in both directions; to_receive counts what others send us; and
// the particles sent equal particles_moved() of the layout choice.
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"
#include "framework/resample/rebalance/rebalance_plan.hpp"

namespace {

// Random counts per rank summing to n (including ranks with none; `pile`: all on the last rank).
std::vector<std::uint64_t> random_counts(std::mt19937_64& gen, int p, std::uint64_t n, bool pile) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(p), 0);
  for (std::uint64_t j = 0; j < n; ++j) ++counts[pile ? p - 1 : gen() % static_cast<std::uint64_t>(p)];
  return counts;
}

}  // namespace

TEST_CASE("rebalance plans deliver every offspring id exactly once to its owner", "[resample]") {
  std::mt19937_64 gen(42);
  for (int trial = 0; trial < 600; ++trial) {
    const int p = 1 + static_cast<int>(gen() % 12);
    const std::uint64_t n = static_cast<std::uint64_t>(p) + gen() % 500;
    const rsmc::Layout to = trial % 2 == 0 ? rsmc::Layout(rsmc::BlockDistribution(n, p))
                                           : rsmc::Layout::from_counts(random_counts(gen, p, n, trial % 7 == 1));
    const std::vector<std::uint64_t> counts = random_counts(gen, p, n, trial % 5 == 0);
    std::vector<int> received_by(n, -1);
    std::uint64_t first = 0, sent_total = 0;
    std::vector<rsmc::RebalancePlan> plans;
    for (int r = 0; r < p; ++r) {
      plans.emplace_back(to, r, first, counts[r]);
      first += counts[r];
    }
    for (int r = 0; r < p; ++r) {
      const auto& plan = plans[r];
      for (std::uint64_t id = plan.kept.first; id < plan.kept.end; ++id) {
        REQUIRE(received_by[id] == -1);
        received_by[id] = r;
      }
      std::uint64_t sent = 0;
      for (const auto& s : plan.sends) {
        REQUIRE(s.rank != r);
        REQUIRE(s.ids.size() > 0);
        // Only to ranks whose new range overlaps our held range.
        REQUIRE(to.first(s.rank) < plan.held.end);
        REQUIRE(to.end(s.rank) > plan.held.first);
        sent += s.ids.size();
        for (std::uint64_t id = s.ids.first; id < s.ids.end; ++id) {
          REQUIRE(to.owner(id) == s.rank);  // goes to its owner...
          REQUIRE(received_by[id] == -1);   // ...exactly once
          received_by[id] = s.rank;
        }
        for (const auto& back : plans[s.rank].sends) REQUIRE(back.rank != r);  // one direction only
      }
      REQUIRE(plan.kept.size() + sent == plan.held.size());
      sent_total += sent;
    }
    std::vector<std::uint64_t> arrivals(p, 0);
    for (std::uint64_t id = 0; id < n; ++id) {
      REQUIRE(received_by[id] == to.owner(id));
      ++arrivals[received_by[id]];
    }
    for (int r = 0; r < p; ++r) REQUIRE(plans[r].to_receive == arrivals[r] - plans[r].kept.size());
    REQUIRE(sent_total == rsmc::particles_moved(counts, to));
  }
}
