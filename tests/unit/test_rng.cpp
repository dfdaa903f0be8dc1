// Unit tests for base/rng/stream.hpp: Philox known answers, the key/counter mapping, stream
// purity and consumption order, and statistical checks of every distribution.
//
// All seeds are fixed, so every test is deterministic. Statistical tolerances are derived from the
// sample size, never tuned:
// - a moment estimate must lie within 5 standard errors (SE) of its true value; the SE of each
//   estimator is derived next to its check (two-sided normal tail beyond 5 SE: ~5.7e-7);
// - Kolmogorov-Smirnov: sqrt(n) * D_n must stay below 1.63, the asymptotic critical value at
//   alpha = 0.01 (P(K > 1.63) = 0.0098 for the Kolmogorov distribution K);
// - chi-square goodness of fit: the statistic must stay below the 0.999 quantile of chi-square with
//   (categories - 1) degrees of freedom; the quantiles are hard-coded below.
#include <catch2/catch.hpp>

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/math/math.hpp"
#include "base/rng/stream.hpp"
#include "tests/support/statistics.hpp"

namespace {

using rsmc::rng::Block;
using rsmc::rng::Purpose;
using rsmc::rng::Stream;

constexpr std::size_t kN = 100000;  // sample size of the statistical tests

double sqrt_n() { return std::sqrt(static_cast<double>(kN)); }

using rsmc::test::ks_statistic;

// sqrt(n) * D_n must stay below this (alpha = 0.01, see the header comment).
constexpr double kKsCritical = 1.63;

struct SampleMoments {
  double mean = 0, var = 0, kurtosis = 0;  // var: central second moment m2; kurtosis: m4 / m2^2
};

SampleMoments moments(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  SampleMoments m;
  for (double v : x) m.mean += v;
  m.mean /= n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double d = (v - m.mean) * (v - m.mean);
    m2 += d;
    m4 += d * d;
  }
  m2 /= n;
  m4 /= n;
  m.var = m2;
  m.kurtosis = m4 / (m2 * m2);
  return m;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

template <class Draw>
std::vector<double> sample(Stream s, Draw draw) {
  std::vector<double> x(kN);
  for (auto& v : x) v = draw(s);
  return x;
}

r123::Philox4x32::ctr_type ctr4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  r123::Philox4x32::ctr_type ctr;
  ctr.v[0] = a;
  ctr.v[1] = b;
  ctr.v[2] = c;
  ctr.v[3] = d;
  return ctr;
}

r123::Philox4x32::key_type key2(std::uint32_t a, std::uint32_t b) {
  r123::Philox4x32::key_type key;
  key.v[0] = a;
  key.v[1] = b;
  return key;
}

struct KnownAnswer {
  std::uint32_t ctr[4];
  std::uint32_t key[2];
  std::uint32_t out[4];
};

// Random123's published known-answer vectors for Philox4x32-10 (counter[4] key[2] -> output[4]).
const KnownAnswer kKnownAnswers[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

bool same_sequence(Stream a, Stream b, int words = 64) {
  for (int i = 0; i < words; ++i)
    if (a.next_u32() != b.next_u32()) return false;
  return true;
}

}  // namespace

TEST_CASE("Philox4x32-10 known-answer vectors through the raw Random123 API", "[rng]") {
  for (const auto& ka : kKnownAnswers) {
    const auto out = r123::Philox4x32()(ctr4(ka.ctr[0], ka.ctr[1], ka.ctr[2], ka.ctr[3]), key2(ka.key[0], ka.key[1]));
    for (int i = 0; i < 4; ++i) CHECK(out.v[i] == ka.out[i]);
  }
}

TEST_CASE("Philox4x32-10 known-answer vectors through block()", "[rng]") {
  // Every vector is reachable through block() when it maps to a valid purpose and seed: the
  // all-zero one needs purpose 0 (not a Purpose value, so it is cast), and the all-ones one needs
  // purpose 255 and a seed of 2^56 - 1 = kMaxSeed. The third has key word1 = 0x299f31d0, i.e.
  // purpose 0x29 and seed bits 32..55 = 0x9f31d0.
  for (const auto& ka : kKnownAnswers) {
    const auto purpose = static_cast<Purpose>(ka.key[1] >> 24);
    const std::uint64_t seed = (std::uint64_t(ka.key[1] & 0x00ffffffu) << 32) | ka.key[0];
    REQUIRE(seed <= rsmc::rng::kMaxSeed);
    const std::uint32_t draw = ka.ctr[0];
    const std::uint32_t step = ka.ctr[1];
    const std::uint64_t gid = (std::uint64_t(ka.ctr[3]) << 32) | ka.ctr[2];
    const Block b = rsmc::rng::block(seed, purpose, step, gid, draw);
    for (int i = 0; i < 4; ++i) CHECK(b.v[i] == ka.out[i]);
  }
}

TEST_CASE("block() places seed, purpose, step, global id and draw as documented", "[rng]") {
  struct Args {
    std::uint64_t seed;
    Purpose purpose;
    std::uint32_t step;
    std::uint64_t gid;
    std::uint32_t draw;
  };
  const Args cases[] = {
      {0x0012345689abcdefULL, Purpose::propagate, 17u, 0x0000000700000003ULL, 5u},
      {rsmc::rng::kMaxSeed, Purpose::model, 0xffffffffu, 0xffffffffffffffffULL, 0xffffffffu},
      {42u, Purpose::initialise, 0u, 0u, 0u},
      {0x00ab000000000001ULL, Purpose::resample, 3u, 0x123456789ULL, 2u},
      {7u, Purpose::observe, 1u, 1u, 1u},
  };
  for (const auto& a : cases) {
    // Expected words, built by hand from the documented layout.
    const auto key = key2(static_cast<std::uint32_t>(a.seed),
                          (static_cast<std::uint32_t>(a.purpose) << 24) | static_cast<std::uint32_t>(a.seed >> 32));
    const auto ctr = ctr4(a.draw, a.step, static_cast<std::uint32_t>(a.gid), static_cast<std::uint32_t>(a.gid >> 32));
    const auto expected = r123::Philox4x32()(ctr, key);
    const Block b = rsmc::rng::block(a.seed, a.purpose, a.step, a.gid, a.draw);
    for (int i = 0; i < 4; ++i) CHECK(b.v[i] == expected.v[i]);

    const auto k = rsmc::rng::make_key(a.seed, a.purpose);
    CHECK(k.v[0] == key.v[0]);
    CHECK(k.v[1] == key.v[1]);
    const auto c = rsmc::rng::make_counter(a.step, a.gid, a.draw);
    for (int i = 0; i < 4; ++i) CHECK(c.v[i] == ctr.v[i]);
  }
  // A seed above kMaxSeed is masked to 56 bits and never reaches the purpose bits.
  CHECK(rsmc::rng::make_key(rsmc::rng::kMaxSeed + 1, Purpose::model).v[1] == (5u << 24));
  CHECK(rsmc::rng::seed_is_valid(rsmc::rng::kMaxSeed));
  CHECK_FALSE(rsmc::rng::seed_is_valid(rsmc::rng::kMaxSeed + 1));
}

TEST_CASE("purpose_name", "[rng]") {
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::initialise)) == "initialise");
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::propagate)) == "propagate");
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::observe)) == "observe");
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::resample)) == "resample");
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::model)) == "model");
  CHECK(std::string(rsmc::rng::purpose_name(Purpose::inference)) == "inference");
  CHECK(std::string(rsmc::rng::purpose_name(static_cast<Purpose>(99))) == "unknown");
}

TEST_CASE("Stream consumes Philox blocks word by word, u64 low word first", "[rng]") {
  const std::uint64_t seed = 20240601;
  const std::uint32_t step = 9;
  const std::uint64_t gid = 0x100000005ULL;
  Stream s(seed, Purpose::propagate, step, gid);
  CHECK(s.blocks_used() == 0u);
  for (std::uint32_t d = 0; d < 3; ++d) {
    const Block b = rsmc::rng::block(seed, Purpose::propagate, step, gid, d);
    for (int i = 0; i < 4; ++i) {
      CHECK(s.next_u32() == b.v[i]);
      CHECK(s.blocks_used() == d + 1);
    }
  }

  // next_u64 = (second word << 32) | first word, also across a block boundary.
  Stream words(seed, Purpose::propagate, step, gid);
  Stream pairs(seed, Purpose::propagate, step, gid);
  (void)words.next_u32();
  (void)pairs.next_u32();  // odd offset: the third u64 straddles blocks 0 and 1
  for (int i = 0; i < 6; ++i) {
    const std::uint64_t lo = words.next_u32();
    const std::uint64_t hi = words.next_u32();
    CHECK(pairs.next_u64() == ((hi << 32) | lo));
  }
  CHECK(pairs.blocks_used() == 4u);  // 13 words
}

TEST_CASE("uniform, normal, exponential and integer follow their documented formulas", "[rng]") {
  Stream s(77, Purpose::observe, 4, 1234);
  Stream ref(77, Purpose::observe, 4, 1234);

  for (int i = 0; i < 100; ++i) {
    const std::uint64_t m = ref.next_u64() >> 11;
    REQUIRE(m != 0);  // a zero would need a redraw; probability 2^-53 per draw
    CHECK(s.uniform() == static_cast<double>(m) * 0x1.0p-53);
  }

  for (int i = 0; i < 50; ++i) {
    const double u1 = ref.uniform();
    const double u2 = ref.uniform();
    const double r = std::sqrt(-2.0 * rsmc::math::log(u1));
    const rsmc::math::SinCos angle = rsmc::math::sincos_2pi(u2);
    const std::uint32_t before = s.blocks_used();
    CHECK(s.normal() == r * angle.cos);
    const std::uint32_t after_first = s.blocks_used();
    CHECK(after_first == before + 1);       // two uniforms = four words = one block (aligned here)
    CHECK(s.normal() == r * angle.sin);     // the cached second variate
    CHECK(s.blocks_used() == after_first);  // ... consumes nothing
  }

  for (int i = 0; i < 100; ++i) CHECK(s.exponential() == -rsmc::math::log(ref.uniform()));

  // For n = 2^k Lemire's method has no rejection (2^64 mod 2^k = 0) and returns the top k bits.
  for (int i = 0; i < 100; ++i) CHECK(s.integer(8) == (ref.next_u64() >> 61));
  for (int i = 0; i < 100; ++i) CHECK(s.integer(std::uint64_t(1) << 32) == (ref.next_u64() >> 32));
}

TEST_CASE("uniform(): the open-interval edges", "[rng]") {
  // Largest value uniform() can return: m = 2^53 - 1 gives 1 - 2^-53, exactly representable, < 1.
  const double top = static_cast<double>((std::uint64_t(1) << 53) - 1) * 0x1.0p-53;
  CHECK(top < 1.0);
  CHECK(top == 1.0 - 0x1.0p-53);
  // The rejected alternative (m + 0.5) * 2^-53 rounds to exactly 1.0 at the top.
  const double bad_top = (static_cast<double>((std::uint64_t(1) << 53) - 1) + 0.5) * 0x1.0p-53;
  CHECK(bad_top == 1.0);
  // Smallest: m = 1 gives 2^-53 > 0.
  CHECK(static_cast<double>(std::uint64_t(1)) * 0x1.0p-53 > 0.0);
}

TEST_CASE("Streams are pure functions of (seed, purpose, step, global id)", "[rng]") {
  const std::uint64_t seed = 0x00c0ffee12345678ULL;
  const Stream base(seed, Purpose::propagate, 12, 0x200000001ULL);
  CHECK(same_sequence(base, Stream(seed, Purpose::propagate, 12, 0x200000001ULL)));

  // Mixed draw types on two identical streams agree bitwise.
  Stream a = base, b(seed, Purpose::propagate, 12, 0x200000001ULL);
  for (int i = 0; i < 200; ++i) {
    CHECK(a.uniform() == b.uniform());
    CHECK(a.normal() == b.normal());
    CHECK(a.exponential() == b.exponential());
    CHECK(a.integer(1000003) == b.integer(1000003));
    CHECK(a.next_u64() == b.next_u64());
  }
  CHECK(a.blocks_used() == b.blocks_used());

  // Changing any one argument changes the sequence (including the high words of seed and gid).
  CHECK_FALSE(same_sequence(base, Stream(seed + 1, Purpose::propagate, 12, 0x200000001ULL)));
  CHECK_FALSE(same_sequence(base, Stream(seed ^ (std::uint64_t(1) << 40), Purpose::propagate, 12, 0x200000001ULL)));
  CHECK_FALSE(same_sequence(base, Stream(seed, Purpose::observe, 12, 0x200000001ULL)));
  CHECK_FALSE(same_sequence(base, Stream(seed, Purpose::propagate, 13, 0x200000001ULL)));
  CHECK_FALSE(same_sequence(base, Stream(seed, Purpose::propagate, 12, 0x200000002ULL)));
  CHECK_FALSE(same_sequence(base, Stream(seed, Purpose::propagate, 12, 0x300000001ULL)));
}

TEST_CASE("Streams of related arguments are uncorrelated", "[rng]") {
  // Under independence the sample correlation r of n pairs has mean ~0 and SE ~ 1/sqrt(n);
  // require |r| < 5 / sqrt(n).
  const double tol = 5.0 / sqrt_n();
  const std::uint64_t seed = 31337;
  const auto uniforms = [](Stream s) { return sample(s, [](Stream& t) { return t.uniform(); }); };
  const auto u = uniforms(Stream(seed, Purpose::propagate, 5, 1000));

  SECTION("distinct purposes") {
    for (Purpose p : {Purpose::initialise, Purpose::observe, Purpose::resample, Purpose::model}) {
      const double r = correlation(u, uniforms(Stream(seed, p, 5, 1000)));
      INFO("purpose " << rsmc::rng::purpose_name(p) << ": r = " << r);
      CHECK(std::abs(r) < tol);
    }
  }
  SECTION("distinct steps") {
    for (std::uint32_t step : {4u, 6u, 0u}) {
      const double r = correlation(u, uniforms(Stream(seed, Purpose::propagate, step, 1000)));
      INFO("step " << step << ": r = " << r);
      CHECK(std::abs(r) < tol);
    }
  }
  SECTION("adjacent global ids") {
    for (std::uint64_t gid : {999u, 1001u}) {
      const double r = correlation(u, uniforms(Stream(seed, Purpose::propagate, 5, gid)));
      INFO("gid " << gid << ": r = " << r);
      CHECK(std::abs(r) < tol);
    }
  }
  SECTION("adjacent seeds") {
    const double r = correlation(u, uniforms(Stream(seed + 1, Purpose::propagate, 5, 1000)));
    INFO("r = " << r);
    CHECK(std::abs(r) < tol);
  }
}

TEST_CASE("uniform() is U(0,1)", "[rng]") {
  const auto x = sample(Stream(1, Purpose::model, 0, 0), [](Stream& s) { return s.uniform(); });
  for (double v : x) {
    REQUIRE(v > 0.0);
    REQUIRE(v < 1.0);
  }
  const SampleMoments m = moments(x);
  // U(0,1): variance 1/12, so SE(mean) = sqrt(1/(12 n)).
  CHECK(std::abs(m.mean - 0.5) < 5.0 * std::sqrt(1.0 / 12.0) / sqrt_n());
  // SE(sample variance) ~ sqrt((mu4 - sigma^4) / n); mu4 = 1/80, sigma^4 = 1/144 -> (1/180) / n.
  CHECK(std::abs(m.var - 1.0 / 12.0) < 5.0 * std::sqrt(1.0 / 80.0 - 1.0 / 144.0) / sqrt_n());
  const double d = ks_statistic(x, [](double t) { return t; });
  INFO("sqrt(n) D = " << sqrt_n() * d);
  CHECK(sqrt_n() * d < kKsCritical);
}

TEST_CASE("normal() is N(0,1)", "[rng]") {
  const auto x = sample(Stream(2, Purpose::model, 3, 5), [](Stream& s) { return s.normal(); });
  for (double v : x) REQUIRE(std::isfinite(v));
  const SampleMoments m = moments(x);
  INFO("mean " << m.mean << ", variance " << m.var << ", kurtosis " << m.kurtosis);
  // SE(mean) = sigma / sqrt(n) = 1 / sqrt(n).
  CHECK(std::abs(m.mean) < 5.0 / sqrt_n());
  // SE(sample variance) ~ sqrt((mu4 - sigma^4) / n) = sqrt((3 - 1) / n).
  CHECK(std::abs(m.var - 1.0) < 5.0 * std::sqrt(2.0) / sqrt_n());
  // For normal data the sample kurtosis m4 / m2^2 is asymptotically N(3, 24 / n).
  CHECK(std::abs(m.kurtosis - 3.0) < 5.0 * std::sqrt(24.0) / sqrt_n());
  const double d = ks_statistic(x, [](double t) { return 0.5 * std::erfc(-t / std::sqrt(2.0)); });
  INFO("sqrt(n) D = " << sqrt_n() * d);
  CHECK(sqrt_n() * d < kKsCritical);
}

TEST_CASE("exponential() is Exp(1)", "[rng]") {
  const auto x = sample(Stream(3, Purpose::model, 1, 2), [](Stream& s) { return s.exponential(); });
  for (double v : x) {
    REQUIRE(std::isfinite(v));
    REQUIRE(v > 0.0);
  }
  const SampleMoments m = moments(x);
  INFO("mean " << m.mean << ", variance " << m.var);
  // Exp(1): sigma = 1, so SE(mean) = 1 / sqrt(n).
  CHECK(std::abs(m.mean - 1.0) < 5.0 / sqrt_n());
  // SE(sample variance) ~ sqrt((mu4 - sigma^4) / n); the 4th central moment of Exp(1) is 9.
  CHECK(std::abs(m.var - 1.0) < 5.0 * std::sqrt(9.0 - 1.0) / sqrt_n());
  const double d = ks_statistic(x, [](double t) { return -std::expm1(-t); });
  INFO("sqrt(n) D = " << sqrt_n() * d);
  CHECK(sqrt_n() * d < kKsCritical);
}

TEST_CASE("integer(n) stays in [0, n)", "[rng]") {
  Stream s(4, Purpose::resample, 2, 77);
  const std::uint64_t ns[] = {1u, 2u, 3u, 7u, (std::uint64_t(1) << 32) + 3, (std::uint64_t(1) << 63) + 1};
  for (std::uint64_t n : ns) {
    for (int i = 0; i < 10000; ++i) {
      const std::uint64_t k = s.integer(n);
      INFO("n = " << n << ", k = " << k);
      REQUIRE(k < n);
    }
  }
  Stream one(4, Purpose::resample, 2, 78);
  for (int i = 0; i < 100; ++i) CHECK(one.integer(1) == 0u);
}

TEST_CASE("integer(2^63 + 1) rejects about half of the draws and stays uniform", "[rng]") {
  // For n = 2^63 + 1, 2^64 mod n = 2^63 - 1, so a draw is rejected when the low word of x * n is
  // below 2^63 - 1: probability ~1/2, i.e. ~2 u64 (= one block) per accepted value on average.
  const std::uint64_t n = (std::uint64_t(1) << 63) + 1;
  Stream s(5, Purpose::resample, 0, 0);
  std::size_t upper = 0;
  for (std::size_t i = 0; i < kN; ++i)
    if (s.integer(n) >= (std::uint64_t(1) << 62)) ++upper;
  // Without rejection kN values would use kN / 2 blocks. The number of u64 draws is a sum of kN
  // geometric(1/2) counts: mean 2 kN, SD sqrt(2 kN); 5 SD is far below the kN / 2 margin.
  CHECK(s.blocks_used() > 3 * kN / 4);
  CHECK(s.blocks_used() < 5 * kN / 4);
  // P(k >= 2^62) = (n - 2^62) / n ~ 1/2; binomial SE = sqrt(p (1 - p) / n) = 0.5 / sqrt(n).
  const double frac = static_cast<double>(upper) / static_cast<double>(kN);
  CHECK(std::abs(frac - 0.5) < 5.0 * 0.5 / sqrt_n());
}

TEST_CASE("integer(n) passes chi-square goodness of fit", "[rng]") {
  // 0.999 quantiles of chi-square: df = 6 -> 22.458, df = 9 -> 27.877 (standard tables; checked
  // against the regularised incomplete gamma function: upper tail 1.000e-3 at both).
  struct Case {
    std::uint64_t n;
    double quantile_999;
  };
  for (const Case c : {Case{7, 22.458}, Case{10, 27.877}}) {
    Stream s(6, Purpose::resample, static_cast<std::uint32_t>(c.n), 3);
    std::vector<double> counts(c.n, 0.0);
    for (std::size_t i = 0; i < kN; ++i) counts[s.integer(c.n)] += 1.0;
    const double expected = static_cast<double>(kN) / static_cast<double>(c.n);
    double chi2 = 0.0;
    for (double k : counts) chi2 += (k - expected) * (k - expected) / expected;
    INFO("n = " << c.n << ", chi2 = " << chi2 << ", df = " << c.n - 1);
    CHECK(chi2 < c.quantile_999);
  }
}
