// The model-facing random stream of stream layout 2 (base/rng/draws.hpp): the API of rng::Stream
// (normal(), uniform(), exponential(), next_u32(), next_u64(), integer(n), called in sequence), with
// draws that are pure functions of (seed, purpose, step, global id, kind, index).
//
// Why a new class: rng::Stream (layout 1) walks one word sequence with a refill branch, a rejection
// loop in uniform() and a cached Box-Muller variate, a small state machine that keeps a loop over
// particles from vectorising. Here each kind has its own counter: the k-th normal() is the cosine or
// sine half of normal block k / 2, the k-th uniform()/exponential() the half k % 2 of uniform block
// k / 2, the k-th word word k % 4 of word block k / 4. When a model draws in straight-line code (a
// fixed number of draws, as SV, linear Gaussian or a fixed-d loop that is unrolled), every counter
// is a compile-time constant after inlining, the per-kind one-block caches below fold away, and
// transition() becomes branch-free arithmetic that the compiler vectorises across particles; two
// normals from one block share one Philox block, one log, one sqrt and one sincos.
//
// Draws in a loop whose length the compiler does not know (Lorenz-96's d normals, the rejection
// loops of binomial() and integer()) still give exactly the same values: the counters are then run
// time values and the caches avoid recomputing a block for its second half. Such loops stay scalar.
//
// Range: 2^30 blocks per kind (2^31 normals or uniforms, 2^32 words) before the index wraps.
// RSMC_HOST_DEVICE: host, Kokkos kernels, CUDA. No Kokkos, no MPI.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/rng/draws.hpp"

namespace rsmc::rng {

// Normals that the caller computed ahead for a batch of particles (batch_draws.hpp:
// generate_normals, with the SIMD Philox): normal n of the particle in lane l is z[n lanes + l] for
// n < count. A stream built on them returns those instead of computing them: the same bits, and when
// `count` is a compile-time constant at the construction site (as in the engine's batch loop), the
// choice folds away after inlining.
struct PregeneratedNormals {
  const double* z = nullptr;
  std::uint32_t count = 0;
  std::uint32_t lanes = 0;
};

class CounterStream {
 public:
  RSMC_VECTOR_INLINE CounterStream(std::uint64_t seed, Purpose purpose, std::uint32_t step, std::uint64_t global_id)
      : key_(stream_key(seed, purpose)), step_(step), id_(global_id) {}

  // A stream whose first normals were computed ahead: `lane` is this particle's lane in `pre`.
  RSMC_VECTOR_INLINE CounterStream(std::uint64_t seed, Purpose purpose, std::uint32_t step, std::uint64_t global_id,
                                   const PregeneratedNormals& pre, std::uint32_t lane)
      : key_(stream_key(seed, purpose)), step_(step), id_(global_id), pre_(pre), lane_(lane) {}

  // Normal number n: the first (n even) or second (n odd) variate of normal block n / 2.
  RSMC_VECTOR_INLINE double normal() {
    const std::uint32_t n = normals_++;
    if (n < pre_.count) return pre_.z[n * pre_.lanes + lane_];
    if ((n >> 1) + 1 != normal_block_) {  // normal_block_ holds block index + 1; 0 = none yet
      normal_cache_ = normal_pair_of(draw_block(key_, step_, id_, DrawKind::normals, n >> 1));
      normal_block_ = (n >> 1) + 1;
    }
    return (n & 1) != 0 ? normal_cache_.second : normal_cache_.first;
  }

  // Uniform on (0, 1), the odd multiples of 2^-53 (draws.hpp: unit_open).
  RSMC_VECTOR_INLINE double uniform() {
    const Half h = next_half();
    return unit_open(h.lo, h.hi);
  }

  // Exp(1) = -log u, u in (0, 1]: in [0, 36.74].
  RSMC_VECTOR_INLINE double exponential() {
    const Half h = next_half();
    return exponential_of(h.lo, h.hi);
  }

  // Word number w: word w % 4 of word block w / 4 (stream layout 1's words, see draws.hpp).
  RSMC_VECTOR_INLINE std::uint32_t next_u32() {
    const std::uint32_t w = words_++;
    refill(word_block_, word_cache_, DrawKind::words, w >> 2);
    return word_cache_.v[w & 3];
  }

  // Two words, the first the low half.
  RSMC_VECTOR_INLINE std::uint64_t next_u64() {
    const std::uint64_t lo = next_u32();
    const std::uint64_t hi = next_u32();
    return (hi << 32) | lo;
  }

  // Unbiased integer in [0, n) for n >= 1: Lemire's multiply-and-reject on next_u64(), as
  // Stream::integer (the same values for the same words).
  RSMC_VECTOR_INLINE std::uint64_t integer(std::uint64_t n) { return rng_detail::lemire_integer(*this, n); }

 private:
  struct Half {
    std::uint32_t lo, hi;
  };

  // Uniform/exponential number h: words 2 (h % 2) and 2 (h % 2) + 1 of uniform block h / 2.
  RSMC_VECTOR_INLINE Half next_half() {
    const std::uint32_t h = halves_++;
    refill(uniform_block_, uniform_cache_, DrawKind::uniforms, h >> 1);
    const int w = static_cast<int>(h & 1) * 2;
    return {uniform_cache_.v[w], uniform_cache_.v[w + 1]};
  }

  // Makes `cache` hold block `index` of `kind`; `cached` is the block index + 1 it holds (0: none).
  RSMC_VECTOR_INLINE void refill(std::uint32_t& cached, Block& cache, DrawKind kind, std::uint32_t index) {
    if (index + 1 == cached) return;
    cache = draw_block(key_, step_, id_, kind, index);
    cached = index + 1;
  }

  StreamKey key_;
  std::uint32_t step_;
  std::uint64_t id_;
  PregeneratedNormals pre_{};
  std::uint32_t lane_ = 0;
  std::uint32_t normals_ = 0, halves_ = 0, words_ = 0;                   // draws of each kind so far
  std::uint32_t normal_block_ = 0, uniform_block_ = 0, word_block_ = 0;  // cached block index + 1
  NormalPair normal_cache_{0.0, 0.0};
  Block uniform_cache_{{0, 0, 0, 0}}, word_cache_{{0, 0, 0, 0}};
};

// The stream every model function draws from (initial, transition, simulate_observation; docs/models.md):
// stream layout 2, so that a model's straight-line draws vectorise across particles.
using ModelStream = CounterStream;

}  // namespace rsmc::rng
