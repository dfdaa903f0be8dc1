// Counter-based draws as pure functions: the Philox block of a (seed, purpose, step, global id, kind,
// block index), and the exact conversions of its words into uniforms, normals and exponentials.
//
// Layout (stream layout 2; docs/reproducibility.md, "Stream layout 2"):
//   key     = (seed bits 0..31, purpose << 24 | seed bits 32..55)           as in stream.hpp
//   counter = (kind << 30 | block index, step, global id bits 0..31, bits 32..63)
// A stream's draws come in three kinds, each with its own sequence of blocks, so that a model's k-th
// normal is a fixed function of k alone, whatever uniforms or words it drew before:
//   words     (kind 0)  32-bit words, four per block, in order: block j = words 4j .. 4j+3. With kind 0
//                       in the top bits, these are exactly stream layout 1's words (stream.hpp) for
//                       the first 2^30 blocks.
//   uniforms  (kind 1)  two per block: uniform or exponential number h takes words 2(h % 2) and
//                       2(h % 2) + 1 of block h / 2.
//   normals   (kind 2)  two per block: normal number n is the cosine (n even) or sine (n odd) half of
//                       Box-Muller on block n / 2, so one block, one log, one sqrt and one sincos
//                       serve two normals.
//
// Exactness of the uniforms (no rejection loop anywhere). A word pair (lo, hi) gives the 53 bits
// m = hi 2^21 + floor(lo / 2^11) < 2^53. Every value below is an integer times a power of two with at
// most 53 significant bits, so it is an exact double and no rounding happens; the conversion avoids
// the integer-to-double instruction (not vectorisable on x86 before AVX-512) by writing an integer
// q < 2^52 into the mantissa of 2^52 and subtracting 2^52, which is exact:
//   unit_closed_open  = m 2^-53          in [0, 1)         the Box-Muller angle
//   unit_open_closed  = (m + 1) 2^-53    in (0, 1]         the Box-Muller radius and exponentials:
//                                                          log never sees 0
//   unit_open         = (2 m' + 1) 2^-53 in (0, 1)         uniform(): 52 bits m' = floor(m / 2);
//                                                          the odd multiples of 2^-53, never 0 or 1,
//                                                          mean exactly 1/2
// ((m + 0.5) 2^-53 would need 54 bits and rounds to 1.0 at the top: that is why unit_open uses 52.)
//
// Box-Muller: r = sqrt(-2 log u1), (s, c) = sincos(2 pi u2) with u1 = unit_open_closed(v0, v1),
// u2 = unit_closed_open(v2, v3); the pair is (r c, r s). u1 = 1 gives r = 0 and the pair (0, 0)
// (probability 2^-53). exponential = -log(unit_open_closed(...)) in [0, 53 ln 2].
// log and sincos_2pi are rsmc::math's, so the bits are the same on every vector width and device.
//
// Everything here is RSMC_HOST_DEVICE and branch-free, so a loop over particles vectorises.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/core/portability.hpp"
#include "base/math/math.hpp"
#include "base/rng/philox.hpp"
#include "base/rng/stream.hpp"  // Purpose, make_key's key layout

namespace rsmc::rng {

// The three draw sequences of a stream (counter word 0 bits 30..31).
enum class DrawKind : std::uint32_t { words = 0, uniforms = 1, normals = 2 };
constexpr int kDrawKindShift = 30;
// Block indices per kind: 2^30 (a stream's index wraps after that).
constexpr std::uint32_t kDrawIndexMask = (std::uint32_t{1} << kDrawKindShift) - 1;

// The key words of (seed, purpose), as stream.hpp's make_key.
struct StreamKey {
  std::uint32_t k0;
  std::uint32_t k1;
};

RSMC_VECTOR_INLINE StreamKey stream_key(std::uint64_t seed, Purpose purpose) {
  return {static_cast<std::uint32_t>(seed & 0xffffffffu),
          (static_cast<std::uint32_t>(purpose) << 24) | static_cast<std::uint32_t>((seed >> 32) & 0x00ffffffu)};
}

// Block `index` of `kind` of the stream (key, step, global_id).
RSMC_VECTOR_INLINE Block draw_block(StreamKey key, std::uint32_t step, std::uint64_t global_id, DrawKind kind,
                                    std::uint32_t index) {
  const std::uint32_t c0 = (static_cast<std::uint32_t>(kind) << kDrawKindShift) | (index & kDrawIndexMask);
  return philox4x32_10(c0, step, static_cast<std::uint32_t>(global_id & 0xffffffffu),
                       static_cast<std::uint32_t>(global_id >> 32), key.k0, key.k1);
}

namespace rng_detail {

RSMC_VECTOR_INLINE double double_from_bits(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// q as a double, exactly, for q < 2^52: q in the mantissa of 2^52, minus 2^52.
RSMC_VECTOR_INLINE double exact_double(std::uint64_t q) { return double_from_bits(0x4330000000000000ull | q) - 0x1p52; }

// The 53 random bits of a word pair: hi's 32 bits above lo's top 21.
RSMC_VECTOR_INLINE std::uint64_t bits53(std::uint32_t lo, std::uint32_t hi) {
  return (static_cast<std::uint64_t>(hi) << 21) | (lo >> 11);
}

// (a 2^26 + b) 2^-53 for a < 2^27, b <= 2^26: two exact products whose exact sum is representable.
RSMC_VECTOR_INLINE double scaled53(std::uint64_t a, std::uint64_t b) {
  return exact_double(a) * 0x1p-27 + exact_double(b) * 0x1p-53;
}

}  // namespace rng_detail

// m 2^-53 in [0, 1).
RSMC_VECTOR_INLINE double unit_closed_open(std::uint32_t lo, std::uint32_t hi) {
  const std::uint64_t m = rng_detail::bits53(lo, hi);
  return rng_detail::scaled53(m >> 26, m & ((std::uint64_t{1} << 26) - 1));
}

// (m + 1) 2^-53 in (0, 1].
RSMC_VECTOR_INLINE double unit_open_closed(std::uint32_t lo, std::uint32_t hi) {
  const std::uint64_t m = rng_detail::bits53(lo, hi);
  return rng_detail::scaled53(m >> 26, (m & ((std::uint64_t{1} << 26) - 1)) + 1);
}

// (2 m' + 1) 2^-53 in (0, 1), m' = the top 52 of the 53 bits: (1 + m' 2^-52) - (1 - 2^-53), one
// exact subtraction (Sterbenz: both operands lie in [1/2, 2]).
RSMC_VECTOR_INLINE double unit_open(std::uint32_t lo, std::uint32_t hi) {
  const std::uint64_t m52 = rng_detail::bits53(lo, hi) >> 1;
  return rng_detail::double_from_bits(0x3ff0000000000000ull | m52) - (1.0 - 0x1p-53);
}

// -log u, u in (0, 1]: [0, 36.74]; +0 (not -0) at u = 1.
RSMC_VECTOR_INLINE double exponential_of(std::uint32_t lo, std::uint32_t hi) {
  return 0.0 - math::log(unit_open_closed(lo, hi));
}

struct NormalPair {
  double first;   // r cos(2 pi u2)
  double second;  // r sin(2 pi u2)
};

// Box-Muller on the uniforms u1 in (0, 1] and u2 in [0, 1) (see the header comment).
RSMC_VECTOR_INLINE NormalPair box_muller(double u1, double u2) {
  const double r = sqrt(0.0 - 2.0 * math::log(u1));  // correctly rounded everywhere; +0 at u1 = 1
  const math::SinCos sc = math::sincos_2pi(u2);
  return {r * sc.cos, r * sc.sin};
}

// Box-Muller on one block (see the header comment).
RSMC_VECTOR_INLINE NormalPair normal_pair_of(const Block& b) {
  return box_muller(unit_open_closed(b.v[0], b.v[1]), unit_closed_open(b.v[2], b.v[3]));
}

// The normal pair number `pair` of the stream (key, step, global_id): normals 2 pair and 2 pair + 1.
RSMC_VECTOR_INLINE NormalPair normal_pair(StreamKey key, std::uint32_t step, std::uint64_t global_id,
                                          std::uint32_t pair) {
  return normal_pair_of(draw_block(key, step, global_id, DrawKind::normals, pair));
}

}  // namespace rsmc::rng
