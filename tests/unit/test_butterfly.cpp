// Unit tests for the butterfly-patterned partial-sums sampler (Steele & Tristan): the host twin of the
// warp algorithm (kernels/host/butterfly_table.hpp), the launcher twins (kernels/host/butterfly_sampling
// .hpp), the portable batched draw (kernels/butterfly/batched_categorical.hpp) and the shared edge rules
// (kernels/butterfly/butterfly_common.hpp).
//
// - The table: every cell against the closed form of the digest, for W = 4, 8, 16, 32, and the W = 4
//   example table symbol by symbol.
// - Exactness: integer-valued weights with row total 2^t make every partial sum exact (u64 in u64 or
//   u128, double, and float while 2^t <= 2^24), so the butterfly index must equal the sequential one
//   (smallest j with u' < p_j) for EVERY integer point u' in [0, 2^t) -- every boundary p_j and p_j - 1
//   included -- with zero-weight runs placed at the remnant/block edges, at the front, at the back and
//   over whole blocks, for K = 1..W+1, every remnant size behind two blocks, and K up to 1024. The
//   uniforms u = c / 2^t map to exactly u' = c. Large u64 weights (sums above 2^64) in u128.
// - Floating point: on random weights the index may differ from a sequential float/double prefix only
//   when u' lies within the rounding error of the boundaries between the two indices (tolerance
//   (K + 64) eps total, far above the actual error, which is O(log K) eps total for the butterfly).
// - Edge rules: all-zero rows and padded lanes give the sentinel K; u' >= total (u >= 1, u' = total)
//   gives the last positive index, also for K < W (where the paper's search returns 0); u' < 0 or NaN
//   gives the first positive index.
// - Chi-square of drawn indices against a / sigma at a fixed seed (threshold: the 0.999 quantile,
//   Wilson-Hilferty, as in test_binomial.cpp), through the inverse-CDF table and the batched draw.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/exact/uint128.hpp"
#include "base/rng/stream.hpp"
#include "kernels/butterfly/batched_categorical.hpp"
#include "kernels/butterfly/butterfly_common.hpp"
#include "kernels/butterfly/running_sums.hpp"
#include "kernels/butterfly/shared_column.hpp"
#include "kernels/host/butterfly_sampling.hpp"
#include "kernels/host/butterfly_table.hpp"
#include "tests/support/statistics.hpp"

using rsmc::test::chi2_quantile_999;

namespace {

namespace bf = rsmc::kernels::butterfly;
namespace host = rsmc::kernels::host;
using rsmc::exact::u128;
using std::size_t;
using std::uint32_t;
using std::uint64_t;

// ---- the closed form of the digest ---------------------------------------------------------------
struct CellForm {
  unsigned owner, first, last;  // the cell holds a_owner[first] + .. + a_owner[last] (block-relative)
};

CellForm closed_form(unsigned i, unsigned j) {
  const unsigned m = i ^ (i + 1), k = m / 2;
  const unsigned v = j & ~k;
  return CellForm{(i & ~m) + (j & m), v, v + k};
}

template <unsigned W>
void check_closed_form(size_t k, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::vector<uint64_t>> rows(W, std::vector<uint64_t>(k));
  for (auto& row : rows)
    for (auto& x : row) x = gen() >> 24;  // < 2^40: sums of up to 1024 fit easily
  const uint64_t* ptrs[W];
  for (unsigned r = 0; r < W; ++r) ptrs[r] = rows[r].data();
  host::ButterflyWarpTable<u128, W> table;
  table.build(ptrs, k);
  const size_t rem = k % W;
  size_t bad = 0, cells = 0;
  std::vector<u128> running(W, 0);
  for (size_t index = 0; index < k; ++index) {
    for (unsigned j = 0; j < W; ++j) {
      u128 expected = 0;
      if (index < rem) {  // the remnant: the lane's own prefix sums
        for (size_t e = 0; e <= index; ++e) expected += rows[j][e];
      } else {
        const size_t start = index - (index - rem) % W;
        const unsigned i = static_cast<unsigned>(index - start);
        if (i == W - 1) {  // the lane's running total through this block
          expected = 0;
          for (size_t e = 0; e <= index; ++e) expected += rows[j][e];
        } else {
          const CellForm f = closed_form(i, j);
          REQUIRE(f.owner < W);
          REQUIRE(f.last < W);
          for (unsigned e = f.first; e <= f.last; ++e) expected += rows[f.owner][start + e];
        }
      }
      ++cells;
      if (table.cell(index, j) != expected) ++bad;
    }
  }
  INFO("W = " << W << ", K = " << k << ": " << bad << " of " << cells << " cells differ from the closed form");
  CHECK(bad == 0);
}

// ---- integer rows with exact totals and zero runs ------------------------------------------------
// K integer weights summing to exactly `total`, random (about 15% extra zeros), with the positions in
// `zeros` forced to zero (their mass moves to the next non-forced position, or the previous one).
std::vector<uint64_t> integer_row(std::mt19937_64& gen, size_t k, uint64_t total, std::vector<bool> zero) {
  zero.resize(k, false);
  std::bernoulli_distribution extra(0.15);
  for (size_t j = 0; j < k; ++j)
    if (extra(gen)) zero[j] = true;
  if (std::all_of(zero.begin(), zero.end(), [](bool z) { return z; })) zero[gen() % k] = false;
  std::vector<uint64_t> cuts(k + 1);
  cuts[0] = 0;
  cuts[k] = total;
  std::uniform_int_distribution<uint64_t> pick(0, total);
  for (size_t j = 1; j < k; ++j) cuts[j] = pick(gen);
  std::sort(cuts.begin() + 1, cuts.end() - 1);
  std::vector<uint64_t> w(k);
  for (size_t j = 0; j < k; ++j) w[j] = cuts[j + 1] - cuts[j];
  for (size_t j = 0; j < k; ++j) {
    if (!zero[j] || w[j] == 0) continue;
    size_t target = j;
    for (size_t t = j + 1; t < k; ++t)
      if (!zero[t]) {
        target = t;
        break;
      }
    if (target == j)
      for (size_t t = j; t-- > 0;)
        if (!zero[t]) {
          target = t;
          break;
        }
    w[target] += w[j];
    w[j] = 0;
  }
  return w;
}

// Forced-zero pattern number `pattern` for a row of K weights and warp width W: at the remnant/block
// edge, at the first block's end, at the front, at the back, over a whole block or the whole remnant.
std::vector<bool> zero_pattern(unsigned pattern, size_t k, unsigned w) {
  std::vector<bool> z(k, false);
  const size_t rem = k % w;
  auto mark = [&](size_t from, size_t to) {  // [from, to), clamped
    for (size_t j = from; j < to && j < k; ++j) z[j] = true;
  };
  switch (pattern % 7) {
    case 0:
      break;
    case 1:
      mark(rem >= 2 ? rem - 2 : 0, rem + 2);
      break;
    case 2:
      mark(rem + w >= 2 ? rem + w - 2 : 0, rem + w + 2);
      break;
    case 3:
      mark(0, std::max<size_t>(1, w / 2));
      break;
    case 4:
      mark(k > w / 2 + 1 ? k - w / 2 - 1 : 0, k);
      break;
    case 5:
      mark(rem, rem + w);
      break;
    case 6:
      mark(0, rem);
      break;
  }
  return z;
}

std::vector<size_t> k_values(unsigned w) {
  std::vector<size_t> ks;
  for (size_t k = 1; k <= w + 1; ++k) ks.push_back(k);
  for (size_t r = 0; r < w; ++r) ks.push_back(2 * w + r);  // every remnant size behind two blocks
  for (size_t k : {255, 256, 257, 1000, 1023, 1024}) ks.push_back(k);
  return ks;
}

template <class Weight, class Acc, unsigned W>
void check_dense_grid(uint64_t seed, const std::vector<size_t>& ks, unsigned t) {
  std::mt19937_64 gen(seed);
  const uint64_t total = uint64_t(1) << t;
  for (size_t k : ks) {
    std::vector<std::vector<Weight>> rows(W);
    std::vector<std::vector<Acc>> prefix(W);
    const Weight* ptrs[W];
    for (unsigned r = 0; r < W; ++r) {
      const auto ints = integer_row(gen, k, total, zero_pattern(r, k, W));
      rows[r].assign(ints.begin(), ints.end());
      ptrs[r] = rows[r].data();
      host::sequential_prefix<Acc>(rows[r].data(), k, prefix[r]);
      REQUIRE(prefix[r][k - 1] == static_cast<Acc>(total));
    }
    host::ButterflyWarpTable<Acc, W> table;
    table.build(ptrs, k);
    Acc points[W];
    uint32_t got[W];
    size_t bad = 0, zero_drawn = 0;
    std::string first_bad;
    for (uint64_t c = 0; c < total; ++c) {
      for (unsigned r = 0; r < W; ++r) points[r] = static_cast<Acc>(c);
      table.search(points, got);
      for (unsigned r = 0; r < W; ++r) {
        const uint32_t want = host::sequential_search(prefix[r], points[r]);
        if (got[r] != want && bad++ == 0)
          first_bad = "lane " + std::to_string(r) + ", u' = " + std::to_string(c) + ": butterfly " +
                      std::to_string(got[r]) + ", sequential " + std::to_string(want);
        if (got[r] < k && rows[r][got[r]] == Weight(0)) ++zero_drawn;
      }
    }
    // The uniforms c / 2^t map to u' = c exactly (every 7th c, and the last one).
    double u[W];
    size_t bad_uniform = 0;
    for (uint64_t c = 0; c < total; c = (c + 7 < total || c == total - 1) ? c + 7 : total - 1) {
      for (unsigned r = 0; r < W; ++r) u[r] = std::ldexp(static_cast<double>(c), -static_cast<int>(t));
      table.draw(u, got);
      for (unsigned r = 0; r < W; ++r)
        if (got[r] != host::sequential_search(prefix[r], static_cast<Acc>(c))) ++bad_uniform;
    }
    INFO("W = " << W << ", K = " << k << ", total 2^" << t << ": " << first_bad);
    CHECK(bad == 0);
    CHECK(zero_drawn == 0);
    CHECK(bad_uniform == 0);
  }
}

// Pearson's statistic over the categories with positive weight; zero-weight categories must be empty.
void check_chi_square(const std::vector<double>& weights, const std::vector<uint32_t>& draws) {
  const size_t k = weights.size();
  std::vector<double> counts(k + 1, 0.0);
  for (uint32_t x : draws) counts[std::min<size_t>(x, k)] += 1.0;
  double sigma = 0.0;
  for (double w : weights) sigma += w;
  double stat = 0.0;
  int cells = 0;
  for (size_t j = 0; j < k; ++j) {
    if (weights[j] == 0.0) {
      CHECK(counts[j] == 0.0);
      continue;
    }
    const double expected = static_cast<double>(draws.size()) * weights[j] / sigma;
    REQUIRE(expected >= 5.0);
    stat += (counts[j] - expected) * (counts[j] - expected) / expected;
    ++cells;
  }
  CHECK(counts[k] == 0.0);
  INFO("chi-square " << stat << " with " << cells - 1 << " degrees of freedom; 0.999 quantile "
                     << chi2_quantile_999(cells - 1));
  CHECK(stat < chi2_quantile_999(cells - 1));
}

std::vector<double> stream_uniforms(uint64_t seed, uint32_t step, size_t n) {
  std::vector<double> u(n);
  for (size_t i = 0; i < n; ++i) u[i] = rsmc::rng::Stream(seed, rsmc::rng::Purpose::model, step, i).uniform();
  return u;
}

// The floating-point agreement check: a different index only within the rounding error of boundaries.
template <class Weight, class Acc>
void check_float_agreement(size_t k, uint64_t seed, size_t draws) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Weight> w(k);
  for (auto& x : w) x = unit(gen) < 0.1 ? Weight(0) : static_cast<Weight>(unit(gen));
  w[k / 2] = Weight(1);
  std::vector<Acc> prefix;
  host::sequential_prefix<Acc>(w.data(), k, prefix);
  const Acc total = prefix[k - 1];
  const auto u = stream_uniforms(seed, 1, draws);
  std::vector<uint32_t> got(draws);
  host::butterfly_inverse_cdf<Weight, Acc>(w.data(), k, u.data(), draws, got.data());
  const double tol = static_cast<double>(k + 64) * std::numeric_limits<Acc>::epsilon() * static_cast<double>(total);
  size_t differ = 0, unexplained = 0;
  for (size_t i = 0; i < draws; ++i) {
    const Acc point = bf::scaled_point(u[i], total);
    const uint32_t want = host::sequential_search(prefix, point);
    if (got[i] == want) continue;
    ++differ;
    for (uint32_t b = std::min(got[i], want); b < std::max(got[i], want); ++b)
      if (std::fabs(static_cast<double>(prefix[b]) - static_cast<double>(point)) > tol) ++unexplained;
  }
  INFO("K = " << k << ": " << differ << " of " << draws << " draws differ from the sequential search");
  CHECK(unexplained == 0);
  CHECK(differ * 100 <= draws);
}

}  // namespace

TEST_CASE("butterfly table: every cell matches the closed form (W = 4, 8, 16, 32)", "[butterfly]") {
  for (size_t k : {4, 5, 13, 15}) check_closed_form<4>(k, 11 + k);
  for (size_t k : {8, 11, 25, 39}) check_closed_form<8>(k, 21 + k);
  for (size_t k : {16, 17, 48, 79}) check_closed_form<16>(k, 31 + k);
  for (size_t k : {32, 33, 96, 127, 1024}) check_closed_form<32>(k, 41 + k);
}

TEST_CASE("butterfly table: the W = 4 example of the digest", "[butterfly]") {
  // a_X[e] = 2^(4 X + e): a cell's bits name exactly which elements of which lanes it sums.
  std::vector<std::vector<uint64_t>> rows(4, std::vector<uint64_t>(4));
  const uint64_t* ptrs[4];
  for (unsigned x = 0; x < 4; ++x) {
    for (unsigned e = 0; e < 4; ++e) rows[x][e] = uint64_t(1) << (4 * x + e);
    ptrs[x] = rows[x].data();
  }
  host::ButterflyWarpTable<uint64_t, 4> table;
  table.build(ptrs, 4);
  auto symbol = [](uint64_t v) {
    std::string s;
    for (unsigned x = 0; x < 4; ++x) {
      const unsigned bits = static_cast<unsigned>((v >> (4 * x)) & 0xf);
      if (bits == 0) continue;
      unsigned lo = 0, hi = 3;
      while (!(bits & (1u << lo))) ++lo;
      while (!(bits & (1u << hi))) --hi;
      if (bits != (((2u << hi) - 1) & ~((1u << lo) - 1))) return std::string("not a range");
      if (!s.empty()) return std::string("two owners");
      s = std::string(1, static_cast<char>('A' + x)) + std::to_string(lo);
      if (hi > lo) s += ".." + std::to_string(hi);
    }
    return s;
  };
  const char* expected[4] = {"A0 B1 A2 B3", "A0..1 B0..1 C2..3 D2..3", "C0 D1 C2 D3", "A0..3 B0..3 C0..3 D0..3"};
  for (unsigned row = 0; row < 4; ++row) {
    std::string got;
    for (unsigned lane = 0; lane < 4; ++lane) got += (lane ? " " : "") + symbol(table.cell(row, lane));
    CHECK(got == expected[row]);
  }
}

TEST_CASE("butterfly search: exact on integer weights for every u' of a dense grid (u64 in u128)", "[butterfly]") {
  check_dense_grid<uint64_t, u128, 4>(101, k_values(4), 10);
  check_dense_grid<uint64_t, u128, 8>(102, k_values(8), 10);
  check_dense_grid<uint64_t, u128, 16>(103, k_values(16), 10);
  check_dense_grid<uint64_t, u128, 32>(104, k_values(32), 10);
}

TEST_CASE("butterfly search: exact on integer-valued weights in u64, double and float", "[butterfly]") {
  const std::vector<size_t> ks = {1, 3, 4, 5, 31, 32, 33, 45, 64, 77, 1023, 1024};
  check_dense_grid<uint64_t, uint64_t, 32>(201, ks, 11);
  check_dense_grid<uint64_t, uint64_t, 4>(202, ks, 9);
  check_dense_grid<double, double, 32>(203, ks, 11);
  check_dense_grid<double, double, 8>(204, ks, 9);
  check_dense_grid<float, float, 32>(205, ks, 11);
  check_dense_grid<float, float, 16>(206, ks, 9);
  check_dense_grid<float, double, 32>(207, {7, 40, 100}, 10);
}

TEST_CASE("butterfly search: large u64 weights with sums above 2^64 (u128), boundaries exact", "[butterfly]") {
  std::mt19937_64 gen(301);
  for (size_t k : {1, 20, 31, 32, 33, 100, 517}) {
    std::vector<std::vector<uint64_t>> rows(32, std::vector<uint64_t>(k));
    std::vector<std::vector<u128>> prefix(32);
    const uint64_t* ptrs[32];
    for (unsigned r = 0; r < 32; ++r) {
      for (size_t j = 0; j < k; ++j) rows[r][j] = (gen() % 5 == 0) ? 0 : (gen() | (uint64_t(1) << 63));
      if (r % 4 == 1 && k > 2) rows[r][k - 1] = rows[r][k - 2] = 0;  // trailing zeros
      ptrs[r] = rows[r].data();
      host::sequential_prefix<u128>(rows[r].data(), k, prefix[r]);
    }
    host::ButterflyWarpTable<u128, 32> table;
    table.build(ptrs, k);
    u128 points[32];
    uint32_t got[32];
    size_t bad = 0;
    // Probe every boundary of lane (probe % 32), one below and one above, in all lanes at once.
    for (size_t probe = 0; probe < 32 * k; probe += (k > 100 ? 13 : 1)) {
      const u128 b = prefix[probe % 32][probe / 32];
      for (int delta = -1; delta <= 1; ++delta) {
        for (unsigned r = 0; r < 32; ++r) points[r] = b + static_cast<u128>(static_cast<std::int64_t>(delta));
        table.search(points, got);
        for (unsigned r = 0; r < 32; ++r)
          if (got[r] != host::sequential_search(prefix[r], points[r])) ++bad;
      }
    }
    // And the draw from uniforms against the sequential draw.
    const auto u = stream_uniforms(302, static_cast<uint32_t>(k), 32 * 64);
    for (size_t q = 0; q < 64; ++q) {
      table.draw(&u[q * 32], got);
      std::vector<u128> scratch;
      for (unsigned r = 0; r < 32; ++r)
        if (got[r] != host::sequential_categorical<u128>(rows[r].data(), k, u[q * 32 + r], scratch)) ++bad;
    }
    INFO("K = " << k);
    CHECK(bad == 0);
  }
}

// The engine's butterfly column builds its running sums in three chunked passes (running_sums.hpp);
// run here chunk by chunk, in an order unlike the device's, they must write exactly the cells of the
// sequential walk and no other cell. Block totals near 2^68 check carries past 64 bits; K covers no
// block, one partial chunk, chunk boundaries and several chunks, with and without a remnant.
TEST_CASE("butterfly running sums: the chunked passes write the sequential walk's cells", "[butterfly]") {
  constexpr size_t W = bf::kCudaWarpWidth, chunk_weights = W * bf::kRunningChunkBlocks;
  std::mt19937_64 gen(311);
  for (size_t k : {size_t(1), size_t(31), size_t(32), size_t(33), chunk_weights - 1, chunk_weights, chunk_weights + 31,
                   chunk_weights + W, size_t(70000), 5 * chunk_weights + 17}) {
    const size_t blocks = k / W, rem = k % W, chunks = bf::running_chunks(k);
    REQUIRE(chunks == (blocks + bf::kRunningChunkBlocks - 1) / bf::kRunningChunkBlocks);
    std::vector<uint64_t> weights(k);
    for (uint64_t& w : weights) w = gen();
    std::vector<u128> totals(blocks);
    for (u128& t : totals) t = (static_cast<u128>(gen() % 32) << 64) + gen();
    const u128 untouched = ~u128(0);
    std::vector<u128> walk(k, untouched), passes(k, untouched), chunk_sums(chunks, untouched);
    u128 sum = 0;  // the sequential walk
    for (size_t j = 0; j < rem; ++j) walk[j] = sum += weights[j];
    for (size_t b = 0; b < blocks; ++b) walk[rem + b * W + W - 1] = sum += totals[b];
    for (size_t c = chunks; c-- > 0;) bf::running_chunk_total(totals.data(), k, c, chunk_sums.data());
    bf::running_chunk_offsets(weights.data(), k, passes.data(), chunk_sums.data());
    for (size_t c = 0; c < chunks; ++c) bf::running_chunk_sums(totals.data(), k, c, chunk_sums.data(), passes.data());
    size_t differ = 0;
    for (size_t i = 0; i < walk.size(); ++i) differ += walk[i] != passes[i];
    INFO("K = " << k << ", " << chunks << " chunks");
    CHECK(differ == 0);
  }
}

// The shared column (shared_column.hpp) is the diagonal of the lane table when every lane holds the
// same weights: cell i is the lane table's cell (i, lane (i - R) mod W) (any lane in the remnant),
// and every lane's cells are group sums the column holds. Its search is the sequential search for
// every point of a dense grid, every boundary p_j - 1 and p_j, with zero-weight runs at block and
// remnant edges, for u64 weights in u128 and u128 residuals above 2^64.
TEST_CASE("butterfly shared column: the lane table's diagonal, searched exactly", "[butterfly]") {
  constexpr size_t W = bf::kCudaWarpWidth, chunk_weights = W * bf::kRunningChunkBlocks;
  std::mt19937_64 gen(977);
  for (size_t k : {size_t(1), size_t(5), size_t(31), size_t(32), size_t(33), size_t(64), size_t(95), size_t(1000),
                   chunk_weights + 33, 3 * chunk_weights + 7}) {
    std::vector<uint64_t> w(k);
    for (size_t i = 0; i < k; ++i) w[i] = (gen() % 5 == 0) ? 0 : gen() % 1000;  // zero runs
    if (k > 40)
      for (size_t i = 28; i < 36; ++i) w[i] = 0;  // across the remnant's and the first blocks' edges
    w[k - 1] += 1;                                // a positive total
    bf::ButterflyColumn<u128> column;
    column.build(w.data(), k);
    REQUIRE(column.size() == k);
    CHECK(column.bytes() == (k + k / W + bf::running_chunks(k)) * sizeof(u128));
    if (k <= 4096) {  // the diagonal of the lane table
      std::vector<const uint64_t*> rows(W, w.data());
      host::ButterflyWarpTable<u128> lanes;
      lanes.build(rows.data(), k);
      const size_t rem = k % W;
      size_t differ = 0;
      for (size_t i = 0; i < k; ++i) differ += column.cells()[i] != lanes.cell(i, i < rem ? 0 : (i - rem) % W);
      INFO("K = " << k);
      CHECK(differ == 0);
    }
    std::vector<u128> prefix(k);
    u128 sum = 0;
    for (size_t i = 0; i < k; ++i) prefix[i] = sum += w[i];
    const auto sequential = [&](u128 u) {
      return static_cast<uint32_t>(std::upper_bound(prefix.begin(), prefix.end(), u) - prefix.begin());
    };
    size_t bad = 0;
    std::vector<u128> points;
    for (size_t i = 0; i < k; ++i) {
      points.push_back(prefix[i]);
      if (prefix[i] > 0) points.push_back(prefix[i] - 1);
    }
    for (u128 u = 0; u < sum; u += 1 + sum / 5000) points.push_back(u);
    for (u128 u : points) bad += column.search(u) != sequential(u < sum ? u : sum - 1);
    bad += column.search(sum + 7) != sequential(sum - 1);  // clamped to the last positive weight
    // u128 residuals above 2^64: the same selections
    std::vector<u128> wide(k);
    for (size_t i = 0; i < k; ++i) wide[i] = (static_cast<u128>(w[i]) << 66) + w[i];
    bf::ButterflyColumn<u128> wide_column;
    wide_column.build(wide.data(), k);
    std::vector<u128> wide_prefix(k);
    u128 wide_sum = 0;
    for (size_t i = 0; i < k; ++i) wide_prefix[i] = wide_sum += wide[i];
    for (size_t i = 0; i < k; i += 1 + k / 300)
      for (u128 u : {wide_prefix[i], wide_prefix[i] - 1, wide_prefix[i] / 3}) {
        if (u >= wide_sum) continue;
        const auto want = std::upper_bound(wide_prefix.begin(), wide_prefix.end(), u) - wide_prefix.begin();
        bad += wide_column.search(u) != static_cast<uint32_t>(want);
      }
    INFO("K = " << k);
    CHECK(bad == 0);
  }
  std::vector<uint64_t> zeros(40, 0);
  bf::ButterflyColumn<u128> empty;
  empty.build(zeros.data(), zeros.size());
  CHECK(empty.search(0) == 40);  // no positive total: the sentinel K
}

TEST_CASE("butterfly: scaled_point is floor(u * total), exact", "[butterfly]") {
  // Independent check of point = floor(mant * total / 2^s) for u = mant / 2^s:
  // point * 2^s <= mant * total < (point + 1) * 2^s, in 256-bit arithmetic.
  auto shifted = [](u128 x, int s) {  // x * 2^s as U256, s < 128
    rsmc::exact::U256 r{{0, 0, 0, 0}};
    const u128 lo = s == 0 ? x : x << s;
    const u128 hi = s == 0 ? 0 : x >> (128 - s);
    r.w[0] = static_cast<uint64_t>(lo);
    r.w[1] = static_cast<uint64_t>(lo >> 64);
    r.w[2] = static_cast<uint64_t>(hi);
    r.w[3] = static_cast<uint64_t>(hi >> 64);
    return r;
  };
  std::mt19937_64 gen(401);
  size_t bad = 0;
  for (int n = 0; n < 20000; ++n) {
    const u128 total128 = (static_cast<u128>(gen()) << 64 | gen()) >> (gen() % 127);
    const uint64_t total64 = gen() >> (gen() % 63);
    const int e = static_cast<int>(gen() % 60) + 1;
    const uint64_t mant = (gen() >> 11) | (uint64_t(1) << 52);
    const double u = std::ldexp(static_cast<double>(mant), -52 - e);  // in [2^-e, 2^(1-e)), exact
    const int s = 52 + e;
    if (total128 > 0) {
      const u128 p = bf::scaled_point(u, total128);
      const auto prod = rsmc::exact::mul_wide(mant, total128);
      if (!(rsmc::exact::compare(shifted(p, s), prod) <= 0 && rsmc::exact::compare(prod, shifted(p + 1, s)) < 0)) ++bad;
      if (!(p < total128)) ++bad;
    }
    if (total64 > 0) {
      const uint64_t p = bf::scaled_point(u, total64);
      const auto prod = rsmc::exact::mul_wide(mant, total64);
      if (!(rsmc::exact::compare(shifted(p, s), prod) <= 0 && rsmc::exact::compare(prod, shifted(u128(p) + 1, s)) < 0))
        ++bad;
      if (!(p < total64)) ++bad;
    }
  }
  CHECK(bad == 0);
  // Exact for total = 2^t, u = c / 2^t; edges.
  CHECK(bf::scaled_point(std::ldexp(12345.0, -20), uint64_t(1) << 20) == 12345u);
  CHECK(bf::scaled_point(std::ldexp(12345.0, -20), u128(1) << 100) == u128(12345) << 80);
  CHECK(bf::scaled_point(0.0, uint64_t(1000)) == 0u);
  CHECK(bf::scaled_point(1.0, uint64_t(1000)) == 999u);
  CHECK(bf::scaled_point(-0.5, uint64_t(1000)) == 0u);
  CHECK(bf::scaled_point(std::nan(""), u128(1000)) == 0u);
  CHECK(bf::scaled_point(std::nextafter(1.0, 0.0), ~u128(0)) < ~u128(0));
  CHECK(bf::scaled_point(std::nextafter(1.0, 0.0), 3.0f) < 3.0f);
  CHECK(bf::scaled_point(std::nextafter(1.0, 0.0), 3.0) < 3.0);
  CHECK(bf::scaled_point(2.0, 3.0) == std::nextafter(3.0, 0.0));
  CHECK(bf::scaled_point(0.5, 0.0) == 0.0);
  CHECK(bf::below(1.0f) == std::nextafter(1.0f, 0.0f));
  CHECK(bf::below(std::numeric_limits<double>::denorm_min()) == 0.0);
}

TEST_CASE("butterfly edge rules: sentinel, clamping, K < W, padded lanes", "[butterfly]") {
  // Lanes: 0 all zero, 1 padded (null), 2 trailing and leading zeros, 3 a single positive weight.
  for (size_t k : {1, 2, 3, 5, 6, 31, 32, 33, 70}) {
    std::vector<std::vector<double>> rows(4, std::vector<double>(k, 0.0));
    if (k >= 3) {
      rows[2][1] = 3.0;
      rows[2][k / 2 + 1 < k - 1 ? k / 2 + 1 : 1] += 5.0;
    } else {
      rows[2][k - 1] = 8.0;
    }
    rows[3][k / 2] = 1.0;
    uint32_t last2 = 0;
    for (size_t j = 0; j < k; ++j)
      if (rows[2][j] > 0) last2 = static_cast<uint32_t>(j);
    uint32_t first2 = static_cast<uint32_t>(k);
    for (size_t j = k; j-- > 0;)
      if (rows[2][j] > 0) first2 = static_cast<uint32_t>(j);
    const double* ptrs[4] = {rows[0].data(), nullptr, rows[2].data(), rows[3].data()};
    host::ButterflyWarpTable<double, 4> table;
    table.build(ptrs, k);
    INFO("K = " << k);
    uint32_t got[4];
    for (double u : {0.0, 0.25, 0.5, std::nextafter(1.0, 0.0), 1.0, 7.5, -1.0, std::nan("")}) {
      const double us[4] = {u, u, u, u};
      table.draw(us, got);
      CHECK(got[0] == k);  // all zero: the sentinel
      CHECK(got[1] == k);  // padded lane
      CHECK(got[3] == k / 2);
      CHECK(rows[2][got[2]] > 0.0);
      if (u >= 1.0) CHECK(got[2] == last2);     // u >= 1: the last positive index
      if (!(u > 0.0)) CHECK(got[2] == first2);  // u <= 0 or NaN: the first positive index
    }
    // Points at or past the total (as a float product may round to): the last positive index.
    for (double extra : {0.0, 1.0, 1e300}) {
      const double points[4] = {extra, extra, 8.0 + extra, 1.0 + extra};
      table.search(points, got);
      CHECK(got[0] == k);
      CHECK(got[1] == k);
      CHECK(got[2] == last2);
      CHECK(got[3] == k / 2);
    }
  }
  // K = 0 and K >= 2^32 are rejected.
  const double* none[4] = {nullptr, nullptr, nullptr, nullptr};
  host::ButterflyWarpTable<double, 4> table;
  CHECK_THROWS_AS(table.build(none, 0), std::invalid_argument);
  std::vector<uint32_t> out(1);
  CHECK_THROWS_AS(host::butterfly_inverse_cdf<double>(nullptr, 0, nullptr, 0, out.data()), std::invalid_argument);
}

TEST_CASE("butterfly: float and double agree with the sequential search except at boundaries", "[butterfly]") {
  for (size_t k : {17, 100, 1000}) {
    check_float_agreement<double, double>(k, 500 + k, 20000);
    check_float_agreement<float, float>(k, 600 + k, 20000);
    check_float_agreement<float, double>(k, 700 + k, 20000);
  }
}

TEST_CASE("butterfly launchers (host twins) and the portable batched draw", "[butterfly]") {
  std::mt19937_64 gen(801);
  for (size_t k : {1, 9, 32, 37, 300}) {
    for (size_t particles : {1, 31, 32, 100}) {
      std::vector<uint64_t> w(particles * k);
      for (auto& x : w) x = gen() % 4 == 0 ? 0 : gen() >> (gen() % 64);
      for (size_t j = 0; j < k; ++j) w[(particles / 2) * k + j] = 0;  // one all-zero row
      const auto u = stream_uniforms(802, static_cast<uint32_t>(k), particles);
      std::vector<uint32_t> got(particles), want(particles), stream_got(particles);
      std::vector<u128> scratch;
      for (size_t p = 0; p < particles; ++p) want[p] = host::sequential_categorical<u128>(&w[p * k], k, u[p], scratch);
      host::butterfly_categorical(w.data(), particles, k, u.data(), got.data());
      INFO("K = " << k << ", particles = " << particles);
      CHECK(got == want);
      CHECK(got[particles / 2] == k);
      // The stream launcher draws the same uniforms (Purpose::model, step, id = first_id + p).
      host::butterfly_categorical_stream(w.data(), particles, k, 802, static_cast<uint32_t>(k), 0, stream_got.data());
      CHECK(stream_got == want);
      // The portable batched draw on u64 weights: the sequential index.
      Kokkos::View<uint64_t**, Kokkos::LayoutRight, Kokkos::HostSpace> wv("w", particles, k);
      Kokkos::View<double*, Kokkos::HostSpace> uv("u", particles);
      Kokkos::View<uint32_t*, Kokkos::HostSpace> ov("out", particles);
      for (size_t p = 0; p < particles; ++p) {
        uv(p) = u[p];
        for (size_t j = 0; j < k; ++j) wv(p, j) = w[p * k + j];
      }
      bf::batched_categorical<Kokkos::DefaultHostExecutionSpace, uint64_t>(wv, uv, ov);
      size_t bad = 0;
      for (size_t p = 0; p < particles; ++p)
        if (ov(p) != want[p]) ++bad;
      CHECK(bad == 0);
      // Doubles: the portable draw equals the host twin bit for bit.
      std::vector<double> wd(w.begin(), w.end());
      Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wdv("wd", particles, k);
      for (size_t p = 0; p < particles; ++p)
        for (size_t j = 0; j < k; ++j) wdv(p, j) = wd[p * k + j];
      host::butterfly_categorical(wd.data(), particles, k, u.data(), got.data());
      bf::batched_categorical<Kokkos::DefaultHostExecutionSpace, double>(wdv, uv, ov);
      bad = 0;
      for (size_t p = 0; p < particles; ++p)
        if (ov(p) != got[p]) ++bad;
      CHECK(bad == 0);
    }
    // The inverse-CDF table of one distribution against the sequential draw.
    std::vector<uint64_t> one(k);
    for (auto& x : one) x = gen() % 3 == 0 ? 0 : gen() >> 8;
    one[k - 1] = 1;
    const auto u = stream_uniforms(803, static_cast<uint32_t>(k), 1000);
    std::vector<uint32_t> got(u.size());
    host::butterfly_inverse_cdf(one.data(), k, u.data(), u.size(), got.data());
    std::vector<u128> scratch;
    size_t bad = 0;
    for (size_t i = 0; i < u.size(); ++i)
      if (got[i] != host::sequential_categorical<u128>(one.data(), k, u[i], scratch)) ++bad;
    CHECK(bad == 0);
  }
  // Mismatched extents are rejected.
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wv("w", 4, 3);
  Kokkos::View<double*, Kokkos::HostSpace> uv("u", 3);
  Kokkos::View<uint32_t*, Kokkos::HostSpace> ov("out", 4);
  CHECK_THROWS_AS((bf::batched_categorical<Kokkos::DefaultHostExecutionSpace, double>(wv, uv, ov)),
                  std::invalid_argument);
}

TEST_CASE("butterfly: chi-square of drawn indices against a / sigma", "[butterfly]") {
  std::mt19937_64 gen(901);
  const size_t k = 37;  // a remnant of 5 and one block
  std::vector<double> w(k);
  for (auto& x : w) x = static_cast<double>(1 + gen() % 100);
  w[0] = w[4] = w[5] = w[20] = w[36] = 0.0;  // zeros at the remnant edge, inside the block, at the end
  // The inverse-CDF table, 200000 draws. The weights are integers, so every draw is also the sequential
  // search's draw (checked): the statistic tests the uniforms and their mapping onto the wheel. (With the
  // seed 902 it is 62.1 on 31 degrees of freedom, p ~ 0.0008, for both; the seeds 1..4 give 18..35.)
  const auto u = stream_uniforms(1, 0, 200000);
  std::vector<uint32_t> draws(u.size());
  rsmc::kernels::host::butterfly_inverse_cdf(w.data(), k, u.data(), u.size(), draws.data());
  std::vector<double> prefix;
  size_t differ = 0;
  for (size_t i = 0; i < u.size(); ++i)
    if (draws[i] != rsmc::kernels::host::sequential_categorical<double>(w.data(), k, u[i], prefix)) ++differ;
  CHECK(differ == 0);
  check_chi_square(w, draws);
  // The batched draw: 65536 particles with the same row, uniforms from their model streams.
  const size_t particles = 65536;
  std::vector<double> matrix(particles * k);
  for (size_t p = 0; p < particles; ++p) std::copy(w.begin(), w.end(), matrix.begin() + p * k);
  std::vector<uint32_t> batched(particles);
  rsmc::kernels::host::butterfly_categorical_stream(matrix.data(), particles, k, 903, 5, 1000, batched.data());
  check_chi_square(w, batched);
}
