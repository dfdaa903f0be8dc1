// Unit tests for the vectorised reproducible sums of issue 16: base/exact/binned_sum.hpp (BinnedSum),
// base/exact/merge_reducer.hpp (inside a Kokkos parallel_reduce), base/exact/binned_reduce.hpp (the
// host's batches and the device's teams), base/exact/moments.hpp (one-pass variance) and
// fixed_weight_of (base/exact/fixed_weight.hpp).
//
// Reproducibility is checked as identical bytes (after normalize()) and identical to_double() bits
// over orders, chunkings, merge trees and lane counts; accuracy against ExactSum with the documented
// bound n 2^(40 a - 91), a = the level of max|x| (plus the final rounding).
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "base/exact/binned_reduce.hpp"
#include "base/exact/binned_sum.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/exact/fixed_weight.hpp"
#include "base/exact/merge_reducer.hpp"
#include "base/exact/moments.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::bits_of;

namespace {

using rsmc::exact::BinnedSum;
using rsmc::exact::ExactSum;

BinnedSum empty_sum() {
  BinnedSum s;
  s.clear();
  return s;
}

// Terms of mixed signs over `binades` binades below 2^top, some exact zeros.
std::vector<double> terms(std::size_t n, int top, int binades, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<double> x(n);
  for (auto& v : x) {
    const int e = top - static_cast<int>(g() % static_cast<std::uint64_t>(binades));
    v = std::ldexp(1.0 + static_cast<double>(g() >> 12) * 0x1p-52, e - 1);
    if (g() & 1) v = -v;
    if (g() % 50 == 0) v = 0.0;
  }
  return x;
}

BinnedSum sum_in_chunks(const std::vector<double>& x, std::mt19937_64& g) {
  BinnedSum s = empty_sum();
  std::size_t i = 0;
  while (i < x.size()) {
    const std::size_t len = std::min<std::size_t>(x.size() - i, 1 + g() % 3000);
    if (g() % 4 == 0) {
      for (std::size_t k = i; k < i + len; ++k) s.add(x[k]);  // one term at a time
    } else {
      s.add(x.data() + i, len);
    }
    i += len;
  }
  return s;
}

bool same_bytes(BinnedSum a, BinnedSum b) {
  a.normalize();
  b.normalize();
  return std::memcmp(&a, &b, sizeof a) == 0;
}

double exact_total(const std::vector<double>& x) {
  ExactSum e{};
  for (double v : x) e.add(v);
  return e.to_double();
}

}  // namespace

TEST_CASE("BinnedSum: identical bits for any order, chunking and merge tree", "[binned_sum]") {
  std::mt19937_64 g(1);
  for (int top : {0, 30, -200, 700}) {
    std::vector<double> x = terms(20000, top, 60, static_cast<std::uint64_t>(top + 1000));
    const BinnedSum reference = sum_in_chunks(x, g);
    for (int trial = 0; trial < 5; ++trial) {
      std::shuffle(x.begin(), x.end(), g);
      // split into parts summed separately, merged in a random order (a "rank" or "thread" split)
      const std::size_t parts = 1 + g() % 7;
      std::vector<BinnedSum> partial(parts, empty_sum());
      std::size_t begin = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t end = p + 1 == parts ? x.size() : begin + (x.size() - begin) / (parts - p);
        std::vector<double> slice(x.begin() + static_cast<std::ptrdiff_t>(begin),
                                  x.begin() + static_cast<std::ptrdiff_t>(end));
        partial[p] = sum_in_chunks(slice, g);
        begin = end;
      }
      std::shuffle(partial.begin(), partial.end(), g);
      BinnedSum total = empty_sum();
      for (const auto& p : partial) total.merge(p);
      CHECK(same_bytes(total, reference));
      CHECK(bits_of(total.to_double()) == bits_of(reference.to_double()));
    }
  }
}

TEST_CASE("BinnedSum: a larger term arriving later gives the same sum as arriving first", "[binned_sum]") {
  const std::vector<double> small = terms(5000, -10, 20, 7);
  const double big = 0x1p100 * 1.2345;
  BinnedSum later = empty_sum(), first = empty_sum();
  later.add(small.data(), small.size());
  later.add(big);
  first.add(big);
  first.add(small.data(), small.size());
  CHECK(same_bytes(later, first));
}

// The documented error bound per term: 2^(40 a - 91) for the level a of max|x|.
double term_bound(double amax) { return std::ldexp(1.0, 40 * rsmc::exact::binned::level_for(amax) - 91); }

TEST_CASE("BinnedSum: within n 2^(40 a - 91) of the exact sum, a = the level of max|x|", "[binned_sum]") {
  std::mt19937_64 g(2);
  CHECK(rsmc::exact::binned::level_for(1.0) == 0);  // weights <= 1: level 0, error below 2^-91 per term
  CHECK(rsmc::exact::binned::level_for(1.0000000000000002) == 1);
  CHECK(rsmc::exact::binned::level_for(0x1p-40) == -1);
  CHECK(rsmc::exact::binned::level_for(0x1.8p-40) == 0);
  for (int binades : {1, 20, 120, 400}) {
    const std::vector<double> x = terms(50000, 10, binades, static_cast<std::uint64_t>(binades));
    const BinnedSum s = sum_in_chunks(x, g);
    const double exact = exact_total(x);
    double amax = 0.0;
    for (double v : x) amax = std::max(amax, std::fabs(v));
    const double bound = static_cast<double>(x.size()) * term_bound(amax) + 0.5 * std::fabs(exact) * 0x1p-52;
    CHECK(std::fabs(s.to_double() - exact) <= bound);
    const rsmc::exact::DoubleDouble dd = s.to_double_double();
    CHECK(dd.hi == s.to_double());
    CHECK(std::fabs(dd.lo) <= 0.5 * std::fabs(dd.hi) * 0x1p-52);
  }
  // Sums that cancel to much less than their terms stay accurate in absolute terms.
  std::vector<double> x = terms(10000, 5, 30, 9);
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i) x.push_back(-x[i]);
  x.push_back(0x1p-40);
  const BinnedSum s = sum_in_chunks(x, g);
  CHECK(std::fabs(s.to_double() - 0x1p-40) <= static_cast<double>(x.size()) * term_bound(32.0));
}

TEST_CASE("BinnedSum: zeros, subnormals, huge terms, infinities and NaN", "[binned_sum]") {
  BinnedSum zeros = empty_sum();
  const std::vector<double> z(1000, 0.0);
  zeros.add(z.data(), z.size());
  zeros.add(-0.0);
  CHECK(zeros.to_double() == 0.0);
  CHECK(bits_of(zeros.to_double()) == 0);  // +0
  BinnedSum empty = empty_sum();
  CHECK(empty.to_double() == 0.0);

  // Subnormals and tiny values: dropped below 2^-1051 only.
  BinnedSum tiny = empty_sum();
  tiny.add(0x1p-1000);
  tiny.add(std::numeric_limits<double>::denorm_min());
  CHECK(tiny.to_double() == 0x1p-1000);

  // Terms beyond 2^880 go to the exact part; the sum is still exact where the double can show it.
  std::vector<double> mixed = {0x1p1000, 1.0, -0x1p1000, 0x1p900, 3.0};
  BinnedSum big = empty_sum();
  big.add(mixed.data(), mixed.size());
  CHECK(big.to_double() == 0x1p900);
  BinnedSum big2 = empty_sum();
  for (auto it = mixed.rbegin(); it != mixed.rend(); ++it) big2.add(*it);
  CHECK(same_bytes(big, big2));

  // Non-finite terms are counted as ExactSum counts them, whatever the order.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> with_inf = {1.0, inf, 2.0};
  BinnedSum a = empty_sum();
  a.add(with_inf.data(), with_inf.size());
  CHECK(a.to_double() == inf);
  std::vector<double> both = {1.0, inf, -inf};
  BinnedSum b = empty_sum();
  b.add(both.data(), both.size());
  CHECK(std::isnan(b.to_double()));
  BinnedSum c = empty_sum();
  c.add(nan);
  c.add(1.0);
  BinnedSum d = empty_sum();
  d.add(1.0);
  d.add(nan);
  CHECK(std::isnan(c.to_double()));
  CHECK(same_bytes(c, d));
}

TEST_CASE("BinnedSum inside a Kokkos parallel_reduce (MergeReducer): the serial bits for any chunking",
          "[binned_sum]") {
  const std::vector<double> x = terms(100000, 3, 40, 5);
  BinnedSum serial = empty_sum();
  serial.add(x.data(), x.size());
  for (std::size_t chunk : {std::size_t(97), std::size_t(512), std::size_t(4096), x.size()}) {
    BinnedSum result = empty_sum();
    const std::size_t chunks = (x.size() + chunk - 1) / chunk;
    const double* data = x.data();
    const std::size_t n = x.size();
    Kokkos::parallel_reduce(
        "test::binned", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks),
        [=](const std::size_t c, BinnedSum& acc) {
          const std::size_t begin = c * chunk, len = std::min(chunk, n - begin);
          acc.add(data + begin, len);
        },
        rsmc::exact::MergeReducer<BinnedSum>(result));
    CHECK(same_bytes(result, serial));
  }
}

// The team path's tree over its lanes, one level at a time as the barriers order it: lane t deposits
// terms t, t + T, t + 2T, ...; any team size T gives the serial sum's bytes.
TEST_CASE("reduce_binned's team tree: the serial bits for any team size", "[binned_sum]") {
  const std::vector<double> x = terms(5000, 2, 60, 9);
  BinnedSum serial = empty_sum();
  for (double v : x) serial.add(v);
  for (int team : {1, 2, 3, 5, 32, 100, 128, 129}) {
    Kokkos::View<rsmc::exact::BinnedFolds*, Kokkos::HostSpace> lanes("lanes", team);
    for (int t = 0; t < team; ++t) {
      lanes(t).clear_folds();
      for (std::size_t i = t; i < x.size(); i += team) REQUIRE(lanes(t).add_within_levels(x[i]));
    }
    for (int stride = 1; stride < team; stride *= 2)
      for (int t = 0; t < team; ++t) rsmc::exact::binned_reduce_detail::merge_lane_level(lanes, t, stride, team);
    BinnedSum result = empty_sum();
    result.merge_folds(lanes(0));
    INFO("team size " << team);
    CHECK(same_bytes(result, serial));
  }
}

// The fill of the reduce_binned test below, as the engine's moment sums fill: sum 0 computes each
// item's weight and writes it, sum 1 reads it back (weight x input), sum 2 is the input. A functor at
// namespace scope, not a lambda: a CUDA build's device lambdas cannot take a host lambda's type.
struct MomentLikeFill {
  Kokkos::View<double*, Kokkos::HostSpace> input, weight;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, const std::size_t begin, const std::size_t end,
                                         double* out) const {
    for (std::size_t i = begin; i < end; ++i) {
      if (k == 0)
        weight(i) = rsmc::exact::binned::pow2(-static_cast<int>(i % 40)) * (1.0 + 0x1p-30 * static_cast<double>(i));
      out[i - begin] = k == 0 ? weight(i) : k == 1 ? weight(i) * input(i) : input(i);
    }
  }
};

// reduce_binned_by_teams (the device path) against reduce_binned_by_batches (the host path) on the
// host backend. Teams have as many threads as the backend gives (OMP_NUM_THREADS), and one.
TEST_CASE("reduce_binned: by teams and by batches give the same bits, rare terms included", "[binned_sum]") {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  for (const bool with_rare : {false, true}) {
    for (std::size_t n : {std::size_t(1), std::size_t(255), std::size_t(4096), std::size_t(4097),
                          std::size_t(3 * 4096 + 17), std::size_t(70001)}) {
      const std::vector<double> x = terms(n, 3, 50, n);
      const MomentLikeFill fill{Kokkos::View<double*, Kokkos::HostSpace>("input", n),
                                Kokkos::View<double*, Kokkos::HostSpace>("weight", n)};
      for (std::size_t i = 0; i < n; ++i) fill.input(i) = x[i];
      if (with_rare) fill.input(n / 2) = (n % 2 == 0) ? std::numeric_limits<double>::infinity() : 0x1p900;
      constexpr int kSums = 3;
      rsmc::exact::BinnedReduceWorkspace<Kokkos::HostSpace> workspace;
      BinnedSum by_batches[kSums], by_teams[kSums], by_single_threads[kSums], serial[kSums];
      for (int k = 0; k < kSums; ++k) {
        by_batches[k] = by_teams[k] = by_single_threads[k] = serial[k] = empty_sum();
      }
      rsmc::exact::reduce_binned_by_batches<Exec>("test::batches", n, kSums, fill, workspace, by_batches);
      rsmc::exact::reduce_binned_by_teams<Exec>("test::teams", n, kSums, fill, workspace, by_teams);
      rsmc::exact::reduce_binned_by_teams<Exec>("test::teams", n, kSums, fill, workspace, by_single_threads, 1);
      for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < kSums; ++k) {
          double term;
          fill(k, i, i + 1, &term);
          serial[k].add(term);
        }
      for (int k = 0; k < kSums; ++k) {
        INFO("n = " << n << ", sum " << k << (with_rare ? ", with a rare term" : ""));
        CHECK(same_bytes(by_batches[k], serial[k]));
        CHECK(same_bytes(by_teams[k], serial[k]));
        CHECK(same_bytes(by_single_threads[k], serial[k]));
        CHECK(bits_of(by_teams[k].to_double()) == bits_of(serial[k].to_double()));
      }
    }
  }
}

TEST_CASE("fixed_weight_of gives fixed_weight_given_exp's bits", "[binned_sum]") {
  std::mt19937_64 g(3);
  const double edges[] = {0.0, -0.0, 1.0, 0x1p-64, 0x1p-65, 0x1.fffffffffffffp-1, 0.5, 1e-300, 2.0};
  for (double w : edges) {
    const double l = w > 0.0 ? std::log(w) : -HUGE_VAL;
    CHECK(rsmc::exact::fixed_weight_of(w) == rsmc::exact::fixed_weight_given_exp(l, 0.0, w));
  }
  CHECK(rsmc::exact::fixed_weight_of(std::numeric_limits<double>::quiet_NaN()) == 0);
  for (int i = 0; i < 200000; ++i) {
    const double d = -50.0 * static_cast<double>(g() >> 11) * 0x1p-53;  // log-weights below the maximum
    const double w = std::exp(d);
    REQUIRE(rsmc::exact::fixed_weight_of(w) == rsmc::exact::fixed_weight_given_exp(d, 0.0, w));
  }
}

TEST_CASE("one_pass_moments about a nearby reference matches the two-pass variance", "[binned_sum]") {
  std::mt19937_64 g(4);
  std::normal_distribution<double> normal;
  for (double offset : {0.0, 1e3, 1e6}) {
    std::vector<double> x(50000), w(50000);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = offset + 0.3 * normal(g);
      w[i] = std::exp(-0.5 * normal(g) * normal(g));
    }
    ExactSum s0{}, s1{}, s2{};
    for (std::size_t i = 0; i < x.size(); ++i) {
      s0.add(w[i]);
      s1.add(w[i] * x[i]);
    }
    const double mean = s1.to_double() / s0.to_double();
    for (std::size_t i = 0; i < x.size(); ++i) s2.add(w[i] * (x[i] - mean) * (x[i] - mean));
    const double two_pass = s2.to_double() / s0.to_double();
    // Reference: a nearby value known before the pass (here the mean perturbed by a tenth of a sd).
    const double k = mean + 0.03;
    BinnedSum b0 = empty_sum(), b1 = empty_sum(), b2 = empty_sum();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - k;
      b0.add(w[i]);
      b1.add(w[i] * d);
      b2.add(w[i] * d * d);
    }
    const auto m =
        rsmc::exact::one_pass_moments(k, b0.to_double_double(), b1.to_double_double(), b2.to_double_double());
    CHECK(std::fabs(m.mean - mean) <= 4.0 * std::fabs(mean) * 0x1p-52 + 1e-15);
    CHECK(std::fabs(m.variance - two_pass) <= 1e-13 * two_pass);
  }
}
