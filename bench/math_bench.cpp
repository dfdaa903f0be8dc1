// Speed of rsmc::math against the C library, one thread: ns per call of a loop
// `out[i] = f(in[i])` over n doubles (default 10^7), which the compiler vectorises for rsmc::math
// and cannot for libm (one call per element). One JSON line per function on stdout, with both
// timings (median of the repeats, measured in the same run) and their ratio.
//
//   math_bench [n] [repeats]      built by scripts/bench-math.sh at several -march levels
//
// Arguments follow rsmc's uses: exp of log-weight differences in [-40, 0], log of uniforms,
// sin/cos of 2 pi u for Box-Muller, log1p/expm1 of the binomial and SIR samplers, lgamma of counts
// and sizes in (0, 1000], pow(u, 1/shape) of the gamma sampler.
#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/math/math.hpp"

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

#if defined(__AVX512F__)
constexpr const char* kVectorIsa = "avx512";
#elif defined(__AVX2__)
constexpr const char* kVectorIsa = "avx2";
#elif defined(__SSE4_2__)
constexpr const char* kVectorIsa = "sse4.2";
#else
constexpr const char* kVectorIsa = "sse2";
#endif

#ifndef RSMC_MATH_BENCH_MARCH
#define RSMC_MATH_BENCH_MARCH "unknown"
#endif

// Deterministic uniforms in (0, 1) (splitmix64), so every build times the same arguments.
std::vector<double> uniforms(std::size_t n, std::uint64_t seed) {
  std::vector<double> u(n);
  std::uint64_t s = seed;
  for (auto& x : u) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x = (static_cast<double>(z >> 11) + 0.5) * 0x1p-53;
  }
  return u;
}

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

template <class Loop>
double median_ns_per_call(std::size_t n, int repeats, Loop loop) {
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    const double start = thread_cpu_ns();
    loop();
    ns.push_back((thread_cpu_ns() - start) / static_cast<double>(n));
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

double checksum(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += std::isfinite(x) ? x : 0.0;
  return s;
}

// The loop `f(a[i], b[i], out[i], out2[i])` over n elements, as `block`-element pieces: with block = n
// the arrays stream through memory (16-32 bytes read and written per call); with a small block the
// same pieces are reused from the L1 cache until n calls are made, which leaves the arithmetic.
template <class F>
void run_blocks(F f, const double* __restrict a, const double* __restrict b, double* __restrict out,
                double* __restrict out2, std::size_t n, std::size_t block) {
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t offset = block == n ? 0 : start % (n - block + 1) / block * block;
    const std::size_t len = std::min(block, n - start);
    const double* __restrict pa = a + (block == n ? start : offset);
    const double* __restrict pb = b + (block == n ? start : offset);
    double* __restrict po = out + (block == n ? start : offset);
    double* __restrict po2 = out2 + (block == n ? start : offset);
    for (std::size_t i = 0; i < len; ++i) f(pa[i], pb[i], po[i], po2[i]);
  }
}

// One function: rsmc loop and libm loop over the same arguments (a, b), streaming (block = n) and
// in cache (block = kCacheBlock); one JSON line per variant.
constexpr std::size_t kCacheBlock = 1024;

template <class Rsmc, class Libm>
void bench(const char* name, const std::vector<double>& a, const std::vector<double>& b, int repeats, Rsmc rsmc_f,
           Libm libm_f) {
  const std::size_t n = a.size();
  std::vector<double> out(n), out2(n);
  for (const std::size_t block : {n, std::min(n, kCacheBlock)}) {
    const double rsmc_ns = median_ns_per_call(
        n, repeats, [&] { run_blocks(rsmc_f, a.data(), b.data(), out.data(), out2.data(), n, block); });
    const double rsmc_sum = checksum(out) + checksum(out2);
    const double libm_ns = median_ns_per_call(
        n, repeats, [&] { run_blocks(libm_f, a.data(), b.data(), out.data(), out2.data(), n, block); });
    const double libm_sum = checksum(out) + checksum(out2);
    std::printf(
        "{\"bench\":\"math\",\"clock\":\"thread_cpu\",\"function\":\"%s\",\"data\":\"%s\",\"march\":\"%s\",\"vector_"
        "isa\":\"%s\","
        "\"calls\":%zu,\"block\":%zu,\"repeats\":%d,\"rsmc_ns_per_call\":%.4f,\"libm_ns_per_call\":%.4f,"
        "\"libm_to_rsmc_ratio\":%.3f,\"rsmc_checksum\":%.17g,\"libm_checksum\":%.17g}\n",
        name, block == n ? "streaming" : "in_cache", RSMC_MATH_BENCH_MARCH, kVectorIsa, n, block, repeats, rsmc_ns,
        libm_ns, libm_ns / rsmc_ns, rsmc_sum, libm_sum);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  namespace m = rsmc::math;
  const std::size_t n = argc > 1 ? static_cast<std::size_t>(std::atof(argv[1])) : 10000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n == 0 || repeats < 1) {
    std::fprintf(stderr, "math_bench: n and repeats must be positive (got '%s')\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  const std::vector<double> u = uniforms(n, 1), v = uniforms(n, 2);
  auto scaled = [&](double lo, double hi) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = lo + (hi - lo) * u[i];
    return x;
  };
  const std::vector<double> log_weight = scaled(-40.0, 0.0), small = scaled(-0.5, 1.0), minus_one = scaled(-1.0, 0.0);
  const std::vector<double> counts = scaled(0.0, 1000.0), exponents = scaled(1.0, 10.0);
  const std::vector<double> radians = scaled(-1000.0, 1000.0);

  bench(
      "exp", log_weight, v, repeats, [](double x, double, double& o, double&) { o = m::exp(x); },
      [](double x, double, double& o, double&) { o = std::exp(x); });
  bench(
      "log", u, v, repeats, [](double x, double, double& o, double&) { o = m::log(x); },
      [](double x, double, double& o, double&) { o = std::log(x); });
  bench(
      "sincos_2pi", u, v, repeats,
      [](double x, double, double& o, double& o2) {
        const m::SinCos r = m::sincos_2pi(x);
        o = r.sin;
        o2 = r.cos;
      },
      [](double x, double, double& o, double& o2) {
        o = std::sin(kTwoPi * x);
        o2 = std::cos(kTwoPi * x);
      });
  bench(
      "log1p", small, v, repeats, [](double x, double, double& o, double&) { o = m::log1p(x); },
      [](double x, double, double& o, double&) { o = std::log1p(x); });
  bench(
      "expm1", minus_one, v, repeats, [](double x, double, double& o, double&) { o = m::expm1(x); },
      [](double x, double, double& o, double&) { o = std::expm1(x); });
  bench(
      "cos", radians, v, repeats, [](double x, double, double& o, double&) { o = m::cos(x); },
      [](double x, double, double& o, double&) { o = std::cos(x); });
  bench(
      "lgamma", counts, v, repeats, [](double x, double, double& o, double&) { o = m::lgamma(x); },
      [](double x, double, double& o, double&) { o = std::lgamma(x); });
  bench(
      "pow", u, exponents, repeats, [](double x, double y, double& o, double&) { o = m::pow(x, y); },
      [](double x, double y, double& o, double&) { o = std::pow(x, y); });
  // Box-Muller with both outputs, the hot loop of the stream draws: one log, one sqrt, one sincos.
  bench(
      "box_muller_pair", u, v, repeats,
      [](double a, double b, double& o, double& o2) {
        const double r = std::sqrt(-2.0 * m::log(a));
        const m::SinCos t = m::sincos_2pi(b);
        o = r * t.cos;
        o2 = r * t.sin;
      },
      [](double a, double b, double& o, double& o2) {
        const double r = std::sqrt(-2.0 * std::log(a));
        o = r * std::cos(kTwoPi * b);
        o2 = r * std::sin(kTwoPi * b);
      });
  return 0;
}
