// Unit tests for base/exact/uint128.hpp (256-bit products, comparisons, correctly rounded
// conversion to double, decimal strings) and base/exact/fixed_weight.hpp.
//
// References are independent of the code under test: products against a schoolbook multiplication
// on 32-bit limbs, to_double() against an exact check of the rounding in 128-bit integers (distance
// to the result at most half an ulp, ties to an even significand), to_string() by parsing back and
// against hand-written decimals. All random inputs come from fixed seeds.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/exact/fixed_weight.hpp"
#include "base/exact/uint128.hpp"

using rsmc::exact::compare;
using rsmc::exact::compare_products;
using rsmc::exact::fixed_weight;
using rsmc::exact::mul_wide;
using rsmc::exact::to_double;
using rsmc::exact::to_string;
using rsmc::exact::u128;
using rsmc::exact::U256;

namespace {

constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};

u128 make(std::uint64_t hi, std::uint64_t lo) { return (static_cast<u128>(hi) << 64) | lo; }
const u128 kMax128 = make(kAllOnes, kAllOnes);

// Reference product: schoolbook on four 32-bit limbs per operand, 32 x 32 -> 64-bit partial
// products accumulated column by column with explicit carries.
U256 reference_product(u128 a, u128 b) {
  std::uint32_t x[4], y[4];
  for (int i = 0; i < 4; ++i) {
    x[i] = static_cast<std::uint32_t>(a >> (32 * i));
    y[i] = static_cast<std::uint32_t>(b >> (32 * i));
  }
  std::uint32_t z[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < 4; ++j) {
      const std::uint64_t t = static_cast<std::uint64_t>(x[i]) * y[j] + z[i + j] + carry;
      z[i + j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    z[i + 4] = static_cast<std::uint32_t>(carry);
  }
  U256 r;
  for (int k = 0; k < 4; ++k) r.w[k] = (static_cast<std::uint64_t>(z[2 * k + 1]) << 32) | z[2 * k];
  return r;
}

bool same(const U256& x, const U256& y) {
  return x.w[0] == y.w[0] && x.w[1] == y.w[1] && x.w[2] == y.w[2] && x.w[3] == y.w[3];
}

// Reference comparison, word by word from the top (written independently of compare()).
int reference_compare(const U256& x, const U256& y) {
  for (int k = 3; k >= 0; --k) {
    if (x.w[k] < y.w[k]) return -1;
    if (x.w[k] > y.w[k]) return 1;
  }
  return 0;
}

// Awkward 128-bit values: random ones with random bit lengths, and edge values.
std::vector<u128> test_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<u128> v = {0,
                         1,
                         2,
                         kAllOnes,
                         make(1, 0),
                         make(1, 1),
                         make(0x8000000000000000ULL, 0),
                         make(0x7fffffffffffffffULL, kAllOnes),
                         make(kAllOnes, 0),
                         make(kAllOnes, kAllOnes - 1),
                         kMax128};
  while (v.size() < count) {
    u128 x = make(rng(), rng());
    const unsigned bits = static_cast<unsigned>(rng() % 129);  // 0..128
    if (bits < 128) x &= (static_cast<u128>(1) << bits) - 1;
    v.push_back(x);
  }
  return v;
}

// True if d is the double nearest to x, ties to even, checked in exact integer arithmetic.
// d must be a non-negative integer value <= 2^128. With ulp = the spacing of doubles above d and
// ulp_below = the spacing below (half of ulp when d is a power of two), x must lie in
// [d - ulp_below / 2, d + ulp / 2], and at either end (a tie) d's significand must be even.
bool is_correctly_rounded(u128 x, double d) {
  if (!(d >= 0.0) || d > 0x1p128) return false;
  if (d == 0x1p128) {
    // The double below 2^128 is 2^128 - 2^75, so x rounds to 2^128 iff x >= 2^128 - 2^74 (the
    // midpoint is a tie that goes to 2^128, whose significand is even).
    return x >= kMax128 - ((static_cast<u128>(1) << 74) - 1);
  }
  const auto dx = static_cast<u128>(d);  // exact: d is an integer below 2^128
  if (static_cast<double>(dx) != d) return false;
  if (d < 0x1p53) return dx == x;  // every integer below 2^53 is a double
  int e = 0;
  std::frexp(d, &e);  // d = f 2^e, f in [1/2, 1): the spacing above d is 2^(e - 53)
  const int ulp_exp = e - 53;
  const u128 ulp = static_cast<u128>(1) << ulp_exp;
  const bool power_of_two = (dx & (dx - 1)) == 0;
  const u128 ulp_below = power_of_two ? ulp / 2 : ulp;
  const bool even = ((dx >> ulp_exp) & 1) == 0;
  if (x >= dx) {
    const u128 twice = 2 * (x - dx);
    return twice < ulp || (twice == ulp && even);
  }
  const u128 twice = 2 * (dx - x);
  return twice < ulp_below || (twice == ulp_below && even);
}

u128 parse(const std::string& s) {
  u128 x = 0;
  for (char c : s) x = x * 10 + static_cast<unsigned>(c - '0');
  return x;
}

}  // namespace

TEST_CASE("mul_wide matches a 32-bit-limb schoolbook product", "[exact_integers]") {
  const std::vector<u128> vals = test_values(400, 0x11);
  for (u128 a : vals) {
    for (std::size_t j = 0; j < vals.size(); j += 7) {
      const u128 b = vals[j];
      const U256 got = mul_wide(a, b);
      const U256 want = reference_product(a, b);
      INFO("a = " << to_string(a) << ", b = " << to_string(b));
      REQUIRE(same(got, want));
    }
  }
}

TEST_CASE("mul_wide hand cases", "[exact_integers]") {
  // (2^128 - 1)^2 = 2^256 - 2^129 + 1.
  const U256 sq = mul_wide(kMax128, kMax128);
  CHECK(sq.w[0] == 1);
  CHECK(sq.w[1] == 0);
  CHECK(sq.w[2] == kAllOnes - 1);
  CHECK(sq.w[3] == kAllOnes);
  // (2^128 - 1) * 1, * 0, * 2.
  const U256 one = mul_wide(kMax128, 1);
  CHECK((one.w[0] == kAllOnes && one.w[1] == kAllOnes && one.w[2] == 0 && one.w[3] == 0));
  const U256 zero = mul_wide(0, kMax128);
  CHECK((zero.w[0] == 0 && zero.w[1] == 0 && zero.w[2] == 0 && zero.w[3] == 0));
  const U256 two = mul_wide(kMax128, 2);
  CHECK((two.w[0] == kAllOnes - 1 && two.w[1] == kAllOnes && two.w[2] == 1 && two.w[3] == 0));
  // 2^127 * 2^127 = 2^254.
  const U256 top = mul_wide(make(1ULL << 63, 0), make(1ULL << 63, 0));
  CHECK((top.w[0] == 0 && top.w[1] == 0 && top.w[2] == 0 && top.w[3] == (1ULL << 62)));
  // (2^64 - 1)^2 = 2^128 - 2^65 + 1.
  const U256 w = mul_wide(kAllOnes, kAllOnes);
  CHECK((w.w[0] == 1 && w.w[1] == kAllOnes - 1 && w.w[2] == 0 && w.w[3] == 0));
}

TEST_CASE("compare and compare_products are exact", "[exact_integers]") {
  const std::vector<u128> vals = test_values(200, 0x22);
  std::mt19937_64 rng(0x33);
  for (std::size_t i = 0; i < 20000; ++i) {
    const u128 a = vals[rng() % vals.size()], b = vals[rng() % vals.size()];
    const u128 c = vals[rng() % vals.size()], d = vals[rng() % vals.size()];
    const int want = reference_compare(reference_product(a, b), reference_product(c, d));
    REQUIRE(compare(mul_wide(a, b), mul_wide(c, d)) == want);
    REQUIRE(compare_products(a, b, c, d) == want);
    REQUIRE(compare_products(c, d, a, b) == -want);
  }
  // Equal products written differently, and neighbours differing by one unit of a huge product.
  for (u128 a : vals) {
    const u128 b = vals[(static_cast<std::size_t>(a) * 31 + 7) % vals.size()];
    CHECK(compare_products(a, b, b, a) == 0);
    if (b < kMax128 && a > 0) {
      CHECK(compare_products(a, b, a, b + 1) == -1);
      CHECK(compare_products(a, b + 1, a, b) == 1);
    }
    const u128 h = a >> 1;  // h * 2 and (2h) * 1 without overflow
    CHECK(compare_products(h, 2, 2 * h, 1) == 0);
  }
  // Products that differ only in the lowest bit of 256: x^2 versus (x - 1)(x + 1) = x^2 - 1.
  const u128 x = kMax128 - 1;
  CHECK(compare_products(x, x, x - 1, x + 1) == 1);
  CHECK(compare_products(x - 1, x + 1, x, x) == -1);
  CHECK(compare(mul_wide(x, x), mul_wide(x, x)) == 0);
}

TEST_CASE("to_double rounds to nearest, ties to even", "[exact_integers]") {
  const u128 two53 = static_cast<u128>(1) << 53;
  CHECK(to_double(0) == 0.0);
  CHECK(to_double(1) == 1.0);
  CHECK(to_double(two53 + 1) == 0x1p53);                 // tie -> even (down)
  CHECK(to_double(two53 + 3) == 0x1p53 + 4.0);           // tie -> even (up)
  CHECK(to_double(kAllOnes) == 0x1p64);                  // below 2^64: the u64 path
  CHECK(to_double(make(1, 0)) == 0x1p64);                // 2^64 exactly
  CHECK(to_double(make(1, 0x7ff)) == 0x1p64);            // 2^64 + 2^11 - 1: below the midpoint
  CHECK(to_double(make(1, 0x800)) == 0x1p64);            // 2^64 + 2^11: tie -> even (down)
  CHECK(to_double(make(1, 0x801)) == 0x1p64 + 0x1p12);   // just above the tie
  CHECK(to_double(make(1, 0x1800)) == 0x1p64 + 0x1p13);  // tie between odd and even -> up
  // Ties decided only by a sticky bit far below the kept 64 bits: (2^53 + 1) 2^70 is a tie that
  // goes down (even), the same plus 1 is above the tie and goes up.
  const u128 tie = (two53 + 1) << 70;
  CHECK(to_double(tie) == 0x1p123);
  CHECK(to_double(tie + 1) == 0x1p123 + 0x1p71);
  CHECK(to_double(tie - 1) == 0x1p123);
  CHECK(to_double((two53 + 3) << 70) == 0x1p123 + 0x1p72);  // odd tie -> up
  CHECK(to_double(kMax128) == 0x1p128);
  CHECK(to_double(static_cast<u128>(1) << 127) == 0x1p127);

  // Exhaustive-style check on random and structured values: exact half-ulp bound, ties to even.
  std::vector<u128> vals = test_values(20000, 0x44);
  std::mt19937_64 rng(0x55);
  for (int i = 0; i < 20000; ++i) {
    // Values at and next to rounding ties at random magnitudes.
    const int shift = static_cast<int>(rng() % 74);                                    // the value stays below 2^128
    const u128 sig = (static_cast<u128>(rng() >> 10) | (static_cast<u128>(1) << 54));  // 55 bits
    const u128 base = sig << shift;
    vals.push_back(base);
    vals.push_back(base + 1);
    vals.push_back(base - 1);
  }
  for (u128 v : vals) {
    const double d = to_double(v);
    INFO("x = " << to_string(v) << ", to_double = " << d);
    REQUIRE(is_correctly_rounded(v, d));
    REQUIRE(d == static_cast<double>(v));  // the compiler's conversion rounds correctly too
  }
}

TEST_CASE("to_string writes decimal digits", "[exact_integers]") {
  CHECK(to_string(0) == "0");
  CHECK(to_string(7) == "7");
  CHECK(to_string(kAllOnes) == "18446744073709551615");
  CHECK(to_string(make(1, 0)) == "18446744073709551616");
  CHECK(to_string(kMax128) == "340282366920938463463374607431768211455");
  CHECK(to_string(static_cast<u128>(1) << 100) == "1267650600228229401496703205376");
  u128 p10 = 1;
  std::string digits = "1";
  for (int k = 1; k <= 38; ++k) {
    p10 *= 10;
    digits += "0";
    CHECK(to_string(p10) == digits);
    CHECK(to_string(p10 - 1) == std::string(static_cast<std::size_t>(k), '9'));
  }
  for (u128 v : test_values(2000, 0x66)) REQUIRE(parse(to_string(v)) == v);
}

TEST_CASE("fixed_weight: edge values", "[exact_integers]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(rsmc::exact::kFixedWeightFractionBits == 64);
  CHECK(fixed_weight(-inf, 0.0) == 0);
  CHECK(fixed_weight(-inf, 123.0) == 0);
  CHECK(fixed_weight(-inf, -inf) == 0);  // every weight zero
  CHECK(fixed_weight(nan, 0.0) == 0);
  // The maximum maps to 2^64 - 1, whatever its value.
  for (double m : {0.0, -1e300, 1e300, -745.0, 3.5, -0.0}) CHECK(fixed_weight(m, m) == kAllOnes);
  // A weight within rounding of the maximum clamps to 2^64 - 1 instead of wrapping.
  CHECK(fixed_weight(-1e-300, 0.0) == kAllOnes);
  CHECK(fixed_weight(-0x1p-60, 0.0) == kAllOnes);
  // Violated precondition (above the maximum): clamped.
  CHECK(fixed_weight(1.0, 0.0) == kAllOnes);
  // Underflow: exp(d) 2^64 < 1 gives 0. ln(2^-64) = -44.3614...
  CHECK(fixed_weight(-44.0, 0.0) == 1);  // exp(-44) 2^64 = 1.43...
  CHECK(fixed_weight(-44.3, 0.0) == 1);  // 1.06...
  CHECK(fixed_weight(-44.4, 0.0) == 0);  // 0.96...
  CHECK(fixed_weight(-45.0, 0.0) == 0);
  CHECK(fixed_weight(-46.0, 0.0) == 0);  // the early exit
  CHECK(fixed_weight(-1000.0, 0.0) == 0);
  CHECK(fixed_weight(-1e308, 1e308) == 0);  // d = -inf after rounding
}

TEST_CASE("fixed_weight_given_exp converts exactly on both sides of 2^63", "[exact_integers]") {
  // e 2^64 is an integer for these e, so the floor is that integer exactly; the conversion of
  // values at and above 2^63 takes the subtract-2^63 path, below it the plain one.
  using rsmc::exact::fixed_weight_given_exp;
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0.5) == two63);
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0.75) == two63 + (two63 >> 1));
  CHECK(fixed_weight_given_exp(-0.1, 0.0, std::nextafter(1.0, 0.0)) == kAllOnes - 2047);  // 2^64 - 2^11
  CHECK(fixed_weight_given_exp(-0.1, 0.0, std::nextafter(0.5, 0.0)) == two63 - 1024);     // 2^63 - 2^10
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0.25) == two63 >> 1);
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0x1p-64) == 1);
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0x1.8p-63) == 3);
  // Fractions (possible below 2^53 only) are floored: 2^64 (2^-20 + 2^-70) = 2^44 + 1/64.
  CHECK(fixed_weight_given_exp(-0.1, 0.0, 0x1p-20 + 0x1p-70) == std::uint64_t{1} << 44);
}

TEST_CASE("fixed_weight: powers of two relative to the maximum", "[exact_integers]") {
  // log_weight = max - k ln 2 gives 2^(64 - k). The double exp has ~53 significant bits and the
  // argument k ln 2 is itself rounded, so the result is exact to a relative error of a few ulp
  // times k, plus the flooring (one unit): |fw - 2^(64-k)| <= 2^(64-k) (k + 2) 2^-52 + 1.
  // For k >= 52 or so this tolerance is one or two units.
  const double ln2 = 0.69314718055994530942;
  for (double max : {0.0, 0.25, -3.0}) {
    for (int k = 1; k <= 64; ++k) {
      const double lw = max - k * ln2;
      const double want = std::ldexp(1.0, 64 - k);
      const double tol = want * (k + 2) * 0x1p-52 * (max == 0.0 ? 1.0 : 8.0) + 1.0;
      const double got = static_cast<double>(fixed_weight(lw, max));
      INFO("max = " << max << ", k = " << k << ", got = " << got << ", want = " << want);
      CHECK(std::fabs(got - want) <= tol);
    }
  }
  // Independent reference in long double (64-bit significand on x86; at least double elsewhere):
  // floor(expl(d) 2^64) within the same relative tolerance.
  std::mt19937_64 rng(0x77);
  std::uniform_real_distribution<double> dist(-44.0, 0.0);
  for (int i = 0; i < 10000; ++i) {
    const double d = dist(rng);
    const long double want = std::floor(std::ldexp(std::exp(static_cast<long double>(d)), 64));
    const double got = static_cast<double>(fixed_weight(d, 0.0));
    CHECK(std::fabs(static_cast<long double>(got) - want) <= want * 0x1p-51L + 1.0L);
  }
}

TEST_CASE("fixed_weight is monotone in the log-weight", "[exact_integers]") {
  for (double max : {0.0, 17.5}) {
    std::uint64_t prev = 0;
    // A fine grid through the whole range, including the underflow edge and the maximum.
    for (int i = 0; i <= 200000; ++i) {
      const double lw = max - 46.0 + 46.0 * i / 200000.0;
      const std::uint64_t fw = fixed_weight(lw, max);
      REQUIRE(fw >= prev);
      prev = fw;
    }
    CHECK(prev == kAllOnes);
    // Adjacent doubles just below the maximum.
    double lw = max;
    prev = kAllOnes;
    for (int i = 0; i < 1000; ++i) {
      lw = std::nextafter(lw, -1e300);
      const std::uint64_t fw = fixed_weight(lw, max);
      REQUIRE(fw <= prev);
      prev = fw;
    }
  }
}
