// The rebalancing plan, checked for every rank of random held-range layouts without MPI.
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "framework/resample/rebalance_plan.hpp"

TEST_CASE("rebalance plans deliver every offspring id exactly once to its owner", "[resample]") {
  std::mt19937_64 gen(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + static_cast<int>(gen() % 12);
    const std::uint64_t n = static_cast<std::uint64_t>(p) + gen() % 500;
    const rsmc::BlockDistribution dist(n, p);
    // Random offspring counts per rank summing to n (including ranks with none, or all).
    std::vector<std::uint64_t> counts(p, 0);
    for (std::uint64_t j = 0; j < n; ++j) ++counts[trial % 5 == 0 ? p - 1 : gen() % p];
    std::vector<int> received_by(n, -1);
    std::uint64_t first = 0;
    std::vector<rsmc::RebalancePlan> plans;
    for (int r = 0; r < p; ++r) {
      plans.emplace_back(dist, r, first, counts[r]);
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
        sent += s.ids.size();
        for (std::uint64_t id = s.ids.first; id < s.ids.end; ++id) {
          REQUIRE(dist.owner(id) == s.rank);  // goes to its owner...
          REQUIRE(received_by[id] == -1);     // ...exactly once
          received_by[id] = s.rank;
        }
        for (const auto& back : plans[s.rank].sends) REQUIRE(back.rank != r);  // one direction only
      }
      REQUIRE(plan.kept.size() + sent == plan.held.size());
    }
    std::vector<std::uint64_t> arrivals(p, 0);
    for (std::uint64_t id = 0; id < n; ++id) {
      REQUIRE(received_by[id] == dist.owner(id));
      ++arrivals[received_by[id]];
    }
    for (int r = 0; r < p; ++r) REQUIRE(plans[r].to_receive == arrivals[r] - plans[r].kept.size());
  }
}
