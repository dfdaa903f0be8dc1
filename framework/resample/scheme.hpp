// Resampling schemes and resampler implementations, with their command-line names.
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
    case Scheme::multinomial: return "multinomial";
    case Scheme::stratified: return "stratified";
    case Scheme::systematic: return "systematic";
    case Scheme::residual: return "residual";
  }
  return "unknown";
}

inline Scheme parse_scheme(const std::string& name) {
  for (Scheme s : {Scheme::multinomial, Scheme::stratified, Scheme::systematic, Scheme::residual})
    if (name == scheme_name(s)) return s;
  throw Error("--resampling: unknown scheme '" + name + "'; expected multinomial, stratified, systematic or residual");
}

inline const char* resampler_name(Resampler r) {
  switch (r) {
    case Resampler::roulette: return "roulette";
    case Resampler::roulette_algorithm1: return "roulette-algorithm1";
    case Resampler::allgather: return "allgather";
    case Resampler::gather_root: return "gather-root";
  }
  return "unknown";
}

inline Resampler parse_resampler(const std::string& name) {
  for (Resampler r : {Resampler::roulette, Resampler::roulette_algorithm1, Resampler::allgather, Resampler::gather_root})
    if (name == resampler_name(r)) return r;
  throw Error("--resampler: unknown resampler '" + name +
              "'; expected roulette, roulette-algorithm1, allgather or gather-root");
}

}  // namespace rsmc
