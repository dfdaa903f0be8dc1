// The state of one Metropolis-Hastings chain between iterations, and its flat serialisable record.
//
// What: everything the next iteration needs (the current parameters on both scales, their
// log-likelihood estimate, log-prior and log-Jacobian, the adaptation accumulators, the proposal
// covariance) and the counters a run reports. The random numbers are keyed by (seed, chain,
// iteration), so no generator state is needed: the iteration counter says where the chain is.
//
// ChainRecord is the state as a flat list of named doubles and named unsigned integers, for a
// checkpoint to store and restore bit for bit (doubles are copied, never printed). Names:
//   integers  dimension, iteration, accepted, rejected, non_finite, outside_support, adaptations,
//             adaptation_failures, adaptation.count
//   reals     theta[i], phi[i], log_likelihood, log_prior, log_jacobian, adaptation.mean[i],
//             adaptation.comoment[i,j], proposal.covariance[i,j]        (i, j = 0..d-1, row-major)
// The Cholesky factor of the proposal covariance is not stored: restore() recomputes it, which gives
// the same bits (fixed-order arithmetic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/inference/adaptation.hpp"
#include "framework/inference/parameters.hpp"
#include "framework/inference/proposal.hpp"

namespace rsmc::inference {

// accepted + rejected = iteration; non_finite and outside_support are the rejections whose proposal
// had a non-finite log-likelihood estimate (NaN, +-inf, or a degenerate filter) or lay outside the
// prior's support (the likelihood was then not evaluated).
struct ChainCounters {
  std::uint64_t accepted = 0;
  std::uint64_t rejected = 0;
  std::uint64_t non_finite = 0;
  std::uint64_t outside_support = 0;
  std::uint64_t adaptations = 0;          // proposal covariance updates
  std::uint64_t adaptation_failures = 0;  // updates skipped: the adapted matrix was not positive definite
};

struct ChainState {
  std::uint64_t iteration = 0;  // proposals made; the next step makes proposal iteration + 1
  std::vector<double> theta;    // current parameters
  std::vector<double> phi;      // their unconstrained values
  double log_likelihood = 0.0;  // the estimate at theta (kept until the next acceptance: pseudo-marginal)
  double log_prior = 0.0;       // log p(theta)
  double log_jacobian = 0.0;    // log |d theta / d phi|
  ChainCounters counters;
  AdaptationAccumulator adaptation;
  RandomWalkProposal proposal;

  int dimension() const { return static_cast<int>(theta.size()); }
  double acceptance_rate() const;  // accepted / iteration (NaN before the first iteration)
};

struct NamedReal {
  std::string name;
  double value;
};
struct NamedInteger {
  std::string name;
  std::uint64_t value;
};
struct ChainRecord {
  std::vector<NamedInteger> integers;
  std::vector<NamedReal> reals;
};

ChainRecord to_record(const ChainState& state);

// Rebuilds a state from a record of the same parameters. Throws rsmc::Error("chain state: ...") on a
// missing, duplicated or unexpected name, a dimension that differs from parameters.dimension(), a
// proposal covariance that is not positive definite, or a log-prior / log-Jacobian that the
// parameters' priors and transforms do not reproduce bit for bit (the priors were changed).
ChainState restore(const ChainRecord& record, const InferredParameterSet& parameters);

}  // namespace rsmc::inference
