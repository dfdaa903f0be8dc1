// The exact front ends of ExactSum, ExactSumWindow (base/exact/exact_window.hpp) and
// ExactSumBins (exact_bins.hpp): either in front of an ExactSum must leave exactly the value plain
// ExactSum::add calls give, i.e. the same bytes after normalisation, for terms of any magnitudes,
// signs, subnormals, non-finite values, and more terms than one window or one flush of bins holds.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "base/exact/exact_bins.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/exact/exact_window.hpp"

using rsmc::exact::ExactSum;
using rsmc::exact::ExactSumBins;
using rsmc::exact::ExactSumWindow;

namespace {

// Both ways: plain adds, and through a window (flushed at the end); normalised.
void sum_both(const std::vector<double>& xs, ExactSum& plain, ExactSum& windowed) {
  plain.clear();
  windowed.clear();
  ExactSumWindow window;
  window.clear();
  for (double x : xs) {
    plain.add(x);
    window.add(x, windowed);
  }
  window.flush(windowed);
  plain.normalize();
  windowed.normalize();
}

// Through bins, flushed every ExactSumBins::kMaxTermsPerFlush terms (as a chunked reduction does) and at the
// end; normalised. The bins object is large: static, and empty between calls (flush empties it).
void sum_binned(const std::vector<double>& xs, ExactSum& binned) {
  static ExactSumBins bins{};
  binned.clear();
  std::uint32_t since_flush = 0;
  for (double x : xs) {
    bins.add(x, binned);
    if (++since_flush == ExactSumBins::kMaxTermsPerFlush) {
      bins.flush(binned);
      since_flush = 0;
    }
  }
  bins.flush(binned);
  binned.normalize();
}

void check_same(const std::vector<double>& xs) {
  ExactSum plain, windowed, binned;
  sum_both(xs, plain, windowed);
  sum_binned(xs, binned);
  CHECK(std::memcmp(&plain, &windowed, sizeof(ExactSum)) == 0);
  CHECK(std::memcmp(&plain, &binned, sizeof(ExactSum)) == 0);
  const double a = plain.to_double(), b = windowed.to_double(), c = binned.to_double();
  CHECK(std::memcmp(&a, &b, sizeof(double)) == 0);
  CHECK(std::memcmp(&a, &c, sizeof(double)) == 0);
}

}  // namespace

TEST_CASE("ExactSumWindow and ExactSumBins equal plain ExactSum on weight-like terms", "[exact]") {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> lw(-60.0, 0.0), x(-30.0, 30.0);
  std::vector<double> w, wx, wxx;
  for (int i = 0; i < 20000; ++i) {
    const double e = std::exp(lw(rng)), v = x(rng);
    w.push_back(e);
    wx.push_back(e * v);
    wxx.push_back(e * v * v);
  }
  check_same(w);
  check_same(wx);
  check_same(wxx);
}

TEST_CASE("ExactSumWindow and ExactSumBins equal plain ExactSum on extreme and mixed terms", "[exact]") {
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  check_same({});
  check_same({0.0, -0.0});
  check_same({1.0, -1.0, 1e-300, -1e-300});
  check_same({big, big, -big, tiny, 3 * tiny, -tiny, 1.0});
  check_same({1e300, 1.0, 1e-300, std::ldexp(1.0, -1060), -1e300});
  check_same({1.0, std::numeric_limits<double>::infinity(), 2.0});
  check_same({1.0, std::numeric_limits<double>::quiet_NaN()});
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exponent(-1074, 1023);
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  std::vector<double> xs;
  for (int i = 0; i < 50000; ++i) xs.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  check_same(xs);
}

TEST_CASE("ExactSumWindow flushes before its term count can overflow the window", "[exact]") {
  // The first term (2^-13) puts the window base 40 bits below it; then 2^20 + 5 terms just below 2
  // sit at the window's top (shift 53), each m 2^53 with m ~ 2^53: without the flush after 2^20
  // terms, acc would pass 2^126.
  std::vector<double> xs(ExactSumWindow::kMaxTerms + 5, std::nextafter(2.0, 0.0));
  xs.front() = std::ldexp(1.0, -13);
  check_same(xs);
  for (auto& x : xs) x = -x;
  check_same(xs);
}

TEST_CASE("ExactSumBins: a full flush of the largest terms of one binade stays exact", "[exact]") {
  // kMaxTermsPerFlush terms with the largest mantissa (2^53 - 1) in one bin, both signs, at the top
  // binade (the bin's value meets ExactSum::add_int64 at its highest position) and the subnormal ones.
  const double top = std::numeric_limits<double>::max(), sub = std::nextafter(std::numeric_limits<double>::min(), 0.0);
  for (double v : {top, -top, sub, -sub, std::nextafter(2.0, 0.0), -std::nextafter(1.0, 0.0)}) {
    std::vector<double> xs(3 * ExactSumBins::kMaxTermsPerFlush + 1, v);
    check_same(xs);
  }
}

TEST_CASE("ExactSum::add_int64 equals adding the same integer as doubles", "[exact]") {
  // v 2^(pos - 1074) for extreme v (including INT64_MIN) and positions at the ends of the range.
  for (const std::int64_t v : {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                               std::int64_t{1}, std::int64_t{-1}, std::int64_t{0x123456789abcdef}}) {
    for (const int pos : {0, 1, 31, 32, 1000, 1074, 1950, 2045 - 63}) {
      ExactSum a{}, b{};
      a.add_int64(v, pos);
      // v = hi 2^32 + lo with both parts exact doubles; scale by 2^(pos - 1074) (exact: no rounding).
      const std::int64_t hi = v >> 32, lo = v - hi * (std::int64_t{1} << 32);
      b.add(std::ldexp(static_cast<double>(hi), pos - 1074 + 32));
      b.add(std::ldexp(static_cast<double>(lo), pos - 1074));
      a.normalize();
      b.normalize();
      CHECK(std::memcmp(&a, &b, sizeof(ExactSum)) == 0);
    }
  }
}
