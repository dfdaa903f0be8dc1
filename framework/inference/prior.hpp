// Prior distributions of the parameters a chain infers, and the intervals they live on.
//
// What: six univariate priors (normal, log-normal, uniform, gamma, inverse-gamma, beta), each with
// two validated parameters, a log-density computed with rsmc::math and its support (the real line,
// the positive half-line or an interval). Interval is also how a model states a parameter's valid
// range, so a driver can refuse a prior that puts mass where the model is undefined (a normal prior
// on a variance) with check_prior_fits (framework/inference/parameters.hpp).
//
// Why rsmc::math: the log-prior enters every accept/reject decision, so its last bit must be the
// same on every machine (docs/math.md); libm's log and lgamma are not.
//
// Parameterisations (a, b are the two arguments, in this order):
//   normal(mean, sd)              log p = -log sd - log(2 pi)/2 - z^2/2,  z = (x - mean)/sd
//   log_normal(meanlog, sdlog)    x > 0: -log x - log sdlog - log(2 pi)/2 - z^2/2, z = (log x - meanlog)/sdlog
//   uniform(lower, upper)         lower <= x <= upper: -log(upper - lower)
//   gamma(shape, rate)            x > 0: shape log rate - lgamma(shape) + (shape - 1) log x - rate x
//   inverse_gamma(shape, scale)   x > 0: shape log scale - lgamma(shape) - (shape + 1) log x - scale / x
//   beta(a, b)                    0 < x < 1: lgamma(a + b) - lgamma(a) - lgamma(b) + (a - 1) log x + (b - 1) log1p(-x)
// Outside the support the log-density is -inf.
#pragma once

#include <string>
#include <vector>

namespace rsmc::inference {

// The open interval (lower, upper); either end may be infinite.
struct Interval {
  double lower;
  double upper;

  bool contains(double x) const { return x > lower && x < upper; }
  // Whether this interval lies inside `outer` (its ends within outer's ends).
  bool within(const Interval& outer) const { return lower >= outer.lower && upper <= outer.upper; }
  bool empty() const { return !(lower < upper); }
  std::string describe() const;  // "(0, inf)"
};

Interval real_line();
Interval positive_half_line();
Interval intersect(const Interval& a, const Interval& b);

enum class PriorKind { normal, log_normal, uniform, gamma, inverse_gamma, beta };

class Prior {
 public:
  // Validates the arguments: throws rsmc::Error naming the prior and the argument, e.g.
  // "gamma prior: rate = -1; expected a finite number > 0".
  Prior(PriorKind kind, double a, double b);

  // The same by name ("normal", "log_normal", "uniform", "gamma", "inverse_gamma", "beta"); an
  // unknown name is an error that lists the known ones.
  static Prior from_name(const std::string& name, double a, double b);

  PriorKind kind() const { return kind_; }
  const char* name() const;
  const char* argument_name(int i) const;  // i = 0, 1: "mean", "sd", ...
  double argument(int i) const { return i == 0 ? a_ : b_; }
  Interval support() const;

  double log_density(double x) const;  // -inf outside the support, NaN for NaN
  std::string describe() const;        // "gamma(shape = 2, rate = 0.5)"

 private:
  PriorKind kind_;
  double a_, b_;
  double log_norm_ = 0.0;  // the x-independent part of the log-density, computed once
};

// The names of the priors, comma separated, for messages and --help.
std::string prior_names();

// The names of the two arguments of the prior called `name` ("gamma": shape, rate), for run files
// that give them by name; an unknown name is an error that lists the known ones.
std::vector<std::string> prior_argument_names(const std::string& name);

}  // namespace rsmc::inference
