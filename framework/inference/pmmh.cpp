// The PMMH iteration (framework/inference/pmmh.hpp).
#include "framework/inference/pmmh.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "base/core/error.hpp"
#include "base/math/math.hpp"
#include "base/rng/stream.hpp"
#include "framework/inference/chain_random.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// The callable's value, with a degenerate filter (no particle with positive weight) read as a zero
// likelihood estimate.
double evaluate(const LogLikelihood& log_likelihood, const std::vector<double>& theta, std::uint64_t filter_seed) {
  try {
    return log_likelihood(theta, filter_seed);
  } catch (const DegenerateError&) {
    return kMinusInf;
  }
}

// Adds the current point to the accumulators and updates the proposal when the schedule says so.
bool adapt(const ChainOptions& options, ChainState& state) {
  state.adaptation.add(state.phi.data());
  if (!options.adaptation.due(state.iteration)) return false;
  const std::vector<double> sigma =
      adapted_covariance(options.adaptation, state.adaptation, options.proposal_covariance);
  if (!state.proposal.try_set_covariance(sigma)) {
    ++state.counters.adaptation_failures;
    return false;
  }
  ++state.counters.adaptations;
  return true;
}

}  // namespace

void ChainOptions::validate(int dimension) const {
  if (!rng::seed_is_valid(seed))
    throw Error("seed = " + std::to_string(seed) + " is too large; expected 0 <= seed < 2^56");
  check_covariance(proposal_covariance, dimension, "proposal covariance");
  adaptation.validate();
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::accepted:
      return "accepted";
    case Outcome::rejected:
      return "rejected";
    case Outcome::non_finite:
      return "non_finite";
    case Outcome::outside_support:
      return "outside_support";
  }
  return "unknown";
}

PmmhChain::PmmhChain(InferredParameterSet parameters, ChainOptions options)
    : parameters_(std::move(parameters)), options_(std::move(options)) {
  options_.validate(parameters_.dimension());
}

ChainState PmmhChain::start(const std::vector<double>& initial_theta, const LogLikelihood& log_likelihood) const {
  const int d = parameters_.dimension();
  if (static_cast<int>(initial_theta.size()) != d)
    throw Error("initial values: " + std::to_string(initial_theta.size()) + " given; expected " + std::to_string(d));
  for (int i = 0; i < d; ++i) check_initial_value(parameters_[i], initial_theta[static_cast<std::size_t>(i)]);
  ChainState s;
  s.theta = initial_theta;
  s.phi.resize(initial_theta.size());
  parameters_.to_unconstrained(s.theta.data(), s.phi.data());
  s.log_prior = parameters_.log_prior(s.theta.data());
  s.log_jacobian = parameters_.log_jacobian(s.phi.data());
  const std::uint64_t seed0 = filter_seed(options_.seed, options_.chain, 0);
  s.log_likelihood = evaluate(log_likelihood, s.theta, seed0);
  if (!std::isfinite(s.log_likelihood))
    throw Error("initial values: the log-likelihood estimate is " + number_text(s.log_likelihood) + " (filter seed " +
                std::to_string(seed0) + "); expected a finite number: choose other initial values or more particles");
  s.proposal = RandomWalkProposal(d, options_.proposal_covariance);
  s.adaptation.reset(d);
  s.adaptation.add(s.phi.data());
  return s;
}

StepResult PmmhChain::step(ChainState& state, const LogLikelihood& log_likelihood) const {
  const std::size_t d = state.phi.size();
  if (state.iteration >= kMaxChainIteration)
    throw Error("chain " + std::to_string(options_.chain) + ": iteration " + std::to_string(state.iteration) +
                " is the last one the random-number key can hold (2^62 - 1)");
  StepResult r;
  r.iteration = state.iteration + 1;
  r.filter_seed = filter_seed(options_.seed, options_.chain, r.iteration);

  std::vector<double> z(d), phi(d);
  rng::Stream proposal_stream = chain_stream(options_.seed, options_.chain, r.iteration, ChainRole::proposal);
  standard_normals(proposal_stream, z.data(), static_cast<int>(d));
  state.proposal.propose(state.phi.data(), z.data(), phi.data());
  r.proposed_theta.resize(d);
  parameters_.to_constrained(phi.data(), r.proposed_theta.data());
  r.proposed_log_prior = parameters_.log_prior(r.proposed_theta.data());
  r.proposed_log_likelihood = std::numeric_limits<double>::quiet_NaN();
  r.log_acceptance = kMinusInf;

  if (!(r.proposed_log_prior > kMinusInf)) {
    r.outcome = Outcome::outside_support;
  } else {
    r.proposed_log_likelihood = evaluate(log_likelihood, r.proposed_theta, r.filter_seed);
    if (!std::isfinite(r.proposed_log_likelihood)) {
      r.outcome = Outcome::non_finite;
    } else {
      const double log_jacobian = parameters_.log_jacobian(phi.data());
      r.log_acceptance = (r.proposed_log_likelihood - state.log_likelihood) + (r.proposed_log_prior - state.log_prior) +
                         (log_jacobian - state.log_jacobian);
      const double u = accept_uniform(options_.seed, options_.chain, r.iteration);
      r.outcome = math::log(u) < r.log_acceptance ? Outcome::accepted : Outcome::rejected;
      if (r.accepted()) {
        state.theta = r.proposed_theta;
        state.phi = phi;
        state.log_likelihood = r.proposed_log_likelihood;
        state.log_prior = r.proposed_log_prior;
        state.log_jacobian = log_jacobian;
      }
    }
  }

  state.iteration = r.iteration;
  if (r.accepted()) {
    ++state.counters.accepted;
  } else {
    ++state.counters.rejected;
    if (r.outcome == Outcome::non_finite) ++state.counters.non_finite;
    if (r.outcome == Outcome::outside_support) ++state.counters.outside_support;
  }
  r.adapted = adapt(options_, state);
  return r;
}

}  // namespace rsmc::inference
