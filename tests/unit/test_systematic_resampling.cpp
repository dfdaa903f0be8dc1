// The baseline systematic resampler's ancestor rule, and the inverse-CDF kernel it shares with CUDA.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "base/math/math.hpp"
#include "framework/resample/baselines/allgather_resampler.hpp"
#include "kernels/host/systematic_search.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"

namespace {

std::vector<double> cumulative_of(const std::vector<double>& w) {
  std::vector<double> c(w.size());
  double run = 0;
  for (std::size_t i = 0; i < w.size(); ++i) c[i] = run += w[i];
  return c;
}

}  // namespace

TEST_CASE("upper_bound_index returns the first index whose cumulative weight exceeds u", "[kernels]") {
  const std::vector<double> c{1, 1, 3, 3, 3, 6};  // weights 1, 0, 2, 0, 0, 3
  using rsmc::kernels::upper_bound_index;
  CHECK(upper_bound_index(c.data(), c.size(), 0.0) == 0);
  CHECK(upper_bound_index(c.data(), c.size(), 0.999) == 0);
  CHECK(upper_bound_index(c.data(), c.size(), 1.0) == 2);  // on a boundary: the next positive weight
  CHECK(upper_bound_index(c.data(), c.size(), 2.5) == 2);
  CHECK(upper_bound_index(c.data(), c.size(), 3.0) == 5);
  CHECK(upper_bound_index(c.data(), c.size(), 5.999) == 5);
  CHECK(upper_bound_index(c.data(), c.size(), 6.0) == 6);  // past the end
}

TEST_CASE("systematic ancestors: sorted, never zero-weight, floor/ceil copies of N w_i / W", "[resample]") {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t n = 1 + gen() % 500;
    std::vector<double> log_w(n);
    for (auto& lw : log_w) lw = unit(gen) < 0.2 ? -std::numeric_limits<double>::infinity() : -30.0 * unit(gen);
    log_w[gen() % n] = 0.0;  // at least one positive weight
    const double u = unit(gen);
    const auto anc = rsmc::systematic_ancestors(log_w, 0.0, u);
    REQUIRE(anc.size() == n);
    std::vector<double> w(n);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += w[i] = std::exp(log_w[i]);
    std::vector<std::size_t> copies(n, 0);
    for (std::size_t j = 0; j < n; ++j) {
      if (j > 0) REQUIRE(anc[j] >= anc[j - 1]);
      REQUIRE(w[anc[j]] > 0.0);
      ++copies[anc[j]];
    }
    // Systematic resampling gives every particle floor(N w/W) or ceil(N w/W) copies (up to the
    // rounding of the cumulative sum: allow one more on either side only when N w / W is within
    // 1e-9 of an integer).
    for (std::size_t i = 0; i < n; ++i) {
      const double expected = static_cast<double>(n) * w[i] / total;
      const double lo = std::floor(expected - 1e-9), hi = std::ceil(expected + 1e-9);
      REQUIRE(static_cast<double>(copies[i]) >= lo);
      REQUIRE(static_cast<double>(copies[i]) <= hi);
    }
  }
}

TEST_CASE("the host systematic-search twin agrees with the merge-walk resampler", "[kernels][resample]") {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t n : {1u, 2u, 33u, 1000u}) {
    std::vector<double> log_w(n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
      log_w[i] = i % 4 == 1 ? -std::numeric_limits<double>::infinity() : std::log(unit(gen));
      w[i] = rsmc::math::exp(log_w[i]);  // systematic_ancestors' exp
    }
    log_w[0] = 0.0;
    w[0] = 1.0;
    const double u = unit(gen);
    const auto walk = rsmc::systematic_ancestors(log_w, 0.0, u);
    const auto c = cumulative_of(w);
    std::size_t last_positive = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (w[i] > 0) last_positive = i;
    std::vector<std::uint64_t> search(n);
    rsmc::kernels::host::systematic_search(c.data(), n, last_positive, u, 0, n, n, search.data());
    REQUIRE(search == walk);
  }
}
