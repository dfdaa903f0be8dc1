// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", 2011),
// ours, in two forms that give Random123's bits (tests/unit/test_counter_stream.cpp: the published
// known answers and random counters and keys against r123::Philox4x32):
//
// - philox4x32_10(): scalar, 32-bit words and a plain (uint64_t)a * b for the 32 x 32 -> 64-bit
//   products, nothing else. It runs anywhere (host, Kokkos kernels, CUDA) and a loop over particles
//   that calls it vectorises; but GCC 12 builds each vector of products from lane-crossing unpacks and
//   packs around vpmuludq, about three times the optimal cost (docs/design/vectorised-step.md).
//   (Random123's own mulhilo32 is inline assembly on x86-64, which nothing vectorises.)
// - philox4x32_10_lanes<L>(): L counters under one key, the rounds on GCC vector extensions whose
//   lanes are 64 bits wide, each holding one 32-bit word, so a product is one vpmuludq (pmuludq,
//   vpmuludq zmm: SSE2, AVX2, AVX-512, chosen at compile time) and its halves a shift and a mask.
//   With L = 16, four AVX2 vectors are in flight, hiding the multiply latency. The one x86 intrinsic
//   has a portable fallback (the scalar function, lane by lane: CUDA, other compilers, other CPUs), so
//   the bits never depend on the target.
//
// RSMC_HOST_DEVICE; no Kokkos, no MPI, no Random123.
#pragma once

#include <cstdint>

#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#include "base/core/portability.hpp"

namespace rsmc::rng {

// Random123's Philox4x32 constants: the two round multipliers and the two Weyl key increments.
constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr std::uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr std::uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

// One Philox4x32 output, or counter: four 32-bit words (std::array is not usable on the device).
struct Block {
  std::uint32_t v[4];
};

namespace rng_detail {

RSMC_VECTOR_INLINE std::uint32_t mul_hi32(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
}

// One Philox round on (x0, x1, x2, x3) with key (k0, k1), in place.
RSMC_VECTOR_INLINE void philox_round(std::uint32_t& x0, std::uint32_t& x1, std::uint32_t& x2, std::uint32_t& x3,
                                     std::uint32_t k0, std::uint32_t k1) {
  const std::uint32_t hi0 = mul_hi32(kPhiloxM0, x0), lo0 = kPhiloxM0 * x0;
  const std::uint32_t hi1 = mul_hi32(kPhiloxM1, x2), lo1 = kPhiloxM1 * x2;
  x0 = hi1 ^ x1 ^ k0;
  x1 = lo1;
  x2 = hi0 ^ x3 ^ k1;
  x3 = lo0;
}

}  // namespace rng_detail

// Philox4x32-10 of counter (c0, c1, c2, c3) under key (k0, k1).
RSMC_VECTOR_INLINE Block philox4x32_10(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                                       std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < kPhiloxRounds; ++r) {
    rng_detail::philox_round(c0, c1, c2, c3, k0, k1);
    k0 += kPhiloxW0;  // the key after the last round is never used
    k1 += kPhiloxW1;
  }
  return Block{{c0, c1, c2, c3}};
}

namespace rng_detail {

#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && (defined(__x86_64__) || defined(__i386__))
#define RSMC_PHILOX_SIMD 1
// The widest integer vector this target has, as 64-bit lanes each holding one 32-bit word: the
// product of two words is then one unsigned 32 x 32 -> 64-bit multiply of the even 32-bit halves
// (pmuludq), which GCC does not derive from portable code (it vectorises `(uint64_t)a * b` with
// lane-crossing shuffles, three times slower). The intrinsic is the one target-specific line, the rest GCC
// vector extensions (AVX-512: the all-lanes maskz form; GCC 12 warns on _mm512_mul_epu32's undefined input).
#if defined(__AVX512F__)
constexpr int kPhiloxVectorLanes = 8;
#elif defined(__AVX2__)
constexpr int kPhiloxVectorLanes = 4;
#else
constexpr int kPhiloxVectorLanes = 2;  // SSE2: every x86-64
#endif
typedef std::uint64_t PhiloxVector __attribute__((vector_size(8 * kPhiloxVectorLanes)));
typedef std::uint32_t PhiloxWords __attribute__((vector_size(4 * kPhiloxVectorLanes)));

// (low 32 bits of a) * m in every lane, exactly (a < 2^32 here, so that is a * m); any vector width.
inline PhiloxVector mul_wide(PhiloxVector a, std::uint32_t m) {
#if defined(__AVX512F__)
  return (PhiloxVector)_mm512_maskz_mul_epu32(0xff, (__m512i)a, _mm512_set1_epi64(m));
#elif defined(__AVX2__)
  return (PhiloxVector)_mm256_mul_epu32((__m256i)a, _mm256_set1_epi64x(m));
#else
  return (PhiloxVector)_mm_mul_epu32((__m128i)a, _mm_set1_epi64x(m));
#endif
}

// Philox4x32-10 on kPhiloxVectorLanes counters, V vectors interleaved (their rounds are
// independent, so the multiplies of one hide the latency of the other).
template <int V>
inline void philox_vectors(PhiloxVector (&x0)[V], PhiloxVector (&x1)[V], PhiloxVector (&x2)[V], PhiloxVector (&x3)[V],
                           std::uint32_t k0, std::uint32_t k1) {
  const PhiloxVector low = PhiloxVector{} + 0xffffffffull;
  for (int r = 0; r < kPhiloxRounds; ++r) {
    for (int v = 0; v < V; ++v) {
      const PhiloxVector p0 = mul_wide(x0[v], kPhiloxM0), p1 = mul_wide(x2[v], kPhiloxM1);
      x0[v] = (p1 >> 32) ^ x1[v] ^ k0;
      x1[v] = p1 & low;
      x2[v] = (p0 >> 32) ^ x3[v] ^ k1;
      x3[v] = p0 & low;
    }
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
}
#endif

}  // namespace rng_detail

// L counters at once under one key: ctr[w][l] is word w of lane l's counter, out[w][l] word w of its
// output (out may be ctr). Lane l's output is philox4x32_10 of lane l's counter, bit for bit, on
// every target: on x86 (GCC, Clang) through rng_detail::philox_vectors, L / kPhiloxVectorLanes vectors
// interleaved (L must then be a multiple of 8); elsewhere (CUDA, other compilers) lane by lane.
template <int L>
RSMC_VECTOR_INLINE void philox4x32_10_lanes(const std::uint32_t (&ctr)[4][L], std::uint32_t k0, std::uint32_t k1,
                                            std::uint32_t (&out)[4][L]) {
#if defined(RSMC_PHILOX_SIMD)
  static_assert(L % 8 == 0, "philox4x32_10_lanes: L must be a multiple of 8 (the widest vector)");
  constexpr int W = rng_detail::kPhiloxVectorLanes, V = L / W;
  rng_detail::PhiloxVector x[4][V];
  for (int w = 0; w < 4; ++w)
    for (int v = 0; v < V; ++v) {
      rng_detail::PhiloxWords words;
      __builtin_memcpy(&words, &ctr[w][v * W], sizeof words);
      x[w][v] = __builtin_convertvector(words, rng_detail::PhiloxVector);
    }
  rng_detail::philox_vectors<V>(x[0], x[1], x[2], x[3], k0, k1);
  for (int w = 0; w < 4; ++w)
    for (int v = 0; v < V; ++v) {
      const rng_detail::PhiloxWords words = __builtin_convertvector(x[w][v], rng_detail::PhiloxWords);
      __builtin_memcpy(&out[w][v * W], &words, sizeof words);
    }
#else
  for (int l = 0; l < L; ++l) {
    const Block b = philox4x32_10(ctr[0][l], ctr[1][l], ctr[2][l], ctr[3][l], k0, k1);
    for (int w = 0; w < 4; ++w) out[w][l] = b.v[w];
  }
#endif
}

}  // namespace rsmc::rng
