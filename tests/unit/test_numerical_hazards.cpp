// Numerical hazards of the bootstrap filter on one rank (the rank-count side is
// tests/mpi/test_numerical_hazards_mpi.cpp), with the small models of tests/support/hazard_models.hpp:
// - a NaN or +inf log-likelihood: an error naming model, step and the lowest global id, or (zero-weight
//   mode) weight zero for exactly those particles, counted, and the other particles' statistics exact;
// - every particle invalid: "filter degenerate at step t" with the filter restored to step t - 1;
// - log-weights spread over more than 1382 nats (600 orders of magnitude, far below the smallest double
//   once exponentiated): ESS and log-likelihood increment against a long-double reference, resampling
//   against the systematic scheme's exact offspring counts;
// - N = 1: the filter equals its own computation by hand, bit for bit;
// - missing observations: increment exactly 0 and weights unchanged; all steps missing;
// - steps = 1.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/exact/moments.hpp"
#include "tests/support/hazard_models.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kNaN;

namespace {

using Catch::Matchers::Contains;
using rsmc::BootstrapFilter;
using rsmc::FilterOptions;
using rsmc::InvalidLikelihood;
using rsmc::test::InvalidAtIds;

constexpr double kEps = DBL_EPSILON;

using rsmc::test::hazard_options;

// The message of the rsmc::Error the filter throws within `steps` steps, or "no error".
std::string error_of(const InvalidAtIds& model, InvalidLikelihood mode, int steps) {
  BootstrapFilter<InvalidAtIds> filter(MPI_COMM_SELF, model, hazard_options(300, 1e-9, mode));
  const auto y = rsmc::test::observations_of(std::vector<double>(static_cast<std::size_t>(steps), 0.0));
  rsmc::RunProgress progress = filter.start();
  rsmc::test::label_with_ids(filter);
  try {
    while (progress.step < steps) filter.advance(progress, y);
  } catch (const rsmc::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a NaN or +inf log-likelihood is an error naming model, step and the lowest global id", "[engine][hazards]") {
  InvalidAtIds model = rsmc::test::three_invalid_at_step_2();
  CHECK_THAT(
      error_of(model, InvalidLikelihood::error, 3),
      Contains("model test_invalid_at_ids: log_likelihood is NaN or +inf at step 2 for global particle id 151") &&
          Contains("(3 particles in all;"));
  model.inf_id = -1;  // NaN only
  CHECK_THAT(error_of(model, InvalidLikelihood::error, 3), Contains("at step 2 for global particle id 250"));
  model.nan_id_a = model.nan_id_b = -1;
  model.inf_id = 0;  // +inf only, the first particle
  CHECK_THAT(error_of(model, InvalidLikelihood::error, 3), Contains("at step 2 for global particle id 0 (1 particle"));
  model.inf_id = -1;
  CHECK(error_of(model, InvalidLikelihood::error, 3) == "no error");  // the model is otherwise fine
}

TEST_CASE("zero-weight mode: exactly the invalid particles get weight zero and are counted", "[engine][hazards]") {
  InvalidAtIds model = rsmc::test::three_invalid_at_step_2();
  model.inf_state_id = 77;  // its state becomes +inf: the moments must not turn NaN (0 * inf)
  const auto y = rsmc::test::observations_of({0.0, 0.0, 0.0});
  BootstrapFilter<InvalidAtIds> filter(MPI_COMM_SELF, model, hazard_options(300, 1e-9, InvalidLikelihood::zero_weight));
  rsmc::RunProgress progress = filter.start();
  rsmc::test::label_with_ids(filter);
  filter.advance(progress, y);
  filter.advance(progress, y);
  const std::vector<double> lw = rsmc::test::host_log_weights(filter);
  std::vector<double> valid;  // the log-weights of the particles that kept theirs
  for (std::size_t i = 0; i < lw.size(); ++i) {
    INFO("particle " << i);
    if (i == 77 || i == 151 || i == 250 || i == 299) {
      CHECK(lw[i] == -std::numeric_limits<double>::infinity());
    } else {
      CHECK(lw[i] == -2e-3 * static_cast<double>(i));  // two steps of -1e-3 * id: exact here
      valid.push_back(lw[i]);
    }
  }
  filter.advance(progress, y);
  const rsmc::FilterResult result = filter.finish(progress);
  CHECK(result.invalid_likelihoods == std::vector<std::uint64_t>{0, 4, 1});  // particle 77 stays at +inf
  // Step 2's statistics are those of the 296 valid particles (no resampling: threshold 1e-9).
  const auto ref = rsmc::test::weight_reference(valid);
  CHECK(std::abs(result.ess[1] - static_cast<double>(ref.ess())) <= 8 * kEps * result.ess[1]);
  CHECK(std::isfinite(result.mean[1]));
  CHECK(std::isfinite(result.variance[1]));
  CHECK(std::isfinite(result.log_likelihood));
}

TEST_CASE("every particle invalid: the filter is degenerate and back at the last good step", "[engine][hazards]") {
  InvalidAtIds model;
  model.bad_step = 3;
  model.all_bad = true;
  const auto y = rsmc::test::observations_of({0.0, 0.0, 0.0, 0.0});
  BootstrapFilter<InvalidAtIds> filter(MPI_COMM_SELF, model, hazard_options(300, 0.5, InvalidLikelihood::zero_weight));
  rsmc::RunProgress progress = filter.start();
  rsmc::test::label_with_ids(filter);
  filter.advance(progress, y);
  filter.advance(progress, y);
  const std::vector<double> states = rsmc::test::host_states(filter);
  const std::vector<double> weights = rsmc::test::host_log_weights(filter);
  try {
    filter.advance(progress, y);
    FAIL("step 3 should be degenerate");
  } catch (const rsmc::DegenerateError& e) {
    CHECK(e.step() == 3);
    CHECK_THAT(std::string(e.what()), Contains("filter degenerate at step 3: every particle has zero weight") &&
                                          Contains("(300 of them had a NaN or +inf log-likelihood)"));
  }
  CHECK(progress.step == 2);
  CHECK(rsmc::test::host_states(filter) == states);
  CHECK(rsmc::test::host_log_weights(filter) == weights);
  // In error mode the same model stops with the error instead, naming the first particle.
  CHECK_THAT(error_of(model, InvalidLikelihood::error, 4),
             Contains("at step 3 for global particle id 0 (300 particles"));
}

TEST_CASE("log-weights spread over 600 orders of magnitude: ESS, increment and resampling", "[engine][hazards]") {
  const rsmc::test::Spread model;  // log-weight -1400 u, u ~ U(0, 1)
  const std::uint64_t n = 2000;
  const auto y = rsmc::test::observations_of({0.0});

  // Step 1 without resampling: the weights as the filter sees them.
  BootstrapFilter<rsmc::test::Spread> weighted(MPI_COMM_SELF, model, hazard_options(n, 1e-9, InvalidLikelihood::error));
  const rsmc::FilterResult r = weighted.run(y);
  const std::vector<double> lw = rsmc::test::host_log_weights(weighted);
  const std::vector<double> u = rsmc::test::host_states(weighted);
  double lo = 0, hi = -1e300;
  for (double x : lw) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  INFO("log-weights span " << hi - lo << " nats");
  REQUIRE(hi - lo > 600 * std::log(10.0));  // the test covers what it claims: 600 orders of magnitude

  // Tolerances from double rounding: every weight exp(lw - max) carries <= 1 ulp, its square 2-3; the
  // sums are exact, then rounded once; ESS = total^2 / total_sq adds 3 roundings: 8 eps relative.
  // Weights that underflow (below 2^-1074) change the sums by < N 2^-1074, far below that. The
  // increment max + log(total) - log(N) has an absolute error of a few eps times its terms.
  const auto ref = rsmc::test::weight_reference(lw);
  CHECK(std::abs(r.ess[0] - static_cast<double>(ref.ess())) <= 8 * kEps * r.ess[0]);
  const long double ref_increment = ref.log_total() - std::log(static_cast<long double>(n));
  const double scale = std::abs(hi) + std::log(static_cast<double>(ref.total)) + std::log(static_cast<double>(n)) + 1;
  CHECK(std::abs(r.log_likelihood_increment[0] - static_cast<double>(ref_increment)) <= 8 * kEps * scale);
  CHECK(r.ess[0] < 0.01 * static_cast<double>(n));  // a real degeneracy hazard, not a mild one

  // The same step with resampling (systematic): the offspring of particle i, recognised by its u,
  // number floor(N w_i / W) or ceil(N w_i / W) (up to rounding at an integer), so particles of
  // negligible weight (N w_i / W < 1e-9, which includes every weight below 10^-300) have none.
  BootstrapFilter<rsmc::test::Spread> resampled(MPI_COMM_SELF, model, hazard_options(n, 1.0, InvalidLikelihood::error));
  const rsmc::FilterResult rr = resampled.run(y);
  REQUIRE(rr.resampled[0] == 1);
  std::map<double, int> offspring;
  for (double x : rsmc::test::host_states(resampled)) ++offspring[x];
  std::size_t total = 0, ancestors_checked = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const long double expected =
        static_cast<long double>(n) * std::exp(static_cast<long double>(lw[i]) - ref.max_log_weight) / ref.total;
    const int got = offspring.count(u[i]) ? offspring[u[i]] : 0;
    INFO("particle " << i << ": log-weight " << lw[i] << ", expected offspring " << static_cast<double>(expected));
    CHECK(got >= static_cast<int>(std::floor(expected - 1e-9L)));
    CHECK(got <= static_cast<int>(std::ceil(expected + 1e-9L)));
    total += static_cast<std::size_t>(got);
    ancestors_checked += got > 0 ? 1 : 0;
  }
  CHECK(total == n);  // every offspring descends from one of the original particles
  CHECK(ancestors_checked == offspring.size());
}

TEST_CASE("N = 1: the filter equals its own computation by hand", "[engine][hazards]") {
  const rsmc::test::Ar1 model;
  const auto y = rsmc::test::observations_of({0.3, -0.1, kNaN, 0.8, 1.1});
  FilterOptions o = hazard_options(1, 1.0, InvalidLikelihood::error);  // ESS = 1 is never < 1: no resampling
  BootstrapFilter<rsmc::test::Ar1> filter(MPI_COMM_SELF, model, o);
  const rsmc::FilterResult r = filter.run(y);

  double x = 0.0, lw = 0.0, log_total = 0.0;  // log_total: log of the sum of weights (N = 1: the weight)
  rsmc::StateView xv{&x, 1};
  rsmc::rng::ModelStream init(o.seed, rsmc::rng::Purpose::initialise, 0, 0);
  model.initial(xv, init);
  rsmc::exact::ExactSum ll{};
  ll.clear();
  double reference = 0.0;  // the one-pass moments' reference point: the previous step's mean (0 at step 1)
  for (int t = 1; t <= y.steps; ++t) {
    double next = 0.0;
    rsmc::rng::ModelStream s(o.seed, rsmc::rng::Purpose::propagate, static_cast<std::uint32_t>(t), 0);
    model.transition(rsmc::ConstStateView{&x, 1}, rsmc::StateView{&next, 1}, t, s);
    x = next;
    if (!y.missing(t)) lw += model.log_likelihood(rsmc::ConstStateView{&x, 1}, rsmc::ObservationView{y.row(t), 1}, t);
    const double increment = lw - log_total;
    log_total = lw;
    ll.add(increment);
    INFO("step " << t);
    // The moments by the filter's formulas (BootstrapFilter::summarise): w = 1, the sums of w,
    // w dx and w dx^2 about the reference point, combined in double-double; then, unless the mean
    // moved by at most 2 standard deviations, the second pass sum w (x - mean)^2 / sum w.
    const double dx = x - reference;
    rsmc::exact::BinnedSum s0{}, s1{}, s2{};
    s0.clear();
    s1.clear();
    s2.clear();
    s0.add(1.0);
    s1.add(dx);
    s2.add(dx * dx);
    rsmc::exact::WeightedMoments m =
        rsmc::exact::one_pass_moments(reference, s0.to_double_double(), s1.to_double_double(), s2.to_double_double());
    const double shift = m.mean - reference;
    if (!(shift * shift <= 4.0 * m.variance)) {
      rsmc::exact::BinnedSum sq{};
      sq.clear();
      sq.add((x - m.mean) * (x - m.mean));
      m.variance = sq.to_double() / 1.0;
    }
    reference = m.mean;
    CHECK(r.ess[t - 1] == 1.0);
    CHECK(r.mean[t - 1] == m.mean);
    CHECK(r.variance[t - 1] == m.variance);
    // ... which is x, and 0, to the rounding of x - reference and dx^2.
    CHECK(std::fabs(r.mean[t - 1] - x) <= 0x1p-52 * std::fabs(x) + 0x1p-52 * std::fabs(dx));
    CHECK(r.variance[t - 1] <= 0x1p-52 * dx * dx);
    CHECK(r.log_likelihood_increment[t - 1] == increment);
    CHECK(r.resampled[t - 1] == 0);
  }
  CHECK(r.log_likelihood_increment[2] == 0.0);  // the missing step
  CHECK(r.log_likelihood == ll.to_double());
}

TEST_CASE("a missing observation: increment exactly 0, weights unchanged; all steps missing", "[engine][hazards]") {
  const rsmc::test::Ar1 model;
  const auto y = rsmc::test::observations_of({0.5, kNaN, 0.2});
  BootstrapFilter<rsmc::test::Ar1> filter(MPI_COMM_SELF, model, hazard_options(1000, 1e-9, InvalidLikelihood::error));
  rsmc::RunProgress progress = filter.start();
  filter.advance(progress, y);
  const std::vector<double> before = rsmc::test::host_log_weights(filter);
  filter.advance(progress, y);
  CHECK(rsmc::test::host_log_weights(filter) == before);
  filter.advance(progress, y);
  const rsmc::FilterResult r = filter.finish(progress);
  CHECK(r.log_likelihood_increment[1] == 0.0);
  CHECK(r.ess[1] == r.ess[0]);  // the same weights
  CHECK(r.log_likelihood_increment[2] != 0.0);
  CHECK(r.mean[1] != r.mean[0]);  // the particles moved all the same

  // No observation at all: weights stay equal, nothing is ever resampled, the likelihood is 1.
  const auto none = rsmc::test::observations_of({kNaN, kNaN, kNaN, kNaN});
  BootstrapFilter<rsmc::test::Ar1> blind(MPI_COMM_SELF, model, hazard_options(1000, 1.0, InvalidLikelihood::error));
  const rsmc::FilterResult b = blind.run(none);
  for (int t = 0; t < 4; ++t) {
    CHECK(b.ess[t] == 1000.0);
    CHECK(b.log_likelihood_increment[t] == 0.0);
  }
  CHECK(b.log_likelihood == 0.0);
  // ESS = N is not below 1.0 * N: no resampling even at threshold 1.
  CHECK(b.resampled == std::vector<std::uint8_t>{0, 0, 0, 0});
}

TEST_CASE("steps = 1: one step, its increment is the log-likelihood", "[engine][hazards]") {
  const rsmc::test::Ar1 model;
  BootstrapFilter<rsmc::test::Ar1> filter(MPI_COMM_SELF, model, hazard_options(500, 0.5, InvalidLikelihood::error));
  const rsmc::FilterResult r = filter.run(rsmc::test::observations_of({0.4}));
  REQUIRE(r.steps == 1);
  CHECK(r.ess.size() == 1);
  CHECK(r.mean.size() == 1);
  CHECK(r.invalid_likelihoods == std::vector<std::uint64_t>{0});
  CHECK(r.log_likelihood == r.log_likelihood_increment[0]);
  // Against the long-double reference of the weights the filter holds (no resampling: ESS of
  // equal-ish weights near N stays above N / 2 here).
  REQUIRE(r.resampled[0] == 0);
  const auto ref = rsmc::test::weight_reference(rsmc::test::host_log_weights(filter));
  const double expected = static_cast<double>(ref.log_total() - std::log(500.0L));
  CHECK(std::abs(r.log_likelihood - expected) <= 8 * kEps * (std::abs(static_cast<double>(ref.max_log_weight)) + 8));
}
