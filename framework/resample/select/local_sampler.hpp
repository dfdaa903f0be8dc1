// Which kernel maps this rank's sample points on its slice of the exact roulette wheel to ancestors
// (`--local-sampler`). The distributed part of resampling (exact weights, rank totals, which points
// land on which rank) is the same for all of them.
//
//  search     the inverse CDF by prefix sums: since a rank's points arrive sorted, each search starts
//             at the previous point's ancestor, a merge walk against the running sum: the baseline
//  forest     Cutpoint guide table + radix tree forest (kernels/inverse_cdf/radix_forest.hpp)
//  butterfly  butterfly-patterned partial sums, W = 32 lanes sharing one column of the table
//             (kernels/butterfly/shared_column.hpp): 16 bytes per local particle
//  alias      draws this rank's offspring count i.i.d. from a Vose alias table of its local weights
//             (kernels/alias): O(1) per draw, but NOT an inverse CDF of the scheme's points
//
// search, forest and butterfly are monotonic inverse CDFs on exact integer weights: they return
// bitwise identical indices, so filter results do not depend on the choice nor on the number of
// ranks. alias keeps the scheme's per-rank offspring counts (so the ranks' shares are still exact)
// but draws the ancestors inside a rank independently: statistically valid, deterministic for a
// fixed number of ranks, not p-invariant. Result files record the sampler used.
#pragma once

#include <string>

#include "base/core/error.hpp"

namespace rsmc {

enum class LocalSampler { search, forest, butterfly, alias };

inline const char* local_sampler_name(LocalSampler s) {
  switch (s) {
    case LocalSampler::search:
      return "search";
    case LocalSampler::forest:
      return "forest";
    case LocalSampler::butterfly:
      return "butterfly";
    case LocalSampler::alias:
      return "alias";
  }
  return "unknown";
}

inline LocalSampler parse_local_sampler(const std::string& name) {
  for (LocalSampler s : {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly, LocalSampler::alias})
    if (name == local_sampler_name(s)) return s;
  throw unknown_choice("local_sampler", name, "sampler", "search, forest, butterfly or alias");
}

// Whether results with this sampler are bitwise identical for any number of ranks.
inline bool is_p_invariant(LocalSampler s) { return s != LocalSampler::alias; }

}  // namespace rsmc
