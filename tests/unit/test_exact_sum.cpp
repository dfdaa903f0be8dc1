// Unit tests for rsmc::exact::ExactSum (base/exact/exact_sum.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "base/exact/exact_sum.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kMax;

using rsmc::test::kInf;

using rsmc::test::bits_of;

using rsmc::exact::ExactSum;

namespace {

double double_of(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

ExactSum sum_of(const std::vector<double>& xs) {
  ExactSum s{};
  for (double x : xs) s.add(x);
  return s;
}

ExactSum sum_of(std::initializer_list<double> xs) { return sum_of(std::vector<double>(xs)); }

double exact_of(std::initializer_list<double> xs) { return sum_of(xs).to_double(); }

bool same_bytes(ExactSum a, ExactSum b) {
  a.normalize();
  b.normalize();
  return std::memcmp(&a, &b, sizeof(ExactSum)) == 0;
}

// A finite double with uniformly random bits: every exponent, subnormals, both signs.
double random_finite(std::mt19937_64& rng) {
  for (;;) {
    const double x = double_of(rng());
    if (std::isfinite(x)) return x;
  }
}

// Random double with a decimal exponent uniform in [lo, hi] and a random sign.
double random_log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> e(lo, hi);
  std::uniform_real_distribution<double> m(1.0, 10.0);
  const double x = m(rng) * std::pow(10.0, e(rng));
  return (rng() & 1) ? -x : x;
}

constexpr double kMinNormal = std::numeric_limits<double>::min();
constexpr double kDenormMin = std::numeric_limits<double>::denorm_min();

// Sign of the exact value (to_double() preserves sign and zero-ness whatever the rounding).
int sign_of(const ExactSum& s) {
  const double d = s.to_double();
  return d > 0 ? 1 : (d < 0 ? -1 : 0);
}

}  // namespace

TEST_CASE("ExactSum layout is trivially copyable and padding-free", "[exact]") {
  STATIC_REQUIRE(std::is_trivially_copyable<ExactSum>::value);
  STATIC_REQUIRE(std::is_trivial<ExactSum>::value);
  STATIC_REQUIRE(std::is_standard_layout<ExactSum>::value);
  STATIC_REQUIRE(sizeof(ExactSum) == 8 * (ExactSum::kLimbs + 4));

  ExactSum a = sum_of({1.5, -2.25e-300, 7e200});
  unsigned char raw[sizeof(ExactSum)];
  std::memcpy(raw, &a, sizeof a);
  ExactSum b;
  std::memcpy(&b, raw, sizeof b);
  CHECK(bits_of(b.to_double()) == bits_of(a.to_double()));
  CHECK(same_bytes(a, b));
}

TEST_CASE("empty sum and zeros", "[exact]") {
  ExactSum s{};
  CHECK(s.is_zero());
  CHECK(bits_of(s.to_double()) == bits_of(0.0));
  s.clear();
  CHECK(s.is_zero());

  s.add(0.0);
  s.add(-0.0);
  CHECK(s.is_zero());
  CHECK(bits_of(s.to_double()) == bits_of(0.0));
  // Documented: an exact zero is +0.0 even if every summand was -0.0.
  CHECK(bits_of(exact_of({-0.0, -0.0})) == bits_of(0.0));
  CHECK(bits_of(exact_of({1.0, -1.0})) == bits_of(0.0));
  CHECK(bits_of(exact_of({-0.0, 3.5})) == bits_of(3.5));

  ExactSum t = sum_of({1e300, -1e300, 1e-300, -1e-300});
  CHECK(t.is_zero());
  t.add(kDenormMin);
  CHECK_FALSE(t.is_zero());
}

TEST_CASE("single values round-trip exactly", "[exact]") {
  std::mt19937_64 rng(1);
  const double specials[] = {1.0,
                             -1.0,
                             0.1,
                             kMax,
                             -kMax,
                             kMinNormal,
                             -kMinNormal,
                             kDenormMin,
                             -kDenormMin,
                             kMinNormal - kDenormMin,
                             3 * kDenormMin,
                             std::ldexp(1.0, 1023),
                             1e308,
                             -1e-320};
  for (double x : specials) {
    ExactSum s{};
    s.add(x);
    CHECK(bits_of(s.to_double()) == bits_of(x));
  }
  for (int i = 0; i < 100000; ++i) {
    const double x = random_finite(rng);
    ExactSum s{};
    s.add(x);
    REQUIRE(bits_of(s.to_double()) == bits_of(x));
  }
}

TEST_CASE("known exact cases", "[exact]") {
  SECTION("huge cancellation") {
    CHECK(exact_of({1e308, 1.0, -1e308}) == 1.0);
    CHECK(exact_of({1e308, 1e-308, -1e308}) == 1e-308);
    CHECK(exact_of({kMax, kDenormMin, -kMax}) == kDenormMin);
    CHECK(exact_of({1e100, 1.0, -1e100, 1e-100}) == 1.0);  // 1 + 1e-100 rounds to 1
    CHECK(exact_of({0.1, 0.2, 0.3, -0.6}) == 0x1p-55);
  }
  SECTION("largest finite doubles") {
    CHECK(exact_of({kMax, -kMax}) == 0.0);
    CHECK(exact_of({kMax, kMax, -kMax}) == kMax);  // exact through an intermediate overflow
    CHECK(exact_of({kMax, kMax}) == kInf);
    CHECK(exact_of({-kMax, -kMax}) == -kInf);
    // kMax has an odd mantissa: kMax + ulp/2 is a tie that rounds up to 2^1024 -> inf.
    CHECK(exact_of({kMax, 0x1p970}) == kInf);
    CHECK(exact_of({kMax, 0x1p969}) == kMax);
    CHECK(exact_of({kMax, 0x1p970, -0x1p-1074}) == kMax);
    CHECK(exact_of({-kMax, -0x1p970}) == -kInf);
    // 2^1023 * 2 overflows, 2^1023 + 2^1022 does not.
    CHECK(exact_of({0x1p1023, 0x1p1023}) == kInf);
    CHECK(exact_of({0x1p1023, 0x1p1022}) == 0x1.8p1023);
  }
  SECTION("subnormals") {
    CHECK(exact_of({kDenormMin, kDenormMin}) == 2 * kDenormMin);
    CHECK(exact_of({kMinNormal - kDenormMin, kDenormMin}) == kMinNormal);
    CHECK(exact_of({kMinNormal, -kDenormMin}) == kMinNormal - kDenormMin);
    CHECK(exact_of({kMinNormal, kMinNormal}) == 2 * kMinNormal);
    CHECK(exact_of({0x1.fffffffffffffp-1022, kDenormMin}) == 0x1p-1021);
    CHECK(exact_of({-kDenormMin, -kDenormMin, -kDenormMin}) == -3 * kDenormMin);
    // Rounding at the bottom of the normal range: 2^-1021 + 2^-1074 sits halfway between two
    // doubles spaced 2^-1073 apart (tie -> even), and + 2^-1074 + 2^-1074 is exact.
    CHECK(exact_of({0x1p-1021, kDenormMin}) == 0x1p-1021);
    CHECK(exact_of({0x1p-1021, 3 * kDenormMin}) == 0x1.0000000000002p-1021);
    CHECK(exact_of({0x1p-1021, kDenormMin, kDenormMin}) == 0x1.0000000000001p-1021);
  }
  SECTION("ties in the final rounding") {
    CHECK(exact_of({1.0, 0x1p-53}) == 1.0);                       // tie -> even (down)
    CHECK(exact_of({1.0, 0x1p-53, 0x1p-105}) == 1.0 + 0x1p-52);   // just above the tie -> up
    CHECK(exact_of({1.0, 0x1p-53, -0x1p-105}) == 1.0);            // just below the tie
    CHECK(exact_of({1.0, 0x1p-53, 0x1p-1074}) == 1.0 + 0x1p-52);  // sticky bit far below
    CHECK(exact_of({1.0, 0x1p-52, 0x1p-53}) == 1.0 + 0x1p-51);    // tie, odd -> up to even
    CHECK(exact_of({-1.0, -0x1p-53}) == -1.0);
    CHECK(exact_of({-1.0, -0x1p-53, -0x1p-105}) == -(1.0 + 0x1p-52));
    CHECK(exact_of({0x1.fffffffffffffp0, 0x1p-52}) == 2.0);  // carry into the exponent
    CHECK(exact_of({2.0, -0x1p-53}) == 2.0);                 // tie below a power of two
    CHECK(exact_of({2.0, -0x1p-53, -0x1p-200}) == 0x1.fffffffffffffp0);
    CHECK(exact_of({0x1p60, 1.0, 1.0}) == 0x1p60);  // 2^60 + 2 is below half an ulp (256)
    CHECK(exact_of({0x1p60, 0x1p7}) == 0x1p60);     // exact tie, even
    CHECK(exact_of({0x1p60, 0x1p7, 1.0}) == 0x1.0000000000001p60);
  }
  SECTION("values computed independently (Python math.fsum, correctly rounded)") {
    CHECK(exact_of({-0x1.1433a6aa79987p-70, -0x1.6f86c029a7245p+288, -0x1.778e7d340bbcdp+217, -0x1.a58ba4c73a942p+431,
                    -0x1.971105e503a67p+745, 0x1.ec40a3193ca54p+83, 0x1.1433a6aa79987p-70, 0x1.778e7d340bbcdp+217,
                    0x0.0000000000001p-1022, -0x0.0000000000003p-1022, 0x1.1ccf385ebc8a0p+1023,
                    -0x1.1ccf25b46d3fcp+1023}) == 0x1.2aa4f4a400000p+1003);
    CHECK(exact_of({0x1.8efeb198ba843p-70, -0x1.0ccc3acfc3d70p+81, -0x1.a325f89f86004p+13, 0x1.e54922c56eac2p+27,
                    0x1.249604e41cb3cp-30, 0x1.0ebe58e8b8e95p+52, -0x1.22672b9acfc6bp+56, -0x1.1937cb15faa70p+4,
                    -0x1.ec0d33289b221p-58, 0x1.0282c1e442b41p-61, 0x1.287d7acc33b31p-34, -0x1.05f26d50bdea3p-30}) ==
          -0x1.0ccc3b58817a0p+81);
    CHECK(exact_of({0x0.f7ace06e0f458p-1022, -0x0.01b5500e266d0p-1022, -0x0.94820c555663fp-1022,
                    0x0.1978c495cfa4fp-1022, -0x0.e2b281b1bcf72p-1022, -0x0.60002bc90a6ecp-1022,
                    0x0.860a7f5cdb941p-1022, -0x0.0a4dece9fb6a8p-1022, 0x0.df8961eab5cd8p-1022,
                    -0x0.bcb8a3764b52ep-1022, 0x1.0000000000000p-1022, -0x0.5555555555555p-1022}) ==
          0x0.817396b790028p-1022);
  }
}

TEST_CASE("order independence over random permutations", "[exact]") {
  std::mt19937_64 rng(20240601);
  std::vector<double> xs(100000);
  for (double& x : xs) x = random_log_uniform(rng, -300.0, 300.0);
  // Add some exact cancellations and subnormals.
  for (int i = 0; i < 1000; ++i) xs[static_cast<std::size_t>(i) * 2 + 1] = -xs[static_cast<std::size_t>(i) * 2];
  xs[10] = kDenormMin;
  xs[11] = -3 * kDenormMin;

  const ExactSum ref = sum_of(xs);
  const double ref_d = ref.to_double();
  REQUIRE(std::isfinite(ref_d));
  for (int trial = 0; trial < 10; ++trial) {
    std::shuffle(xs.begin(), xs.end(), rng);
    const ExactSum s = sum_of(xs);
    CHECK(bits_of(s.to_double()) == bits_of(ref_d));
    CHECK(same_bytes(s, ref));
  }
  // Reversed and sorted orders too (sorted by magnitude is the classic worst case for naive sums).
  std::sort(xs.begin(), xs.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  CHECK(same_bytes(sum_of(xs), ref));
  std::reverse(xs.begin(), xs.end());
  CHECK(same_bytes(sum_of(xs), ref));
}

TEST_CASE("agreement with references on benign inputs", "[exact]") {
  std::mt19937_64 rng(7);

  SECTION("long double sum, exact by construction") {
    // Multiples of 2^-20 below 2^30 in magnitude: 50 bits each; 1000 of them sum to < 2^40, i.e.
    // 60 significant bits, which long double (64-bit mantissa, x86) holds exactly. Converting the
    // long double to double then rounds once, correctly.
    if (std::numeric_limits<long double>::digits >= 64) {
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<double> xs(1000);
        long double ref = 0;
        for (double& x : xs) {
          const std::int64_t k = static_cast<std::int64_t>(rng() >> 14) - (std::int64_t{1} << 49);
          x = std::ldexp(static_cast<double>(k), -20);
          ref += x;
        }
        REQUIRE(bits_of(sum_of(xs).to_double()) == bits_of(static_cast<double>(ref)));
      }
    }
  }

  SECTION("exact integer sums of integer-valued doubles") {
    // |x| < 2^52, 2000 terms: the int64 sum is exact; int64 -> double rounds to nearest even,
    // which exercises the final rounding with genuine ties.
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> xs(2000);
      std::int64_t ref = 0;
      const int bits = 1 + static_cast<int>(rng() % 52);
      for (double& x : xs) {
        const std::int64_t k = static_cast<std::int64_t>(rng() >> (64 - bits)) - (std::int64_t{1} << (bits - 1));
        x = static_cast<double>(k);
        ref += k;
      }
      REQUIRE(bits_of(sum_of(xs).to_double()) == bits_of(static_cast<double>(ref)));
      // The same integers scaled by a power of two into the subnormal and the huge range.
      std::vector<double> lo(xs), hi(xs);
      for (double& x : lo) x = std::ldexp(x, -1074);
      for (double& x : hi) x = std::ldexp(x, 900);
      REQUIRE(bits_of(sum_of(lo).to_double()) ==
              bits_of(std::ldexp(static_cast<double>(ref), -1074)));  // exact: |ref| < 2^63
      REQUIRE(bits_of(sum_of(hi).to_double()) == bits_of(std::ldexp(static_cast<double>(ref), 900)));
    }
  }

  SECTION("compensated (two-sum) summation agrees to within its error on same-sign inputs") {
    for (int trial = 0; trial < 100; ++trial) {
      std::vector<double> xs(5000);
      double s = 0, c = 0;  // Neumaier: s + c approximates the sum with error ~ n eps^2 |sum|
      for (double& x : xs) {
        x = std::fabs(random_log_uniform(rng, -5.0, 5.0));
        const double t = s + x;
        c += (std::fabs(s) >= std::fabs(x)) ? (s - t) + x : (x - t) + s;
        s = t;
      }
      const double comp = s + c;
      const double exact = sum_of(xs).to_double();
      REQUIRE(std::fabs(exact - comp) <= 2 * std::numeric_limits<double>::epsilon() * exact);
    }
  }
}

TEST_CASE("to_double is correctly rounded (checked exactly with residuals)", "[exact]") {
  // For r = to_double(S) with |r| a normal double not a power of two and not near overflow, r is the
  // nearest-even rounding of S iff 2(S - r) lies in [-u, u] (u = ulp(r)), and on the boundary only
  // when r's mantissa is even. All of it is evaluated exactly with ExactSum itself.
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> xs(1 + rng() % 20);
    const int e0 = static_cast<int>(rng() % 1800) - 900;
    for (double& x : xs) {
      // Terms whose magnitudes cluster around 2^e0 but spread far below it, so ties and sticky
      // bits actually matter.
      const int e = e0 - static_cast<int>(rng() % 120);
      const double m = std::ldexp(static_cast<double>(rng() >> 11), -53);  // [0, 1)
      x = std::ldexp((rng() & 1) ? -m : m, e);
      if (rng() % 8 == 0) x = std::ldexp(1.0, e);  // powers of two make exact ties likely
    }
    const ExactSum s = sum_of(xs);
    const double r = s.to_double();
    if (r == 0 || !std::isnormal(r) || std::fabs(r) > 0x1p1000) continue;
    int ex;
    const double fr = std::frexp(std::fabs(r), &ex);
    if (fr == 0.5) continue;  // power of two: spacing differs on the two sides
    const double u = std::ldexp(1.0, ex - 53);
    ExactSum d = s;  // d = S - r
    d.add(-r);
    ExactSum twice = d;
    twice.merge(d);  // 2(S - r)
    ExactSum upper = twice;
    upper.add(-u);  // 2(S - r) - u <= 0
    ExactSum lower = twice;
    lower.add(u);  // 2(S - r) + u >= 0
    const bool even = (bits_of(r) & 1) == 0;
    const int su = sign_of(upper), sl = sign_of(lower);
    REQUIRE(su <= 0);
    REQUIRE(sl >= 0);
    if (su == 0 || sl == 0) REQUIRE(even);
  }
}

TEST_CASE("merging split partitions equals the whole", "[exact]") {
  std::mt19937_64 rng(3);
  std::vector<double> xs(64);
  for (double& x : xs) x = random_finite(rng);
  // Keep the total finite: pair each huge value with its near-negation.
  for (std::size_t i = 0; i + 1 < xs.size(); i += 2)
    if (std::fabs(xs[i]) > 1e300) xs[i + 1] = -xs[i] * 0.75;
  xs[5] = kDenormMin;
  xs[6] = kMax;
  xs[7] = -kMax;
  const ExactSum whole = sum_of(xs);

  for (std::size_t cut = 0; cut <= xs.size(); ++cut) {
    ExactSum a{}, b{};
    for (std::size_t i = 0; i < cut; ++i) a.add(xs[i]);
    for (std::size_t i = cut; i < xs.size(); ++i) b.add(xs[i]);
    ExactSum ab = a;
    ab.merge(b);
    ExactSum ba = b;
    ba.merge(a);
    REQUIRE(same_bytes(ab, whole));
    REQUIRE(same_bytes(ba, whole));
    REQUIRE(bits_of(ab.to_double()) == bits_of(whole.to_double()));
    // Normalising either side first changes nothing.
    a.normalize();
    ExactSum an = a;
    an.merge(b);
    REQUIRE(same_bytes(an, whole));
  }

  // Every element its own accumulator, merged as a balanced tree and as a chain.
  std::vector<ExactSum> parts(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    parts[i].clear();
    parts[i].add(xs[i]);
  }
  std::vector<ExactSum> level = parts;
  while (level.size() > 1) {
    std::vector<ExactSum> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      ExactSum t = level[i];
      if (i + 1 < level.size()) t.merge(level[i + 1]);
      next.push_back(t);
    }
    level = next;
  }
  CHECK(same_bytes(level[0], whole));
  ExactSum chain{};
  for (const ExactSum& p : parts) chain.merge(p);
  CHECK(same_bytes(chain, whole));
}

TEST_CASE("merge with itself doubles the value", "[exact]") {
  ExactSum s = sum_of({0.75, -0x1p-1070, 3e-300});
  const ExactSum orig = s;
  s.merge(s);
  ExactSum expect = orig;
  expect.merge(orig);
  CHECK(same_bytes(s, expect));
  CHECK(s.to_double() == 2 * orig.to_double());
}

TEST_CASE("non-finite inputs behave like an ordinary sum", "[exact]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(exact_of({1.0, kInf}) == kInf);
  CHECK(exact_of({1.0, -kInf, 5.0}) == -kInf);
  CHECK(exact_of({kInf, kInf}) == kInf);
  CHECK(exact_of({-kMax, -kMax, kInf}) == kInf);  // inf wins over a finite overflow
  CHECK(std::isnan(exact_of({kInf, -kInf})));
  CHECK(std::isnan(exact_of({1.0, nan})));
  CHECK(std::isnan(exact_of({kInf, nan})));
  CHECK(std::isnan(exact_of({-nan})));

  ExactSum s = sum_of({1.0, kInf});
  CHECK_FALSE(s.is_zero());
  CHECK(s.nonfinite[ExactSum::kPosInf] == 1);
  // Non-finite values leave the finite part alone.
  ExactSum f = sum_of({1.0});
  ExactSum g = s;
  g.nonfinite[ExactSum::kPosInf] = 0;
  CHECK(same_bytes(f, g));

  // Counts merge.
  ExactSum a = sum_of({kInf}), b = sum_of({-kInf});
  CHECK(a.to_double() == kInf);
  a.merge(b);
  CHECK(std::isnan(a.to_double()));
}

namespace {

// x = (2^53 - 1) * 2^(pos - 1074) with pos % 32 == 31: its shifted mantissa fills three digits with
// large entries (0x80000000, 0xffffffff, 0xfffff), the worst case for deferred carries.
constexpr int kWorstPos = 32 * 20 + 31;

double worst_case_double() { return std::ldexp(static_cast<double>((std::uint64_t{1} << 53) - 1), kWorstPos - 1074); }

// Documented bound: pending <= kMaxPending and |limb| < (pending + 1) * 2^32 below the top limb.
bool carry_invariant_holds(const ExactSum& s) {
  const std::int64_t bound = (static_cast<std::int64_t>(s.pending) + 1) << 32;
  bool ok = s.pending <= ExactSum::kMaxPending;
  for (int k = 0; k < ExactSum::kTop; ++k) ok = ok && s.limb[k] < bound && s.limb[k] > -bound;
  return ok;
}

}  // namespace

TEST_CASE("deferred carries: automatic normalisation keeps every add exact", "[exact]") {
  const int pos = kWorstPos;
  const double x = worst_case_double();
  REQUIRE(std::isnormal(x));
  const std::uint64_t n = std::uint64_t{ExactSum::kMaxPending} * 6 + 12345;  // several normalisations

  for (double sign : {1.0, -1.0}) {
    ExactSum s{};
    std::uint32_t max_pending = 0;
    int normalisations = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t before = s.pending;
      s.add(sign * x);
      if (s.pending < before) ++normalisations;
      max_pending = std::max(max_pending, s.pending);
      if ((i & 0xffff) == 0 || s.pending == ExactSum::kMaxPending) REQUIRE(carry_invariant_holds(s));
    }
    CHECK(max_pending == ExactSum::kMaxPending);
    CHECK(normalisations >= 6);
    // Closed form: n * x, with n * (2^53 - 1) computed exactly in 128 bits and rounded to 53 bits
    // by hand (nearest, ties to even).
    __extension__ typedef unsigned __int128 u128;
    const u128 prod = static_cast<u128>(n) * ((std::uint64_t{1} << 53) - 1);
    int len = 0;
    while ((prod >> len) != 0) ++len;
    const int drop = len - 53;
    std::uint64_t mant = static_cast<std::uint64_t>(prod >> drop);
    const u128 rest = prod & ((static_cast<u128>(1) << drop) - 1);
    const u128 half = static_cast<u128>(1) << (drop - 1);
    if (rest > half || (rest == half && (mant & 1))) ++mant;
    const double expect = sign * std::ldexp(static_cast<double>(mant), pos - 1074 + drop);
    CHECK(bits_of(s.to_double()) == bits_of(expect));

    // Subtract the same amount again in a different grouping: exactly zero.
    ExactSum t{};
    for (std::uint64_t i = 0; i < n; ++i) t.add(-sign * x);
    s.merge(t);
    CHECK(s.is_zero());
  }
}

TEST_CASE("deferred carries: merge chains force normalisation too", "[exact]") {
  const double x = worst_case_double();
  // Repeated self-merges double pending each time; 60 doublings would overflow int64 limbs
  // without the automatic normalisation inside merge(). 1000 * x rounds once, like the exact sum.
  ExactSum s{};
  for (int i = 0; i < 1000; ++i) s.add(x);
  for (int i = 0; i < 60; ++i) {
    s.merge(s);
    REQUIRE(carry_invariant_holds(s));
  }
  CHECK(s.to_double() == std::ldexp(1000 * x, 60));
}

TEST_CASE("sums beyond the double range stay exact", "[exact]") {
  ExactSum s{};
  const std::uint64_t m = std::uint64_t{ExactSum::kMaxPending} * 3;
  for (std::uint64_t i = 0; i < m; ++i) s.add(kMax);
  CHECK(s.to_double() == kInf);
  for (std::uint64_t i = 0; i + 1 < m; ++i) s.add(-kMax);
  CHECK(s.to_double() == kMax);
  s.add(-kMax);
  s.add(-kMax);
  CHECK(s.to_double() == -kMax);
}
