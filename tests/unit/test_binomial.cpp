// Unit tests for base/rng/binomial.hpp: binomial() and uniform_below().
//
// Every draw uses its own counter-based Stream (seed, Purpose::resample, step = test case, id = draw
// index), so every test is deterministic and reproducible. Statistical thresholds are derived from
// the sample size, never tuned:
// - chi-square goodness of fit against the exact pmf: adjacent cells are merged (from the low end
//   upwards) until each has an expected count >= 5, the last one into its neighbour; the statistic
//   must stay below the 0.999 quantile of chi-square with (cells - 1) degrees of freedom. The
//   quantile comes from the Wilson-Hilferty approximation (chi2_quantile_999, tests/support/statistics.hpp), which at
//   0.999 slightly overestimates the true quantile for few degrees of freedom (df = 6: 22.68 vs 22.46; df = 1000:
//   1143.93 vs 1143.92), i.e. it errs on the side of fewer false alarms;
// - a mean or a variance must lie within 5 standard errors (two-sided normal tail: ~5.7e-7).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/exact/uint128.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"
#include "tests/support/statistics.hpp"

using rsmc::test::chi2_quantile_999;

using rsmc::exact::u128;
using rsmc::rng::binomial;
using rsmc::rng::Purpose;
using rsmc::rng::Stream;
using rsmc::rng::uniform_below;

namespace {

constexpr std::uint64_t kSeed = 0xb1a0b1a0ULL;
constexpr std::size_t kDraws = 100000;

Stream stream(std::uint32_t step, std::uint64_t id) { return Stream(kSeed, Purpose::resample, step, id); }

using rsmc::test::chi_square;
using rsmc::test::ChiSquare;

// The exact Binomial(n, p) pmf on [lo, hi]: for a small mean by the recursion from f(0) =
// (1 - p)^n, otherwise from the mode through lgamma and the recursion outwards in both directions.
std::vector<double> binomial_pmf(std::uint64_t n, double p, std::uint64_t lo, std::uint64_t hi) {
  const double nd = static_cast<double>(n);
  const double odds = p / (1.0 - p);
  auto ratio = [&](std::uint64_t k) {  // f(k) / f(k - 1)
    return static_cast<double>(n - k + 1) / static_cast<double>(k) * odds;
  };
  std::vector<double> f(hi - lo + 1, 0.0);
  if (nd * p < 50.0 && lo == 0) {
    double v = std::exp(nd * std::log1p(-p));
    for (std::uint64_t k = 0; k <= hi; ++k) {
      if (k > 0) v *= ratio(k);
      f[k] = v;
    }
    return f;
  }
  auto mode = static_cast<std::uint64_t>(std::floor((nd + 1.0) * p));
  mode = std::min(std::max(mode, lo), hi);
  const double md = static_cast<double>(mode);
  const double log_mode = std::lgamma(nd + 1.0) - std::lgamma(md + 1.0) - std::lgamma(nd - md + 1.0) +
                          md * std::log(p) + (nd - md) * std::log1p(-p);
  f[mode - lo] = std::exp(log_mode);
  for (std::uint64_t k = mode + 1; k <= hi; ++k) f[k - lo] = f[k - 1 - lo] * ratio(k);
  for (std::uint64_t k = mode; k > lo; --k) f[k - 1 - lo] = f[k - lo] / ratio(k);
  return f;
}

// kDraws binomial draws, draw i from stream (step, i).
std::vector<std::uint64_t> draw_binomials(std::uint32_t step, std::uint64_t n, double p, std::size_t m) {
  std::vector<std::uint64_t> x(m);
  for (std::size_t i = 0; i < m; ++i) {
    Stream s = stream(step, i);
    x[i] = binomial(s, n, p);
  }
  return x;
}

}  // namespace

TEST_CASE("binomial: chi-square goodness of fit against the exact pmf", "[binomial]") {
  struct Case {
    std::uint64_t n;
    double p;
  };
  // Inversion (n p < 10) and BTRD (n p >= 10, including the edge n p = 10), both sides of 1/2,
  // and a huge n with a tiny p (inversion with n = 10^10).
  const Case cases[] = {
      {5, 0.3},   {20, 0.5}, {100, 0.01}, {1000, 0.5}, {1000000, 0.3}, {1000000, 0.999}, {10000000000ULL, 4e-10},
      {200, 0.93}};
  std::uint32_t step = 1;
  for (const Case& c : cases) {
    const std::vector<std::uint64_t> x = draw_binomials(step++, c.n, c.p, kDraws);
    const double nd = static_cast<double>(c.n);
    const double mean = nd * c.p, sd = std::sqrt(nd * c.p * (1.0 - c.p));
    // Categories [lo, hi] cover mean +- 12 sd (the pmf outside is < 1e-30 of a cell's weight);
    // values outside, which should not occur, land in the end cells.
    const auto lo = static_cast<std::uint64_t>(std::max(0.0, std::floor(mean - 12.0 * sd - 10.0)));
    const auto hi = static_cast<std::uint64_t>(std::min(nd, std::ceil(mean + 12.0 * sd + 10.0)));
    const std::vector<double> pmf = binomial_pmf(c.n, c.p, lo, hi);
    double mass = 0.0;
    for (double v : pmf) mass += v;
    INFO("n = " << c.n << ", p = " << c.p);
    REQUIRE(std::fabs(mass - 1.0) < 1e-9);  // the reference pmf itself
    std::vector<double> observed(pmf.size(), 0.0), expected(pmf.size());
    for (std::size_t k = 0; k < pmf.size(); ++k) expected[k] = pmf[k] * static_cast<double>(kDraws);
    for (std::uint64_t v : x) {
      REQUIRE(v <= c.n);
      const std::uint64_t k = std::min(std::max(v, lo), hi);
      observed[k - lo] += 1.0;
    }
    const ChiSquare chi = chi_square(observed, expected);
    INFO("chi2 = " << chi.statistic << ", df = " << chi.df << ", 0.999 quantile = " << chi2_quantile_999(chi.df));
    CHECK(chi.df >= 1);
    CHECK(chi.statistic < chi2_quantile_999(chi.df));
  }
}

TEST_CASE("binomial: mean and variance for huge n", "[binomial]") {
  struct Case {
    std::uint64_t n;
    double p;
    std::size_t draws;
  };
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  const Case cases[] = {{10000000000ULL, 0.5, kDraws}, {10000000000ULL, 1e-7, kDraws}, {two63, 0.5, 20000},
                        {two63, 0.3, 20000},           {two63, 1e-12, 20000},          {two63, 1e-18, 20000}};
  std::uint32_t step = 100;
  for (const Case& c : cases) {
    const std::vector<std::uint64_t> x = draw_binomials(step++, c.n, c.p, c.draws);
    const double nd = static_cast<double>(c.n);
    const double mean = nd * c.p;
    const double var = nd * c.p * (1.0 - c.p);
    // Deviations from an integer centre, exactly in int64, so that a mean near 2^62 loses nothing.
    const auto centre = static_cast<std::uint64_t>(mean);
    double s1 = 0.0;
    for (std::uint64_t v : x) {
      REQUIRE(v <= c.n);
      s1 += static_cast<double>(static_cast<std::int64_t>(v - centre));
    }
    const double m = static_cast<double>(c.draws);
    const double dev_mean = s1 / m;  // sample mean - centre
    double s2 = 0.0;
    for (std::uint64_t v : x) {
      const double d = static_cast<double>(static_cast<std::int64_t>(v - centre)) - dev_mean;
      s2 += d * d;
    }
    const double sample_var = s2 / (m - 1.0);
    // SE of the mean: sqrt(var / m). SE of the sample variance: sqrt((mu4 - var^2) / m) with the
    // binomial fourth central moment mu4 = var (1 + 3 (n - 2) p q), i.e.
    // mu4 - var^2 = 2 var^2 + var (1 - 6 p q).
    const double pq = c.p * (1.0 - c.p);
    const double se_mean = std::sqrt(var / m);
    const double se_var = std::sqrt((2.0 * var * var + var * (1.0 - 6.0 * pq)) / m);
    const double mean_error = dev_mean - (mean - static_cast<double>(centre));
    INFO("n = " << c.n << ", p = " << c.p << ": mean - expected = " << mean_error << " (SE " << se_mean
                << "), variance = " << sample_var << " vs " << var << " (SE " << se_var << ")");
    CHECK(std::fabs(mean_error) < 5.0 * se_mean);
    CHECK(std::fabs(sample_var - var) < 5.0 * se_var);
  }
}

TEST_CASE("binomial: trivial cases, range and symmetry", "[binomial]") {
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  for (std::uint64_t id = 0; id < 1000; ++id) {
    Stream s = stream(200, id);
    CHECK(binomial(s, 0, 0.5) == 0);
    CHECK(binomial(s, 12345, 0.0) == 0);
    CHECK(binomial(s, 12345, 1.0) == 12345);
    CHECK(binomial(s, two63, 1.0) == two63);
    CHECK(binomial(s, two63, -0.5) == 0);  // out of range: clamped
    CHECK(binomial(s, 17, 2.0) == 17);
    CHECK(binomial(s, 17, std::nan("")) == 0);
    CHECK(s.blocks_used() == 0);  // none of these consumes a draw
    CHECK(binomial(s, 1, 0.5) <= 1);
    CHECK(binomial(s, 3, 1e-300) <= 3);
    CHECK(binomial(s, 3, 1.0 - 1e-16) <= 3);
    CHECK(binomial(s, two63, 0.5) <= two63);
    CHECK(binomial(s, two63, 1e-300) <= two63);
    CHECK(binomial(s, ~std::uint64_t{0} >> 1, 0.7) <= ~std::uint64_t{0} >> 1);
  }
  // Bernoulli: n = 1 takes 1 with probability p.
  {
    std::size_t ones = 0;
    const std::size_t m = 100000;
    for (std::size_t i = 0; i < m; ++i) {
      Stream s = stream(201, i);
      ones += binomial(s, 1, 0.25);
    }
    const double se = std::sqrt(0.25 * 0.75 / static_cast<double>(m));
    CHECK(std::fabs(static_cast<double>(ones) / static_cast<double>(m) - 0.25) < 5.0 * se);
  }
  // Symmetry: for p > 1/2, binomial(n, p) is n - binomial(n, 1 - p) on the same stream state.
  for (double p : {0.51, 0.7, 0.9, 0.999, 1.0 - 1e-12}) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{40}, std::uint64_t{100000},
                            std::uint64_t{10000000000ULL}, two63}) {
      for (std::uint64_t id = 0; id < 200; ++id) {
        Stream a = stream(202, id), b = stream(202, id);
        const std::uint64_t xa = binomial(a, n, p);
        const std::uint64_t xb = binomial(b, n, 1.0 - p);
        REQUIRE(xa == n - xb);
        REQUIRE(a.next_u64() == b.next_u64());  // the same draws were consumed
      }
    }
  }
}

TEST_CASE("binomial: a pure function of the stream state", "[binomial]") {
  for (std::uint64_t id = 0; id < 2000; ++id) {
    for (double p : {0.001, 0.3, 0.5}) {
      for (std::uint64_t n : {std::uint64_t{50}, std::uint64_t{5000}, std::uint64_t{10000000000ULL}}) {
        Stream a = stream(300, id), b = stream(300, id);
        a.next_u32();  // an odd start position, to straddle blocks
        b.next_u32();
        REQUIRE(binomial(a, n, p) == binomial(b, n, p));
        REQUIRE(a.next_u32() == b.next_u32());
      }
    }
  }
}

TEST_CASE("uniform_below: range", "[binomial]") {
  const u128 one = 1;
  const u128 bounds[] = {1,       2, 7, (one << 64) - 1, one << 64, (one << 64) + 1, (one << 100) + 3, (one << 127) + 1,
                         ~u128{0}};
  std::uint32_t step = 400;
  for (u128 bound : bounds) {
    u128 largest = 0;
    for (std::uint64_t id = 0; id < 20000; ++id) {
      Stream s = stream(step, id);
      const u128 x = uniform_below(s, bound);
      REQUIRE(x < bound);
      largest = std::max(largest, x);
    }
    // The largest of 20000 draws is within a fraction 1e-3 of the bound from the top (fails with
    // probability (1 - 1e-3)^20000 = 2e-9).
    INFO("bound = " << rsmc::exact::to_string(bound));
    CHECK(largest >= bound - bound / 1000 - 1);
    ++step;
  }
  Stream s = stream(499, 0);
  CHECK(uniform_below(s, 0) == 0);  // precondition violation: 0, no draw
  CHECK(s.blocks_used() == 0);
}

TEST_CASE("uniform_below: chi-square for bounds below and above 2^64", "[binomial]") {
  const u128 one = 1;
  struct Case {
    u128 bound;
    int shift;      // category = x >> shift (top bits), unless low_bits
    bool low_bits;  // category = x & 15 instead
  };
  const Case cases[] = {
      {7, 0, false},                               // 7 categories, Lemire's path
      {(one << 64) + (one << 63) + 1, 60, false},  // 1.5 2^64 + 1: 24 categories + one value
      {(one << 100) * 5 + 3, 97, false},           // 40 categories + 3 values
      {(one << 126) * 3, 122, false},              // 48 categories
      {(one << 126) * 3, 0, true},                 // low 4 bits (the bound is a multiple of 16)
      {(one << 127) + 12345, 122, false},          // just above a power of two: ~50% rejection
  };
  std::uint32_t step = 500;
  for (const Case& c : cases) {
    std::vector<double> observed, expected;
    if (c.low_bits) {
      observed.assign(16, 0.0);
      expected.assign(16, static_cast<double>(kDraws) / 16.0);
    } else {
      const u128 cells = ((c.bound - 1) >> c.shift) + 1;
      observed.assign(static_cast<std::size_t>(cells), 0.0);
      expected.resize(static_cast<std::size_t>(cells));
      for (u128 j = 0; j < cells; ++j) {
        const u128 begin = j << c.shift;
        const u128 end = std::min(c.bound, (j + 1) << c.shift);
        expected[static_cast<std::size_t>(j)] =
            rsmc::exact::to_double(end - begin) / rsmc::exact::to_double(c.bound) * kDraws;
      }
    }
    for (std::uint64_t id = 0; id < kDraws; ++id) {
      Stream s = stream(step, id);
      const u128 x = uniform_below(s, c.bound);
      REQUIRE(x < c.bound);
      observed[static_cast<std::size_t>(c.low_bits ? (x & 15) : (x >> c.shift))] += 1.0;
    }
    const ChiSquare chi = chi_square(observed, expected);
    INFO("bound = " << rsmc::exact::to_string(c.bound) << ", chi2 = " << chi.statistic << ", df = " << chi.df);
    CHECK(chi.statistic < chi2_quantile_999(chi.df));
    ++step;
  }
}

TEST_CASE("binomial internals: the mode and the BTRD log pmf ratio", "[binomial]") {
  namespace bd = rsmc::rng::binomial_detail;
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  // m = floor((n + 1) p) and frac = (n + 1) p - m, exact even where n p > 2^53.
  std::uint64_t m = 0;
  double frac = 0.0;
  bd::mode_and_fraction(10, 0.3, &m, &frac);
  CHECK(m == 3);
  CHECK(std::fabs(frac - 0.3) < 1e-15);
  bd::mode_and_fraction(two63, 0.5, &m, &frac);  // (2^63 + 1) / 2
  CHECK(m == (two63 >> 1));
  CHECK(frac == 0.5);
  bd::mode_and_fraction(two63 - 1, 0.25, &m, &frac);  // 2^63 / 4
  CHECK(m == (two63 >> 2));
  CHECK(frac == 0.0);
  bd::mode_and_fraction(two63, 0.375, &m, &frac);  // 3 (2^63 + 1) / 8 = 3 2^60 + 3/8
  CHECK(m == 3 * (two63 >> 3));
  CHECK(frac == 0.375);

  // log f(k)/f(m) against the sum of the log ratios f(i)/f(i-1) in long double.
  struct Case {
    std::uint64_t n;
    double p;
  };
  const Case cases[] = {{20, 0.5},         {1000, 0.3}, {1000000, 0.01}, {10000000000ULL, 0.5}, {10000000000ULL, 1e-7},
                        {two63 >> 1, 0.3}, {two63, 0.5}};
  for (const Case& c : cases) {
    bd::mode_and_fraction(c.n, c.p, &m, &frac);
    const double r = c.p / (1.0 - c.p);
    const long double rl = static_cast<long double>(c.p) / (1.0L - static_cast<long double>(c.p));
    const double sd = std::sqrt(static_cast<double>(c.n) * c.p * (1.0 - c.p));
    const auto reach = static_cast<std::int64_t>(std::min(3000.0, 8.0 * sd));
    for (std::int64_t d = -reach; d <= reach; d += 1 + reach / 200) {
      if (d < 0 && static_cast<std::uint64_t>(-d) > m) continue;
      if (d > 0 && static_cast<std::uint64_t>(d) > c.n - m) continue;
      const std::uint64_t k = d < 0 ? m - static_cast<std::uint64_t>(-d) : m + static_cast<std::uint64_t>(d);
      long double want = 0.0L;
      if (k > m) {
        for (std::uint64_t i = m + 1; i <= k; ++i)
          want += std::log(static_cast<long double>(c.n - i + 1) / static_cast<long double>(i) * rl);
      } else {
        for (std::uint64_t i = k + 1; i <= m; ++i)
          want -= std::log(static_cast<long double>(c.n - i + 1) / static_cast<long double>(i) * rl);
      }
      const double got = bd::log_pmf_ratio(c.n, r, m, k);
      // fc's series is accurate to 2.3e-12 per term; every other rounding is O(|d| eps).
      const double tol = 1e-11 + 1e-14 * static_cast<double>(d < 0 ? -d : d);
      INFO("n = " << c.n << ", p = " << c.p << ", m = " << m << ", k = " << k << ": " << got << " vs "
                  << static_cast<double>(want));
      CHECK(std::fabs(got - static_cast<double>(want)) <= tol);
    }
  }
}
