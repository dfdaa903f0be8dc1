// Posterior summaries, ESS and R-hat (framework/inference/diagnostics.hpp).
#include "framework/inference/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "base/core/error.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/math/math.hpp"

namespace rsmc::inference {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void require_draws(const std::vector<double>& x, std::size_t at_least, const char* what) {
  if (x.size() < at_least)
    throw Error(std::string(what) + ": " + std::to_string(x.size()) + " draws; expected at least " +
                std::to_string(at_least));
  for (double v : x)
    if (!std::isfinite(v)) throw Error(std::string(what) + ": a draw is not finite");
}

// Sum of squared deviations from m, exactly, rounded once.
double sum_squared_deviations(const std::vector<double>& x, double m) {
  exact::ExactSum s;
  s.clear();
  for (double v : x) s.add((v - m) * (v - m));
  return s.to_double();
}

double sample_variance(const std::vector<double>& x) {
  return sum_squared_deviations(x, mean(x)) / static_cast<double>(x.size() - 1);
}

// The halves of every chain (the middle draw of an odd chain dropped), after checking that every
// chain has the same length and at least 4 finite draws.
Chains split_chains(const Chains& chains, const char* what) {
  if (chains.empty()) throw Error(std::string(what) + ": no chains");
  Chains halves;
  for (const std::vector<double>& c : chains) {
    require_draws(c, 4, what);
    if (c.size() != chains.front().size())
      throw Error(std::string(what) + ": chains of different lengths (" + std::to_string(c.size()) + " and " +
                  std::to_string(chains.front().size()) + ")");
    const std::size_t n = c.size() / 2;
    halves.emplace_back(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n));
    halves.emplace_back(c.end() - static_cast<std::ptrdiff_t>(n), c.end());
  }
  return halves;
}

// Within-chain variance W (mean of the chains' sample variances) and var+ of equal-length chains.
struct Variances {
  double within;
  double plus;
};
Variances variances(const Chains& chains) {
  const double n = static_cast<double>(chains.front().size());
  std::vector<double> means, vars;
  for (const std::vector<double>& c : chains) {
    means.push_back(mean(c));
    vars.push_back(sample_variance(c));
  }
  const double w = mean(vars);
  const double between_over_n = chains.size() > 1 ? sample_variance(means) : 0.0;
  return {w, (n - 1.0) / n * w + between_over_n};
}

// Autocovariance at lag t with the 1/n normalisation, around the chain's mean.
double autocovariance(const std::vector<double>& x, double m, std::size_t t) {
  exact::ExactSum s;
  s.clear();
  for (std::size_t i = 0; i + t < x.size(); ++i) s.add((x[i] - m) * (x[i + t] - m));
  return s.to_double() / static_cast<double>(x.size());
}

// Geyer's initial monotone sequence ESS of equal-length chains (the formula in the header).
double geyer_ess(const Chains& chains) {
  const std::size_t n = chains.front().size();
  const double total = static_cast<double>(n * chains.size());
  const Variances v = variances(chains);
  if (!(v.plus > 0.0)) return kNaN;
  std::vector<double> means;
  for (const std::vector<double>& c : chains) means.push_back(mean(c));
  const auto rho = [&](std::size_t t) {
    std::vector<double> acov;
    for (std::size_t m = 0; m < chains.size(); ++m) acov.push_back(autocovariance(chains[m], means[m], t));
    return 1.0 - (v.within - mean(acov)) / v.plus;
  };
  double sum = 0.0;
  double previous = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t + 1 < n; t += 2) {
    double pair = (t == 0 ? 1.0 : rho(t)) + rho(t + 1);
    if (!(pair > 0.0)) break;
    pair = std::min(pair, previous);
    sum += pair;
    previous = pair;
  }
  const double min_tau = math::log(10.0) / math::log(total);  // 1 / log10(M n): Stan's cap on the ESS
  const double tau = std::max(-1.0 + 2.0 * sum, min_tau);
  return total / tau;
}

// Pooled ranks (1-based, ties averaged) mapped to normal scores Phi^-1((r - 3/8) / (S + 1/4)),
// returned in the chains' shape.
Chains normal_scores(const Chains& chains) {
  std::vector<double> pooled;
  for (const std::vector<double>& c : chains) pooled.insert(pooled.end(), c.begin(), c.end());
  const std::size_t s = pooled.size();
  std::vector<std::size_t> order(s);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pooled[a] < pooled[b]; });
  std::vector<double> score(s);
  for (std::size_t i = 0; i < s;) {
    std::size_t j = i;
    while (j + 1 < s && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + j) + 1.0;  // average of ranks i+1..j+1
    const double z = normal_quantile((rank - 0.375) / (static_cast<double>(s) + 0.25));
    for (std::size_t k = i; k <= j; ++k) score[order[k]] = z;
    i = j + 1;
  }
  Chains out;
  std::size_t at = 0;
  for (const std::vector<double>& c : chains) {
    out.emplace_back(score.begin() + static_cast<std::ptrdiff_t>(at),
                     score.begin() + static_cast<std::ptrdiff_t>(at + c.size()));
    at += c.size();
  }
  return out;
}

double rhat_of(const Chains& chains) {
  const Variances v = variances(chains);
  if (!(v.within > 0.0)) return kNaN;
  return std::sqrt(v.plus / v.within);
}

// |x - median of all draws|, in the chains' shape.
Chains folded(const Chains& chains) {
  std::vector<double> pooled;
  for (const std::vector<double>& c : chains) pooled.insert(pooled.end(), c.begin(), c.end());
  const double median = quantile(pooled, 0.5);
  Chains out = chains;
  for (std::vector<double>& c : out)
    for (double& v : c) v = std::fabs(v - median);
  return out;
}

// Evaluates the rational function p(x) / q(x) with coefficients lowest degree first.
template <std::size_t N>
double rational(const double (&p)[N], const double (&q)[N], double x) {
  double num = p[N - 1], den = q[N - 1];
  for (std::size_t k = N - 1; k-- > 0;) {
    num = num * x + p[k];
    den = den * x + q[k];
  }
  return num / den;
}

}  // namespace

double mean(const std::vector<double>& draws) {
  require_draws(draws, 1, "mean");
  exact::ExactSum s;
  s.clear();
  for (double v : draws) s.add(v);
  return s.to_double() / static_cast<double>(draws.size());
}

double standard_deviation(const std::vector<double>& draws) {
  require_draws(draws, 2, "standard deviation");
  return std::sqrt(sample_variance(draws));
}

double quantile(const std::vector<double>& draws, double probability) {
  require_draws(draws, 1, "quantile");
  if (!(probability >= 0.0 && probability <= 1.0))
    throw Error("quantile: probability " + std::to_string(probability) + "; expected a number in [0, 1]");
  std::vector<double> sorted = draws;
  std::sort(sorted.begin(), sorted.end());
  const double h = static_cast<double>(sorted.size() - 1) * probability;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

Summary summarise(const std::vector<double>& draws, const std::vector<double>& probabilities) {
  Summary s;
  s.mean = mean(draws);
  s.sd = standard_deviation(draws);
  s.probabilities = probabilities;
  for (double p : probabilities) s.quantiles.push_back(quantile(draws, p));
  return s;
}

double batch_means_standard_error(const std::vector<double>& draws, int batches) {
  if (batches < 2) throw Error("batch means: " + std::to_string(batches) + " batches; expected at least 2");
  const std::size_t b = draws.size() / static_cast<std::size_t>(batches);
  if (b < 1)
    throw Error("batch means: " + std::to_string(draws.size()) + " draws for " + std::to_string(batches) + " batches");
  const std::size_t skip = draws.size() - b * static_cast<std::size_t>(batches);
  std::vector<double> batch_means;
  for (int k = 0; k < batches; ++k) {
    const auto first = draws.begin() + static_cast<std::ptrdiff_t>(skip + static_cast<std::size_t>(k) * b);
    batch_means.push_back(mean(std::vector<double>(first, first + static_cast<std::ptrdiff_t>(b))));
  }
  return std::sqrt(sample_variance(batch_means) / static_cast<double>(batches));
}

double ess_basic(const Chains& chains) { return geyer_ess(split_chains(chains, "ess")); }
double ess_bulk(const Chains& chains) { return geyer_ess(normal_scores(split_chains(chains, "ess_bulk"))); }
double rhat_split(const Chains& chains) { return rhat_of(split_chains(chains, "rhat")); }

double rhat_rank(const Chains& chains) {
  const Chains halves = split_chains(chains, "rhat_rank");
  const double bulk = rhat_of(normal_scores(halves));
  const double tail = rhat_of(normal_scores(folded(halves)));
  if (std::isnan(bulk) || std::isnan(tail)) return kNaN;
  return std::max(bulk, tail);
}

double acceptance_rate(std::uint64_t accepted, std::uint64_t iterations) {
  if (iterations == 0) return kNaN;
  return static_cast<double>(accepted) / static_cast<double>(iterations);
}

double normal_quantile(double p) {
  // Wichura (1988), AS 241 PPND16: three rational approximations, coefficients lowest degree first.
  static constexpr double a[8] = {3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
                                  1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
                                  3.3430575583588128105e4, 2.5090809287301226727e3};
  static constexpr double b[8] = {1.0,
                                  4.2313330701600911252e1,
                                  6.8718700749205790830e2,
                                  5.3941960214247511077e3,
                                  2.1213794301586595867e4,
                                  3.9307895800092710610e4,
                                  2.8729085735721942674e4,
                                  5.2264952788528545610e3};
  static constexpr double c[8] = {1.42343711074968357734e0,  4.63033784615654529590e0, 5.76949722146069140550e0,
                                  3.64784832476320460504e0,  1.27045825245236838258e0, 2.41780725177450611770e-1,
                                  2.27238449892691845833e-2, 7.74545014278341407640e-4};
  static constexpr double d[8] = {1.0,
                                  2.05319162663775882187e0,
                                  1.67638483018380384940e0,
                                  6.89767334985100004550e-1,
                                  1.48103976427480074590e-1,
                                  1.51986665636164571966e-2,
                                  5.47593808499534494600e-4,
                                  1.05075007164441684324e-9};
  static constexpr double e[8] = {6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
                                  2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                  2.71155556874348757815e-5, 2.01033439929228813265e-7};
  static constexpr double f[8] = {1.0,
                                  5.99832206555887937690e-1,
                                  1.36929880922735805310e-1,
                                  1.48753612908506148525e-2,
                                  7.86869131145613259100e-4,
                                  1.84631831751005468180e-5,
                                  1.42151175831644588870e-7,
                                  2.04426310338993978564e-15};
  if (!(p >= 0.0 && p <= 1.0)) return kNaN;
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) return q * rational(a, b, 0.180625 - q * q);
  const double r = std::sqrt(-math::log(q < 0.0 ? p : 1.0 - p));
  const double z = r <= 5.0 ? rational(c, d, r - 1.6) : rational(e, f, r - 5.0);
  return q < 0.0 ? -z : z;
}

}  // namespace rsmc::inference
