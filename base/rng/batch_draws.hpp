// The normals of stream layout 2 (draws.hpp) for a batch of consecutive particles at once: the
// Philox blocks with the SIMD Philox (philox.hpp), their uniforms with vector operations, and
// Box-Muller in a plain loop that the compiler vectorises. For CounterStream's PregeneratedNormals.
//
// Why: inside a loop over particles GCC vectorises the scalar Philox of draws.hpp, but builds each
// 32 x 32 -> 64-bit product from lane-crossing shuffles and runs about three times slower than the
// SIMD Philox (docs/design/vectorised-step.md). A batch loop therefore computes the normals first
// into a buffer that stays in L1, and the particles' streams read them. The bits are those of
// CounterStream::normal() (tests/unit/test_counter_stream.cpp): the same exact uniforms, the same
// rsmc::math functions.
//
// RSMC_HOST_DEVICE (on a device, or without GCC vector extensions, the Philox part is a plain loop).
// No Kokkos, no MPI.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/core/portability.hpp"
#include "base/rng/draws.hpp"
#include "base/rng/philox.hpp"

namespace rsmc::rng {

// Particles per SIMD Philox call: 4 AVX2 vectors (2 AVX-512) in flight.
constexpr std::uint32_t kBatchDrawGroup = 16;

namespace rng_detail {

#if defined(RSMC_PHILOX_SIMD)
typedef double PhiloxDoubles __attribute__((vector_size(8 * kPhiloxVectorLanes)));

// q as doubles, exactly, for q < 2^52 in every lane (exact_double of draws.hpp, lane-wise).
inline PhiloxDoubles exact_doubles(PhiloxVector q) {
  return reinterpret_cast<PhiloxDoubles>(q | 0x4330000000000000ull) - 0x1p52;
}

// (a 2^26 + b) 2^-53 lane-wise (scaled53 of draws.hpp).
inline PhiloxDoubles scaled53s(PhiloxVector a, PhiloxVector b) {
  return exact_doubles(a) * 0x1p-27 + exact_doubles(b) * 0x1p-53;
}
#endif

// u1[l] = unit_open_closed(v0, v1) and u2[l] = unit_closed_open(v2, v3) of normal block `block` of
// the particles first_id + l, for l < count rounded up to kBatchDrawGroup.
RSMC_HOST_DEVICE void normal_uniforms(StreamKey key, std::uint32_t step, std::uint64_t first_id, std::uint32_t count,
                                      std::uint32_t block, double* u1, double* u2) {
  const std::uint32_t c0 = (static_cast<std::uint32_t>(DrawKind::normals) << kDrawKindShift) | (block & kDrawIndexMask);
#if defined(RSMC_PHILOX_SIMD)
  constexpr int W = kPhiloxVectorLanes, V = static_cast<int>(kBatchDrawGroup) / W;
  const PhiloxVector mask26 = PhiloxVector{} + ((std::uint64_t{1} << 26) - 1);
  for (std::uint32_t g = 0; g < count; g += kBatchDrawGroup) {
    std::uint64_t ids[kBatchDrawGroup];
    for (std::uint32_t l = 0; l < kBatchDrawGroup; ++l) ids[l] = first_id + g + l;
    PhiloxVector x0[V], x1[V], x2[V], x3[V];
    for (int v = 0; v < V; ++v) {
      PhiloxVector id;
      __builtin_memcpy(&id, ids + v * W, sizeof id);
      x0[v] = PhiloxVector{} + c0;
      x1[v] = PhiloxVector{} + step;
      x2[v] = id & 0xffffffffu;
      x3[v] = id >> 32;
    }
    philox_vectors<V>(x0, x1, x2, x3, key.k0, key.k1);
    for (int v = 0; v < V; ++v) {
      const PhiloxVector m1 = (x1[v] << 21) | (x0[v] >> 11), m2 = (x3[v] << 21) | (x2[v] >> 11);
      const PhiloxDoubles a = scaled53s(m1 >> 26, (m1 & mask26) + 1), b = scaled53s(m2 >> 26, m2 & mask26);
      __builtin_memcpy(u1 + g + v * W, &a, sizeof a);
      __builtin_memcpy(u2 + g + v * W, &b, sizeof b);
    }
  }
#else
  const std::uint32_t rounded = (count + kBatchDrawGroup - 1) / kBatchDrawGroup * kBatchDrawGroup;
  for (std::uint32_t l = 0; l < rounded; ++l) {
    const std::uint64_t id = first_id + l;
    const Block b = philox4x32_10(c0, step, static_cast<std::uint32_t>(id & 0xffffffffu),
                                  static_cast<std::uint32_t>(id >> 32), key.k0, key.k1);
    u1[l] = unit_open_closed(b.v[0], b.v[1]);
    u2[l] = unit_closed_open(b.v[2], b.v[3]);
  }
#endif
}

}  // namespace rng_detail

// z[(2 j + h) lanes + l] = normal number 2 j + h (h = 0, 1) of the stream (key, step, first_id + l),
// for pairs j < pairs and lanes l < count rounded up to kBatchDrawGroup (the lanes past count get
// the normals of the ids that follow). z holds 2 pairs lanes doubles; lanes >= the rounded count.
RSMC_HOST_DEVICE void generate_normals(StreamKey key, std::uint32_t step, std::uint64_t first_id, std::uint32_t count,
                                       std::uint32_t pairs, std::uint32_t lanes, double* z) {
  const std::uint32_t rounded = (count + kBatchDrawGroup - 1) / kBatchDrawGroup * kBatchDrawGroup;
  for (std::uint32_t j = 0; j < pairs; ++j) {
    double* first = z + 2 * j * lanes;
    double* second = first + lanes;
    rng_detail::normal_uniforms(key, step, first_id, count, j, first, second);
    for (std::uint32_t l = 0; l < rounded; ++l) {  // Box-Muller in place, as normal_pair_of
      const NormalPair p = box_muller(first[l], second[l]);
      first[l] = p.first;
      second[l] = p.second;
    }
  }
}

}  // namespace rsmc::rng
