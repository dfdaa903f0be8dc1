// Goodness-of-fit helpers shared by the statistical unit tests: Pearson's chi-square statistic with
// cell merging, and its p-value from the regularized upper incomplete gamma function; the
// Kolmogorov-Smirnov statistic.
//
// Tests fix their thresholds in advance (a p-value floor such as 0.001, or a hard-coded quantile) and
// report the p-value they saw through INFO.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

namespace rsmc::test {

// Regularized upper incomplete gamma Q(a, x): series for x < a + 1, else Lentz's continued fraction
// (Numerical Recipes, 6.2). Relative accuracy ~1e-14 for the arguments the tests use.
inline double gamma_q(double a, double x) {
  if (x <= 0.0) return 1.0;
  const double log_prefix = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int k = 1; k < 100000; ++k) {
      term *= x / (a + k);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1.0 - sum * std::exp(log_prefix);
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int k = 1; k < 100000; ++k) {
    const double an = -k * (k - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < 1e-16) break;
  }
  return std::exp(log_prefix) * h;
}

// Kolmogorov-Smirnov statistic D_n of a sample against a continuous CDF (compare sqrt(n) D_n with the
// Kolmogorov distribution's quantiles: 1.63 at alpha = 0.01, 1.95 at 0.001).
inline double ks_statistic(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max(d, std::max(static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n));
  }
  return d;
}

// P(X >= statistic) for X ~ chi-square with df degrees of freedom.
inline double chi2_p_value(double statistic, int df) { return gamma_q(df / 2.0, statistic / 2.0); }

struct ChiSquare {
  double statistic = 0.0;
  int df = -1;
  double p_value() const { return chi2_p_value(statistic, df); }
};

// Wilson-Hilferty: the 0.999 quantile of chi-square with df degrees of freedom,
// chi2_q(df) ~= df (1 - 2/(9 df) + z_q sqrt(2/(9 df)))^3 with z_0.999 = 3.0902323.
inline double chi2_quantile_999(int df) {
  const double z = 3.090232306167813;
  const double h = 2.0 / (9.0 * df);
  const double c = 1.0 - h + z * std::sqrt(h);
  return df * c * c * c;
}

// Pearson's statistic of observed against expected counts in consecutive categories. Cells with
// expected count 0 are skipped (callers check that they were observed 0); adjacent cells (in the
// given order) are merged until each has an expected count >= 5.
inline ChiSquare chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  std::vector<double> obs, exp;
  double o = 0.0, e = 0.0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] == 0.0) continue;
    o += observed[i];
    e += expected[i];
    if (e >= 5.0) {
      obs.push_back(o);
      exp.push_back(e);
      o = e = 0.0;
    }
  }
  if (e > 0.0) {
    if (exp.empty()) {
      obs.push_back(o);
      exp.push_back(e);
    } else {
      obs.back() += o;
      exp.back() += e;
    }
  }
  ChiSquare r;
  for (std::size_t i = 0; i < exp.size(); ++i) r.statistic += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i];
  r.df = static_cast<int>(exp.size()) - 1;
  return r;
}

}  // namespace rsmc::test
