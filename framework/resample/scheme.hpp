// Resampling schemes and resampler implementations, their names (as the command line and run files
// spell them) and which schemes each resampler implements.
#pragma once

#include <string>

#include "base/core/error.hpp"

namespace rsmc {

// How offspring counts are drawn (Douc & Cappé's four classic schemes).
enum class Scheme { multinomial, stratified, systematic, residual };

// Which code draws and moves them.
//  roulette            the distributed roulette resampler: exact weights, renumbering, neighbour
//                      rebalancing, O(N/p + log N) per rank (default)
//  roulette-algorithm1 the same, but selecting with the paper's Algorithm 1 (every rank loops over
//                      all N uniforms; multinomial only): reference and benchmark baseline
//  allgather           naive approach 1: all weights to every rank, any-to-any state exchange
//  gather-root         rank 0 gathers the weights, draws, scatters the ancestors (LibBi style)
enum class Resampler { roulette, roulette_algorithm1, allgather, gather_root };

inline const char* scheme_name(Scheme s) {
  switch (s) {
    case Scheme::multinomial:
      return "multinomial";
    case Scheme::stratified:
      return "stratified";
    case Scheme::systematic:
      return "systematic";
    case Scheme::residual:
      return "residual";
  }
  return "unknown";
}

inline Scheme parse_scheme(const std::string& name) {
  for (Scheme s : {Scheme::multinomial, Scheme::stratified, Scheme::systematic, Scheme::residual})
    if (name == scheme_name(s)) return s;
  throw unknown_choice("scheme", name, "scheme", "multinomial, stratified, systematic or residual");
}

inline const char* resampler_name(Resampler r) {
  switch (r) {
    case Resampler::roulette:
      return "roulette";
    case Resampler::roulette_algorithm1:
      return "roulette-algorithm1";
    case Resampler::allgather:
      return "allgather";
    case Resampler::gather_root:
      return "gather-root";
  }
  return "unknown";
}

inline Resampler parse_resampler(const std::string& name) {
  for (Resampler r :
       {Resampler::roulette, Resampler::roulette_algorithm1, Resampler::allgather, Resampler::gather_root})
    if (name == resampler_name(r)) return r;
  throw unknown_choice("resampler", name, "resampler", "roulette, roulette-algorithm1, allgather or gather-root");
}

// Throws FieldError unless `resampler` implements `scheme`: the baselines are systematic only, the
// paper's Algorithm 1 multinomial only.
inline void check_scheme_for(Resampler resampler, Scheme scheme) {
  const std::string name = resampler_name(resampler);
  if ((resampler == Resampler::allgather || resampler == Resampler::gather_root) && scheme != Scheme::systematic)
    throw FieldError("resampler", name,
                     FieldError::Template{"{resampler " + name +
                                          "} is a systematic-resampling baseline; use "
                                          "{scheme systematic} or {resampler roulette}"},
                     "{scheme systematic}");
  if (resampler == Resampler::roulette_algorithm1 && scheme != Scheme::multinomial)
    throw FieldError("resampler", name,
                     FieldError::Template{"{resampler " + name +
                                          "} is the paper's multinomial selection; use "
                                          "{scheme multinomial}"},
                     "{scheme multinomial}");
}

// Throws FieldError unless `resampler` reports the ancestors of its resamplings (the genealogy a
// step observer such as the trace file records): the roulette resamplers do, the baselines do not.
inline void check_records_genealogy(Resampler resampler) {
  if (resampler == Resampler::roulette || resampler == Resampler::roulette_algorithm1) return;
  const std::string name = resampler_name(resampler);
  throw FieldError("resampler", name,
                   FieldError::Template{"{resampler " + name +
                                        "} does not record the genealogy of its resamplings; "
                                        "use {resampler roulette} or roulette-algorithm1 with a trace"},
                   "{resampler roulette} or roulette-algorithm1");
}

}  // namespace rsmc
