// The functions of rsmc::math under test and the arguments they are tested on, shared by the
// accuracy test (tests/math/math_accuracy.cpp), the bit-identity hash (tests/math/math_hash.cpp) and
// the unit tests. Argument i of a function is a pure function of (function, i), so any subset,
// thread split or build produces the same arguments.
//
// Each function's arguments cover its documented domain in regions picked by i mod 100: random
// over the whole domain, the common range, the neighbourhoods where accuracy is hardest (near 0, near
// the zeros of the result, reduction boundaries, the subnormal range, near overflow), and the
// argument ranges rsmc's callers use. The regions are listed in `kCases` below.
// The generators use only basic arithmetic and ldexp/frexp (exact), never libm's log or exp, whose
// last bits vary between machines; a product that feeds a sum goes through rsmc::math's uncontracted
// mul/add, so the arguments, like the results, are the same everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>

#include "base/math/math.hpp"

namespace rsmc::math_test {

// splitmix64: 64 well-mixed bits from a counter.
inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A stream of random words for argument i of a function.
struct Bits {
  std::uint64_t state;
  std::uint64_t next() { return state = mix(state); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  double uniform(double a, double b) { return math::math_detail::mul_add(b - a, unit(), a); }
  // Log-uniform magnitude 2^e (1 + f), e uniform in [e0, e1), f uniform: every binade alike,
  // subnormals (e < -1022) rounded by ldexp.
  double log_uniform(int e0, int e1) {
    const int e = e0 + static_cast<int>(next() % static_cast<std::uint64_t>(e1 - e0));
    return std::ldexp(1.0 + static_cast<double>(next() >> 12) * 0x1p-52, e);
  }
  double sign() { return (next() & 1) ? -1.0 : 1.0; }
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

struct Args {
  double x;
  double y;  // second argument (pow), else 0
};

constexpr double kLn2 = 0.6931471805599453094;
constexpr double kPi = 3.14159265358979323846;

// (j + 1/2) ln 2 + offset: next to a point where exp's reduction switches from k = j to j + 1.
inline double near_half_ln2(Bits& b, int j0, int j1) {
  const double j = static_cast<double>(b.integer(j0, j1)) + 0.5;
  return math::math_detail::mul_add(j, kLn2, b.sign() * b.log_uniform(-60, -20));
}

// Doubles nearest to n pi/2 are where the reduction of sin/cos(x) cancels most: the accuracy test
// adds the worst of them over the whole domain (found by an exhaustive scan) to region 80-99.
inline double near_multiple_of_pi_over_2(Bits& b) {
  const double n = static_cast<double>(b.integer(1, 42722829));  // n pi/2 <= 2^26
  return b.sign() * (n * (kPi / 2));                             // the rounding lands within a few ulp of n pi/2
}

// ---- argument generators, region = i mod 100 ----------------------------------------------------

inline Args exp_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 40) return {b.uniform(-745.2, 709.79), 0};
  if (r < 60) return {b.uniform(-1.0, 1.0), 0};
  if (r < 70) return {b.sign() * b.log_uniform(-1074, -1), 0};
  if (r < 80) return {b.uniform(-745.14, -708.3), 0};  // subnormal results
  if (r < 90) return {b.uniform(700.0, 709.78), 0};    // near overflow
  return {near_half_ln2(b, -1074, 1023), 0};           // reduction boundaries
}

inline Args expm1_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 30) return {b.uniform(-40.0, 709.78), 0};
  if (r < 50) return {b.uniform(-1.0, 1.0), 0};
  if (r < 70) return {b.sign() * b.log_uniform(-1074, 0), 0};
  if (r < 80) return {near_half_ln2(b, -60, 1023), 0};
  if (r < 90) return {b.uniform(-60.0, -30.0), 0};
  return {b.uniform(700.0, 709.78), 0};
}

inline Args log_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 50) return {b.log_uniform(-1074, 1024), 0};
  if (r < 70) return {b.uniform(0.5, 2.0), 0};
  if (r < 90) return {1.0 + b.sign() * b.log_uniform(-53, -1), 0};
  std::uint64_t bits = b.next() & 0x000fffffffffffffull;  // subnormal bit patterns
  if (bits == 0) bits = 1;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return {x, 0};
}

inline Args log1p_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 15) return {-b.unit(), 0};                     // (-1, 0]
  if (r < 25) return {-1.0 + b.log_uniform(-53, 0), 0};  // near -1
  if (r < 40) return {b.log_uniform(-1074, 0), 0};       // small positive
  if (r < 55) return {-b.log_uniform(-1074, -1), 0};     // small negative
  if (r < 75) return {b.log_uniform(0, 1024), 0};        // large
  return {b.uniform(-0.5, 1.0), 0};
}

inline Args sincos_2pi_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 60) return {b.unit(), 0};
  if (r < 80) {  // near the multiples of 1/8, where the quadrant and the octant change
    const double u = static_cast<double>(b.integer(0, 8)) * 0.125 + b.sign() * b.log_uniform(-60, -4);
    return {u < 0.0 ? -u : (u >= 1.0 ? 2.0 - u : u), 0};
  }
  if (r < 90) return {b.log_uniform(-1074, -1), 0};
  if (r < 95)
    return {static_cast<double>(b.integer(1, (std::int64_t{1} << 53) - 1)) * 0x1p-53, 0};  // Stream::uniform()
  return {b.sign() * b.log_uniform(0, 60), 0};  // beyond [0, 1): exact reduction of any finite u
}

inline Args sincos_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 20) return {b.uniform(-kPi / 4, kPi / 4), 0};
  if (r < 40) return {b.uniform(-100.0, 100.0), 0};
  if (r < 60) return {b.uniform(-0x1p26, 0x1p26), 0};
  if (r < 80) return {b.sign() * b.log_uniform(-1074, 26), 0};
  return {near_multiple_of_pi_over_2(b), 0};
}

inline Args lgamma_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 20) return {b.log_uniform(-1074, 1014), 0};  // lgamma overflows near 2^1014
  if (r < 50) return {b.uniform(0.0, 10.0), 0};
  if (r < 60) return {1.0 + b.sign() * b.log_uniform(-60, -2), 0};           // the zero at 1
  if (r < 70) return {2.0 + b.sign() * b.log_uniform(-60, -2), 0};           // the zero at 2
  if (r < 80) return {b.uniform(0.0, 3.0), 0};                               // the minimum at 1.4616
  if (r < 85) return {static_cast<double>(b.integer(0, 1000000)) + 1.0, 0};  // lgamma(k + 1)
  return {b.uniform(8.0, 1e6), 0};
}

inline Args pow_args(std::uint64_t i, Bits b) {
  const int r = static_cast<int>(i % 100);
  if (r < 40) {  // any x > 0, y with |y log x| <= 745: results over the whole double range
    const double x = b.log_uniform(-1074, 1024);
    int e = 0;
    const double m = std::frexp(x, &e);                                                      // x = m 2^e, m in [0.5, 1)
    const double lx = math::math_detail::mul(static_cast<double>(e) + 2.0 * m - 2.0, kLn2);  // log x within 0.07
    return {x, lx == 0.0 ? b.uniform(-10, 10) : b.uniform(-745.0, 709.0) / lx};
  }
  if (r < 60) return {b.unit(), 1.0 / b.log_uniform(-10, 0)};  // the gamma sampler: U^(1 / shape)
  if (r < 80) return {1.0 + b.sign() * b.log_uniform(-53, -1), b.sign() * b.log_uniform(0, 55)};
  return {b.uniform(0.0, 10.0), b.uniform(-50.0, 50.0)};
}

// ---- the table ------------------------------------------------------------------------------------
// One functor per function: its name, argument generator and regions, and the call itself as an
// inline operator() (so that loops over it vectorise, as in rsmc's own kernels).

#define RSMC_MATH_TEST_FUNCTION(Type, fname, seed_value, generator, call, region_text) \
  struct Type {                                                                        \
    static constexpr const char* name = fname;                                         \
    static constexpr std::uint64_t seed = seed_value;                                  \
    static constexpr const char* regions = region_text;                                \
    static Args args(std::uint64_t i, Bits b) { return generator(i, b); }              \
    RSMC_MATH_FUNCTION double operator()(double x, double y) const {                   \
      static_cast<void>(y);                                                            \
      return call;                                                                     \
    }                                                                                  \
  };

RSMC_MATH_TEST_FUNCTION(Exp, "exp", 1, exp_args, math::exp(x),
                        "40% [-745.2, 709.79]; 20% [-1, 1]; 10% +-2^[-1074, -1]; 10% [-745.14, -708.3] "
                        "(subnormal results); 10% [700, 709.78]; 10% (j + 1/2) ln 2 +- 2^[-60, -20]")
RSMC_MATH_TEST_FUNCTION(Expm1, "expm1", 2, expm1_args, math::expm1(x),
                        "30% [-40, 709.78]; 20% [-1, 1]; 20% +-2^[-1074, 0]; 10% (j + 1/2) ln 2 +- 2^[-60, -20]; "
                        "10% [-60, -30]; 10% [700, 709.78]")
RSMC_MATH_TEST_FUNCTION(Log, "log", 3, log_args, math::log(x),
                        "50% 2^[-1074, 1024]; 20% [0.5, 2]; 20% 1 +- 2^[-53, -1]; 10% subnormal bit patterns")
RSMC_MATH_TEST_FUNCTION(Log1p, "log1p", 4, log1p_args, math::log1p(x),
                        "15% (-1, 0]; 10% -1 + 2^[-53, 0]; 15% 2^[-1074, 0]; 15% -2^[-1074, -1]; 20% 2^[0, 1024]; "
                        "25% [-0.5, 1]")
RSMC_MATH_TEST_FUNCTION(Sin2Pi, "sin_2pi", 5, sincos_2pi_args, math::sin_2pi(x),
                        "60% [0, 1); 20% k/8 +- 2^[-60, -4]; 10% 2^[-1074, -1]; 5% m 2^-53 (Stream::uniform); "
                        "5% +-2^[0, 60]")
RSMC_MATH_TEST_FUNCTION(Cos2Pi, "cos_2pi", 6, sincos_2pi_args, math::cos_2pi(x), "as sin_2pi")
RSMC_MATH_TEST_FUNCTION(Sin, "sin", 7, sincos_args, math::sin(x),
                        "20% [-pi/4, pi/4]; 20% [-100, 100]; 20% [-2^26, 2^26]; 20% +-2^[-1074, 26]; 20% near n pi/2, "
                        "n pi/2 <= 2^26 (the accuracy test adds the 256 doubles closest to such multiples)")
RSMC_MATH_TEST_FUNCTION(Cos, "cos", 8, sincos_args, math::cos(x), "as sin")
RSMC_MATH_TEST_FUNCTION(Lgamma, "lgamma", 9, lgamma_args, math::lgamma(x),
                        "20% 2^[-1074, 1014]; 30% (0, 10]; 10% 1 +- 2^[-60, -2]; 10% 2 +- 2^[-60, -2]; 10% [0, 3]; "
                        "5% k + 1, k <= 10^6; 15% [8, 10^6]")
RSMC_MATH_TEST_FUNCTION(Pow, "pow", 10, pow_args, math::pow(x, y),
                        "40% x in 2^[-1074, 1024], |y log x| <~ 745; 20% U^(1/s), s in 2^[-10, 0]; "
                        "20% x = 1 +- 2^[-53, -1], y = +-2^[0, 55]; 20% x in [0, 10], y in [-50, 50]")
#undef RSMC_MATH_TEST_FUNCTION

using Functions = std::tuple<Exp, Expm1, Log, Log1p, Sin2Pi, Cos2Pi, Sin, Cos, Lgamma, Pow>;

// v(Function{}) for each function, in the order above.
template <class Visitor>
void for_each_function(Visitor&& v) {
  std::apply([&](auto... f) { (v(f), ...); }, Functions{});
}

// Argument i of function F.
template <class F>
Args args_of(std::uint64_t i) {
  return F::args(i, Bits{mix(F::seed ^ mix(i))});
}

}  // namespace rsmc::math_test
