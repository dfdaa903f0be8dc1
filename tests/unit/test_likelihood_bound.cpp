// The optional model function log_likelihood_bound (framework/model/model_traits.hpp) and what the
// engine does with it (framework/engine/bootstrap_filter.hpp: shift_from_bound, weight_shift;
// step_kernels.hpp: weigh_and_sum).
//
// - The fused kernel: weigh_and_sum gives every bit of weight_particles followed by moment_sums with
//   the same shift (new log-weights, weights, sums, invalid count, maximum), which is what a GPU runs
//   instead; for SV and the 2-d linear Gaussian, with -inf log-weights, NaN states (a NaN
//   log-likelihood) in both invalid-likelihood modes, and particle counts of one and of several
//   chunks that are not a multiple of the batch.
// - The shipped bounds hold: SV's and LG's log_likelihood never exceeds log_likelihood_bound, also at
//   SV's maximiser x = log y^2.
// - The filter: a bound far above the maximum log-weight (useless) and one below it (violated) give
//   every bit of the run without a bound, because weight_shift falls back to the maximum; the shipped
//   bound changes only the rounding: the same log-likelihood within 1e-10 relative (each weight is
//   exp(l - shift) with a relative rounding error of a few 2^-53 for either shift, so a step's
//   increment moves by about 1e-15 and 60 of them by about 1e-13; resampling, an exact function of
//   the fixed-point weights, flips an offspring only if a sample point falls within 2^-53 of a cell
//   boundary), while some bit does differ (so the bound was used).
// - SV's observations of exactly 0, where it has no bound (+inf): those steps shift by their maximum;
//   all zeros give every bit of the run without a bound.
// - Invalid log-likelihoods with a bound: the same error message and the same counts as without.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/exact/binned_sum.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/engine/step_kernels.hpp"
#include "framework/model/model_traits.hpp"
#include "models/linear_gaussian.hpp"
#include "models/stochastic_volatility.hpp"
#include "tests/support/hazard_models.hpp"

namespace likelihood_bound_test {  // named: the unit tests build as unity files

using rsmc::ObservationView;
using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;
using rsmc::models::StochasticVolatility;
using rsmc::models::StochasticVolatilityParams;

using Host = Kokkos::DefaultHostExecutionSpace;
using States = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
using Weights = Kokkos::View<double*, Kokkos::HostSpace>;

// The model with its log_likelihood_bound hidden: the engine sees a model without one.
template <class M>
struct WithoutBound : M {
  explicit WithoutBound(const M& m) : M(m) {}

 private:
  using M::log_likelihood_bound;
};

// The model with its bound moved by `offset` (+100: useless; -100: violated).
template <class M>
struct OffsetBound : M {
  OffsetBound(const M& m, double offset) : M(m), offset_(offset) {}
  double log_likelihood_bound(ObservationView y, int step) const { return M::log_likelihood_bound(y, step) + offset_; }

 private:
  double offset_;
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_sum(const rsmc::exact::BinnedSum& a, const rsmc::exact::BinnedSum& b) {
  const auto x = a.to_double_double(), y = b.to_double_double();
  return same_bits(x.hi, y.hi) && same_bits(x.lo, y.lo);
}

// How many of n particles differ in any bit between weigh_and_sum and weight_particles + moment_sums
// (new log-weight or weight), plus one per differing sum, count or maximum.
template <class Model>
std::size_t fused_mismatches(const Model& model, std::size_t n, bool zero_weight) {
  const int d = model.state_dim();
  States state("state", n, static_cast<std::size_t>(d));
  Weights log_weight("lw", n), next_a("next_a", n), next_b("next_b", n), weight_a("w_a", n), weight_b("w_b", n);
  Weights y("y", static_cast<std::size_t>(model.obs_dim())), k("k", static_cast<std::size_t>(d));
  for (int j = 0; j < model.obs_dim(); ++j) y(static_cast<std::size_t>(j)) = 0.3 - 0.5 * j;
  for (int c = 0; c < d; ++c) k(static_cast<std::size_t>(c)) = 0.1 * c;
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c) state(i, static_cast<std::size_t>(c)) = std::sin(0.37 * static_cast<double>(i) + c);
    log_weight(i) = i % 97 == 5 ? -HUGE_VAL : -std::fmod(0.013 * static_cast<double>(i * i), 4.0);
    if (i % 211 == 7) state(i, 0) = NAN;  // a model that failed there: NaN log-likelihood
  }
  const double shift = 0.7;
  const int t = 3;
  const int nsums = rsmc::step_kernels::moment_sum_count(d);
  std::vector<rsmc::exact::BinnedSum> sums_a(static_cast<std::size_t>(nsums)), sums_b(sums_a.size());
  for (auto& s : sums_a) s.clear();
  for (auto& s : sums_b) s.clear();
  rsmc::exact::BinnedReduceWorkspace<Kokkos::HostSpace> ws_a, ws_b;
  Kokkos::View<rsmc::step_kernels::WeightingOutcome*, Kokkos::HostSpace> batch_outcome;

  const auto a = rsmc::step_kernels::weight_particles<Host>(model, state, y, log_weight, next_a, zero_weight, t);
  rsmc::step_kernels::moment_sums<Host>(next_a, state, shift, k, weight_a, ws_a, sums_a.data());
  const auto b = rsmc::step_kernels::weigh_and_sum<Host>(model, state, y, log_weight, next_b, zero_weight, t, shift, k,
                                                         weight_b, batch_outcome, ws_b, sums_b.data());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!same_bits(next_a(i), next_b(i)) || !same_bits(weight_a(i), weight_b(i))) ++bad;
  for (std::size_t s = 0; s < sums_a.size(); ++s)
    if (!same_sum(sums_a[s], sums_b[s])) ++bad;
  if (a.invalid != b.invalid || !same_bits(a.local_max, b.local_max)) ++bad;
  CHECK(a.invalid == (n + 203) / 211);  // the NaN states were seen
  return bad;
}

// The summaries of a run must agree in every bit.
bool same_run(const rsmc::FilterResult& a, const rsmc::FilterResult& b) {
  const auto same_vector = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  return same_bits(a.log_likelihood, b.log_likelihood) && same_vector(a.ess, b.ess) && same_vector(a.mean, b.mean) &&
         same_vector(a.variance, b.variance) && same_vector(a.log_likelihood_increment, b.log_likelihood_increment) &&
         a.resampled == b.resampled;
}

template <class Model>
rsmc::FilterResult run(const Model& model, const rsmc::Observations& y) {
  rsmc::FilterOptions options;
  options.particles = 2000;
  options.seed = 5;
  options.ess_threshold = 0.5;
  rsmc::BootstrapFilter<Model> filter(MPI_COMM_SELF, model, options);
  return filter.run(y);
}

// 60 simulated steps with step 10 missing.
template <class Model>
rsmc::Observations data_of(const Model& model) {
  rsmc::Observations y = rsmc::simulate(model, 60, 11).observations;
  for (int j = 0; j < y.dim; ++j) y.values[static_cast<std::size_t>(9 * y.dim + j)] = NAN;
  return y;
}

template <class Model>
void check_filter_with_bounds(const Model& model) {
  const rsmc::Observations y = data_of(model);
  const rsmc::FilterResult without = run(WithoutBound<Model>(model), y);
  CHECK(same_run(run(OffsetBound<Model>(model, 100.0), y), without));   // useless: falls back
  CHECK(same_run(run(OffsetBound<Model>(model, -100.0), y), without));  // violated: falls back
  const rsmc::FilterResult with = run(model, y);
  CHECK_FALSE(same_run(with, without));  // the bound was used
  CHECK(std::fabs(with.log_likelihood - without.log_likelihood) <= 1e-10 * std::fabs(without.log_likelihood));
  REQUIRE(with.mean.size() == without.mean.size());
  // margin: a mean's rounding error scales with the states (about 1 here), not with the mean itself
  for (std::size_t i = 0; i < with.mean.size(); ++i)
    CHECK(with.mean[i] == Approx(without.mean[i]).epsilon(1e-9).margin(1e-12));
}

// SV has no bound where y = 0 (log_likelihood_bound is +inf), so a step there shifts by its maximum,
// as without a bound. Every observation 0: every bit of the run without a bound. Zeros at every third
// step: the bound is used at the others, and the run agrees within the tolerance above.
void sv_without_bound_at_zero_observations() {
  const StochasticVolatility sv{StochasticVolatilityParams()};
  const WithoutBound<StochasticVolatility> plain(sv);
  const rsmc::Observations zeros = rsmc::test::observations_of(std::vector<double>(40, 0.0));
  CHECK(same_run(run(sv, zeros), run(plain, zeros)));
  rsmc::Observations some = data_of(sv);  // one component per step; step 10 (index 9) missing
  for (std::size_t t = 1; t < some.values.size(); t += 3) some.values[t] = 0.0;
  const rsmc::FilterResult with = run(sv, some), without = run(plain, some);
  CHECK_FALSE(same_run(with, without));
  REQUIRE(std::isfinite(without.log_likelihood));
  CHECK(std::fabs(with.log_likelihood - without.log_likelihood) <= 1e-10 * std::fabs(without.log_likelihood));
}

// ---- the test cases' bodies ----

void traits_see_the_bound() {
  STATIC_REQUIRE(rsmc::has_log_likelihood_bound_v<StochasticVolatility>);
  STATIC_REQUIRE(rsmc::has_log_likelihood_bound_v<LinearGaussian>);
  STATIC_REQUIRE_FALSE(rsmc::has_log_likelihood_bound_v<WithoutBound<StochasticVolatility>>);
  STATIC_REQUIRE_FALSE(rsmc::has_log_likelihood_bound_v<WithoutBound<LinearGaussian>>);
  STATIC_REQUIRE_FALSE(rsmc::has_log_likelihood_bound_v<rsmc::test::InvalidAtIds>);
}

void shipped_bounds_hold() {
  const StochasticVolatility sv{StochasticVolatilityParams()};
  for (double y : {-3.0, -0.2, 1e-3, 0.5, 4.0}) {
    const double bound = sv.log_likelihood_bound(ObservationView{&y, 1}, 1);
    for (int i = -400; i <= 400; ++i) {
      const double x = 0.05 * i;
      CHECK(sv.log_likelihood(rsmc::ConstStateView{&x, 1}, ObservationView{&y, 1}, 1) <= bound);
    }
    const double at_max = std::log(y * y);
    CHECK(sv.log_likelihood(rsmc::ConstStateView{&at_max, 1}, ObservationView{&y, 1}, 1) ==
          Approx(bound).epsilon(1e-14));
  }
  const double zero = 0.0;
  CHECK(sv.log_likelihood_bound(ObservationView{&zero, 1}, 1) == HUGE_VAL);  // no bound for y = 0

  const LinearGaussian lg{LinearGaussianParams()};
  const std::vector<double> y{0.4, -1.1};  // (vectors: GCC cannot see that m = 2 in the run-time size path)
  const double bound = lg.log_likelihood_bound(ObservationView{y.data(), 1}, 1);
  for (int i = -20; i <= 20; ++i)
    for (int j = -20; j <= 20; ++j) {
      const std::vector<double> x{0.1 * i, 0.1 * j};
      CHECK(lg.log_likelihood(rsmc::ConstStateView{x.data(), 1}, ObservationView{y.data(), 1}, 1) <= bound);
    }
  // C = I: at x = y the distance is 0
  CHECK(lg.log_likelihood(rsmc::ConstStateView{y.data(), 1}, ObservationView{y.data(), 1}, 1) == bound);
}

void fused_pass_has_the_same_bits() {
  const StochasticVolatility sv{StochasticVolatilityParams()};
  const LinearGaussian lg{LinearGaussianParams()};
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{9000}}) {
    for (bool zero_weight : {false, true}) {
      CAPTURE(n, zero_weight);
      CHECK(fused_mismatches(sv, n, zero_weight) == 0);
      CHECK(fused_mismatches(lg, n, zero_weight) == 0);
    }
  }
}

void filter_with_each_bound() {
  SECTION("stochastic volatility") { check_filter_with_bounds(StochasticVolatility{StochasticVolatilityParams()}); }
  SECTION("linear Gaussian, d = 2") { check_filter_with_bounds(LinearGaussian{LinearGaussianParams()}); }
}

// InvalidAtIds with the bound 0 (its log-likelihoods are -1e-3 label <= 0, labels >= 0).
struct BoundedInvalidAtIds : rsmc::test::InvalidAtIds {
  static double log_likelihood_bound(ObservationView, int) { return 0.0; }
};

template <class Model>
std::string outcome_of(Model model, rsmc::InvalidLikelihood mode, std::vector<std::uint64_t>& invalid) {
  rsmc::BootstrapFilter<Model> filter(MPI_COMM_SELF, model, rsmc::test::hazard_options(300, 0.5, mode));
  const auto y = rsmc::test::observations_of(std::vector<double>(4, 0.0));
  rsmc::RunProgress progress = filter.start();
  rsmc::test::label_with_ids(filter);
  try {
    while (progress.step < 4) filter.advance(progress, y);
  } catch (const rsmc::Error& e) {
    return e.what();
  }
  invalid = progress.result.invalid_likelihoods;
  return std::to_string(progress.result.log_likelihood);
}

void invalid_likelihoods_with_a_bound() {
  STATIC_REQUIRE(rsmc::has_log_likelihood_bound_v<BoundedInvalidAtIds>);
  BoundedInvalidAtIds bounded;
  static_cast<rsmc::test::InvalidAtIds&>(bounded) = rsmc::test::three_invalid_at_step_2();
  bounded.inf_state_id = 77;
  const rsmc::test::InvalidAtIds plain = bounded;
  for (auto mode : {rsmc::InvalidLikelihood::error, rsmc::InvalidLikelihood::zero_weight}) {
    std::vector<std::uint64_t> counts_bounded, counts_plain;
    const std::string a = outcome_of(bounded, mode, counts_bounded);
    const std::string b = outcome_of(plain, mode, counts_plain);
    CHECK(a == b);
    CHECK(counts_bounded == counts_plain);
    // invalid at step 2: ids 151, 250, 299 and 77 (its state becomes +inf), the lowest named
    if (mode == rsmc::InvalidLikelihood::error)
      CHECK_THAT(a, Catch::Matchers::Contains("at step 2 for global particle id 77 (4 particles in all"));
    if (mode == rsmc::InvalidLikelihood::zero_weight) {
      REQUIRE(counts_plain.size() == 4);
      CHECK(counts_plain[0] == 0);
      CHECK(counts_plain[1] == 4);
    }
  }
}

}  // namespace likelihood_bound_test

TEST_CASE("model traits see log_likelihood_bound, and not when it is hidden", "[bound]") {
  likelihood_bound_test::traits_see_the_bound();
}

TEST_CASE("the shipped bounds hold, and SV's is attained", "[bound]") { likelihood_bound_test::shipped_bounds_hold(); }

TEST_CASE("weigh_and_sum has the bits of weight_particles followed by moment_sums", "[bound]") {
  likelihood_bound_test::fused_pass_has_the_same_bits();
}

TEST_CASE("a useless or violated bound gives the bits of no bound; the shipped one only rounds differently",
          "[bound]") {
  likelihood_bound_test::filter_with_each_bound();
}

TEST_CASE("SV's bound is +inf at y = 0: those steps shift by their maximum", "[bound]") {
  likelihood_bound_test::sv_without_bound_at_zero_observations();
}

TEST_CASE("invalid log-likelihoods with a bound: the same error and the same counts", "[bound]") {
  likelihood_bound_test::invalid_likelihoods_with_a_bound();
}
