#include <catch2/catch.hpp>

#include "framework/particles/block_distribution.hpp"

using rsmc::BlockDistribution;

TEST_CASE("block distribution covers 0..N-1 exactly once, in rank order", "[particles]") {
  for (std::uint64_t n : {1ull, 2ull, 7ull, 10ull, 1000ull, 1001ull}) {
    for (int p = 1; p <= 9 && static_cast<std::uint64_t>(p) <= n; ++p) {
      const BlockDistribution dist(n, p);
      std::uint64_t next = 0;
      for (int k = 0; k < p; ++k) {
        REQUIRE(dist.first(k) == next);
        REQUIRE(dist.count(k) >= 1);
        // Balanced: counts differ by at most one, larger blocks first.
        REQUIRE((dist.count(k) == n / p || dist.count(k) == n / p + 1));
        if (k > 0) REQUIRE(dist.count(k) <= dist.count(k - 1));
        for (std::uint64_t g = dist.first(k); g < dist.end(k); ++g) REQUIRE(dist.owner(g) == k);
        next = dist.end(k);
      }
      REQUIRE(next == n);
    }
  }
}

TEST_CASE("block distribution handles large N without overflow", "[particles]") {
  const std::uint64_t n = 10000000000ull + 7;  // 10^10 + 7
  const BlockDistribution dist(n, 65536);
  REQUIRE(dist.end(65535) == n);
  REQUIRE(dist.owner(n - 1) == 65535);
  REQUIRE(dist.owner(dist.first(4242)) == 4242);
  REQUIRE(dist.owner(dist.first(4242) - 1) == 4241);
}

TEST_CASE("block distribution rejects impossible layouts with a clear message", "[particles]") {
  REQUIRE_THROWS_WITH(BlockDistribution(0, 1), Catch::Contains("particle count is 0"));
  REQUIRE_THROWS_WITH(BlockDistribution(3, 4), Catch::Contains("smaller than the number of ranks (4)"));
  REQUIRE_THROWS_WITH(BlockDistribution(3, 0), Catch::Contains("at least 1"));
}
