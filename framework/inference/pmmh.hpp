// One chain of particle marginal Metropolis-Hastings (Andrieu, Doucet & Holenstein, "Particle Markov
// chain Monte Carlo methods", JRSS B 2010), independent of the likelihood that drives it.
//
// What: PmmhChain::step() makes iteration i = state.iteration + 1:
//   1. z  = d standard normals from the proposal stream of (seed, chain, i)    (chain_random.hpp)
//      phi' = phi + L z, theta' = the transforms' inverses of phi'             (proposal, transform)
//   2. log p(theta'); if theta' lies outside the prior's support: rejected, counted as
//      outside_support, the likelihood is not evaluated
//   3. l' = log_likelihood(theta', filter_seed(seed, chain, i)); NaN, +-inf or a DegenerateError:
//      rejected, counted as non_finite, never a crash
//   4. log alpha = (l' - l) + (log p(theta') - log p(theta)) + (log J(phi') - log J(phi));
//      u = the accept uniform of (seed, chain, i); accept iff log u < log alpha
//   5. the current phi goes into the adaptation accumulators; the proposal covariance is updated
//      when the schedule says so (adaptation.hpp)
// The chain targets p(theta | y) whenever exp(l) is an unbiased estimate of the likelihood (the
// pseudo-marginal argument): the estimate at the current point is kept, never recomputed.
//
// Why this shape: the likelihood is a callable, so the same code runs the exact Kalman likelihood
// (tests), a distributed particle filter (rsmc pmmh) or anything else. The chain's arithmetic runs
// on the host in a fixed order and its random numbers are keyed by (seed, chain, iteration), so a
// chain is bitwise identical on every rank of its communicator, for any rank count, and after a
// restart from a ChainRecord (chain_state.hpp) - provided the callable's result is (the filter's is).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "framework/inference/adaptation.hpp"
#include "framework/inference/chain_state.hpp"
#include "framework/inference/parameters.hpp"

namespace rsmc::inference {

// log p(y | theta) or an estimate of it; filter_seed (< 2^56) is the seed the estimator must use.
// It may return NaN or +-inf, or throw rsmc::DegenerateError (all particles weightless): the
// proposal is then rejected. Any other exception propagates.
using LogLikelihood = std::function<double(const std::vector<double>& theta, std::uint64_t filter_seed)>;

struct ChainOptions {
  std::uint64_t seed = 1;                   // < 2^56
  std::uint32_t chain = 0;                  // the chain's index: chains of one run differ only in it
  std::vector<double> proposal_covariance;  // the initial one, d x d, on the unconstrained scale
  AdaptationOptions adaptation;

  // Throws rsmc::Error naming the option: seed >= 2^56, a bad covariance, bad adaptation options.
  void validate(int dimension) const;
};

enum class Outcome { accepted, rejected, non_finite, outside_support };
const char* outcome_name(Outcome outcome);

// What one iteration did (the proposal, whether or not it was accepted).
struct StepResult {
  std::uint64_t iteration = 0;
  std::uint64_t filter_seed = 0;
  std::vector<double> proposed_theta;
  double proposed_log_likelihood = 0.0;  // NaN when not evaluated (outside_support)
  double proposed_log_prior = 0.0;
  double log_acceptance = 0.0;  // log alpha (-inf unless the proposal reached step 4)
  Outcome outcome = Outcome::rejected;
  bool adapted = false;  // the proposal covariance changed after this iteration

  bool accepted() const { return outcome == Outcome::accepted; }
};

class PmmhChain {
 public:
  // Validates the options against the parameters' dimension.
  PmmhChain(InferredParameterSet parameters, ChainOptions options);

  // The state at iteration 0: checks each initial value (check_initial_value), evaluates the
  // log-likelihood with filter_seed(seed, chain, 0) and starts the adaptation accumulators with the
  // initial point. Throws rsmc::Error if the initial log-likelihood is not finite (the message
  // gives the value and the filter seed).
  ChainState start(const std::vector<double>& initial_theta, const LogLikelihood& log_likelihood) const;

  // One iteration (above); updates `state` in place.
  StepResult step(ChainState& state, const LogLikelihood& log_likelihood) const;

  const InferredParameterSet& parameters() const { return parameters_; }
  const ChainOptions& options() const { return options_; }

 private:
  InferredParameterSet parameters_;
  ChainOptions options_;
};

}  // namespace rsmc::inference
