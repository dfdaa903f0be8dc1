// Unit tests for stream layout 2: base/rng/philox.hpp (our Philox4x32-10, scalar and SIMD),
// base/rng/draws.hpp (the layout and the exact uniforms), base/rng/counter_stream.hpp (the model
// API) and base/rng/batch_draws.hpp (normals of a batch with the SIMD Philox).
//
// Fixed seeds throughout. Moments within 5 standard errors (derived next to each check);
// Kolmogorov-Smirnov sqrt(n) D_n below 1.95, the asymptotic critical value at alpha = 0.001
// (P(K > 1.95) = 0.0010 for the Kolmogorov distribution K): five KS checks here, so a family-wise
// false alarm rate of 0.5%.
#include <catch2/catch.hpp>

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "base/rng/batch_draws.hpp"
#include "base/rng/counter_stream.hpp"
#include "base/rng/stream.hpp"
#include "tests/support/statistics.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::bits_of;

namespace {

using namespace rsmc::rng;

constexpr std::size_t kStreamSamples = 100000;
constexpr double kStreamKsCritical = 1.95;

using rsmc::test::ks_statistic;

Block r123_block(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3, std::uint32_t k0,
                 std::uint32_t k1) {
  const r123::Philox4x32::ctr_type ctr = {{c0, c1, c2, c3}};
  const r123::Philox4x32::key_type key = {{k0, k1}};
  const auto out = r123::Philox4x32()(ctr, key);
  return Block{{out.v[0], out.v[1], out.v[2], out.v[3]}};
}

bool same(const Block& a, const Block& b) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2] && a.v[3] == b.v[3];
}

}  // namespace

TEST_CASE("philox4x32_10 matches Random123's known answers and random counters", "[counter_stream]") {
  // Random123's published vectors (also checked through r123 in test_rng.cpp).
  CHECK(same(philox4x32_10(0, 0, 0, 0, 0, 0), Block{{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}));
  CHECK(same(philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u), Block{{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}));
  CHECK(same(philox4x32_10(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0),
             Block{{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}));
  std::mt19937 g(11);
  for (int i = 0; i < 10000; ++i) {
    const std::uint32_t c[4] = {std::uint32_t(g()), std::uint32_t(g()), std::uint32_t(g()), std::uint32_t(g())};
    const std::uint32_t k[2] = {std::uint32_t(g()), std::uint32_t(g())};
    REQUIRE(same(philox4x32_10(c[0], c[1], c[2], c[3], k[0], k[1]), r123_block(c[0], c[1], c[2], c[3], k[0], k[1])));
  }
}

TEST_CASE("philox4x32_10_lanes gives every lane the scalar function's bits", "[counter_stream]") {
  std::mt19937 g(12);
  for (int trial = 0; trial < 200; ++trial) {
    std::uint32_t ctr[4][16], out[4][16];
    for (auto& word : ctr)
      for (auto& v : word) v = g();
    const std::uint32_t k0 = g(), k1 = g();
    philox4x32_10_lanes<16>(ctr, k0, k1, out);
    for (int l = 0; l < 16; ++l) {
      const Block b = philox4x32_10(ctr[0][l], ctr[1][l], ctr[2][l], ctr[3][l], k0, k1);
      for (int w = 0; w < 4; ++w) REQUIRE(out[w][l] == b.v[w]);
    }
  }
}

TEST_CASE("draw_block places kind, index, step and global id as documented", "[counter_stream]") {
  const std::uint64_t seed = 0x00ab'cdef'1234'5678ull, id = 0x0000'0012'3456'789aull;
  const StreamKey key = stream_key(seed, Purpose::propagate);
  const auto r123_key = make_key(seed, Purpose::propagate);
  CHECK(key.k0 == r123_key.v[0]);
  CHECK(key.k1 == r123_key.v[1]);
  const Block b = draw_block(key, 77, id, DrawKind::normals, 5);
  CHECK(same(b, r123_block((2u << 30) | 5u, 77, 0x3456789au, 0x12u, key.k0, key.k1)));
  // Kind words (0) with index j is layout 1's block j: the raw words of both layouts agree.
  for (std::uint32_t j = 0; j < 4; ++j) {
    const Block layout1 = block(seed, Purpose::propagate, 77, id, j);
    CHECK(same(draw_block(key, 77, id, DrawKind::words, j), layout1));
  }
}

TEST_CASE("The uniforms are exact: m 2^-53, (m + 1) 2^-53 and (2 m' + 1) 2^-53", "[counter_stream]") {
  std::mt19937 g(13);
  auto check_pair = [](std::uint32_t lo, std::uint32_t hi) {
    const std::uint64_t m = (static_cast<std::uint64_t>(hi) << 21) | (lo >> 11);
    const double a = unit_closed_open(lo, hi), b = unit_open_closed(lo, hi), c = unit_open(lo, hi);
    CHECK(std::ldexp(a, 53) == static_cast<double>(m));
    CHECK(std::ldexp(b, 53) == static_cast<double>(m + 1));
    CHECK(std::ldexp(c, 53) == static_cast<double>(2 * (m >> 1) + 1));
    CHECK(a >= 0.0);
    CHECK(a < 1.0);
    CHECK(b > 0.0);
    CHECK(b <= 1.0);
    CHECK(c > 0.0);
    CHECK(c < 1.0);
  };
  check_pair(0, 0);
  check_pair(~0u, ~0u);
  check_pair(0x7ff, 0);  // below the 53 bits: m = 0
  check_pair(0x800, 0);  // m = 1
  check_pair(0, 0x80000000u);
  for (int i = 0; i < 100000; ++i) check_pair(g(), g());
  CHECK(unit_open_closed(~0u, ~0u) == 1.0);
  CHECK(exponential_of(~0u, ~0u) == 0.0);
  CHECK(bits_of(exponential_of(~0u, ~0u)) == 0);  // +0, not -0
  CHECK(unit_closed_open(0, 0) == 0.0);
  CHECK(unit_open(0, 0) == 0x1p-53);
  CHECK(unit_open(~0u, ~0u) == 1.0 - 0x1p-53);
}

TEST_CASE("CounterStream draws are the documented pure functions of the layout", "[counter_stream]") {
  const std::uint64_t seed = 42, id = 987654321;
  const std::uint32_t step = 9;
  const StreamKey key = stream_key(seed, Purpose::propagate);
  CounterStream s(seed, Purpose::propagate, step, id);
  // normals 0..5: pairs of blocks 0, 1, 2
  for (std::uint32_t j = 0; j < 3; ++j) {
    const NormalPair p = normal_pair(key, step, id, j);
    CHECK(bits_of(s.normal()) == bits_of(p.first));
    CHECK(bits_of(s.normal()) == bits_of(p.second));
  }
  // uniforms and exponentials share the halves of the uniform blocks, in call order
  const Block u0 = draw_block(key, step, id, DrawKind::uniforms, 0),
              u1 = draw_block(key, step, id, DrawKind::uniforms, 1);
  CHECK(bits_of(s.uniform()) == bits_of(unit_open(u0.v[0], u0.v[1])));
  CHECK(bits_of(s.exponential()) == bits_of(exponential_of(u0.v[2], u0.v[3])));
  CHECK(bits_of(s.uniform()) == bits_of(unit_open(u1.v[0], u1.v[1])));
  // words: word blocks in order, u64 low word first
  const Block w0 = draw_block(key, step, id, DrawKind::words, 0), w1 = draw_block(key, step, id, DrawKind::words, 1);
  CHECK(s.next_u32() == w0.v[0]);
  CHECK(s.next_u64() == ((std::uint64_t(w0.v[2]) << 32) | w0.v[1]));
  CHECK(s.next_u64() == ((std::uint64_t(w1.v[0]) << 32) | w0.v[3]));  // straddles two blocks
}

TEST_CASE("Each kind has its own counter: a model's k-th normal does not depend on its other draws",
          "[counter_stream]") {
  CounterStream plain(5, Purpose::propagate, 3, 17), mixed(5, Purpose::propagate, 3, 17);
  const double a0 = plain.normal(), a1 = plain.normal(), a2 = plain.normal();
  (void)mixed.uniform();
  const double b0 = mixed.normal();
  (void)mixed.next_u64();
  (void)mixed.exponential();
  const double b1 = mixed.normal();
  (void)mixed.integer(1000);
  const double b2 = mixed.normal();
  CHECK(bits_of(a0) == bits_of(b0));
  CHECK(bits_of(a1) == bits_of(b1));
  CHECK(bits_of(a2) == bits_of(b2));
}

TEST_CASE("CounterStream's words and integer() are layout 1's (Stream) for the same stream", "[counter_stream]") {
  for (std::uint64_t id : {0ull, 1ull, 123456789ull, (1ull << 40) + 3}) {
    Stream old_stream(8, Purpose::resample, 4, id);
    CounterStream new_stream(8, Purpose::resample, 4, id);
    for (int i = 0; i < 37; ++i) REQUIRE(old_stream.next_u32() == new_stream.next_u32());
    for (int i = 0; i < 20; ++i) REQUIRE(old_stream.next_u64() == new_stream.next_u64());
    for (std::uint64_t n : {1ull, 7ull, 1000ull, (1ull << 63) + 5})
      REQUIRE(old_stream.integer(n) == new_stream.integer(n));
  }
}

TEST_CASE("generate_normals and pregenerated streams give CounterStream::normal()'s bits", "[counter_stream]") {
  const std::uint64_t seed = 3;
  const StreamKey key = stream_key(seed, Purpose::propagate);
  constexpr std::uint32_t kLanes = 64;
  // first ids: ordinary, and across 2^32 (the id's high word changes inside the batch)
  for (std::uint64_t first : {0ull, 1000ull, (1ull << 32) - 20}) {
    for (std::uint32_t count : {64u, 37u, 1u}) {
      std::vector<double> z(2 * 2 * kLanes, 0.0);  // two pairs
      generate_normals(key, 11, first, count, 2, kLanes, z.data());
      const PregeneratedNormals pre{z.data(), 4, kLanes};
      for (std::uint32_t l = 0; l < count; ++l) {
        CounterStream direct(seed, Purpose::propagate, 11, first + l);
        CounterStream ahead(seed, Purpose::propagate, 11, first + l, pre, l);
        for (int n = 0; n < 6; ++n) {  // 4 pregenerated, then computed on the fly
          const double d = direct.normal();
          REQUIRE(bits_of(ahead.normal()) == bits_of(d));
          if (n < 4) REQUIRE(bits_of(z[n * kLanes + l]) == bits_of(d));
        }
      }
    }
  }
}

TEST_CASE("CounterStream normals are N(0, 1), both halves, and independent across halves and ids", "[counter_stream]") {
  std::vector<double> first(kStreamSamples), second(kStreamSamples), next_id(kStreamSamples);
  for (std::size_t i = 0; i < kStreamSamples; ++i) {
    CounterStream s(21, Purpose::propagate, 1, i);
    first[i] = s.normal();
    second[i] = s.normal();
  }
  for (std::size_t i = 0; i + 1 < kStreamSamples; ++i) next_id[i] = first[i + 1];
  next_id[kStreamSamples - 1] = first[0];
  const auto normal_cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double root_n = std::sqrt(static_cast<double>(kStreamSamples));
  for (const auto* x : {&first, &second}) {
    CHECK(root_n * ks_statistic(*x, normal_cdf) < kStreamKsCritical);
    double mean = 0.0, var = 0.0;
    for (double v : *x) mean += v;
    mean /= kStreamSamples;
    for (double v : *x) var += (v - mean) * (v - mean);
    var /= kStreamSamples;
    CHECK(std::fabs(mean) < 5.0 / root_n);                        // SE 1 / sqrt(n)
    CHECK(std::fabs(var - 1.0) < 5.0 * std::sqrt(2.0) / root_n);  // SE sqrt(2 / n)
  }
  // Correlations: SE 1 / sqrt(n) each.
  auto corr = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s / static_cast<double>(a.size());
  };
  CHECK(std::fabs(corr(first, second)) < 5.0 / root_n);
  CHECK(std::fabs(corr(first, next_id)) < 5.0 / root_n);
  // Box-Muller's radius: first^2 + second^2 = -2 log u1 is Exp(1/2).
  std::vector<double> r2(kStreamSamples);
  for (std::size_t i = 0; i < kStreamSamples; ++i) r2[i] = first[i] * first[i] + second[i] * second[i];
  CHECK(root_n * ks_statistic(r2, [](double x) { return 1.0 - std::exp(-x / 2.0); }) < kStreamKsCritical);
}

TEST_CASE("CounterStream uniforms are U(0, 1) and exponentials Exp(1)", "[counter_stream]") {
  std::vector<double> u(kStreamSamples), e(kStreamSamples);
  for (std::size_t i = 0; i < kStreamSamples; ++i) {
    CounterStream s(22, Purpose::model, 2, i);
    u[i] = s.uniform();
    e[i] = s.exponential();
  }
  const double root_n = std::sqrt(static_cast<double>(kStreamSamples));
  CHECK(root_n * ks_statistic(u, [](double x) { return x; }) < kStreamKsCritical);
  CHECK(root_n * ks_statistic(e, [](double x) { return 1.0 - std::exp(-x); }) < kStreamKsCritical);
  double mean_e = 0.0;
  for (double v : e) mean_e += v;
  CHECK(std::fabs(mean_e / kStreamSamples - 1.0) < 5.0 / root_n);  // SE 1 / sqrt(n)
}
