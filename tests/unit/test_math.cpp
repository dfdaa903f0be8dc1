// Unit tests for rsmc::math (base/math/): special values and signed zeros as documented, exact
// values where the exact result is a double, results identical whether a loop is vectorised or not,
// known answers that pin the bits on every platform, and a check that this translation unit is
// built without FMA contraction.
//
// Accuracy over 10^7 arguments per function is tests/math/math_accuracy.cpp (CTest math/accuracy);
// identity across -march levels is scripts/math-cross-march.sh (CTest math/cross_march); the CUDA
// device against the host is tests/cuda/test_cuda_math.cu.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/math/math.hpp"
#include "tests/math/math_cases.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kMax;

using rsmc::test::kNaN;

using rsmc::test::kInf;

namespace math = rsmc::math;
using rsmc::math_test::Args;

namespace {

constexpr double kMinSubnormal = std::numeric_limits<double>::denorm_min();

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Same value and the same sign of zero; any NaN equals any NaN (payloads are not specified).
bool identical(double a, double b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

std::string show(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

// Distance in ulps between two finite doubles of the same sign (the number of doubles between them).
std::uint64_t ulps_apart(double a, double b) {
  const std::uint64_t ua = bits(a), ub = bits(b);
  return ua > ub ? ua - ub : ub - ua;
}

struct Special {
  double x;
  double expected;
};

void check_specials(const char* name, double (*f)(double), const std::vector<Special>& cases) {
  for (const Special& c : cases) {
    INFO(name << "(" << show(c.x) << ") = " << show(f(c.x)) << ", expected " << show(c.expected));
    CHECK(identical(f(c.x), c.expected));
  }
}

// Within `ulps` of a correctly rounded value given as a literal (for results that are not exact).
void check_near(const char* name, double got, double correctly_rounded, std::uint64_t ulps) {
  INFO(name << " = " << show(got) << ", correctly rounded " << show(correctly_rounded));
  CHECK((std::signbit(got) == std::signbit(correctly_rounded) && ulps_apart(got, correctly_rounded) <= ulps));
}

}  // namespace

TEST_CASE("exp and expm1: special values, overflow and the subnormal range", "[math]") {
  check_specials("exp", math::exp,
                 {{0.0, 1.0},
                  {-0.0, 1.0},
                  {kInf, kInf},
                  {-kInf, 0.0},
                  {kNaN, kNaN},
                  {710.0, kInf},
                  {1e300, kInf},
                  {-746.0, 0.0},
                  {-1e300, 0.0}});
  check_specials("expm1", math::expm1,
                 {{0.0, 0.0},
                  {-0.0, -0.0},
                  {kInf, kInf},
                  {-kInf, -1.0},
                  {kNaN, kNaN},
                  {-40.0, -1.0},
                  {-1e300, -1.0},
                  {710.0, kInf},
                  {1e-300, 1e-300},
                  {-1e-300, -1e-300},
                  {kMinSubnormal, kMinSubnormal}});
  // e^x at the ends of the range: the largest finite result, and the smallest subnormal.
  CHECK(std::isfinite(math::exp(709.78)));
  CHECK(math::exp(709.79) == kInf);
  CHECK(math::exp(-745.13) == kMinSubnormal);
  CHECK(math::exp(-745.14) == 0.0);
  check_near("exp(1)", math::exp(1.0), 0x1.5bf0a8b145769p+1, 1);
  check_near("exp(-1)", math::exp(-1.0), 0x1.78b56362cef38p-2, 1);
  check_near("expm1(1e-10)", math::expm1(1e-10), 0x1.b7cdfd9dda4e3p-34, 1);  // 1e-10 + 5e-21
}

TEST_CASE("log and log1p: special values and the ends of the range", "[math]") {
  check_specials("log", math::log,
                 {{1.0, 0.0},
                  {0.0, -kInf},
                  {-0.0, -kInf},
                  {-1.0, kNaN},
                  {-kInf, kNaN},
                  {kInf, kInf},
                  {kNaN, kNaN},
                  {-kMinSubnormal, kNaN}});
  check_specials("log1p", math::log1p,
                 {{0.0, 0.0},
                  {-0.0, -0.0},
                  {-1.0, -kInf},
                  {-2.0, kNaN},
                  {-kInf, kNaN},
                  {kInf, kInf},
                  {kNaN, kNaN},
                  {1e-300, 1e-300},
                  {-1e-300, -1e-300},
                  {kMinSubnormal, kMinSubnormal}});
  check_near("log(2)", math::log(2.0), 0x1.62e42fefa39efp-1, 1);
  check_near("log(denorm_min)", math::log(kMinSubnormal), -0x1.74385446d71c3p+9, 1);  // -744.44
  check_near("log(max)", math::log(kMax), 0x1.62e42fefa39efp+9, 1);                   // 709.78
  check_near("log1p(max)", math::log1p(kMax), 0x1.62e42fefa39efp+9, 1);
  check_near("log1p(-0.5)", math::log1p(-0.5), -0x1.62e42fefa39efp-1, 1);
  check_near("log(1 + 2^-52)", math::log(1.0 + 0x1p-52), 0x1.fffffffffffffp-53, 1);
}

TEST_CASE("sincos_2pi: exact quarter points, signed zeros, any finite u", "[math]") {
  struct Point {
    double u, sin, cos;
  };
  const std::vector<Point> points = {
      {0.0, 0.0, 1.0},
      {-0.0, -0.0, 1.0},
      {0.25, 1.0, 0.0},
      {0.5, 0.0, -1.0},
      {0.75, -1.0, 0.0},
      {1.0, 0.0, 1.0},
      {-0.25, -1.0, 0.0},
      {-0.5, -0.0, -1.0},
      {-1.0, -0.0, 1.0},
      {0x1p60, 0.0, 1.0},
      {-0x1p60, -0.0, 1.0},
      {0x1p51 + 0.5, 0.0, -1.0},
      {-0x1p51 - 0.5, -0.0, -1.0},
      {0x1p52 + 1.0, 0.0, 1.0},
      {0x1p50 + 0.25, 1.0, 0.0},
      {kInf, kNaN, kNaN},
      {-kInf, kNaN, kNaN},
      {kNaN, kNaN, kNaN},
  };
  for (const Point& p : points) {
    const math::SinCos r = math::sincos_2pi(p.u);
    INFO("u = " << show(p.u) << ": sin " << show(r.sin) << ", cos " << show(r.cos));
    CHECK(identical(r.sin, p.sin));
    CHECK(identical(r.cos, p.cos));
    CHECK(identical(math::sin_2pi(p.u), r.sin));
    CHECK(identical(math::cos_2pi(p.u), r.cos));
  }
  // Subnormal u: sin(2 pi u) rounds once into the subnormals; 2 pi 2^-1074 rounds to 6 2^-1074.
  CHECK(math::sin_2pi(kMinSubnormal) == 6 * kMinSubnormal);
  check_near("sin_2pi(1/8)", math::sin_2pi(0.125), 0x1.6a09e667f3bcdp-1, 1);
  check_near("cos_2pi(1/8)", math::cos_2pi(0.125), 0x1.6a09e667f3bcdp-1, 1);
  check_near("cos_2pi(1/3)", math::cos_2pi(1.0 / 3.0), -0x1.ffffffffffffep-2, 1);  // u = fl(1/3)
}

TEST_CASE("sin and cos: signed zeros, the documented domain |x| <= 2^26, NaN outside", "[math]") {
  check_specials("sin", math::sin,
                 {{0.0, 0.0},
                  {-0.0, -0.0},
                  {kInf, kNaN},
                  {-kInf, kNaN},
                  {kNaN, kNaN},
                  {0x1p26 + 16.0, kNaN},
                  {-0x1p27, kNaN},
                  {1e300, kNaN}});
  check_specials("cos", math::cos, {{0.0, 1.0}, {-0.0, 1.0}, {kInf, kNaN}, {kNaN, kNaN}, {0x1p26 + 16.0, kNaN}});
  CHECK(std::isfinite(math::sin(0x1p26)));
  CHECK(std::isfinite(math::cos(-0x1p26)));
  check_near("sin(pi)", math::sin(3.141592653589793), 0x1.1a62633145c07p-53, 1);  // pi - fl(pi) = 1.2246e-16
  check_near("cos(pi/2)", math::cos(1.5707963267948966), 0x1.1a62633145c07p-54, 1);
  check_near("sin(1e6)", math::sin(1e6), -0x1.6664b2568d867p-2, 1);
  for (double x : {0.1, 1.0, 3.0, 1e3, 12345.678, 6.7e7}) {  // odd and even, bit for bit
    CHECK(identical(math::sin(-x), -math::sin(x)));
    CHECK(identical(math::cos(-x), math::cos(x)));
    const math::SinCos both = math::sincos(x);
    CHECK(identical(both.sin, math::sin(x)));
    CHECK(identical(both.cos, math::cos(x)));
  }
}

TEST_CASE("lgamma: zeros at 1 and 2, poles, overflow, x < 0 is NaN", "[math]") {
  check_specials("lgamma", math::lgamma,
                 {{1.0, 0.0},
                  {2.0, 0.0},
                  {0.0, kInf},
                  {-0.0, kInf},
                  {kInf, kInf},
                  {-1.0, kNaN},
                  {-0.5, kNaN},
                  {-kInf, kNaN},
                  {kNaN, kNaN},
                  {3e305, kInf}});
  CHECK(std::isfinite(math::lgamma(1e305)));
  check_near("lgamma(3)", math::lgamma(3.0), 0x1.62e42fefa39efp-1, 1);    // log 2
  check_near("lgamma(0.5)", math::lgamma(0.5), 0x1.250d048e7a1bdp-1, 1);  // log sqrt(pi)
  check_near("lgamma(denorm_min)", math::lgamma(kMinSubnormal), 0x1.74385446d71c3p+9, 1);
  check_near("lgamma(1 + 2^-52)", math::lgamma(1.0 + 0x1p-52), -0x1.2788cfc6fb617p-53, 1);  // about -0.5772 2^-52
  check_near("lgamma(101)", math::lgamma(101.0), 0x1.6bbd47b7669b6p+8, 1);                  // log(100!)
}

TEST_CASE("pow: the IEEE 754 special cases for x >= 0, x < 0 is NaN", "[math]") {
  struct Case {
    double x, y, expected;
  };
  const std::vector<Case> cases = {
      {0.0, 0.0, 1.0},     {kNaN, 0.0, 1.0},    {-3.0, 0.0, 1.0},   {kInf, -0.0, 1.0},
      {1.0, kNaN, 1.0},    {1.0, kInf, 1.0},    {1.0, -kInf, 1.0},  {0.0, 2.0, 0.0},
      {0.0, -2.0, kInf},   {-0.0, 3.0, 0.0},    {kInf, 2.0, kInf},  {kInf, -2.0, 0.0},
      {2.0, kInf, kInf},   {0.5, kInf, 0.0},    {2.0, -kInf, 0.0},  {0.5, -kInf, kInf},
      {-2.0, 2.0, kNaN},   {kNaN, 2.0, kNaN},   {2.0, kNaN, kNaN},  {2.0, 1024.0, kInf},
      {2.0, -1075.0, 0.0}, {2.0, 10.0, 1024.0}, {10.0, 2.0, 100.0}, {2.0, -1074.0, kMinSubnormal},
      {4.0, 0.5, 2.0},     {0.25, -0.5, 2.0},
  };
  for (const Case& c : cases) {
    const double got = math::pow(c.x, c.y);
    INFO("pow(" << show(c.x) << ", " << show(c.y) << ") = " << show(got) << ", expected " << show(c.expected));
    CHECK(identical(got, c.expected));
  }
}

// ---- the same bits whether the compiler vectorises a loop or not ----------------------------------

namespace {

template <class F>
void vectorisable_loop(const double* __restrict x, const double* __restrict y, double* __restrict out, std::size_t n) {
  const F f{};
  for (std::size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

#if defined(__GNUC__) && !defined(__clang__)
#define RSMC_NO_VECTORISE __attribute__((optimize("no-tree-vectorize"), noinline))
#else
#define RSMC_NO_VECTORISE __attribute__((noinline))
#endif

template <class F>
RSMC_NO_VECTORISE void scalar_loop(const double* x, const double* y, double* out, std::size_t n) {
  const F f{};
  for (std::size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

// One element at a time through volatile storage: nothing can be vectorised or folded.
template <class F>
void volatile_loop(const double* x, const double* y, double* out, std::size_t n) {
  const F f{};
  for (std::size_t i = 0; i < n; ++i) {
    volatile double vx = x[i], vy = y[i];
    volatile double r = f(vx, vy);
    out[i] = r;
  }
}

}  // namespace

TEST_CASE("every function gives the same bits in vectorised, scalar and volatile loops", "[math]") {
  // An odd count exercises the vector loop, its epilogue and any peeling; special values at the end.
  constexpr std::size_t kPoints = 40009;
  const std::vector<double> specials = {0.0,           -0.0,           1.0,   -1.0,  0.5,   2.0,
                                        kInf,          -kInf,          kNaN,  kMax,  -kMax, 1e-300,
                                        kMinSubnormal, -kMinSubnormal, 710.0, -746.0};
  rsmc::math_test::for_each_function([&](auto function) {
    using F = decltype(function);
    std::vector<double> x, y;
    for (std::size_t i = 0; i < kPoints; ++i) {
      const Args a = rsmc::math_test::args_of<F>(i);
      x.push_back(a.x);
      y.push_back(a.y);
    }
    for (double s : specials) {
      for (double t : {0.0, 1.0, -2.5, kInf, kNaN}) {
        x.push_back(s);
        y.push_back(t);
      }
    }
    const std::size_t n = x.size();
    std::vector<double> vectorised(n), scalar(n), one_by_one(n);
    vectorisable_loop<F>(x.data(), y.data(), vectorised.data(), n);
    scalar_loop<F>(x.data(), y.data(), scalar.data(), n);
    volatile_loop<F>(x.data(), y.data(), one_by_one.data(), n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (identical(vectorised[i], scalar[i]) && identical(vectorised[i], one_by_one[i])) continue;
      if (++differ <= 3)
        UNSCOPED_INFO(F::name << "(" << show(x[i]) << ", " << show(y[i]) << "): vectorised " << show(vectorised[i])
                              << ", scalar " << show(scalar[i]) << ", volatile " << show(one_by_one[i]));
    }
    INFO(F::name << ": " << differ << " of " << n << " results differ between the loops");
    CHECK(differ == 0);
  });
}

// ---- known answers: the bits of this implementation, the same on every platform -------------------

TEST_CASE("known answers: a hash of each function's results on its first 10^5 test arguments", "[math]") {
  // Produced by tests/math/math_hash.cpp (`math_hash 1e5`) with this implementation; every
  // platform, compiler, -march and the CUDA device must reproduce them. They change only when an
  // algorithm or coefficient of rsmc::math changes on purpose (which changes every result of rsmc
  // that uses it); then regenerate them and say so in the commit.
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"exp", 0x5576cba472c971dfull},   {"expm1", 0xaa966d8b00f38364ull},   {"log", 0x646f9d29fc31ec7full},
      {"log1p", 0x8d0a352ee4533e10ull}, {"sin_2pi", 0x4d5bf063dbc2a6ffull}, {"cos_2pi", 0x6c9227a5406e19b9ull},
      {"sin", 0x53547b438a015d8bull},   {"cos", 0xf398c973b3ee6745ull},     {"lgamma", 0x43f55ce9d9f0dfb2ull},
      {"pow", 0x29253e898de88196ull},
  };
  std::size_t k = 0;
  rsmc::math_test::for_each_function([&](auto function) {
    using F = decltype(function);
    std::uint64_t h = 0x6a09e667f3bcc908ull;
    for (std::uint64_t i = 0; i < 100000; ++i) {
      const Args a = rsmc::math_test::args_of<F>(i);
      const double r = F{}(a.x, a.y);
      h = rsmc::math_test::mix(h ^ (std::isnan(r) ? 0x7ff8000000000000ull : bits(r)));
    }
    REQUIRE(k < expected.size());
    INFO(F::name << ": hash " << std::hex << h << ", expected " << expected[k].second);
    CHECK(expected[k].first == F::name);
    CHECK(h == expected[k].second);
    ++k;
  });
}

// ---- the build: no FMA contraction in this translation unit ----------------------------------------

TEST_CASE("this translation unit is compiled without floating-point contraction", "[math]") {
  // a b = 1 - 2^-60 rounds to 1, so a b - 1 is 0 with two roundings but -2^-60 if fused into an
  // FMA. rsmc::math needs the two roundings on the host (-ffp-contract=off, set by rsmc_framework);
  // a build that contracts fails here instead of silently changing results.
  volatile double va = 1.0 + 0x1p-30, vb = 1.0 - 0x1p-30, vc = -1.0;
  const double a = va, b = vb, c = vc;
  CHECK(a * b + c == 0.0);
  CHECK(math::math_detail::mul_add(a, b, c) == 0.0);
}
