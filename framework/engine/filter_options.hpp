// The run options of a bootstrap particle filter, with their validation, and the rules for a run's
// other inputs (seed, number of steps) that the filter and the simulator share. Refusals are
// FieldErrors naming the member ("particles: 0 is not a valid particle count; expected ...").
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "base/core/error.hpp"
#include "base/rng/stream.hpp"
#include "framework/engine/invalid_likelihood.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "framework/resample/scheme.hpp"

namespace rsmc {

// The key of every random stream must fit in 56 bits (base/rng/stream.hpp).
inline void check_seed(std::uint64_t seed) {
  if (!rng::seed_is_valid(seed)) throw FieldError("seed", std::to_string(seed), "is too large", "0 <= seed < 2^56");
}

// A run (filtered or simulated) has at least one step, and its steps are counted in an int.
inline void check_step_count(long long steps) {
  if (steps < 1 || steps > std::numeric_limits<int>::max())
    throw FieldError("steps", std::to_string(steps), "is not a valid step count", "an integer in [1, 2^31 - 1]");
}

struct FilterOptions {
  std::uint64_t particles = 10000;  // N, over all ranks
  std::uint64_t seed = 1;           // key of every random stream (< 2^56)
  double ess_threshold = 0.5;       // resample when ESS < ess_threshold * N; 1 resamples every step
  Scheme scheme = Scheme::systematic;
  Resampler resampler = Resampler::roulette;
  LocalSampler local_sampler = LocalSampler::search;                // the roulette resampler's local kernel
  InvalidLikelihood invalid_likelihood = InvalidLikelihood::error;  // NaN or +inf log-likelihoods
  // --balance-tolerance, --rank-capacity: the counts each rank may hold after a roulette resampling
  // (framework/particles/load_band.hpp). They move particles only: results do not depend on them.
  BalanceOptions balance;

  // Throws FieldError for the first option that is not allowed, on `ranks` ranks.
  void validate(int ranks = 1) const {
    const std::string n = std::to_string(particles);
    if (particles == 0) throw FieldError("particles", n, "is not a valid particle count", "an integer >= 1");
    if (particles < static_cast<std::uint64_t>(ranks))
      throw FieldError("particles", n, "particles cannot be spread over " + std::to_string(ranks) + " ranks",
                       "at least one particle per rank");
    check_seed(seed);
    if (!(ess_threshold > 0.0 && ess_threshold <= 1.0))
      throw FieldError("ess_threshold", std::to_string(ess_threshold), "is out of range", "a number in (0, 1]");
    check_scheme_for(resampler, scheme);
    if (resampler != Resampler::roulette && local_sampler != LocalSampler::search)
      throw FieldError("local_sampler", local_sampler_name(local_sampler),
                       FieldError::Template{std::string("{local_sampler ") + local_sampler_name(local_sampler) +
                                            "} applies to {resampler roulette} only; {resampler " +
                                            resampler_name(resampler) + "} always uses binary search"},
                       "{local_sampler search} or {resampler roulette}");
    const bool moving_layout = balance.tolerance != 0.0 || !balance.capacities.empty();
    if (moving_layout && (resampler == Resampler::allgather || resampler == Resampler::gather_root))
      throw FieldError("balance_tolerance", "",
                       FieldError::Template{"{balance_tolerance} / {rank_capacity}: {resampler " +
                                            std::string(resampler_name(resampler)) + "} keeps the block distribution"},
                       "{resampler roulette}, or neither option");
  }
};

}  // namespace rsmc
