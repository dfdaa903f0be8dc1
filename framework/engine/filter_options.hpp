// The run options of a bootstrap particle filter, with their validation.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "base/core/error.hpp"
#include "framework/engine/invalid_likelihood.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/resample/local_sampler.hpp"
#include "framework/resample/scheme.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

struct FilterOptions {
  std::uint64_t particles = 10000;  // N, over all ranks
  std::uint64_t seed = 1;           // key of every random stream (< 2^56)
  double ess_threshold = 0.5;       // resample when ESS < ess_threshold * N; 1 resamples every step
  Scheme scheme = Scheme::systematic;
  Resampler resampler = Resampler::roulette;
  LocalSampler local_sampler = LocalSampler::search;  // the roulette resampler's local kernel
  InvalidLikelihood invalid_likelihood = InvalidLikelihood::error;  // NaN or +inf log-likelihoods
  // --balance-tolerance, --rank-capacity: the counts each rank may hold after a roulette resampling
  // (framework/particles/load_band.hpp). They move particles only: results do not depend on them.
  BalanceOptions balance;

  void validate() const {
    if (particles == 0) throw Error("--particles: 0 is not a valid particle count; expected an integer >= 1");
    if (seed > rng::kMaxSeed)
      throw Error("--seed: " + std::to_string(seed) + " is too large; expected 0 <= seed < 2^56");
    if (!(ess_threshold > 0.0 && ess_threshold <= 1.0))
      throw Error("--ess-threshold: " + std::to_string(ess_threshold) + " is out of range; expected a number in (0, 1]");
    if ((resampler == Resampler::allgather || resampler == Resampler::gather_root) && scheme != Scheme::systematic)
      throw Error(std::string("--resampler ") + resampler_name(resampler) +
                  " is a systematic-resampling baseline; use --resampling systematic or --resampler roulette");
    if (resampler == Resampler::roulette_algorithm1 && scheme != Scheme::multinomial)
      throw Error("--resampler roulette-algorithm1 is the paper's multinomial selection; use --resampling multinomial");
    if (resampler != Resampler::roulette && local_sampler != LocalSampler::search)
      throw Error(std::string("--local-sampler ") + local_sampler_name(local_sampler) +
                  " applies to --resampler roulette only; --resampler " + resampler_name(resampler) +
                  " always uses binary search");
    const bool moving_layout = balance.tolerance != 0.0 || !balance.capacities.empty();
    if (moving_layout && (resampler == Resampler::allgather || resampler == Resampler::gather_root))
      throw Error(std::string("--balance-tolerance / --rank-capacity: --resampler ") + resampler_name(resampler) +
                  " keeps the block distribution; use --resampler roulette or leave both options out");
  }
};

}  // namespace rsmc
