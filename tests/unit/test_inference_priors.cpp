// Priors, transforms and inferred parameters (framework/inference/{prior,transform,parameters}.hpp).
//
// - Log-densities against closed forms evaluated independently with libm in long double.
// - Each prior, pushed through its natural transform, integrates to 1 on the unconstrained scale:
//   int p(theta(phi)) J(phi) dphi = 1 checks the density, its normaliser, the transform and the
//   log-Jacobian together (trapezoid rule on a fine grid; the tails beyond the grid are negligible).
// - The log-Jacobian equals the log of a central difference of theta(phi).
// - Argument checks, supports, the prior-versus-domain check and the initial-value check, each with
//   the message it must give.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/inference/parameters.hpp"
#include "framework/inference/prior.hpp"
#include "framework/inference/transform.hpp"
#include "tests/support/inference_testing.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kInf;

namespace {

using rsmc::inference::InferredParameter;
using rsmc::inference::InferredParameterSet;
using rsmc::inference::Interval;
using rsmc::inference::Prior;
using rsmc::inference::PriorKind;
using rsmc::inference::Transform;
using rsmc::testing::error_of;

// The log-density written out again, independently, in long double with libm.
long double reference_log_density(const Prior& p, long double x) {
  const long double a = p.argument(0), b = p.argument(1);
  const long double half_log_2pi = 0.5L * std::log(2.0L * 3.14159265358979323846264338327950288L);
  switch (p.kind()) {
    case PriorKind::normal:
      return -std::log(b) - half_log_2pi - 0.5L * ((x - a) / b) * ((x - a) / b);
    case PriorKind::log_normal: {
      const long double z = (std::log(x) - a) / b;
      return -std::log(x) - std::log(b) - half_log_2pi - 0.5L * z * z;
    }
    case PriorKind::uniform:
      return -std::log(b - a);
    case PriorKind::gamma:
      return a * std::log(b) - std::lgamma(a) + (a - 1) * std::log(x) - b * x;
    case PriorKind::inverse_gamma:
      return a * std::log(b) - std::lgamma(a) - (a + 1) * std::log(x) - b / x;
    case PriorKind::beta:
      return std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + (a - 1) * std::log(x) + (b - 1) * std::log1p(-x);
  }
  return 0;
}

std::vector<Prior> example_priors() {
  return {Prior(PriorKind::normal, 1.5, 2.0),   Prior(PriorKind::log_normal, -0.5, 0.7),
          Prior(PriorKind::uniform, -2.0, 3.0), Prior(PriorKind::gamma, 2.5, 4.0),
          Prior(PriorKind::gamma, 0.7, 1.3),    Prior(PriorKind::inverse_gamma, 3.0, 2.0),
          Prior(PriorKind::beta, 2.0, 5.0),     Prior(PriorKind::beta, 0.6, 0.8)};
}

}  // namespace

TEST_CASE("prior log-densities match their closed forms inside the support", "[inference]") {
  for (const Prior& p : example_priors()) {
    const Interval s = p.support();
    const double lo = std::isfinite(s.lower) ? s.lower : -10.0, hi = std::isfinite(s.upper) ? s.upper : 10.0;
    for (int k = 1; k < 40; ++k) {
      const double x = lo + (hi - lo) * k / 40.0;
      const long double ref = reference_log_density(p, x);
      INFO(p.describe() << " at " << x);
      CHECK(std::fabs(p.log_density(x) - static_cast<double>(ref)) <=
            1e-13 * (1.0 + std::fabs(static_cast<double>(ref))));
    }
  }
}

TEST_CASE("prior log-densities are -inf outside the support and NaN for NaN", "[inference]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Prior& p : example_priors()) {
    const Interval s = p.support();
    INFO(p.describe());
    if (std::isfinite(s.lower)) CHECK(p.log_density(s.lower - 1.0) == -kInf);
    if (std::isfinite(s.upper)) CHECK(p.log_density(s.upper + 1.0) == -kInf);
    CHECK(std::isnan(p.log_density(nan)));
  }
  CHECK(Prior(PriorKind::gamma, 2, 1).log_density(0.0) == -kInf);
  CHECK(Prior(PriorKind::beta, 2, 2).log_density(1.0) == -kInf);
  CHECK(Prior(PriorKind::normal, 0, 1).log_density(kInf) == -kInf);
  CHECK(Prior(PriorKind::uniform, 0, 1).log_density(1.0) == 0.0);  // the closed interval has the density
}

TEST_CASE("each prior integrates to 1 through its natural transform", "[inference]") {
  for (const Prior& p : example_priors()) {
    const Transform t = Transform::onto(p.support());
    // The trapezoid rule on phi in [-60, 60] (the normal prior: mean +- 30 sd).
    const double lo = p.kind() == PriorKind::normal ? p.argument(0) - 30 * p.argument(1) : -60.0;
    const double hi = p.kind() == PriorKind::normal ? p.argument(0) + 30 * p.argument(1) : 60.0;
    const int n = 400000;
    const double h = (hi - lo) / n;
    long double integral = 0;
    for (int k = 0; k <= n; ++k) {
      const double phi = lo + h * k;
      const double lp = p.log_density(t.to_constrained(phi)) + t.log_jacobian(phi);
      const long double f = lp > -kInf ? std::exp(static_cast<long double>(lp)) : 0.0L;
      integral += (k == 0 || k == n) ? 0.5L * f : f;
    }
    INFO(p.describe() << " through " << t.describe());
    CHECK(std::fabs(static_cast<double>(integral * h) - 1.0) < 1e-7);
  }
}

TEST_CASE("prior arguments are validated with messages naming the prior and the argument", "[inference]") {
  CHECK(error_of([] { Prior(PriorKind::normal, 0, 0); }) == "normal prior: sd = 0; expected a finite number > 0");
  CHECK(error_of([] { Prior(PriorKind::normal, kInf, 1); }) == "normal prior: mean = inf; expected a finite number");
  CHECK(error_of([] { Prior(PriorKind::log_normal, 0, -1); }) ==
        "log_normal prior: sdlog = -1; expected a finite number > 0");
  CHECK(error_of([] { Prior(PriorKind::gamma, 2, -0.5); }) == "gamma prior: rate = -0.5; expected a finite number > 0");
  CHECK(error_of([] { Prior(PriorKind::inverse_gamma, 0, 1); }) ==
        "inverse_gamma prior: shape = 0; expected a finite number > 0");
  CHECK(error_of([] { Prior(PriorKind::beta, 1, std::nan("")); }) ==
        "beta prior: b = nan; expected a finite number > 0");
  CHECK(error_of([] { Prior(PriorKind::uniform, 2, 1); }) == "uniform prior: upper = 1; expected upper > lower = 2");
  CHECK(error_of([] { Prior(PriorKind::uniform, -1e308, 1e308); }).find("overflows") != std::string::npos);
  CHECK(error_of([] { Prior::from_name("cauchy", 0, 1); }) ==
        "prior \"cauchy\" is unknown; expected one of normal, log_normal, uniform, gamma, inverse_gamma, beta");
  CHECK(Prior::from_name("inverse_gamma", 3, 2).describe() == "inverse_gamma(shape = 3, scale = 2)");
  CHECK(Prior(PriorKind::uniform, 0.5, 2).support().describe() == "(0.5, 2)");
  CHECK(Prior(PriorKind::log_normal, 0, 1).support().describe() == "(0, inf)");
  CHECK(Prior(PriorKind::normal, 0, 1).support().describe() == "(-inf, inf)");
}

TEST_CASE("transforms invert each other and their log-Jacobian is log d theta / d phi", "[inference]") {
  const std::vector<Transform> transforms = {Transform::identity(), Transform::log(), Transform::logit(0, 1),
                                             Transform::logit(-3, 7)};
  for (const Transform& t : transforms) {
    for (double phi = -8; phi <= 8; phi += 0.37) {
      INFO(t.describe() << " at phi = " << phi);
      const double theta = t.to_constrained(phi);
      CHECK(t.image().contains(theta));
      CHECK(std::fabs(t.to_unconstrained(theta) - phi) <= 1e-9 * (1 + std::fabs(phi)));
      const double h = 1e-4;  // central difference: truncation error ~ h^2 / 6 relative
      const long double slope =
          (static_cast<long double>(t.to_constrained(phi + h)) - t.to_constrained(phi - h)) / (2 * h);
      CHECK(std::fabs(t.log_jacobian(phi) - static_cast<double>(std::log(slope))) < 1e-7);
    }
  }
  // Far out the logistic rounds onto its bounds: outside the open image, so outside every prior.
  const Transform unit = Transform::logit(0, 1);
  CHECK(unit.to_constrained(-800) == 0.0);
  CHECK(unit.to_constrained(800) == 1.0);
  CHECK_FALSE(unit.image().contains(unit.to_constrained(800)));
  CHECK(std::isfinite(unit.log_jacobian(800)));
  CHECK(Transform::log().to_constrained(-800) == 0.0);
  // Computed from the nearer bound, theta is accurate to an ulp or two at both ends.
  for (double phi : {-30.0, -5.0, 5.0, 30.0}) {
    const long double e = std::exp(-std::fabs(static_cast<long double>(phi)));
    const long double exact = phi < 0 ? e / (1 + e) : 1 - e / (1 + e);
    const double theta = unit.to_constrained(phi);
    CHECK(std::fabs(theta - static_cast<double>(exact)) <= 2 * (std::nextafter(theta, 2.0) - theta));
  }
}

TEST_CASE("the natural transform of an interval, and transform errors", "[inference]") {
  CHECK(Transform::onto(rsmc::inference::real_line()).kind() == rsmc::inference::TransformKind::identity);
  CHECK(Transform::onto(rsmc::inference::positive_half_line()).kind() == rsmc::inference::TransformKind::log);
  CHECK(Transform::onto({2, 5}).describe() == "logit(2, 5)");
  CHECK(error_of([] {
          Transform::onto({1, kInf});
        }) ==
        "no transform maps onto (1, inf); expected the real line (identity), (0, inf) (log) or a bounded interval "
        "(logit)");
  CHECK(error_of([] { Transform::logit(1, 1); }) == "logit transform: bounds (1, 1); expected finite lower < upper");
  CHECK(error_of([] { Transform::from_name("probit"); }) ==
        "transform \"probit\" is unknown; expected identity, log or logit");
  CHECK(Transform::from_name("logit", 0, 2).describe() == "logit(0, 2)");
}

TEST_CASE("a prior must fit the parameter's valid range", "[inference]") {
  const Interval variance = rsmc::inference::positive_half_line();
  const InferredParameter normal_on_variance("sigma_eps2", Prior(PriorKind::normal, 1, 1));
  CHECK(error_of([&] { check_prior_fits(normal_on_variance, variance); }) ==
        "sigma_eps2: the prior normal(mean = 1, sd = 1) with the identity transform reaches (-inf, inf), outside the "
        "parameter's valid range (0, inf); choose a prior on (0, inf) or a transform onto it");
  // With a log transform the same prior is a normal truncated to (0, inf): accepted.
  CHECK_NOTHROW(
      check_prior_fits(InferredParameter("sigma_eps2", Prior(PriorKind::normal, 1, 1), Transform::log()), variance));
  CHECK_NOTHROW(check_prior_fits(InferredParameter("sigma_eps2", Prior(PriorKind::inverse_gamma, 2, 1)), variance));
  const Interval probability{0, 1};
  CHECK_NOTHROW(check_prior_fits(InferredParameter("p", Prior(PriorKind::beta, 2, 2)), probability));
  CHECK(error_of([&] {
          check_prior_fits(InferredParameter("p", Prior(PriorKind::gamma, 2, 2)), probability);
        }).rfind("p: the prior gamma(shape = 2, rate = 2) with the log transform reaches (0, inf)", 0) == 0);
  CHECK(error_of([&] {
          check_prior_fits(InferredParameter("phi", Prior(PriorKind::uniform, -1, 1.5)), {-1, 1});
        }).rfind("phi: the prior uniform(lower = -1, upper = 1.5)", 0) == 0);
}

TEST_CASE("initial values need a positive prior density inside the transform's range", "[inference]") {
  const InferredParameter q("q", Prior(PriorKind::gamma, 2, 1));
  CHECK_NOTHROW(check_initial_value(q, 0.3));
  CHECK(error_of([&] { check_initial_value(q, -1); }) ==
        "q: initial value -1 is outside (0, inf), the range of the log transform");
  const InferredParameter u("u", Prior(PriorKind::uniform, 0, 1), Transform::identity());
  CHECK(error_of([&] { check_initial_value(u, 2); }) ==
        "u: initial value 2 has zero density under the prior uniform(lower = 0, upper = 1)");
}

TEST_CASE("a parameter set maps component-wise and sums in index order", "[inference]") {
  const InferredParameterSet set({InferredParameter("a", Prior(PriorKind::normal, 0, 1)),
                                  InferredParameter("b", Prior(PriorKind::gamma, 2, 1)),
                                  InferredParameter("c", Prior(PriorKind::beta, 2, 3))});
  CHECK(set.dimension() == 3);
  CHECK(set.index_of("b") == 1);
  CHECK(set.index_of("z") == -1);
  const double theta[3] = {0.5, 2.0, 0.25};
  double phi[3], back[3];
  set.to_unconstrained(theta, phi);
  CHECK(phi[0] == 0.5);
  CHECK(phi[1] == Approx(std::log(2.0)));
  CHECK(phi[2] == Approx(std::log(0.25 / 0.75)));
  set.to_constrained(phi, back);
  for (int i = 0; i < 3; ++i) CHECK(back[i] == Approx(theta[i]).epsilon(1e-14));
  CHECK(set.log_prior(theta) ==
        set[0].prior.log_density(0.5) + set[1].prior.log_density(2.0) + set[2].prior.log_density(0.25));
  CHECK(set.log_jacobian(phi) == set[0].transform.log_jacobian(phi[0]) + set[1].transform.log_jacobian(phi[1]) +
                                     set[2].transform.log_jacobian(phi[2]));
  const double outside[3] = {0.5, 2.0, 1.0};  // c on the bound of its logit's image
  CHECK(set.log_prior(outside) == -kInf);

  CHECK(error_of([] { InferredParameterSet({}); }) == "no parameters to infer; expected at least one");
  CHECK(error_of([] {
          InferredParameterSet({InferredParameter("a", Prior(PriorKind::normal, 0, 1)),
                                InferredParameter("a", Prior(PriorKind::normal, 0, 1))});
        }) == "a: parameter given twice");
  CHECK(error_of([] {
          InferredParameterSet({InferredParameter("p", Prior(PriorKind::uniform, 2, 3), Transform::logit(0, 1))});
        }) ==
        "p: the prior uniform(lower = 2, upper = 3) has no mass in (0, 1), the range of the logit(0, 1) transform");
}
