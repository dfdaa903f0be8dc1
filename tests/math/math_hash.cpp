// Bit-identity check of rsmc::math across builds: evaluates every function on its first N test
// arguments (tests/math/math_cases.hpp) in a plain loop, which the compiler vectorises at whatever
// width the build's -march allows, and prints one 64-bit hash of the result bits per function
// (NaNs counted as one value: their payload is not part of the contract). Builds that differ in
// -march, -O level or vectorisation must print identical lines; scripts/math-cross-march.sh
// compares them.
//
//   math_hash [N]        N arguments per function (default 1e7)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tests/math/math_cases.hpp"

namespace {

using rsmc::math_test::Args;

// out[i] = f(x[i], y[i]): the loop under test (vectorised by the compiler where it can).
template <class F>
void evaluate(const double* __restrict x, const double* __restrict y, double* __restrict out, std::size_t n) {
  const F f{};
  for (std::size_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

std::uint64_t hash_bits(const std::vector<double>& v) {
  std::uint64_t h = 0x6a09e667f3bcc908ull;
  for (double d : v) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    if (std::isnan(d)) bits = 0x7ff8000000000000ull;
    h = rsmc::math_test::mix(h ^ bits);
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const double requested = argc > 1 ? std::atof(argv[1]) : 1e7;
  if (!(requested >= 1 && requested <= 1e9)) {
    std::fprintf(stderr, "math_hash: N must be in [1, 1e9], got '%s'\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  const auto n = static_cast<std::size_t>(requested);
  std::vector<double> x(n), y(n), out(n);
  rsmc::math_test::for_each_function([&](auto f) {
    using F = decltype(f);
    for (std::size_t i = 0; i < n; ++i) {
      const Args a = rsmc::math_test::args_of<F>(i);
      x[i] = a.x;
      y[i] = a.y;
    }
    evaluate<F>(x.data(), y.data(), out.data(), n);
    std::printf("%-8s %zu %016llx\n", F::name, n, static_cast<unsigned long long>(hash_bits(out)));
  });
  return 0;
}
