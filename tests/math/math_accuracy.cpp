// Accuracy of rsmc::math against libquadmath (113-bit __float128), at least 10^7 arguments per
// function (tests/math/math_cases.hpp says which), on all hardware threads. Prints, per function,
// the largest error in ulp of the exact result and the argument where it occurred, and fails (exit
// 1) if any exceeds 2 ulp, or if any result is NaN/inf/finite where the reference is not.
//
//   math_accuracy [--points N]            N arguments per function (default 1e7)
//   math_accuracy --dump N                the first N arguments of each function with the quad
//                                         reference, for tests/math/validate_reference.py (mpmath)
//
// The error of y against the exact value v is |y - v| / ulp(v), ulp(v) = 2^(max(e, -1022) - 52)
// for 2^e <= |v| < 2^(e+1): the spacing of doubles at v. The reference itself is accurate to far
// below 10^-3 ulp; validate_reference.py checks that against mpmath at 100 digits.
#include <quadmath.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "tests/math/math_cases.hpp"

namespace {

using rsmc::math_test::Args;

__extension__ typedef __float128 quad;  // __extension__: no -Wpedantic warning

// sin and cos of 2 pi u in quad precision with the exact reduction u -> t = v - q/4 in [-1/8, 1/8]
// (done in quad: every double u is exact there), so that results near zero keep full relative accuracy.
void sincos_2pi_quad(double u, quad* s, quad* c) {
  const quad v = static_cast<quad>(u) - nearbyintq(static_cast<quad>(u));
  const quad q = nearbyintq(4 * v);
  const quad t = v - q / 4;
  const quad theta = 2 * acosq(-1) * t;
  const quad st = sinq(theta), ct = cosq(theta);
  const int j = static_cast<int>(q) & 3;  // q in [-2, 2]
  const quad sj[4] = {st, ct, -st, -ct};
  const quad cj[4] = {ct, -st, -ct, st};
  *s = sj[j];
  *c = cj[j];
}

quad reference(const std::string& name, Args a) {
  const quad x = a.x;
  if (name == "exp") return expq(x);
  if (name == "expm1") return expm1q(x);
  if (name == "log") return logq(x);
  if (name == "log1p") return log1pq(x);
  if (name == "sin") return sinq(x);
  if (name == "cos") return cosq(x);
  if (name == "lgamma") return lgammaq(x);
  if (name == "pow") return powq(x, static_cast<quad>(a.y));
  quad s, c;
  sincos_2pi_quad(a.x, &s, &c);
  if (name == "sin_2pi") return s;
  if (name == "cos_2pi") return c;
  std::fprintf(stderr, "math_accuracy: no reference for '%s'\n", name.c_str());
  std::exit(2);
}

// Error of y in ulp of the exact value v; infinity when y and v disagree on being NaN, infinite or finite.
double ulp_error(double y, quad v) {
  if (isnanq(v)) return std::isnan(y) ? 0.0 : HUGE_VAL;
  const double v_rounded = static_cast<double>(v);  // correctly rounded, inf beyond the range
  if (y == v_rounded) return 0.0;
  if (std::isnan(y) || std::isinf(y) || std::isinf(v_rounded)) return HUGE_VAL;
  const quad magnitude = fabsq(v);
  const int e = magnitude < static_cast<quad>(0x1p-1022) ? -1022 : ilogbq(magnitude);
  return static_cast<double>(fabsq(static_cast<quad>(y) - v) / ldexpq(1, e - 52));
}

// The 256 doubles |x| <= 2^26 closest (in ulp of x) to a multiple n pi/2: an exhaustive scan over n.
// `closest` receives the distance of the closest one, in ulp of x.
std::vector<double> worst_reduction_arguments(double* closest) {
  const quad half_pi = acosq(-1) / 2;
  using Entry = std::pair<double, double>;  // (distance in ulp of x, x)
  std::priority_queue<Entry> keep;          // the largest distance on top
  for (std::int64_t n = 1; n <= 42722829; ++n) {
    const quad exact = n * half_pi;
    const double x = static_cast<double>(exact);
    const double distance =
        static_cast<double>(fabsq(static_cast<quad>(x) - exact)) / std::ldexp(1.0, std::ilogb(x) - 52);
    if (keep.size() < 256) {
      keep.push({distance, x});
    } else if (distance < keep.top().first) {
      keep.pop();
      keep.push({distance, x});
    }
  }
  std::vector<double> out;
  for (; !keep.empty(); keep.pop()) {
    *closest = keep.top().first;
    out.push_back(keep.top().second);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Worst {
  double ulp = 0.0;
  std::uint64_t index = 0;
  Args args{0, 0};
  double got = 0.0;
};

template <class F>
Args arguments(std::uint64_t i, const std::vector<double>& worst_pi) {
  const std::string name = F::name;
  if ((name == "sin" || name == "cos") && i % 100 == 80 && i / 100 < worst_pi.size()) return {worst_pi[i / 100], 0};
  return rsmc::math_test::args_of<F>(i);
}

template <class F>
Worst measure(std::uint64_t points, unsigned threads, const std::vector<double>& worst_pi) {
  constexpr std::uint64_t kChunk = 1 << 16;
  const std::uint64_t chunks = (points + kChunk - 1) / kChunk;
  std::vector<Worst> per_chunk(chunks);
  std::atomic<std::uint64_t> next{0};
  auto work = [&] {
    for (std::uint64_t k; (k = next++) < chunks;) {
      Worst w;
      for (std::uint64_t i = k * kChunk; i < std::min(points, (k + 1) * kChunk); ++i) {
        const Args a = arguments<F>(i, worst_pi);
        const double y = F{}(a.x, a.y);
        const double e = ulp_error(y, reference(F::name, a));
        if (e > w.ulp) w = {e, i, a, y};
      }
      per_chunk[k] = w;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  Worst worst;
  for (const Worst& w : per_chunk)
    if (w.ulp > worst.ulp) worst = w;  // chunks in order: the first index wins ties
  return worst;
}

int dump(std::uint64_t n) {
  char ref[64];
  rsmc::math_test::for_each_function([&](auto f) {
    using F = decltype(f);
    for (std::uint64_t i = 0; i < n; ++i) {
      const Args a = rsmc::math_test::args_of<F>(i);
      quadmath_snprintf(ref, sizeof ref, "%.40Qe", reference(F::name, a));
      std::printf("%s %a %a %s\n", F::name, a.x, a.y, ref);
    }
  });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t points = 10000000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--points" || arg == "--dump") && i + 1 < argc) {
      const double n = std::atof(argv[++i]);
      if (!(n >= 1 && n <= 1e12)) {
        std::fprintf(stderr, "math_accuracy: %s needs a count >= 1, got '%s'\n", arg.c_str(), argv[i]);
        return 2;
      }
      if (arg == "--dump") return dump(static_cast<std::uint64_t>(n));
      points = static_cast<std::uint64_t>(n);
    } else {
      std::fprintf(stderr, "math_accuracy: unknown argument '%s' (usage: [--points N] | --dump N)\n", arg.c_str());
      return 2;
    }
  }
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  double closest = 0.0;
  const std::vector<double> worst_pi = worst_reduction_arguments(&closest);
  std::printf("rsmc::math accuracy against libquadmath, %llu arguments per function, %u threads\n",
              static_cast<unsigned long long>(points), threads);
  std::printf("sin/cos include the 256 doubles closest to a multiple of pi/2 in |x| <= 2^26 (closest: %.3g ulp)\n",
              closest);
  std::printf("%-8s %10s %10s  %-26s %-26s\n", "function", "points", "max ulp", "at x", "y (pow)");
  bool ok = true;
  rsmc::math_test::for_each_function([&](auto f) {
    using F = decltype(f);
    const Worst w = measure<F>(points, threads, worst_pi);
    std::printf("%-8s %10llu %10.4f  %-26a %-26a\n", F::name, static_cast<unsigned long long>(points), w.ulp, w.args.x,
                w.args.y);
    std::fflush(stdout);
    if (!(w.ulp <= 2.0)) {
      ok = false;
      std::printf("FAILED: %s(%a, %a) = %a is %.4g ulp from the reference (bound: 2 ulp)\n", F::name, w.args.x,
                  w.args.y, w.got, w.ulp);
    }
  });
  std::printf(ok ? "all within 2 ulp\n" : "some functions exceed 2 ulp\n");
  return ok ? 0 : 1;
}
