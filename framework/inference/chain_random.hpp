// The random numbers of a parameter-inference chain, keyed by (seed, chain, iteration).
//
// What: every random number a Metropolis-Hastings chain uses at iteration i comes from a counter-based
// stream (base/rng/stream.hpp) whose key and counter are a pure function of (seed, chain, i, role):
//
//   key     = (seed, Purpose::inference)                      seed < 2^56, the run's --seed
//   counter = (draw index, step = chain, global id = 4 i + role)
//   roles:    0 proposal   d standard normals (the random-walk increment, before the Cholesky factor)
//             1 accept     one uniform for the accept/reject decision
//             2 filter     one 64-bit word, shifted right by 8: the seed of the particle filter that
//                          estimates the likelihood of iteration i's proposal (iteration 0: the
//                          initial point)
//             3 reserved   (e.g. a future draw of initial values from the prior)
//
// Why: a chain then depends on nothing but the seed, its index and the iteration: not on the rank
// count of its filter, the number of chains running beside it or where it was stopped and restarted.
// Purpose::inference has its own 8 key bits, so none of these streams shares a key with a filter's
// streams (Purpose initialise/propagate/resample/model), whatever the two seeds are.
//
// The filter seed is filter_seed(seed, chain, i) = (w1 << 32 | w0) >> 8, where w0, w1 are the first
// two words of block 0 of the role-2 stream: a Philox hash of (seed, chain, i), uniform on [0, 2^56),
// so always a valid filter seed (rng::kMaxSeed). Two iterations share a filter seed only by a hash
// collision (probability about n^2 / 2^57 for n evaluations in all).
//
// Normals go through rsmc::math (log, sincos_2pi) and sqrt, not rng::Stream::normal() or libm, so
// the chain is bitwise the same on every machine (docs/math.md).
//
// Limits: chain < 2^32 (the step word), iteration < 2^62 (4 i + role fits the 64-bit global id).
#pragma once

#include <cmath>
#include <cstdint>

#include "base/math/math.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::inference {

// Which of an iteration's streams (the low 2 bits of the global id).
enum class ChainRole : std::uint64_t { proposal = 0, accept = 1, filter = 2, reserved = 3 };

constexpr std::uint64_t kMaxChainIteration = (std::uint64_t(1) << 62) - 1;
constexpr std::uint64_t kMaxChains = std::uint64_t(1) << 32;

// The stream of (seed, chain, iteration, role).
inline rng::Stream chain_stream(std::uint64_t seed, std::uint32_t chain, std::uint64_t iteration, ChainRole role) {
  return rng::Stream(seed, rng::Purpose::inference, chain, (iteration << 2) | static_cast<std::uint64_t>(role));
}

// Fills z[0..n) with standard normals by the Box-Muller transform: each pair of uniforms (u1, u2)
// gives r cos(2 pi u2), r sin(2 pi u2) with r = sqrt(-2 log u1); an odd n drops the last sine.
inline void standard_normals(rng::Stream& stream, double* z, int n) {
  for (int i = 0; i < n; i += 2) {
    const double u1 = stream.uniform();
    const double u2 = stream.uniform();
    const double r = std::sqrt(-2.0 * math::log(u1));  // sqrt: correctly rounded everywhere
    const math::SinCos sc = math::sincos_2pi(u2);
    z[i] = r * sc.cos;
    if (i + 1 < n) z[i + 1] = r * sc.sin;
  }
}

// The uniform on (0, 1) that decides whether iteration `iteration` accepts its proposal.
inline double accept_uniform(std::uint64_t seed, std::uint32_t chain, std::uint64_t iteration) {
  return chain_stream(seed, chain, iteration, ChainRole::accept).uniform();
}

// The seed of the particle filter that estimates the likelihood at iteration `iteration` (< 2^56).
inline std::uint64_t filter_seed(std::uint64_t seed, std::uint32_t chain, std::uint64_t iteration) {
  return chain_stream(seed, chain, iteration, ChainRole::filter).next_u64() >> 8;
}

}  // namespace rsmc::inference
