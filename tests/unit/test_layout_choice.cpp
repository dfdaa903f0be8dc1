// The layout, the load band and the minimum-move layout choice, checked against definitions and
// against exhaustive search.
//
// What is expected, and why:
// - The band: targets sum to N in proportion to the capacities (largest remainder, ties to the lower
//   rank); equal capacities give BlockDistribution's counts; lower = max(1, ceil((1 - tau) t)) and
//   upper = floor((1 + tau) t), computed here from tau as an exact fraction of millionths.
// - choose_layout: for every count vector with p <= 5 ranks and N <= 24 particles, several tau and
//   capacity vectors, its layout lies in the band and moves exactly as few particles as the best of
//   ALL contiguous layouts in the band, enumerated one by one. The same harness must catch a wrong
//   chooser (the greedy that clamps each boundary towards its held position in turn): otherwise the
//   comparison could not fail.
// - tau = 0 with equal capacities: the block distribution, whatever the counts (the moves before
//   layouts could move).
// - IntegerPwl (the dynamic programme's value functions): erosion, shift, restriction, the added
//   boundary cost and the windowed minimum against direct evaluation on random functions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/band_minimum.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/resample/rebalance/integer_pwl.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"

namespace {

using Counts = std::vector<std::uint64_t>;
using Chooser = std::function<rsmc::Layout(const rsmc::LoadBand&, const Counts&)>;

// Every contiguous layout of n ids over the band's ranks with each count in its band.
std::vector<rsmc::Layout> all_layouts_in_band(const rsmc::LoadBand& band) {
  std::vector<rsmc::Layout> out;
  const int p = band.ranks();
  Counts counts(static_cast<std::size_t>(p));
  std::function<void(int, std::uint64_t)> place = [&](int k, std::uint64_t left) {
    if (k == p - 1) {
      if (left >= band.lower(k) && left <= band.upper(k)) {
        counts[static_cast<std::size_t>(k)] = left;
        out.push_back(rsmc::Layout::from_counts(counts));
      }
      return;
    }
    for (std::uint64_t c = band.lower(k); c <= band.upper(k) && c <= left; ++c) {
      counts[static_cast<std::size_t>(k)] = c;
      place(k + 1, left - c);
    }
  };
  place(0, band.size());
  return out;
}

// moved(b) from its definition, id by id: an id is moved when its holder (renumbered in rank order)
// is not its owner in the layout.
std::uint64_t moved_id_by_id(const Counts& held, const rsmc::Layout& to) {
  std::uint64_t moved = 0, id = 0;
  for (std::size_t k = 0; k < held.size(); ++k)
    for (std::uint64_t i = 0; i < held[k]; ++i, ++id) moved += to.owner(id) != static_cast<int>(k) ? 1 : 0;
  return moved;
}

// Calls visit(counts) for every vector of p counts >= 0 summing to n.
void for_each_count_vector(int p, std::uint64_t n, const std::function<void(const Counts&)>& visit) {
  Counts c(static_cast<std::size_t>(p), 0);
  std::function<void(int, std::uint64_t)> fill = [&](int k, std::uint64_t left) {
    if (k == p - 1) {
      c[static_cast<std::size_t>(k)] = left;
      visit(c);
      return;
    }
    for (std::uint64_t x = 0; x <= left; ++x) {
      c[static_cast<std::size_t>(k)] = x;
      fill(k + 1, left - x);
    }
  };
  fill(0, n);
}

struct Tally {
  std::uint64_t instances = 0, mismatches = 0, outside_band = 0, miscounted = 0;
};

// Compares `choose` with the exhaustive minimum on every count vector of p ranks and n particles.
void compare_with_exhaustive(const Chooser& choose, const rsmc::LoadBand& band, Tally& tally) {
  const std::vector<rsmc::Layout> layouts = all_layouts_in_band(band);
  REQUIRE(!layouts.empty());  // the targets are always in the band
  for_each_count_vector(band.ranks(), band.size(), [&](const Counts& held) {
    std::uint64_t best = UINT64_MAX;
    for (const auto& layout : layouts) best = std::min(best, rsmc::particles_moved(held, layout));
    const rsmc::Layout chosen = choose(band, held);
    ++tally.instances;
    if (!band.admits(chosen)) ++tally.outside_band;
    // The chosen layout's moves counted id by id, independently of particles_moved (which the
    // exhaustive minimum uses for speed; it is checked against the definition separately).
    const std::uint64_t moved = moved_id_by_id(held, chosen);
    if (moved != rsmc::particles_moved(held, chosen)) ++tally.miscounted;
    if (moved != best) ++tally.mismatches;
  });
}

// The instances of the exhaustive test: tau, capacities (empty: equal) and the largest N per p.
struct Family {
  double tau;
  std::vector<double> capacities;
};

Tally run_families(const Chooser& choose, int max_ranks) {
  Tally tally;
  for (int p = 1; p <= max_ranks; ++p) {
    std::vector<Family> families;
    for (double tau : {0.0, 0.1, 0.25, 0.5}) families.push_back({tau, {}});
    std::vector<double> rising, uneven, tiny;
    for (int k = 0; k < p; ++k) {
      rising.push_back(1.0 + k);
      uneven.push_back(std::vector<double>{3, 1, 4, 1, 5}[static_cast<std::size_t>(k)]);
      tiny.push_back(k == 0 ? 0.3 : 2.0);
    }
    for (double tau : {0.2, 0.5}) {
      families.push_back({tau, rising});
      families.push_back({tau, uneven});
      families.push_back({tau, tiny});
    }
    if (p <= 4) families.push_back({1.0, {}});  // wide bands: many layouts
    for (const Family& family : families)
      for (std::uint64_t n = static_cast<std::uint64_t>(p); n <= 24; ++n) {
        std::unique_ptr<rsmc::LoadBand> band;
        try {
          band = std::make_unique<rsmc::LoadBand>(n, p, rsmc::BalanceOptions{family.tau, family.capacities});
        } catch (const rsmc::Error&) {
          continue;  // a target of 0: refused (checked below)
        }
        compare_with_exhaustive(choose, *band, tally);
      }
  }
  return tally;
}

// A plausible but wrong chooser: each boundary in turn, as close to its held position as the
// boundaries already placed and the band allow.
rsmc::Layout greedy_clamp(const rsmc::LoadBand& band, const Counts& held) {
  const int p = band.ranks();
  const std::uint64_t n = band.size();
  std::vector<std::uint64_t> lower_sum(p + 1, 0), upper_sum(p + 1, 0);
  for (int k = 0; k < p; ++k) {
    lower_sum[k + 1] = lower_sum[k] + band.lower(k);
    upper_sum[k + 1] = upper_sum[k] + band.upper(k);
  }
  std::vector<std::uint64_t> b(p + 1, 0);
  std::uint64_t q = 0;
  for (int j = 1; j < p; ++j) {
    q += held[j - 1];
    const std::uint64_t lo = std::max({b[j - 1] + band.lower(j - 1), lower_sum[j],
                                       n > upper_sum[p] - upper_sum[j] ? n - (upper_sum[p] - upper_sum[j]) : 0});
    const std::uint64_t hi = std::min({b[j - 1] + band.upper(j - 1), upper_sum[j], n - (lower_sum[p] - lower_sum[j])});
    b[j] = std::min(std::max(q, lo), hi);
  }
  b[p] = n;
  return rsmc::Layout(b);
}

}  // namespace

TEST_CASE("layout: boundaries, owners, and the block distribution as a layout", "[particles]") {
  for (std::uint64_t n : {1ull, 7ull, 100ull, 1001ull})
    for (int p = 1; p <= 9 && static_cast<std::uint64_t>(p) <= n; ++p) {
      const rsmc::BlockDistribution dist(n, p);
      const rsmc::Layout layout(dist);
      REQUIRE(layout.size() == n);
      REQUIRE(layout.ranks() == p);
      for (int k = 0; k < p; ++k) {
        REQUIRE(layout.first(k) == dist.first(k));
        REQUIRE(layout.count(k) == dist.count(k));
      }
      for (std::uint64_t g = 0; g < n; ++g) REQUIRE(layout.owner(g) == dist.owner(g));
    }
  // Empty ranges: the owner is the rank whose range holds the id.
  const rsmc::Layout gaps = rsmc::Layout::from_counts({0, 3, 0, 0, 2, 0});
  const int expected[] = {1, 1, 1, 4, 4};
  for (std::uint64_t g = 0; g < 5; ++g) REQUIRE(gaps.owner(g) == expected[g]);
  REQUIRE_THROWS_AS(rsmc::Layout(std::vector<std::uint64_t>{1, 2}), rsmc::Error);
  REQUIRE_THROWS_AS(rsmc::Layout(std::vector<std::uint64_t>{0, 3, 2}), rsmc::Error);
}

TEST_CASE("load band: integer targets by capacity, and the band's rounding", "[particles]") {
  // Equal capacities: the block distribution exactly.
  for (std::uint64_t n : {5ull, 17ull, 1000ull, 10000000007ull})
    for (int p : {1, 2, 3, 5, 8})
      for (const std::vector<double>& caps :
           {std::vector<double>{}, std::vector<double>(static_cast<std::size_t>(p), 2.5)}) {
        if (n < static_cast<std::uint64_t>(p)) continue;
        const rsmc::LoadBand band(n, p, {0.0, caps});
        const rsmc::BlockDistribution dist(n, p);
        for (int k = 0; k < p; ++k) {
          REQUIRE(band.target(k) == dist.count(k));
          REQUIRE(band.lower(k) == dist.count(k));
          REQUIRE(band.upper(k) == dist.count(k));
        }
        REQUIRE(band.target_layout() == rsmc::Layout(dist));
        REQUIRE(band.imbalance(band.target_layout()) == 1.0);
      }
  // Unequal capacities: floor(N w / W), the remainder to the largest fractions (ties: lower rank).
  {
    const rsmc::LoadBand band(10, 3, {0.0, {1, 1, 2}});  // shares 2.5, 2.5, 5: one extra, to rank 0
    REQUIRE(band.targets() == std::vector<std::uint64_t>{3, 2, 5});
    const rsmc::LoadBand skew(100, 3, {0.0, {1, 2, 4}});  // 14.28, 28.57, 57.14: the .57 ranks get one
    REQUIRE(skew.targets() == std::vector<std::uint64_t>{14, 29, 57});
  }
  // The band from tau in millionths: lower = max(1, t - floor(t ppm / 10^6)), upper = t + the same.
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const int p = 1 + static_cast<int>(gen() % 6);
    const std::uint64_t n = static_cast<std::uint64_t>(p) * (1 + gen() % 1000);
    const double tau = static_cast<double>(gen() % 3000) / 1000.0;  // 0 .. 2.999 (exact in millionths)
    const rsmc::LoadBand band(n, p, {tau, {}});
    const std::uint64_t ppm = static_cast<std::uint64_t>(std::llround(tau * 1e6));
    REQUIRE(band.tolerance_ppm() == ppm);
    for (int k = 0; k < p; ++k) {
      const std::uint64_t t = band.target(k), slack = t * ppm / 1000000;
      REQUIRE(band.lower(k) == (slack >= t ? 1 : std::max<std::uint64_t>(1, t - slack)));
      REQUIRE(band.upper(k) == std::min(n, t + slack));
      // ceil((1 - tau) t) and floor((1 + tau) t) with tau = ppm / 10^6, as exact fractions.
      const auto ceil_div = [](std::int64_t x, std::int64_t y) { return x >= 0 ? (x + y - 1) / y : -((-x) / y); };
      const auto tt = static_cast<std::int64_t>(t), pp = static_cast<std::int64_t>(ppm);
      REQUIRE(band.lower(k) ==
              static_cast<std::uint64_t>(std::max<std::int64_t>(1, ceil_div((1000000 - pp) * tt, 1000000))));
      REQUIRE(band.upper(k) == std::min(n, static_cast<std::uint64_t>((1000000 + pp) * tt / 1000000)));
    }
  }
}

TEST_CASE("load band: bad tolerance and capacities are refused with the option's name", "[particles]") {
  auto message = [](std::uint64_t n, int p, rsmc::BalanceOptions o) {
    try {
      rsmc::LoadBand band(n, p, o);
    } catch (const rsmc::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message(10, 2, {-0.1, {}}).rfind("balance_tolerance:", 0) == 0);
  CHECK(message(10, 2, {std::nan(""), {}}).rfind("balance_tolerance:", 0) == 0);
  CHECK(message(10, 2, {0.1, {1.0}}).rfind("rank_capacity: 1 capacity given for 2 ranks", 0) == 0);
  CHECK(message(10, 2, {0.1, {1.0, 0.0}}).rfind("rank_capacity: the capacity of rank 1 is 0", 0) == 0);
  CHECK(message(10, 2, {0.1, {1.0, -2.0}}).rfind("rank_capacity:", 0) == 0);
  CHECK(message(10, 2, {0.1, {1.0, HUGE_VAL}}).rfind("rank_capacity:", 0) == 0);
  // A share below one particle: no band can keep that rank non-empty around its target.
  CHECK(message(10, 3, {0.5, {1.0, 1.0, 0.01}}).rfind("rank_capacity: rank 2's share", 0) == 0);
  CHECK(message(2, 3, {0.5, {}}).rfind("particles:", 0) == 0);
}

TEST_CASE("layout choice: moves equal the exhaustive minimum over the band (p <= 5, N <= 24)", "[resample]") {
  const Tally exact =
      run_families([](const rsmc::LoadBand& band, const Counts& held) { return rsmc::choose_layout(band, held); }, 5);
  INFO(exact.instances << " instances");
  REQUIRE(exact.instances > 1000000);
  CHECK(exact.outside_band == 0);
  CHECK(exact.miscounted == 0);
  CHECK(exact.mismatches == 0);
}

TEST_CASE("layout choice: particles_moved equals the id-by-id count on every small layout", "[resample]") {
  // The exhaustive minimum above ranks layouts by particles_moved: check it against the definition
  // for every count vector and every layout (all counts, not only a band's) of p <= 4, N <= 10.
  std::uint64_t checked = 0;
  for (int p = 1; p <= 4; ++p)
    for (std::uint64_t n = 0; n <= 10; ++n)
      for_each_count_vector(p, n, [&](const Counts& layout_counts) {
        const rsmc::Layout to = rsmc::Layout::from_counts(layout_counts);
        for_each_count_vector(p, n, [&](const Counts& held) {
          ++checked;
          REQUIRE(rsmc::particles_moved(held, to) == moved_id_by_id(held, to));
        });
      });
  REQUIRE(checked > 100000);
}

TEST_CASE("layout choice: the exhaustive comparison catches a wrong chooser", "[resample]") {
  const Tally wrong = run_families(greedy_clamp, 4);
  INFO(wrong.instances << " instances");
  CHECK(wrong.outside_band == 0);  // it stays in the band...
  CHECK(wrong.mismatches > 0);     // ...but is not the minimum
}

TEST_CASE("layout choice: tau = 0 and equal capacities give the block distribution", "[resample]") {
  std::mt19937_64 gen(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + static_cast<int>(gen() % 9);
    const std::uint64_t n = static_cast<std::uint64_t>(p) + gen() % 300;
    Counts held(static_cast<std::size_t>(p), 0);
    for (std::uint64_t i = 0; i < n; ++i) ++held[trial % 4 == 0 ? p - 1 : gen() % p];
    const rsmc::Layout chosen = rsmc::choose_layout(rsmc::LoadBand(n, p), held);
    REQUIRE(chosen == rsmc::Layout(rsmc::BlockDistribution(n, p)));
    REQUIRE(rsmc::particles_moved(held, chosen) == moved_id_by_id(held, chosen));
  }
}

TEST_CASE("layout choice: counts that fit the band stay where they are; large N", "[resample]") {
  // Held counts inside the band: nothing moves.
  const rsmc::LoadBand band(10000, 4, {0.1, {}});
  const Counts held{2400, 2600, 2550, 2450};
  const rsmc::Layout chosen = rsmc::choose_layout(band, held);
  REQUIRE(chosen == rsmc::Layout::from_counts(held));
  REQUIRE(rsmc::particles_moved(held, chosen) == 0);
  // N = 10^12 on 3 ranks, one rank holding everything: only the band's edges can be optimal.
  const std::uint64_t n = 1000000000000ull;
  const rsmc::LoadBand wide(n, 3, {0.5, {}});
  const rsmc::Layout all_left = rsmc::choose_layout(wide, {n, 0, 0});
  REQUIRE(wide.admits(all_left));
  REQUIRE(rsmc::particles_moved({n, 0, 0}, all_left) == n - wide.upper(0));
  const rsmc::Layout middle = rsmc::choose_layout(wide, {0, n, 0});
  REQUIRE(rsmc::particles_moved({0, n, 0}, middle) == n - wide.upper(1));
}

TEST_CASE("layout choice: the benchmark's dense reference minimum agrees (exhaustive, then random)", "[resample]") {
  // `rsmc bench resample` reports rsmc::bench::dense_band_minimum as the exact minimum for the band:
  // against the exhaustive minimum on every count vector of p <= 4, N <= 16 ...
  std::uint64_t checked = 0;
  for (int p = 1; p <= 4; ++p)
    for (double tau : {0.0, 0.25, 0.5})
      for (std::uint64_t n = static_cast<std::uint64_t>(p); n <= 16; ++n) {
        const rsmc::LoadBand band(n, p, {tau, {}});
        const std::vector<rsmc::Layout> layouts = all_layouts_in_band(band);
        for_each_count_vector(p, n, [&](const Counts& held) {
          std::uint64_t best = UINT64_MAX;
          for (const auto& layout : layouts) best = std::min(best, rsmc::particles_moved(held, layout));
          ++checked;
          REQUIRE(rsmc::bench::dense_band_minimum(band, held) == best);
        });
      }
  REQUIRE(checked > 10000);
  // ... and against choose_layout on random counts of 8 ranks, N up to 20,000, uneven capacities.
  std::mt19937_64 gen(17);
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 8;
    const std::uint64_t n = 1000 + gen() % 19000;
    std::vector<double> capacities;
    for (int k = 0; k < p; ++k) capacities.push_back(trial % 2 ? 1.0 : 0.5 + static_cast<double>(gen() % 100) / 40.0);
    const rsmc::LoadBand band(n, p, {static_cast<double>(gen() % 5) * 0.05, capacities});
    Counts held(static_cast<std::size_t>(p), 0);
    for (std::uint64_t i = 0; i < n; ++i) ++held[(gen() % 3 == 0) ? gen() % p : gen() % 3];  // piled on ranks 0-2
    const std::uint64_t chosen = rsmc::particles_moved(held, rsmc::choose_layout(band, held));
    REQUIRE(rsmc::bench::dense_band_minimum(band, held) == chosen);
    REQUIRE(rsmc::bench::any_layout_bound(band, held) <= rsmc::particles_moved(held, band.target_layout()));
  }
}

TEST_CASE("integer piecewise-affine functions: erosion and the other operations", "[resample]") {
  std::mt19937_64 gen(3);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::int64_t a = static_cast<std::int64_t>(gen() % 11) - 5;
    const int n = 1 + static_cast<int>(gen() % 30);
    // Random values on a..a+n-1, stored as pieces of random lengths with the slope of their first step.
    std::vector<std::int64_t> f(static_cast<std::size_t>(n));
    for (auto& v : f) v = static_cast<std::int64_t>(gen() % 13);
    if (trial % 3 == 0)  // long affine stretches too
      for (int i = 1; i < n; ++i) f[i] = f[i - 1] + static_cast<std::int64_t>(gen() % 3) - 1;
    std::vector<rsmc::IntegerPwl::Piece> pieces;
    for (int i = 0; i < n; ++i) pieces.push_back({a + i, f[i], i + 1 < n ? f[i + 1] - f[i] : 0});
    const rsmc::IntegerPwl fn(pieces, a + n - 1);
    for (int i = 0; i < n; ++i) REQUIRE(fn(a + i) == f[i]);

    const std::int64_t w = static_cast<std::int64_t>(gen() % 9);
    const rsmc::IntegerPwl h = fn.eroded(w);
    REQUIRE(h.first() == a);
    REQUIRE(h.last() == a + n - 1 + w);
    for (std::int64_t y = a; y <= a + n - 1 + w; ++y) {
      std::int64_t expected = INT64_MAX;
      for (std::int64_t x = std::max(a, y - w); x <= std::min<std::int64_t>(a + n - 1, y); ++x)
        expected = std::min(expected, f[static_cast<std::size_t>(x - a)]);
      REQUIRE(h(y) == expected);
    }

    const std::int64_t qa = a + static_cast<std::int64_t>(gen() % 40) - 10;
    const std::int64_t qb = qa + static_cast<std::int64_t>(gen() % 8), qc = qb + static_cast<std::int64_t>(gen() % 8);
    const rsmc::IntegerPwl g = h.shifted(3).plus_boundary_cost(qa, qb, qc);
    for (std::int64_t y = h.first() + 3; y <= h.last() + 3; ++y) {
      const std::int64_t clamped = std::min(std::max(y, qa), qc);
      REQUIRE(g(y) == h(y - 3) + (clamped >= qb ? clamped - qb : qb - clamped));
    }
    const std::int64_t lo =
        g.first() + static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(g.last() - g.first() + 1));
    const std::int64_t hi = lo + static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(g.last() - lo + 1));
    const rsmc::IntegerPwl r = g.restricted(lo, hi);
    const std::int64_t prefer = lo + static_cast<std::int64_t>(gen() % 20) - 5;
    std::int64_t at = 0;
    const std::int64_t least = r.minimum(lo, hi, prefer, at);
    std::int64_t expect_value = INT64_MAX, expect_at = 0;
    for (std::int64_t y = lo; y <= hi; ++y) {
      REQUIRE(r(y) == g(y));
      const auto d = [&](std::int64_t u) { return u > prefer ? u - prefer : prefer - u; };
      if (g(y) < expect_value || (g(y) == expect_value && d(y) < d(expect_at))) {
        expect_value = g(y);
        expect_at = y;
      }
    }
    REQUIRE(least == expect_value);
    REQUIRE(at == expect_at);
  }
}
