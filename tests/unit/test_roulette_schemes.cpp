// Statistical properties of the four selection schemes (and the paper's Algorithm 1), on one rank;
// the MPI tests show the same offspring come out on any number of ranks.
//
// Unbiasedness: over R seeded repetitions, particle i's mean offspring count must lie within 5
// standard errors of N w_i / W, with the standard error from the scheme's own count variance:
//   multinomial, Algorithm 1:  N p (1 - p)                      (p = w_i / W)
//   systematic:                f (1 - f), f = frac(N p)         (floor or ceil copies)
//   stratified:                at most N p (1 - p) (never more than multinomial)
//   residual:                  M r (1 - r), r = frac(N p) / M   (M residual draws)
// 5 standard errors over 40 particles: a false alarm has probability below 40 * 6e-7.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "base/exact/fixed_weight.hpp"
#include "framework/resample/select/selection.hpp"
#include "tests/support/selection_reference.hpp"
#include "base/rng/stream.hpp"

namespace {

using rsmc::Scheme;

struct Draws {
  std::vector<double> mean, variance;  // per particle, over repetitions
};

Draws repeat(Scheme scheme, bool algorithm1, const std::vector<double>& log_w, int reps,
             std::vector<std::uint64_t>* min_counts = nullptr) {
  const std::size_t n = log_w.size();
  double max_lw = log_w[0];
  for (double x : log_w) max_lw = std::max(max_lw, x);
  std::vector<std::uint64_t> fixed(n);
  rsmc::exact::u128 total = 0;
  for (std::size_t i = 0; i < n; ++i) total += fixed[i] = rsmc::exact::fixed_weight(log_w[i], max_lw);
  std::vector<double> sum(n, 0.0), sum_sq(n, 0.0);
  if (min_counts) min_counts->assign(n, ~std::uint64_t(0));
  for (int r = 0; r < reps; ++r) {
    rsmc::SelectionInputs in;
    in.fixed_weights = &fixed;
    in.wheel = rsmc::WheelShare{0, total, total};
    in.samples = n;
    in.seed = 1000 + static_cast<std::uint64_t>(r);
    in.step = 3;
    const auto s = algorithm1 ? rsmc::select_algorithm1(in) : rsmc::select_offspring(scheme, in, MPI_COMM_SELF);
    REQUIRE(s.first_id == 0);
    REQUIRE(s.offspring == n);
    for (std::size_t i = 0; i < n; ++i) {
      sum[i] += static_cast<double>(s.counts[i]);
      sum_sq[i] += static_cast<double>(s.counts[i]) * static_cast<double>(s.counts[i]);
      if (min_counts) (*min_counts)[i] = std::min((*min_counts)[i], s.counts[i]);
    }
  }
  Draws d;
  for (std::size_t i = 0; i < n; ++i) {
    d.mean.push_back(sum[i] / reps);
    d.variance.push_back(sum_sq[i] / reps - d.mean.back() * d.mean.back());
  }
  return d;
}

std::vector<double> test_log_weights() {
  std::vector<double> lw;
  for (int i = 0; i < 40; ++i) lw.push_back(std::log(0.05 + std::fmod(0.37 * i * i + 0.11 * i, 1.0)) * 1.5);
  lw[7] = -1e9;  // essentially zero weight: quantises to 0
  return lw;
}

double theoretical_variance(Scheme scheme, bool algorithm1, double np, double residual_draws) {
  const double n = 40.0, p = np / n;
  if (algorithm1 || scheme == Scheme::multinomial || scheme == Scheme::stratified) return n * p * (1.0 - p);
  const double f = np - std::floor(np);
  if (scheme == Scheme::systematic) return f * (1.0 - f);
  const double r = residual_draws > 0 ? f / residual_draws : 0.0;  // residual
  return residual_draws * r * (1.0 - r);
}

}  // namespace

TEST_CASE("every scheme is unbiased: mean offspring count N w_i / W within 5 standard errors", "[resample]") {
  const auto lw = test_log_weights();
  const std::size_t n = lw.size();
  const int reps = 4000;
  std::vector<double> w(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += w[i] = std::exp(lw[i]);
  double floors = 0;
  for (std::size_t i = 0; i < n; ++i) floors += std::floor(n * w[i] / total);
  const double residual_draws = static_cast<double>(n) - floors;

  struct Case {
    Scheme scheme;
    bool algorithm1;
  };
  for (const Case c :
       {Case{Scheme::multinomial, false}, Case{Scheme::multinomial, true}, Case{Scheme::stratified, false},
        Case{Scheme::systematic, false}, Case{Scheme::residual, false}}) {
    const Draws d = repeat(c.scheme, c.algorithm1, lw, reps);
    for (std::size_t i = 0; i < n; ++i) {
      const double np = static_cast<double>(n) * w[i] / total;
      const double var = theoretical_variance(c.scheme, c.algorithm1, np, residual_draws);
      const double se = std::sqrt(var / reps);
      INFO(rsmc::scheme_name(c.scheme) << (c.algorithm1 ? " (Algorithm 1)" : "") << ", particle " << i << ": mean "
                                       << d.mean[i] << ", expected " << np << ", se " << se);
      // A count with zero theoretical variance must hit the expectation exactly (up to the 2^-64
      // quantisation of the weights, far below the 1e-9 allowed here).
      CHECK(std::abs(d.mean[i] - np) <= 5.0 * se + 1e-9);
    }
  }
}

TEST_CASE("systematic and stratified have lower offspring-count variance than multinomial", "[resample]") {
  const auto lw = test_log_weights();
  const int reps = 2000;
  auto average = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
  };
  const double multinomial = average(repeat(Scheme::multinomial, false, lw, reps).variance);
  const double stratified = average(repeat(Scheme::stratified, false, lw, reps).variance);
  const double systematic = average(repeat(Scheme::systematic, false, lw, reps).variance);
  INFO("mean count variance: multinomial " << multinomial << ", stratified " << stratified << ", systematic "
                                           << systematic);
  CHECK(stratified < multinomial);
  CHECK(systematic < multinomial);
  CHECK(systematic <= 0.25 + 1e-12);  // floor or ceil copies: a Bernoulli at most
}

TEST_CASE("residual resampling gives every particle at least floor(N w_i / W) copies", "[resample]") {
  const auto lw = test_log_weights();
  const std::size_t n = lw.size();
  std::vector<double> w(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += w[i] = std::exp(lw[i]);
  std::vector<std::uint64_t> min_counts;
  repeat(Scheme::residual, false, lw, 500, &min_counts);
  for (std::size_t i = 0; i < n; ++i) {
    INFO("particle " << i);
    CHECK(static_cast<double>(min_counts[i]) >= std::floor(n * w[i] / total));
  }
}

TEST_CASE("systematic and stratified: the 128-bit closed form equals the 256-bit reference on every slice",
          "[resample]") {
  // Random weights (including zeros and the 2^64 - 1 maximum), cut into slices as ranks would hold
  // them; both paths must give the same counts and first ids for every slice.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    rsmc::rng::Stream stream(seed, rsmc::rng::Purpose::model, 0, 0);
    const std::size_t n = 1 + stream.integer(3000);
    std::vector<std::uint64_t> all(n);
    for (auto& w : all) {
      const std::uint64_t kind = stream.integer(4);
      w = kind == 0 ? 0 : kind == 1 ? ~std::uint64_t(0) : stream.next_u64() >> stream.integer(64);
    }
    all[stream.integer(n)] = ~std::uint64_t(0);
    rsmc::exact::u128 total = 0;
    for (auto w : all) total += w;
    const std::size_t ranks = 1 + stream.integer(6);
    std::size_t begin = 0;
    rsmc::exact::u128 below = 0;
    for (std::size_t k = 0; k < ranks; ++k) {
      const std::size_t end = k + 1 == ranks ? n : begin + stream.integer(n - begin + 1);
      std::vector<std::uint64_t> slice(all.begin() + static_cast<std::ptrdiff_t>(begin),
                                       all.begin() + static_cast<std::ptrdiff_t>(end));
      rsmc::exact::u128 local = 0;
      for (auto w : slice) local += w;
      rsmc::SelectionInputs in;
      in.fixed_weights = &slice;
      in.wheel = rsmc::WheelShare{below, local, total};
      in.samples = n;
      in.seed = seed;
      in.step = 9;
      for (const bool stratified : {false, true}) {
        const auto fast =
            rsmc::select_offspring(stratified ? Scheme::stratified : Scheme::systematic, in, MPI_COMM_SELF);
        const auto reference = rsmc::testing::select_evenly_spaced_reference(in, stratified);
        INFO("seed " << seed << ", slice " << k << " of " << ranks << (stratified ? ", stratified" : ", systematic"));
        CHECK(fast.first_id == reference.first_id);
        CHECK(fast.offspring == reference.offspring);
        CHECK(fast.counts == reference.counts);
      }
      begin = end;
      below += local;
    }
  }
}
