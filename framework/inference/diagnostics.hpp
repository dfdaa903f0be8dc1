// Posterior summaries and convergence diagnostics of MCMC output, for `rsmc info` and the tests.
//
// What (draws of one parameter; `chains` is one vector per chain, all of the same length):
// - mean (exact: a superaccumulator sum rounded once, divided by n), sd (the exact sum of squared
//   deviations from that mean over n - 1), quantiles (R's type 7: linear interpolation between order
//   statistics at h = (n - 1) p).
// - batch_means_standard_error: the Monte Carlo standard error of the mean by non-overlapping batch
//   means. The first n mod B draws are dropped; with batch means m_1..m_B of b = floor(n / B) draws
//   and their mean m, SE = sqrt( sum_k (m_k - m)^2 / (B (B - 1)) ).
// - ess_basic: the effective sample size by Geyer's initial monotone sequence estimator ("Practical
//   Markov chain Monte Carlo", Statistical Science 1992), in the multi-chain form of Vehtari, Gelman,
//   Simpson, Carpenter & Buerkner ("Rank-normalization, folding, and localization: an improved R-hat
//   for assessing convergence of MCMC", Bayesian Analysis 2021) on the split chains:
//     acov_m(t) = (1/n) sum_{i < n - t} (x_mi - mean_m)(x_m,i+t - mean_m),   W = mean_m s_m^2,
//     var+ = (n - 1)/n W + var(chain means),  rho_0 = 1, rho_t = 1 - (W - mean_m acov_m(t)) / var+,
//     P_k = rho_2k + rho_2k+1 summed while positive, each capped by the previous (monotone),
//     tau = -1 + 2 sum_k P_k,  ESS = M n / tau, capped at M n log10(M n) as Stan does.
// - ess_bulk: the same on rank-normalised split chains (Vehtari et al. 2021).
// - rhat_split: classic split R-hat (Gelman et al., "Bayesian Data Analysis", 3rd ed.) on 2M half
//   chains of n = floor(N / 2) draws (the middle draw of an odd chain dropped):
//     R = sqrt(var+ / W),  var+ = (n - 1)/n W + B/n,  B/n = var(half-chain means).
// - rhat_rank: Vehtari et al.'s rank-normalised split R-hat, max(bulk, tail): split R-hat of the
//   normal scores z = Phi^-1((r - 3/8) / (S + 1/4)) of the pooled ranks r (ties averaged) of the
//   draws, and of the folded draws |x - median|.
// - acceptance_rate = accepted / iterations.
// Statistics that need two draws or more per (half) chain throw rsmc::Error on shorter input,
// unequal chain lengths or non-finite draws. A constant input gives NaN for ESS and R-hat.
//
// Everything is host arithmetic in a fixed order with rsmc::math, so `rsmc info` prints the same
// digits on every machine.
#pragma once

#include <cstdint>
#include <vector>

namespace rsmc::inference {

using Chains = std::vector<std::vector<double>>;

double mean(const std::vector<double>& draws);
double standard_deviation(const std::vector<double>& draws);
double quantile(const std::vector<double>& draws, double probability);  // type 7; sorts a copy

struct Summary {
  double mean = 0.0;
  double sd = 0.0;
  std::vector<double> probabilities;
  std::vector<double> quantiles;  // at `probabilities`
};
Summary summarise(const std::vector<double>& draws,
                  const std::vector<double>& probabilities = {0.025, 0.25, 0.5, 0.75, 0.975});

double batch_means_standard_error(const std::vector<double>& draws, int batches);

double ess_basic(const Chains& chains);
double ess_bulk(const Chains& chains);
double rhat_split(const Chains& chains);
double rhat_rank(const Chains& chains);

double acceptance_rate(std::uint64_t accepted, std::uint64_t iterations);

// The standard normal quantile Phi^-1(p) for 0 < p < 1 by Wichura's algorithm AS 241 ("The
// percentage points of the normal distribution", Applied Statistics 1988; relative error about
// 1e-16), with rsmc::math::log; -inf at 0, +inf at 1, NaN outside [0, 1].
double normal_quantile(double p);

}  // namespace rsmc::inference
