// The PMMH chain machinery (framework/inference/{chain_random,proposal,adaptation,chain_state,pmmh}.hpp):
//
// - the key layout: the filter seed and the accept uniform are exactly the documented Philox words,
//   and the proposal normals are standard normal (moments and Kolmogorov-Smirnov at fixed seeds,
//   bounds from the sample size);
// - Cholesky factor, proposal, Welford accumulation against a two-pass covariance, the schedule;
// - on a correlated Gaussian target the adapted covariance approaches 2.38^2/d times the target's;
// - a chain is a pure function of (seed, chain): the same run twice is bitwise identical, and a chain
//   restored from its flat record mid-run (across adaptation points) continues bitwise identically;
// - the record round trip and its errors; non-finite estimates and proposals outside the prior's
//   support are rejected and counted; start() refuses bad initial values;
// - a known-answer fingerprint of a 2000-iteration chain pins the bits on every platform.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "base/rng/stream.hpp"
#include "framework/inference/adaptation.hpp"
#include "framework/inference/chain_random.hpp"
#include "framework/inference/chain_state.hpp"
#include "framework/inference/diagnostics.hpp"
#include "framework/inference/pmmh.hpp"
#include "framework/inference/proposal.hpp"
#include "tests/support/inference_testing.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kInf;

namespace {

using rsmc::testing::error_of;
using namespace rsmc::inference;
using rsmc::testing::run_chain;
using rsmc::testing::same_bits;

// A bivariate normal "likelihood" N(theta; mu, S) with S = [[1, 0.8], [0.8, 2]] (no filter seed use).
constexpr double kMu[2] = {1.0, -2.0};
constexpr double kS[4] = {1.0, 0.8, 0.8, 2.0};
double gaussian_log_likelihood(const std::vector<double>& theta, std::uint64_t) {
  const double det = kS[0] * kS[3] - kS[1] * kS[2];
  const double a = theta[0] - kMu[0], b = theta[1] - kMu[1];
  return -0.5 * (kS[3] * a * a - 2.0 * kS[1] * a * b + kS[0] * b * b) / det;
}

InferredParameterSet wide_normal_priors() {
  return InferredParameterSet({InferredParameter("x", Prior(PriorKind::normal, 0, 100)),
                               InferredParameter("y", Prior(PriorKind::normal, 0, 100))});
}

ChainOptions options(std::uint64_t seed, std::uint32_t chain) {
  ChainOptions o;
  o.seed = seed;
  o.chain = chain;
  o.proposal_covariance = {0.5, 0.0, 0.0, 0.5};
  o.adaptation.start = 200;
  o.adaptation.interval = 100;
  return o;
}

std::vector<double> all_theta(const rsmc::testing::ChainRun& run) {
  std::vector<double> out;
  for (const StepResult& r : run.results) out.insert(out.end(), r.proposed_theta.begin(), r.proposed_theta.end());
  for (const auto& d : run.draws) out.insert(out.end(), d.begin(), d.end());
  return out;
}

}  // namespace

TEST_CASE("chain random numbers are the documented Philox words of (seed, chain, iteration, role)", "[inference]") {
  const std::uint64_t seed = 0x00ab'cdef'0123'4567ULL;  // < 2^56
  for (std::uint32_t chain : {0u, 1u, 77u, 0xffffffffu}) {
    for (std::uint64_t it : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(12345), kMaxChainIteration}) {
      // filter_seed = (w1 << 32 | w0) >> 8 of block 0 of (seed, inference, step = chain, id = 4 it + 2).
      const rsmc::rng::Block b = rsmc::rng::block(seed, rsmc::rng::Purpose::inference, chain, 4 * it + 2, 0);
      const std::uint64_t expected = ((std::uint64_t(b.v[1]) << 32) | b.v[0]) >> 8;
      CHECK(filter_seed(seed, chain, it) == expected);
      CHECK(filter_seed(seed, chain, it) <= rsmc::rng::kMaxSeed);
      CHECK(accept_uniform(seed, chain, it) ==
            rsmc::rng::Stream(seed, rsmc::rng::Purpose::inference, chain, 4 * it + 1).uniform());
    }
  }
  // Pure, and different for neighbouring chains and iterations.
  CHECK(filter_seed(5, 0, 10) == filter_seed(5, 0, 10));
  CHECK(filter_seed(5, 0, 10) != filter_seed(5, 1, 10));
  CHECK(filter_seed(5, 0, 10) != filter_seed(5, 0, 11));
  CHECK(filter_seed(5, 0, 10) != filter_seed(6, 0, 10));
  // The inference key never equals a filter stream's key, whatever the two seeds.
  for (auto p : {rsmc::rng::Purpose::initialise, rsmc::rng::Purpose::propagate, rsmc::rng::Purpose::observe,
                 rsmc::rng::Purpose::resample, rsmc::rng::Purpose::model})
    CHECK((rsmc::rng::make_key(seed, p).v[1] >> 24) !=
          (rsmc::rng::make_key(seed, rsmc::rng::Purpose::inference).v[1] >> 24));
  // Filter seeds of 10^5 iterations are spread over [0, 2^56): the top byte is near-uniform.
  std::vector<int> top(256, 0);
  const int n = 100000;
  for (int i = 0; i < n; ++i) ++top[filter_seed(seed, 3, static_cast<std::uint64_t>(i)) >> 48];
  double chi2 = 0;
  for (int c : top) chi2 += (c - n / 256.0) * (c - n / 256.0) / (n / 256.0);
  CHECK(chi2 < 255 + 5 * std::sqrt(2 * 255.0));  // mean 255, sd sqrt(510)
}

TEST_CASE("proposal normals are standard normal", "[inference]") {
  // 4 normals from each of 50000 iteration streams (d = 4: two Box-Muller pairs), as a chain draws them.
  std::vector<double> z;
  for (std::uint64_t it = 1; it <= 50000; ++it) {
    rsmc::rng::Stream s = chain_stream(99, 2, it, ChainRole::proposal);
    double v[4];
    standard_normals(s, v, 4);
    z.insert(z.end(), v, v + 4);
  }
  const double n = static_cast<double>(z.size());
  double m = 0, m2 = 0;
  for (double v : z) m += v;
  m /= n;
  for (double v : z) m2 += (v - m) * (v - m);
  m2 /= n;
  CHECK(std::fabs(m) < 4 / std::sqrt(n));
  CHECK(std::fabs(m2 - 1) < 4 * std::sqrt(2 / n));
  std::sort(z.begin(), z.end());
  double ks = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    ks = std::max({ks, std::fabs(cdf - i / n), std::fabs(cdf - (i + 1) / n)});
  }
  CHECK(ks < 1.95 / std::sqrt(n));  // the 0.1% critical value of the Kolmogorov-Smirnov statistic
  // An odd count drops the last sine: the first three of four are the same numbers.
  rsmc::rng::Stream a = chain_stream(1, 0, 1, ChainRole::proposal), b = chain_stream(1, 0, 1, ChainRole::proposal);
  double three[3], four[4];
  standard_normals(a, three, 3);
  standard_normals(b, four, 4);
  for (int i = 0; i < 3; ++i) CHECK(same_bits(three[i], four[i]));
}

TEST_CASE("Cholesky factor, random-walk proposal and covariance checks", "[inference]") {
  std::vector<double> l;
  REQUIRE(cholesky({4, 2, 2, 10}, 2, l));
  CHECK(l == std::vector<double>{2, 0, 1, 3});
  CHECK_FALSE(cholesky({1, 2, 2, 1}, 2, l));
  const RandomWalkProposal p(2, {4, 2, 2, 10});
  const double phi[2] = {1, 1}, z[2] = {0.5, -1};
  double out[2];
  p.propose(phi, z, out);
  CHECK(out[0] == 2.0);   // 1 + 2 * 0.5
  CHECK(out[1] == -1.5);  // 1 + 1 * 0.5 + 3 * -1
  CHECK(error_of([] {
          RandomWalkProposal(2, {1, 0.5, 0.4, 1});
        }) == "proposal covariance: entries (1, 0) = 0.4 and (0, 1) = 0.5 differ; expected a symmetric matrix");
  CHECK(error_of([] {
          RandomWalkProposal(2, {1, 2, 2, 1});
        }) == "proposal covariance: not positive definite (its Cholesky factorisation fails)");
  CHECK(error_of([] { RandomWalkProposal(2, {1, 0, 0}); }) == "proposal covariance: 3 entries; expected 4 (2 x 2)");
  CHECK(error_of([] { RandomWalkProposal(1, {kInf}); }) == "proposal covariance: entry inf is not finite");
}

TEST_CASE("Welford accumulation equals the two-pass covariance; the schedule is fixed", "[inference]") {
  const std::vector<double> z = rsmc::testing::portable_normals(7, 0, 3000);
  AdaptationAccumulator acc;
  acc.reset(3);
  for (int i = 0; i < 1000; ++i) {
    const double x[3] = {z[3 * i] + 5, 0.5 * z[3 * i] + z[3 * i + 1], 1e-3 * z[3 * i + 2]};
    acc.add(x);
  }
  // Two passes in long double.
  long double mean[3] = {0, 0, 0}, cov[9] = {};
  auto point = [&](int i, int k) -> long double {
    const double x[3] = {z[3 * i] + 5, 0.5 * z[3 * i] + z[3 * i + 1], 1e-3 * z[3 * i + 2]};
    return x[k];
  };
  for (int i = 0; i < 1000; ++i)
    for (int k = 0; k < 3; ++k) mean[k] += point(i, k) / 1000;
  for (int i = 0; i < 1000; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) cov[3 * j + k] += (point(i, j) - mean[j]) * (point(i, k) - mean[k]);
  CHECK(acc.count == 1000);
  for (int k = 0; k < 3; ++k) CHECK(acc.mean[k] == Approx(static_cast<double>(mean[k])).epsilon(1e-13).margin(1e-16));
  for (int k = 0; k < 9; ++k)
    CHECK(acc.comoment[k] == Approx(static_cast<double>(cov[k])).epsilon(1e-12).margin(1e-18));
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) CHECK(same_bits(acc.comoment[3 * j + k], acc.comoment[3 * k + j]));

  AdaptationOptions o;
  o.scale = 2.0;
  o.regularisation = 0.01;
  o.initial_weight = 999;  // w0 = 999 pseudo-states against m = 1000 states
  const std::vector<double> sigma0 = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::vector<double> sigma = adapted_covariance(o, acc, sigma0);
  const double s_d = 4.0 / 3.0;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) {
      const double expected =
          (999 * sigma0[3 * j + k] + 1000 * s_d * static_cast<double>(cov[3 * j + k]) / 999) / 1999 +
          (j == k ? s_d * 0.01 : 0.0);
      CHECK(sigma[3 * j + k] == Approx(expected).epsilon(1e-12));
    }

  AdaptationOptions schedule;
  schedule.start = 100;
  schedule.interval = 50;
  schedule.stop = 250;
  std::vector<std::uint64_t> due;
  for (std::uint64_t i = 0; i <= 1000; ++i)
    if (schedule.due(i)) due.push_back(i);
  CHECK(due == std::vector<std::uint64_t>{100, 150, 200, 250});
  schedule.enabled = false;
  CHECK_FALSE(schedule.due(100));
  AdaptationOptions bad;
  bad.interval = 0;
  CHECK(error_of([&] { bad.validate(); }) == "adaptation.interval = 0; expected an integer >= 1");
  bad = AdaptationOptions();
  bad.start = 1;
  CHECK(error_of([&] { bad.validate(); }) ==
        "adaptation.start = 1; expected an integer >= 2 (a covariance needs two states)");
  bad = AdaptationOptions();
  bad.scale = -1;
  CHECK(error_of([&] { bad.validate(); }) == "adaptation.scale = -1; expected a finite number > 0");
}

TEST_CASE("on a correlated Gaussian target the adapted covariance approaches 2.38^2/d times the target's",
          "[inference]") {
  const PmmhChain chain(wide_normal_priors(), options(11, 0));
  const auto run = run_chain(chain, {0.0, 0.0}, gaussian_log_likelihood, 40000, 5000);
  const std::vector<double>& sigma = run.state.proposal.covariance();
  const double s_d = 2.38 * 2.38 / 2;
  // The empirical covariance of 40000 correlated states has a relative error of a few percent.
  for (int k = 0; k < 4; ++k) CHECK(sigma[k] == Approx(s_d * kS[k]).epsilon(0.1));
  CHECK(run.state.counters.adaptations == (40000 - 200) / 100 + 1);
  CHECK(run.state.counters.adaptation_failures == 0);
  // Optimal scaling in d = 2 gives an acceptance rate near 0.35 (Gelman, Roberts & Gilks 1996).
  CHECK(run.state.acceptance_rate() > 0.25);
  CHECK(run.state.acceptance_rate() < 0.45);
  CHECK(run.state.counters.accepted + run.state.counters.rejected == 40000);
}

TEST_CASE("a chain is a pure function of (seed, chain) and continues bitwise from its record", "[inference]") {
  const PmmhChain chain(wide_normal_priors(), options(42, 3));
  const auto a = run_chain(chain, {0.5, 0.5}, gaussian_log_likelihood, 3000);
  const auto b = run_chain(chain, {0.5, 0.5}, gaussian_log_likelihood, 3000);
  CHECK(same_bits(all_theta(a), all_theta(b)));
  CHECK(rsmc::testing::fingerprint(all_theta(a)) == rsmc::testing::fingerprint(all_theta(b)));
  const PmmhChain other(wide_normal_priors(), options(42, 4));
  CHECK_FALSE(same_bits(all_theta(a), all_theta(run_chain(other, {0.5, 0.5}, gaussian_log_likelihood, 3000))));

  // Stop at iteration 1234 (between adaptation points 1200 and 1300), store, restore, continue.
  ChainState s = chain.start({0.5, 0.5}, gaussian_log_likelihood);
  for (int i = 0; i < 1234; ++i) chain.step(s, gaussian_log_likelihood);
  const ChainRecord record = to_record(s);
  ChainState restored = restore(record, chain.parameters());
  for (int i = 1234; i < 3000; ++i) {
    const StepResult r = chain.step(restored, gaussian_log_likelihood);
    const StepResult& expected = a.results[static_cast<std::size_t>(i)];
    REQUIRE(same_bits(r.proposed_theta, expected.proposed_theta));
    REQUIRE(r.outcome == expected.outcome);
    REQUIRE(r.adapted == expected.adapted);
  }
  CHECK(same_bits(restored.theta, a.state.theta));
  CHECK(same_bits(restored.proposal.covariance(), a.state.proposal.covariance()));
  CHECK(same_bits(restored.adaptation.comoment, a.state.adaptation.comoment));
  CHECK(restored.counters.accepted == a.state.counters.accepted);
  CHECK(restored.counters.adaptations == a.state.counters.adaptations);
}

TEST_CASE("the chain record round-trips bit for bit and refuses what does not fit", "[inference]") {
  const PmmhChain chain(wide_normal_priors(), options(5, 0));
  const auto run = run_chain(chain, {0.1, 0.2}, gaussian_log_likelihood, 500);
  const ChainRecord r = to_record(run.state);
  CHECK(r.integers.size() == 9);
  CHECK(r.reals.size() == 2 + 2 + 3 + 2 + 4 + 4);
  const ChainRecord again = to_record(restore(r, chain.parameters()));
  REQUIRE(again.reals.size() == r.reals.size());
  for (std::size_t i = 0; i < r.reals.size(); ++i) {
    CHECK(again.reals[i].name == r.reals[i].name);
    CHECK(same_bits(again.reals[i].value, r.reals[i].value));
  }
  for (std::size_t i = 0; i < r.integers.size(); ++i) {
    CHECK(again.integers[i].name == r.integers[i].name);
    CHECK(again.integers[i].value == r.integers[i].value);
  }
  CHECK(r.reals.front().name == "theta[0]");
  CHECK(r.reals.back().name == "proposal.covariance[1,1]");

  ChainRecord missing = r;
  missing.reals.erase(missing.reals.begin() + 1);
  CHECK(error_of([&] { restore(missing, chain.parameters()); }) == "chain state: 'theta[1]' is missing");
  ChainRecord extra = r;
  extra.reals.push_back({"temperature", 1.0});
  CHECK(error_of([&] { restore(extra, chain.parameters()); }) == "chain state: unexpected entry 'temperature'");
  ChainRecord twice = r;
  twice.integers.push_back(twice.integers.back());
  CHECK(error_of([&] { restore(twice, chain.parameters()); }) == "chain state: 'adaptation.count' appears twice");
  const InferredParameterSet one({InferredParameter("x", Prior(PriorKind::normal, 0, 100))});
  CHECK(error_of([&] { restore(r, one); }) == "chain state: dimension = 2 but the run infers 1 parameters");
  const InferredParameterSet changed({InferredParameter("x", Prior(PriorKind::normal, 0, 10)),
                                      InferredParameter("y", Prior(PriorKind::normal, 0, 100))});
  CHECK(error_of([&] { restore(r, changed); }).rfind("chain state: log_prior = ", 0) == 0);
}

TEST_CASE("non-finite likelihood estimates are rejected and counted, never a crash", "[inference]") {
  const PmmhChain chain(wide_normal_priors(), options(8, 0));
  std::uint64_t nan_calls = 0, inf_calls = 0, degenerate_calls = 0;
  const LogLikelihood f = [&](const std::vector<double>& theta, std::uint64_t seed) {
    if (theta[0] > 2.0) return ++nan_calls, std::numeric_limits<double>::quiet_NaN();
    if (theta[1] > 0.0) return ++inf_calls, kInf;
    if (theta[1] < -4.0) {
      ++degenerate_calls;
      throw rsmc::DegenerateError("every particle has zero weight", 3);
    }
    return gaussian_log_likelihood(theta, seed);
  };
  const auto run = run_chain(chain, {0.0, -2.0}, f, 5000);
  CHECK(nan_calls > 100);
  CHECK(inf_calls > 100);
  CHECK(degenerate_calls > 100);
  CHECK(run.state.counters.non_finite == nan_calls + inf_calls + degenerate_calls);
  for (std::size_t i = 0; i < run.draws[0].size(); ++i) {
    CHECK(run.draws[0][i] <= 2.0);
    CHECK(run.draws[1][i] <= 0.0);
    CHECK(run.draws[1][i] >= -4.0);
  }
  std::uint64_t counted = 0;
  for (const StepResult& r : run.results) counted += r.outcome == Outcome::non_finite;
  CHECK(counted == run.state.counters.non_finite);
  // Other exceptions are errors of the caller: they propagate.
  ChainState s = chain.start({0.0, -2.0}, gaussian_log_likelihood);
  CHECK_THROWS_AS(
      chain.step(s, [](const std::vector<double>&, std::uint64_t) -> double { throw std::runtime_error("io"); }),
      std::runtime_error);
}

TEST_CASE("proposals outside the prior's support are rejected without evaluating the likelihood", "[inference]") {
  // A uniform prior on (0, 1) with the identity transform: proposals may leave the interval.
  const InferredParameterSet set({InferredParameter("p", Prior(PriorKind::uniform, 0, 1), Transform::identity())});
  ChainOptions o = options(3, 0);
  o.proposal_covariance = {1.0};
  o.adaptation.enabled = false;
  const PmmhChain chain(set, o);
  std::uint64_t calls = 0;
  const LogLikelihood f = [&](const std::vector<double>& theta, std::uint64_t) {
    ++calls;
    REQUIRE(theta[0] > 0.0);
    REQUIRE(theta[0] < 1.0);
    return 0.0;
  };
  const auto run = run_chain(chain, {0.5}, f, 4000);
  CHECK(run.state.counters.outside_support > 1000);
  CHECK(calls == 1 + 4000 - run.state.counters.outside_support);
  CHECK(run.state.counters.non_finite == 0);
  // The flat posterior is the prior U(0, 1): mean 1/2 within 4 batch-means standard errors.
  CHECK(std::fabs(mean(run.draws[0]) - 0.5) < 4 * batch_means_standard_error(run.draws[0], 40));
}

TEST_CASE("start() evaluates iteration 0's filter seed and refuses bad initial values", "[inference]") {
  const InferredParameterSet set(
      {InferredParameter("q", Prior(PriorKind::gamma, 2, 1)), InferredParameter("r", Prior(PriorKind::beta, 2, 2))});
  ChainOptions o;
  o.seed = 77;
  o.chain = 1;
  o.proposal_covariance = {0.1, 0, 0, 0.1};
  const PmmhChain chain(set, o);
  std::uint64_t seen = 0;
  const ChainState s = chain.start({0.5, 0.5}, [&](const std::vector<double>&, std::uint64_t seed) {
    seen = seed;
    return -3.0;
  });
  CHECK(seen == filter_seed(77, 1, 0));
  CHECK(s.log_likelihood == -3.0);
  CHECK(s.adaptation.count == 1);
  CHECK(s.iteration == 0);
  CHECK(std::isnan(s.acceptance_rate()));
  const LogLikelihood zero = [](const std::vector<double>&, std::uint64_t) { return 0.0; };
  CHECK(error_of([&] {
          chain.start({0.5, 1.5}, zero);
        }) == "r: initial value 1.5 is outside (0, 1), the range of the logit(0, 1) transform");
  CHECK(error_of([&] { chain.start({0.5}, zero); }) == "initial values: 1 given; expected 2");
  CHECK(error_of([&] {
          chain.start({0.5, 0.5}, [](const std::vector<double>&, std::uint64_t) { return -kInf; });
        }).rfind("initial values: the log-likelihood estimate is -inf (filter seed ", 0) == 0);
  ChainOptions bad = o;
  bad.seed = std::uint64_t(1) << 56;
  CHECK(error_of([&] { PmmhChain(set, bad); }) == "seed = 72057594037927936 is too large; expected 0 <= seed < 2^56");
  bad = o;
  bad.proposal_covariance = {1};
  CHECK(error_of([&] { PmmhChain(set, bad); }) == "proposal covariance: 1 entries; expected 4 (2 x 2)");
}

TEST_CASE("known answer: the bits of a 2000-iteration adaptive chain", "[inference]") {
  // Pins the chain's bits on every platform: rsmc::math, no FMA contraction and fixed-order
  // arithmetic make them the same everywhere. A change here means chains of existing runs change.
  const InferredParameterSet set({InferredParameter("x", Prior(PriorKind::normal, 0, 100)),
                                  InferredParameter("q", Prior(PriorKind::inverse_gamma, 3, 2)),
                                  InferredParameter("p", Prior(PriorKind::beta, 2, 3))});
  ChainOptions o;
  o.seed = 20261125;
  o.chain = 2;
  o.proposal_covariance = {0.2, 0, 0, 0, 0.2, 0, 0, 0, 0.2};
  o.adaptation.start = 100;
  o.adaptation.interval = 25;
  const PmmhChain chain(set, o);
  const LogLikelihood f = [](const std::vector<double>& t, std::uint64_t seed) {
    const double noise = static_cast<double>(seed >> 40) * 0x1.0p-16;  // in [0, 1): uses the filter seed
    return -0.5 * (t[0] - 1) * (t[0] - 1) - t[1] + 3 * t[2] + 0.1 * noise;
  };
  const auto run = run_chain(chain, {0.0, 1.0, 0.5}, f, 2000);
  std::vector<double> bits = all_theta(run);
  bits.insert(bits.end(), run.state.proposal.covariance().begin(), run.state.proposal.covariance().end());
  bits.push_back(run.state.log_likelihood);
  const std::uint64_t print = rsmc::testing::fingerprint(bits);
  INFO("fingerprint 0x" << std::hex << print);
  CHECK(print == 0xd2d75536c83f896fULL);
}
