// Sorted multinomial points per wheel interval (framework/resample/select/sorted_multinomial.hpp):
// partition invariance, work bound, distribution, sortedness/range, input checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "base/exact/uint128.hpp"
#include "framework/resample/select/sorted_multinomial.hpp"

namespace {

using rsmc::exact::u128;

constexpr u128 kU128Max = ~u128(0);

struct MultinomialDraw {
  std::uint64_t below = 0;
  std::vector<u128> points;
};

MultinomialDraw collect(std::uint64_t seed, std::uint32_t step, std::uint64_t samples, u128 total, u128 lo, u128 hi,
                        rsmc::SortedMultinomialStats* stats = nullptr) {
  MultinomialDraw d;
  d.below = rsmc::sorted_multinomial_points(
      seed, step, samples, total, lo, hi, [&](u128 x) { d.points.push_back(x); }, stats);
  return d;
}

MultinomialDraw collect_shaped(rsmc::sorted_multinomial_detail::SortedMultinomialShape shape, std::uint64_t seed,
                               std::uint64_t samples, u128 total, u128 lo, u128 hi) {
  MultinomialDraw d;
  d.below = rsmc::sorted_multinomial_detail::sorted_multinomial_points_shaped(
      shape, seed, 0, samples, total, lo, hi, [&](u128 x) { d.points.push_back(x); }, nullptr);
  return d;
}

// Uniform-ish value in [0, total] (modulo bias is irrelevant here).
u128 random_cut(std::mt19937_64& gen, u128 total) {
  const u128 r = (u128(gen()) << 64) | u128(gen());
  return total == kU128Max ? r : r % (total + 1);
}

// k - 1 cut points in [0, total], sorted. mode 0: uniform; mode 1: only 2 distinct values, so most
// intervals are empty (and one may be the whole wheel); mode 2: at points of the draw and one past
// them, so interval ends fall exactly on (possibly repeated) sample points.
std::vector<u128> make_cuts(std::mt19937_64& gen, int k, u128 total, int mode, const std::vector<u128>& points) {
  std::vector<u128> cuts;
  const u128 a = random_cut(gen, total), b = random_cut(gen, total);
  for (int i = 0; i + 1 < k; ++i) {
    u128 c = 0;
    if (mode == 0) {
      c = random_cut(gen, total);
    } else if (mode == 1) {
      c = (gen() & 1) ? a : b;
    } else if (points.empty()) {
      c = random_cut(gen, total);
    } else {
      c = points[gen() % points.size()] + (gen() & 1);  // <= total: a point is < total
    }
    cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// Splits [0, total) at `cuts` and checks that the pieces reproduce `whole` bit for bit.
void check_partition(std::uint64_t seed, std::uint64_t samples, u128 total, const std::vector<u128>& cuts,
                     const MultinomialDraw& whole) {
  std::vector<u128> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(total);
  std::vector<u128> joined;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    const MultinomialDraw piece = collect(seed, 3, samples, total, bounds[j], bounds[j + 1]);
    INFO("interval " << j << " [" << rsmc::exact::to_string(bounds[j]) << ", " << rsmc::exact::to_string(bounds[j + 1])
                     << ")");
    REQUIRE(piece.below == joined.size());
    joined.insert(joined.end(), piece.points.begin(), piece.points.end());
  }
  REQUIRE(joined.size() == whole.points.size());
  REQUIRE(joined == whole.points);
}

double pearson_statistic(const std::vector<double>& observed, const std::vector<double>& expected) {
  double chi2 = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double d = observed[i] - expected[i];
    chi2 += d * d / expected[i];
  }
  return chi2;
}

// Upper 0.999 quantiles of the chi-square distribution, computed with mpmath 1.3.0 (30 digits) by
// solving gammainc(k/2, 0, x/2, regularized=True) = 0.999 with findroot; the Wilson-Hilferty
// approximation k (1 - 2/(9k) + 3.0902 sqrt(2/(9k)))^3 agrees to 4 digits (1142.86 and 103.44).
constexpr double kChi2_999df_q999 = 1142.848;
constexpr double kChi2_63df_q999 = 103.442;

u128 pow2(int e) { return u128(1) << e; }

}  // namespace

TEST_CASE("sorted multinomial: the concatenation over any partition of the wheel is the single draw",
          "[sorted_multinomial]") {
  struct Case {
    std::uint64_t samples;
    u128 total;
  };
  const std::vector<Case> cases = {
      {1000, pow2(100) - 3},        // total near 2^100, deep tree
      {777, pow2(100) + 12345},     //
      {1, 1},                       // total = 1: one value
      {5, 1},                       // every point is 0
      {1000, 37},                   // total < samples: width-1 leaves with many equal points
      {100000, 1000},               // total < samples, leaves of width 1 with ~100 points
      {1, 123456789},               // samples = 1
      {1, pow2(100) + 1},           //
      {0, 1000},                    // no samples at all
      {33, 34},                     // one split above the leaf size
      {500, kU128Max},              // the largest wheel
      {64, pow2(64)},               // straddles the 64-bit boundary of uniform_below
      {1000000, pow2(90) + 12345},  // samples = 10^6
  };
  std::mt19937_64 gen(20240611);
  for (const Case& c : cases) {
    INFO("samples " << c.samples << ", total " << rsmc::exact::to_string(c.total));
    const std::uint64_t seed = 4242;
    const MultinomialDraw whole = collect(seed, 3, c.samples, c.total, 0, c.total);
    REQUIRE(whole.below == 0);
    REQUIRE(whole.points.size() == c.samples);
    REQUIRE(std::is_sorted(whole.points.begin(), whole.points.end()));
    const bool big = c.samples >= 1000000;
    for (int k = 1; k <= 8; ++k) {
      for (int mode = 0; mode < 3; ++mode) {
        if (big && mode != 0 && k != 8) continue;  // keep the test fast
        INFO("k " << k << ", mode " << mode);
        check_partition(seed, c.samples, c.total, make_cuts(gen, k, c.total, mode, whole.points), whole);
      }
    }
    // Pieces that end exactly at the wheel's end or start at 0 report the full counts.
    REQUIRE(collect(seed, 3, c.samples, c.total, c.total, c.total).below == c.samples);
    REQUIRE(collect(seed, 3, c.samples, c.total, 0, 0).below == 0);
  }
}

TEST_CASE("sorted multinomial: small leaf sizes and depth caps keep the partition invariance", "[sorted_multinomial]") {
  // The default shape (leaf 32, depth 60) never reaches the depth cap with 64-bit sample counts in
  // practice; small shapes exercise it: big leaves drawn whole and sorted.
  const std::vector<rsmc::sorted_multinomial_detail::SortedMultinomialShape> shapes = {
      {1, 0}, {1, 61}, {4, 3}, {32, 5}, {2, 61}};
  std::mt19937_64 gen(7);
  for (const auto& shape : shapes) {
    for (const u128 total : {u128(1000), pow2(100) + 7, u128(3)}) {
      const std::uint64_t samples = 5000;
      INFO("leaf " << shape.leaf_size << ", depth " << shape.max_depth << ", total " << rsmc::exact::to_string(total));
      const MultinomialDraw whole = collect_shaped(shape, 99, samples, total, 0, total);
      REQUIRE(whole.points.size() == samples);
      REQUIRE(std::is_sorted(whole.points.begin(), whole.points.end()));
      for (int k = 2; k <= 8; k += 3) {
        std::vector<u128> cuts = make_cuts(gen, k, total, 2, whole.points);
        std::vector<u128> bounds{0};
        bounds.insert(bounds.end(), cuts.begin(), cuts.end());
        bounds.push_back(total);
        std::vector<u128> joined;
        for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
          const MultinomialDraw piece = collect_shaped(shape, 99, samples, total, bounds[j], bounds[j + 1]);
          REQUIRE(piece.below == joined.size());
          joined.insert(joined.end(), piece.points.begin(), piece.points.end());
        }
        REQUIRE(joined == whole.points);
      }
    }
  }
  // A depth-capped tree is still uniform: 64 equal bins of a wheel cut into 8 leaves of 2^97 values.
  const u128 total = pow2(100);
  const std::uint64_t samples = 64000;
  const MultinomialDraw d = collect_shaped({32, 3}, 5, samples, total, 0, total);
  std::vector<double> observed(64, 0.0), expected(64, double(samples) / 64.0);
  for (const u128 x : d.points) observed[static_cast<std::size_t>(x >> 94)] += 1.0;
  CHECK(pearson_statistic(observed, expected) < kChi2_63df_q999);
}

TEST_CASE("sorted multinomial: work is O(log N + points in range / leaf size)", "[sorted_multinomial]") {
  // Stated bound: nodes_visited <= c * (log2(N) + m / 32) with c = 4, where m = points emitted.
  // Why 4: a rank's interval is cut by at most 2 partially covered nodes per level (<= 2 log2(N/32)
  // + a few), and inside the interval a node splits only while it holds > 32 points, so the
  // expanded subtrees have about one split per leaf and leaves hold ~20 points on average
  // (measured: about 0.1 nodes per point, i.e. ~3.2 * m / 32).
  constexpr double c = 4.0;
  const std::uint64_t samples = 1000000;
  const u128 total = pow2(90) + 12345;
  const double log2n = std::log2(double(samples));
  for (const std::uint64_t ranks : {std::uint64_t(1), std::uint64_t(16), std::uint64_t(1000)}) {
    const u128 slice = total / ranks;
    for (std::uint64_t r : {std::uint64_t(0), ranks / 2, ranks - 1}) {
      const u128 lo = slice * r, hi = r + 1 == ranks ? total : slice * (r + 1);
      rsmc::SortedMultinomialStats stats;
      const MultinomialDraw d = collect(11, 0, samples, total, lo, hi, &stats);
      const double m = double(d.points.size());
      INFO("ranks " << ranks << ", rank " << r << ": " << stats.nodes_visited << " nodes for " << m
                    << " points, max depth " << stats.max_depth);
      CHECK(double(stats.nodes_visited) <= c * (log2n + m / 32.0));
      CHECK(stats.leaf_points <= d.points.size() + 2 * 32);  // only the 2 leaves straddling lo, hi waste
    }
  }
  // An empty interval (a rank with zero weight) only walks the path to lo: O(log N).
  std::mt19937_64 gen(1);
  for (int i = 0; i < 20; ++i) {
    const u128 lo = random_cut(gen, total);
    rsmc::SortedMultinomialStats stats;
    const MultinomialDraw d = collect(11, 0, samples, total, lo, lo, &stats);
    REQUIRE(d.points.empty());
    CHECK(double(stats.nodes_visited) <= c * log2n);
    CHECK(stats.max_depth <= rsmc::kSortedMultinomialMaxDepth);
  }
}

TEST_CASE("sorted multinomial: the points are a multinomial draw", "[sorted_multinomial]") {
  SECTION("counts per value of a wheel of 1000 values are multinomial with equal probabilities") {
    const std::uint64_t samples = 100000;
    const u128 total = 1000;
    const MultinomialDraw d = collect(2718, 1, samples, total, 0, total);
    std::vector<double> observed(1000, 0.0), expected(1000, double(samples) / 1000.0);
    for (const u128 x : d.points) observed[static_cast<std::size_t>(x)] += 1.0;
    CHECK(pearson_statistic(observed, expected) < kChi2_999df_q999);
  }
  SECTION("64 equal bins of a wheel of 2^90 + 12345 values") {
    const std::uint64_t samples = 100000;
    const u128 total = pow2(90) + 12345;
    std::vector<u128> edges;
    for (int j = 0; j <= 64; ++j) edges.push_back(total * u128(j) / 64);  // total * 64 < 2^97
    std::vector<double> observed(64, 0.0), expected(64);
    for (int j = 0; j < 64; ++j) {
      expected[j] = double(samples) * rsmc::exact::to_double(edges[j + 1] - edges[j]) / rsmc::exact::to_double(total);
    }
    const MultinomialDraw d = collect(31415, 1, samples, total, 0, total);
    std::size_t bin = 0;
    for (const u128 x : d.points) {
      while (x >= edges[bin + 1]) ++bin;  // points are sorted
      observed[bin] += 1.0;
    }
    CHECK(pearson_statistic(observed, expected) < kChi2_63df_q999);
  }
  SECTION("the mean count in a fixed sub-interval over many seeds is samples * width / total") {
    const std::uint64_t samples = 1000;
    const u128 total = pow2(90) + 12345;
    const u128 lo = total / 3, hi = lo + total / 7;
    const double q = rsmc::exact::to_double(hi - lo) / rsmc::exact::to_double(total);
    const int seeds = 3000;
    double sum = 0.0, sum_below = 0.0;
    for (int s = 0; s < seeds; ++s) {
      const MultinomialDraw d = collect(1000 + std::uint64_t(s), 2, samples, total, lo, hi);
      sum += double(d.points.size());
      sum_below += double(d.below);
    }
    const double n = double(samples);
    const double se = std::sqrt(n * q * (1.0 - q) / seeds);  // count ~ Binomial(samples, q)
    CHECK(std::abs(sum / seeds - n * q) < 5.0 * se);
    const double qb = rsmc::exact::to_double(lo) / rsmc::exact::to_double(total);
    const double se_below = std::sqrt(n * qb * (1.0 - qb) / seeds);
    CHECK(std::abs(sum_below / seeds - n * qb) < 5.0 * se_below);
  }
}

TEST_CASE("sorted multinomial: emitted points are sorted, in range, and the draw is a function of its key",
          "[sorted_multinomial]") {
  std::mt19937_64 gen(99);
  for (const u128 total : {u128(10), u128(100000), pow2(100) + 3, kU128Max}) {
    const std::uint64_t samples = 20000;
    for (int i = 0; i < 10; ++i) {
      u128 lo = random_cut(gen, total), hi = random_cut(gen, total);
      if (hi < lo) std::swap(lo, hi);
      const MultinomialDraw d = collect(5, 9, samples, total, lo, hi);
      REQUIRE(std::is_sorted(d.points.begin(), d.points.end()));
      for (const u128 x : d.points) {
        REQUIRE(x >= lo);
        REQUIRE(x < hi);
      }
      const MultinomialDraw above = collect(5, 9, samples, total, hi, total);
      REQUIRE(above.below == d.below + d.points.size());
      REQUIRE(above.below + above.points.size() == samples);
    }
  }
  const u128 total = pow2(80) + 1;
  const MultinomialDraw a = collect(5, 9, 1000, total, 0, total);
  CHECK(collect(5, 9, 1000, total, 0, total).points == a.points);   // deterministic
  CHECK(collect(6, 9, 1000, total, 0, total).points != a.points);   // seed matters
  CHECK(collect(5, 10, 1000, total, 0, total).points != a.points);  // step matters
}

TEST_CASE("sorted multinomial: bad inputs are rejected", "[sorted_multinomial]") {
  auto ignore = [](u128) {};
  CHECK_THROWS_AS(rsmc::sorted_multinomial_points(1, 0, 10, 100, 50, 40, ignore), std::invalid_argument);
  CHECK_THROWS_AS(rsmc::sorted_multinomial_points(1, 0, 10, 100, 0, 101, ignore), std::invalid_argument);
  CHECK_THROWS_AS(rsmc::sorted_multinomial_points(1, 0, 10, 0, 0, 0, ignore), std::invalid_argument);
  CHECK_THROWS_AS(rsmc::sorted_multinomial_points(rsmc::rng::kMaxSeed + 1, 0, 10, 100, 0, 100, ignore),
                  std::invalid_argument);
  CHECK_THROWS_AS(rsmc::sorted_multinomial_points(1, 0, (std::uint64_t(1) << 63) + 1, 100, 0, 100, ignore),
                  std::invalid_argument);
  CHECK(rsmc::sorted_multinomial_points(1, 0, 0, 0, 0, 0, ignore) == 0);  // nothing to draw
}
