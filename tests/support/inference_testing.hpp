// Helpers of the inference tests (tests/unit/test_inference_*.cpp, test_pmmh_kalman.cpp): run a chain
// and keep its draws, portable standard normals for test data, bitwise comparison of doubles and the
// message of an rsmc::Error.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "base/core/error.hpp"

#include "base/rng/stream.hpp"
#include "framework/inference/chain_random.hpp"
#include "framework/inference/pmmh.hpp"

namespace rsmc::testing {

// draws[p] holds parameter p at every iteration after `burn_in` (the current value, accepted or
// not); results[i] is iteration i + 1's StepResult.
struct ChainRun {
  std::vector<std::vector<double>> draws;
  std::vector<inference::StepResult> results;
  inference::ChainState state;
};

inline ChainRun run_chain(const inference::PmmhChain& chain, const std::vector<double>& initial,
                          const inference::LogLikelihood& log_likelihood, std::uint64_t iterations,
                          std::uint64_t burn_in = 0) {
  ChainRun run;
  run.state = chain.start(initial, log_likelihood);
  run.draws.resize(initial.size());
  for (std::uint64_t i = 0; i < iterations; ++i) {
    run.results.push_back(chain.step(run.state, log_likelihood));
    if (run.state.iteration <= burn_in) continue;
    for (std::size_t p = 0; p < initial.size(); ++p) run.draws[p].push_back(run.state.theta[p]);
  }
  return run;
}

// The priors of the local level model tests (test_pmmh_kalman, test_pmmh_mpi): sigma_eta2 ~
// inverse_gamma(shape 2, scale 0.5), sigma_eps2 ~ log_normal(0, 1), both walked on the log scale.
inline inference::InferredParameterSet local_level_priors() {
  using inference::InferredParameter, inference::Prior, inference::PriorKind;
  return inference::InferredParameterSet({InferredParameter("sigma_eta2", Prior(PriorKind::inverse_gamma, 2.0, 0.5)),
                                          InferredParameter("sigma_eps2", Prior(PriorKind::log_normal, 0.0, 1.0))});
}

// Options of an adaptive chain whose initial proposal covariance is `variance` times the identity.
inline inference::ChainOptions adaptive_chain_options(std::uint64_t seed, std::uint32_t chain, int dimension,
                                                      double variance, std::uint64_t adapt_start,
                                                      std::uint64_t adapt_interval) {
  inference::ChainOptions o;
  o.seed = seed;
  o.chain = chain;
  o.proposal_covariance.assign(static_cast<std::size_t>(dimension * dimension), 0.0);
  for (int i = 0; i < dimension; ++i) o.proposal_covariance[static_cast<std::size_t>(i * dimension + i)] = variance;
  o.adaptation.start = adapt_start;
  o.adaptation.interval = adapt_interval;
  return o;
}

// n standard normals of the stream (seed, Purpose::observe, step, 0), through rsmc::math (the same on
// every machine, unlike rng::Stream::normal()).
inline std::vector<double> portable_normals(std::uint64_t seed, std::uint32_t step, std::size_t n) {
  rng::Stream stream(seed, rng::Purpose::observe, step, 0);
  std::vector<double> z(n);
  inference::standard_normals(stream, z.data(), static_cast<int>(n));
  return z;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// FNV-1a over the bytes of the values: a fingerprint of a chain's output.
inline std::uint64_t fingerprint(const std::vector<double>& values) {
  std::uint64_t h = 1469598103934665603ULL;
  for (double v : values) {
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ULL;
  }
  return h;
}

// The message of the rsmc::Error that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const rsmc::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace rsmc::testing
