// Counter-based random streams for rsmc, built on Random123's Philox4x32-10.
//
// What: every random number in rsmc is a pure function of (seed, purpose, step, global particle id,
// draw index). The 64-bit key of Philox holds (seed, purpose); the 128-bit counter holds (draw index,
// step, global id). A Stream walks the draw index of one (seed, purpose, step, global id) and hands
// out 32-bit words, 64-bit words, uniforms, normals, exponentials and bounded integers in order.
//
// Why: draws are keyed by the global particle id and the step, never by the rank, thread or device
// that computes them, so a particle's randomness is the same for any number of MPI ranks, any thread
// schedule and any stop/restart (the reproducibility contract, docs/reproducibility.md). There is no
// hidden global state: a Stream holds only its key/counter position, the unread words of the current
// Philox block and the cached second Box-Muller variate, so it can be rebuilt anywhere.
//
// Every function is RSMC_HOST_DEVICE: callable from host code, Kokkos kernels and raw CUDA kernels.
// This header includes neither Kokkos nor MPI.
//
// Bit-exactness: every draw is bitwise identical on every platform, host and CUDA device alike.
// block(), next_u32(), next_u64(), uniform() and integer() are integer arithmetic and exact
// conversions; normal() and exponential() take their log and sin/cos of 2 pi u from rsmc::math
// (base/math/, the same bits everywhere) and sqrt, which IEEE 754 rounds correctly everywhere.
#pragma once

#include <cmath>
#include <cstdint>

#include <Random123/philox.h>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"
#include "base/rng/philox.hpp"  // Block

namespace rsmc::rng {

// What a stream is used for. It goes into the key, so streams of different purposes are independent
// even for the same (step, global id). Values must fit in 8 bits (they occupy key word1 bits 24..31).
// `inference` keys the parameter-inference chains (framework/inference/chain_random.hpp): their
// proposals and accept/reject uniforms never share a key with a filter's streams.
enum class Purpose : std::uint32_t {
  initialise = 1,
  propagate = 2,
  observe = 3,
  resample = 4,
  model = 5,
  inference = 6
};

// Largest accepted seed: the seed takes 56 key bits (32 in word0, 24 in word1), the purpose the other 8.
// Callers must reject larger seeds; block() masks a seed to its low 56 bits so that an out-of-range
// seed can never spill into the purpose bits.
constexpr std::uint64_t kMaxSeed = (std::uint64_t(1) << 56) - 1;

RSMC_HOST_DEVICE constexpr bool seed_is_valid(std::uint64_t seed) { return seed <= kMaxSeed; }

RSMC_HOST_DEVICE const char* purpose_name(Purpose purpose) {
  switch (purpose) {
    case Purpose::initialise:
      return "initialise";
    case Purpose::propagate:
      return "propagate";
    case Purpose::observe:
      return "observe";
    case Purpose::resample:
      return "resample";
    case Purpose::model:
      return "model";
    case Purpose::inference:
      return "inference";
  }
  return "unknown";
}

using Philox = r123::Philox4x32;  // Philox4x32_R<10>

// Key = (seed, purpose):
//   key word0 = seed bits 0..31
//   key word1 = (purpose << 24) | seed bits 32..55
RSMC_HOST_DEVICE Philox::key_type make_key(std::uint64_t seed, Purpose purpose) {
  Philox::key_type key;
  key.v[0] = static_cast<std::uint32_t>(seed & 0xffffffffu);
  key.v[1] = (static_cast<std::uint32_t>(purpose) << 24) | static_cast<std::uint32_t>((seed >> 32) & 0x00ffffffu);
  return key;
}

// Counter = (draw index, step, global id bits 0..31, global id bits 32..63) in words c[0..3].
RSMC_HOST_DEVICE Philox::ctr_type make_counter(std::uint32_t step, std::uint64_t global_id, std::uint32_t draw) {
  Philox::ctr_type ctr;
  ctr.v[0] = draw;
  ctr.v[1] = step;
  ctr.v[2] = static_cast<std::uint32_t>(global_id & 0xffffffffu);
  ctr.v[3] = static_cast<std::uint32_t>(global_id >> 32);
  return ctr;
}

// The Philox4x32-10 block number `draw` of the stream (seed, purpose, step, global_id).
RSMC_HOST_DEVICE Block block(std::uint64_t seed, Purpose purpose, std::uint32_t step, std::uint64_t global_id,
                             std::uint32_t draw) {
  const Philox::ctr_type out = Philox()(make_counter(step, global_id, draw), make_key(seed, purpose));
  Block b;
  b.v[0] = out.v[0];
  b.v[1] = out.v[1];
  b.v[2] = out.v[2];
  b.v[3] = out.v[3];
  return b;
}

namespace rng_detail {

// The high 64 bits of the 128-bit product a * b.
RSMC_HOST_DEVICE std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 u128;  // __extension__: no -Wpedantic warning
  return static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
#endif
}

// Unbiased integer in [0, n) for n >= 1 from s.next_u64() (Lemire, "Fast random integer generation
// in an interval", 2019): x = next_u64(), the 128-bit product x * n; its high word is the result
// unless its low word falls below 2^64 mod n, in which case x is drawn again. n == 1 returns 0 (still
// consuming one u64); n == 0 is a precondition violation and returns 0. Shared by Stream and
// CounterStream (counter_stream.hpp), which give the same values for the same words.
template <class Words>
RSMC_HOST_DEVICE std::uint64_t lemire_integer(Words& s, std::uint64_t n) {
  std::uint64_t x = s.next_u64();
  std::uint64_t lo = x * n;
  if (lo < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (lo < threshold) {
      x = s.next_u64();
      lo = x * n;
    }
  }
  return mul_hi64(x, n);
}

}  // namespace rng_detail

// The draws of one (seed, purpose, step, global id), consumed in order.
//
// Consumption order: block 0 of the stream, words v[0], v[1], v[2], v[3], then block 1, and so on.
// - next_u32() takes one word.
// - next_u64() takes two consecutive words, the first is the LOW half: (w1 << 32) | w0. The pair may
//   straddle two blocks (e.g. after an odd number of next_u32() calls).
// - uniform() takes one u64 (more in the rare case it is rejected, see below).
// - normal() takes two uniforms for a pair of variates and caches the second; the next call returns
//   the cached one without consuming words.
// - exponential() takes one uniform; integer(n) takes one u64 or more (rejection).
// The draw index is 32 bits, so a stream has 2^32 blocks (2^34 words); it wraps after that.
class Stream {
 public:
  RSMC_HOST_DEVICE Stream(std::uint64_t seed, Purpose purpose, std::uint32_t step, std::uint64_t global_id)
      : key_(make_key(seed, purpose)), ctr_(make_counter(step, global_id, 0)) {
    buf_.v[0] = buf_.v[1] = buf_.v[2] = buf_.v[3] = 0;
  }

  RSMC_HOST_DEVICE std::uint32_t next_u32() {
    if (pos_ == 4) refill();
    return buf_.v[pos_++];
  }

  // Two words, low word first.
  RSMC_HOST_DEVICE std::uint64_t next_u64() {
    const std::uint64_t lo = next_u32();
    const std::uint64_t hi = next_u32();
    return (hi << 32) | lo;
  }

  // Uniform on the open interval (0, 1) with 53 random bits: m = next_u64() >> 11 in [0, 2^53);
  // m == 0 is rejected (drawn again), and the result is m * 2^-53. The values are the multiples of
  // 2^-53 in [2^-53, 1 - 2^-53]; all are exactly representable doubles (m < 2^53), so no rounding
  // happens and the result is never 0 or 1.
  // The tempting (m + 0.5) * 2^-53 is wrong: for m = 2^53 - 1 it is 1 - 2^-54, which is not
  // representable (the spacing of doubles just below 1 is 2^-53) and rounds to even, i.e. to 1.0.
  RSMC_HOST_DEVICE double uniform() {
    std::uint64_t m = next_u64() >> 11;
    while (m == 0) m = next_u64() >> 11;
    return static_cast<double>(m) * 0x1.0p-53;
  }

  // Standard normal by the Box-Muller transform: u1, u2 = uniform(), uniform();
  // r = sqrt(-2 log u1), (s, c) = (sin, cos)(2 pi u2); returns r c and caches r s for the next call.
  // u1 > 0, so r is finite. log and sincos_2pi are rsmc::math's (sincos_2pi reduces u2 exactly,
  // with no rounded product 2 pi u2), so a host and a device run draw the same bits.
  RSMC_HOST_DEVICE double normal() {
    if (have_normal_) {
      have_normal_ = false;
      return cached_normal_;
    }
    const double u1 = uniform();
    const double u2 = uniform();
    const double r = sqrt(-2.0 * math::log(u1));
    const math::SinCos angle = math::sincos_2pi(u2);
    cached_normal_ = r * angle.sin;
    have_normal_ = true;
    return r * angle.cos;
  }

  // Exp(1) = -log(uniform()), with rsmc::math::log; finite and strictly positive because uniform()
  // is in (0, 1).
  RSMC_HOST_DEVICE double exponential() { return -math::log(uniform()); }

  // Unbiased integer in [0, n) for n >= 1: rng_detail::lemire_integer on next_u64().
  RSMC_HOST_DEVICE std::uint64_t integer(std::uint64_t n) { return rng_detail::lemire_integer(*this, n); }

  // How many Philox blocks this stream has generated so far (including a partly consumed one).
  RSMC_HOST_DEVICE std::uint32_t blocks_used() const { return ctr_.v[0]; }

 private:
  RSMC_HOST_DEVICE void refill() {
    const Philox::ctr_type out = Philox()(ctr_, key_);
    buf_.v[0] = out.v[0];
    buf_.v[1] = out.v[1];
    buf_.v[2] = out.v[2];
    buf_.v[3] = out.v[3];
    ++ctr_.v[0];  // draw index of the next block
    pos_ = 0;
  }

  Philox::key_type key_;
  Philox::ctr_type ctr_;  // ctr_.v[0] = draw index of the next block to generate
  Block buf_;
  std::uint32_t pos_ = 4;  // next unread word of buf_; 4 = empty
  bool have_normal_ = false;
  double cached_normal_ = 0.0;
};

}  // namespace rsmc::rng
