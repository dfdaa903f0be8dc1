// The local samplers of the roulette resampler (--local-sampler; framework/resample/select/local_sampling.hpp).
//
// Exactness: search, forest and butterfly map every point to the same particle as a reference merge
// walk, for std::uint64_t and u128 weights, with zero weights (runs at the start, the end, across 32-
// element blocks), a single non-zero weight, n = 1, n not a multiple of 32, and points exactly on
// every interval boundary and one below it. select_offspring then gives identical selections with
// each of them, for every scheme, on slices of the wheel as ranks hold them.
//
// Distribution: for every scheme and every sampler (alias included), offspring counts pooled over
// R = 2000 seeded draws are compared with their expectation R N w_i / W by Pearson's chi-square; the
// p-value must exceed 0.001 (fixed in advance; reported through INFO). For multinomial and alias the
// pooled counts are multinomial and the statistic is chi-square(df); systematic, stratified and
// residual have smaller count variance, so the same threshold is conservative for them.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/exact/fixed_weight.hpp"
#include "base/exact/uint128.hpp"
#include "framework/resample/select/local_sampling.hpp"
#include "framework/resample/select/selection.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"
#include "tests/support/statistics.hpp"

namespace {

using rsmc::LocalSampler;
using rsmc::Scheme;
using rsmc::exact::u128;

constexpr LocalSampler kInverseCdf[] = {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly};
constexpr Scheme kSchemes[] = {Scheme::multinomial, Scheme::stratified, Scheme::systematic, Scheme::residual};

// Reference: counts by a merge walk of sorted points against the running sum of the weights.
template <class Weight>
std::vector<std::uint64_t> walk_counts(const std::vector<Weight>& w, const std::vector<u128>& points) {
  std::vector<std::uint64_t> counts(w.size(), 0);
  std::size_t i = 0;
  u128 end = w[0];
  for (u128 p : points) {
    while (!(p < end)) end += w[++i];
    ++counts[i];
  }
  return counts;
}

// Weight tables of the shapes the issue lists, from a seeded stream.
template <class Weight>
std::vector<std::vector<Weight>> weight_cases(std::uint64_t seed) {
  rsmc::rng::Stream s(seed, rsmc::rng::Purpose::model, 0, 0);
  auto big = [&]() -> Weight {
    if constexpr (sizeof(Weight) == 16)
      return (static_cast<u128>(s.next_u64()) << 50) | s.next_u64();  // < 2^114: 1000 of them fit
    else
      return s.next_u64() >> s.integer(64);
  };
  std::vector<std::vector<Weight>> cases;
  cases.push_back({Weight(5)});                         // n = 1
  cases.push_back(std::vector<Weight>(33, Weight(0)));  // one non-zero weight, n = 33
  cases.back()[17] = big() | 1;
  for (std::size_t n : {std::size_t(31), std::size_t(32), std::size_t(64), std::size_t(100), std::size_t(1000)}) {
    std::vector<Weight> w(n);
    for (auto& x : w) x = s.integer(3) == 0 ? Weight(0) : big();
    for (std::size_t k = 0; k < n / 4; ++k) w[k] = 0;      // a zero run at the start,
    for (std::size_t k = n - n / 5; k < n; ++k) w[k] = 0;  // one at the end,
    if (n >= 64)
      for (std::size_t k = 28; k < 40; ++k) w[k] = 0;  // and one across a 32-block edge
    w[n / 2] |= 1;                                     // some weight
    cases.push_back(w);
  }
  std::vector<Weight> dupes(200, Weight(1) << 40);  // all equal
  cases.push_back(dupes);
  return cases;
}

template <class Weight>
void check_exactness() {
  for (const auto& w : weight_cases<Weight>(11)) {
    u128 total = 0;
    std::vector<u128> points;
    for (auto x : w) {
      if (x != 0) {  // a boundary point and the one just below it
        if (total > 0) points.push_back(total - 1);
        points.push_back(total);
      }
      total += x;
    }
    points.push_back(total - 1);
    rsmc::rng::Stream s(w.size(), rsmc::rng::Purpose::model, 1, 0);
    for (int k = 0; k < 300; ++k) points.push_back(rsmc::rng::uniform_below(s, total));
    std::sort(points.begin(), points.end());
    const auto expected = walk_counts(w, points);
    for (LocalSampler sampler : kInverseCdf) {
      std::vector<std::uint64_t> counts(w.size(), 0);
      rsmc::add_inverse_cdf_counts(
          sampler, w,
          [&](auto&& emit) {
            for (u128 p : points) emit(p);
          },
          counts);
      INFO(rsmc::local_sampler_name(sampler) << ", n = " << w.size() << ", weight bytes " << sizeof(Weight));
      CHECK(counts == expected);
    }
  }
}

struct Slice {
  std::vector<std::uint64_t> weights;
  rsmc::WheelShare wheel;
};

// The particles cut into `ranks` contiguous slices, as ranks would hold them.
std::vector<Slice> slices(const std::vector<std::uint64_t>& w, std::size_t ranks) {
  u128 total = 0;
  for (auto x : w) total += x;
  std::vector<Slice> out;
  u128 below = 0;
  for (std::size_t k = 0; k < ranks; ++k) {
    Slice s;
    s.weights.assign(w.begin() + w.size() * k / ranks, w.begin() + w.size() * (k + 1) / ranks);
    u128 local = 0;
    for (auto x : s.weights) local += x;
    s.wheel = rsmc::WheelShare{below, local, total};
    below += local;
    out.push_back(s);
  }
  return out;
}

// Offspring counts of every particle, slice after slice, and the first ids of the slices.
std::vector<std::uint64_t> select_all(Scheme scheme, LocalSampler sampler, const std::vector<Slice>& parts,
                                      std::uint64_t n, std::uint64_t seed, std::vector<std::uint64_t>* first_ids) {
  std::vector<std::uint64_t> counts;
  std::uint64_t expected_first = 0;
  for (const Slice& part : parts) {
    rsmc::SelectionInputs in;
    in.fixed_weights = &part.weights;
    in.wheel = part.wheel;
    in.samples = n;
    in.seed = seed;
    in.step = 4;
    in.sampler = sampler;
    const rsmc::Selection s = rsmc::select_offspring(scheme, in, MPI_COMM_SELF);
    REQUIRE(s.first_id == expected_first);  // renumbering: the slices' offspring follow each other
    expected_first += s.offspring;
    if (first_ids) first_ids->push_back(s.first_id);
    std::uint64_t sum = 0;
    for (auto c : s.counts) sum += c;
    REQUIRE(sum == s.offspring);
    counts.insert(counts.end(), s.counts.begin(), s.counts.end());
  }
  REQUIRE(expected_first == n);
  return counts;
}

std::vector<std::uint64_t> test_weights(std::size_t n) {
  std::vector<std::uint64_t> w(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = rsmc::exact::fixed_weight(-1.7 * static_cast<double>((i * 37) % 11) / 11.0 - (i % 7 == 3 ? 1.0 : 0.0), 0.0);
  w[5] = 0;  // a particle that must never be selected
  return w;
}

}  // namespace

TEST_CASE("search, forest and butterfly map every point to the same particle", "[resample][local_sampler]") {
  check_exactness<std::uint64_t>();
  check_exactness<u128>();
}

TEST_CASE("upper_bound_index_from equals upper_bound_index for every valid hint", "[resample][local_sampler]") {
  rsmc::rng::Stream s(99, rsmc::rng::Purpose::model, 2, 0);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + s.integer(300);
    std::vector<std::uint64_t> c(n);
    std::uint64_t run = 0;
    for (auto& x : c) x = run += s.integer(3) == 0 ? 0 : s.integer(1000);  // zero-width runs included
    for (int q = 0; q < 50; ++q) {
      const std::uint64_t u = s.integer(run + 2);  // up to run + 1: past the end too
      const std::size_t answer = rsmc::kernels::upper_bound_index(c.data(), n, u);
      const std::size_t hint = s.integer(answer + 1);  // any hint with C[hint - 1] <= u
      INFO("n = " << n << ", u = " << u << ", hint = " << hint);
      CHECK(rsmc::kernels::upper_bound_index_from(c.data(), n, hint, u) == answer);
    }
  }
}

TEST_CASE("select_offspring gives identical selections with search, forest and butterfly",
          "[resample][local_sampler]") {
  const auto w = test_weights(517);
  for (Scheme scheme : kSchemes) {
    // Residual needs scans over the ranks: one slice on MPI_COMM_SELF; the others on 1..5 slices.
    for (std::size_t ranks : {std::size_t(1), std::size_t(2), std::size_t(5)}) {
      if (scheme == Scheme::residual && ranks > 1) continue;
      const auto parts = slices(w, ranks);
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        std::vector<std::uint64_t> first_search;
        const auto reference = select_all(scheme, LocalSampler::search, parts, w.size(), seed, &first_search);
        for (LocalSampler sampler : {LocalSampler::forest, LocalSampler::butterfly}) {
          std::vector<std::uint64_t> first;
          INFO(rsmc::scheme_name(scheme) << ", " << ranks << " slices, seed " << seed << ", "
                                         << rsmc::local_sampler_name(sampler));
          CHECK(select_all(scheme, sampler, parts, w.size(), seed, &first) == reference);
          CHECK(first == first_search);
        }
      }
    }
  }
}

TEST_CASE("every scheme and local sampler passes a chi-square test of its offspring counts",
          "[resample][local_sampler]") {
  const std::size_t n = 60;
  const int reps = 2000;
  const auto w = test_weights(n);
  double total = 0;
  for (auto x : w) total += static_cast<double>(x);
  for (Scheme scheme : kSchemes) {
    const auto parts = slices(w, scheme == Scheme::residual ? 1 : 3);
    for (LocalSampler sampler :
         {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly, LocalSampler::alias}) {
      std::vector<double> observed(n, 0.0), expected(n);
      for (int r = 0; r < reps; ++r) {
        const auto counts = select_all(scheme, sampler, parts, n, 500 + r, nullptr);
        for (std::size_t i = 0; i < n; ++i) observed[i] += static_cast<double>(counts[i]);
      }
      for (std::size_t i = 0; i < n; ++i)
        expected[i] = reps * static_cast<double>(n) * static_cast<double>(w[i]) / total;
      CHECK(observed[5] == 0.0);  // zero weight, never selected
      const rsmc::test::ChiSquare chi = rsmc::test::chi_square(observed, expected);
      INFO(rsmc::scheme_name(scheme) << " / " << rsmc::local_sampler_name(sampler) << ": chi-square " << chi.statistic
                                     << ", df " << chi.df << ", p = " << chi.p_value());
      CHECK(chi.df >= 50);
      CHECK(chi.p_value() > 0.001);
    }
  }
}
