// The sample points of systematic and stratified resampling in closed form, callable in kernels.
//
// What: sample j of N sits at P_j = T (j + U_j) / N on the exact wheel [0, T), with U_j = u_j / 2^53
// and u_j the top 53 bits of the first u64 of the stream (seed, resample, step, j) (stratified), or
// u_0 for every j (systematic). A particle whose cumulative weight C (an integer) is the first to
// exceed P_j is selected, and C > P_j <=> C > floor(P_j), so the integers floor(P_j) are all the
// selection needs. EvenlySpacedPoints gives floor(P_j) for any j, the first j whose point reaches a
// given integer (a search over j), and a cursor that produces the points of consecutive j cheaply.
//
// How (exact 128-bit arithmetic): with T = Q N + R, Q = Q_hi 2^53 + Q_lo,
//   P_j = Q j + R j / N + Q_hi u_j + Q_lo u_j / 2^53 + R u_j / (N 2^53)
// Every product fits in 128 bits (T < 2^128, N < 2^64, u_j < 2^53), and the fractional parts add up
// to less than 3, a carry of 0, 1 or 2 taken from two comparisons (no data-dependent loop).
// These are the same points as select_offspring's (framework/resample/select/selection.cpp), bit for bit.
//
// Everything is RSMC_HOST_DEVICE (host, Kokkos kernels, CUDA kernels); no Kokkos, no MPI.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

class EvenlySpacedPoints {
 public:
  using u128 = exact::u128;

  RSMC_HOST_DEVICE EvenlySpacedPoints(u128 total, std::uint64_t samples, std::uint64_t seed, std::uint32_t step,
                                      bool stratified)
      : n_(samples),
        q_(total / samples),
        r_(total % samples),
        seed_(seed),
        step_(step),
        stratified_(stratified),
        shared_(offset_bits(seed, step, 0)) {}

  // The 53 random bits u of sample j's offset U = u / 2^53 in [0, 1).
  RSMC_HOST_DEVICE static std::uint64_t offset_bits(std::uint64_t seed, std::uint32_t step, std::uint64_t sample) {
    return rng::Stream(seed, rng::Purpose::resample, step, sample).next_u64() >> 11;
  }

  RSMC_HOST_DEVICE std::uint64_t samples() const { return static_cast<std::uint64_t>(n_); }
  RSMC_HOST_DEVICE bool stratified() const { return stratified_; }

  // floor(P_j) for any j < N.
  RSMC_HOST_DEVICE u128 floor_point(std::uint64_t j) const {
    const u128 rj = r_ * j;  // < N^2 < 2^128
    return combine(q_ * j + rj / n_, rj % n_, terms(offset(j)));
  }

  // The first j in [lo, hi) with P_j >= x (P_j >= x <=> floor(P_j) >= x for an integer x), or hi if
  // there is none; the points are non-decreasing in j. `guess` is where the search starts (any
  // value: it only changes the cost). It gallops from the guess, so a guess within d of the answer
  // costs O(log d) points.
  RSMC_HOST_DEVICE std::uint64_t first_at_or_above(u128 x, std::uint64_t lo, std::uint64_t hi,
                                                   std::uint64_t guess) const {
    std::uint64_t left = lo, right = hi;  // the answer is in [left, right]
    const std::uint64_t g = guess < lo ? lo : guess > hi ? hi : guess;
    if (g < hi) {
      if (floor_point(g) >= x) {  // the answer is at or below g: gallop down
        right = g;
        for (std::uint64_t stride = 1; right > left; stride *= 2) {
          const std::uint64_t probe = right - (stride < right - left ? stride : right - left);
          if (floor_point(probe) < x) {
            left = probe + 1;
            break;
          }
          right = probe;
        }
      } else {  // above g: gallop up
        left = g + 1;
        for (std::uint64_t stride = 1; left < right; stride *= 2) {
          const std::uint64_t probe = left + (stride < right - left ? stride : right - left) - 1;
          if (floor_point(probe) >= x) {
            right = probe;
            break;
          }
          left = probe + 1;
        }
      }
    }
    while (left < right) {
      const std::uint64_t mid = left + (right - left) / 2;
      if (floor_point(mid) >= x)
        right = mid;
      else
        left = mid + 1;
    }
    return left;
  }

  // A starting point for first_at_or_above(x, ...): x N / T in double precision, within a few
  // samples of the answer (P_j is within one spacing T / N of T j / N).
  RSMC_HOST_DEVICE std::uint64_t guess(u128 x) const {
    const double total = exact::to_double(q_ * n_ + r_);
    const double j = exact::to_double(x) / total * exact::to_double(n_);
    const double top = exact::to_double(n_);
    return j >= top ? samples() : j > 0.0 ? static_cast<std::uint64_t>(j) : 0;
  }

  friend class SystematicCursor;
  friend class StratifiedCursor;

 private:
  RSMC_HOST_DEVICE static u128 two53() { return u128(1) << 53; }

  RSMC_HOST_DEVICE std::uint64_t offset(std::uint64_t j) const {
    return stratified_ ? offset_bits(seed_, step_, j) : shared_;
  }

  // The parts of T u / (N 2^53) = whole + fraction / (N 2^53) that depend on u only.
  struct OffsetTerms {
    u128 whole;     // Q_hi u + floor(Q_lo u / 2^53)
    u128 fraction;  // (Q_lo u mod 2^53) N + R u, < 2 N 2^53
  };
  RSMC_HOST_DEVICE OffsetTerms terms(std::uint64_t u) const {
    const u128 mask = two53() - 1;
    const u128 lo_product = (q_ & mask) * u;  // < 2^106
    return {(q_ >> 53) * u + (lo_product >> 53), (lo_product & mask) * n_ + r_ * u};
  }

  // floor(base + rest / N + T u / (N 2^53)), with t = terms(u).
  RSMC_HOST_DEVICE u128 combine(u128 base, u128 rest, const OffsetTerms& t) const {
    const u128 denominator = n_ * two53();
    const u128 fraction = rest * two53() + t.fraction;  // < 3 N 2^53 < 2^119
    return base + t.whole + u128(fraction >= denominator) + u128(fraction >= 2 * denominator);
  }

  u128 n_, q_, r_;
  std::uint64_t seed_;
  std::uint32_t step_;
  bool stratified_;
  std::uint64_t shared_;
};

// The points floor(P_j), j = first, first + 1, ..., pulled with next() or fill().
//
// Systematic: P_{j+1} = P_j + T / N with T = Q N + R, so floor(P_j) grows by Q, plus 1 when the
// remainder e_j = T (j 2^53 + u) - floor(P_j) N 2^53, in [0, N 2^53), passes N 2^53 after adding
// R 2^53. Write T u = A N 2^53 + B and B = b 2^53 + c (c < 2^53): then e_j = 2^53 v_j + c with
// v_j = (T j + b) mod N, a 64-bit number, and the carry is v_j + R >= N. So the cursor carries
// floor(P_j) and v_j: a 64-bit compare and select and a 128-bit add per point, no division, no
// branch. v_first = e_first >> 53, with e_first computed modulo 2^128 from floor(P_first) (the
// exact value is below 2^128, so the wrapped products give it exactly).
class SystematicCursor {
 public:
  using u128 = exact::u128;
  RSMC_HOST_DEVICE SystematicCursor(const EvenlySpacedPoints& points, std::uint64_t first)
      : q_(points.q_), n_(static_cast<std::uint64_t>(points.n_)), r_(static_cast<std::uint64_t>(points.r_)) {
    if (first >= points.samples()) return;  // no point to produce
    point_ = points.floor_point(first);
    const u128 total = points.q_ * points.n_ + points.r_, two53 = EvenlySpacedPoints::two53();
    const u128 remainder = total * (u128(first) * two53 + points.shared_) - point_ * (points.n_ * two53);
    v_ = static_cast<std::uint64_t>(remainder >> 53);
  }

  RSMC_HOST_DEVICE u128 next() {
    const u128 point = point_;
    const std::uint64_t wrap = v_ >= n_ - r_ ? 1 : 0;  // v + R >= N, without overflow (v, R < N)
    v_ = wrap ? v_ - (n_ - r_) : v_ + r_;
    point_ += q_ + wrap;
    return point;
  }

  // out[0..count) = the next count points. The state lives in locals for the loop: kept in the
  // object, its 128-bit words would go through memory at every point.
  RSMC_HOST_DEVICE void fill(u128* out, std::uint64_t count) {
    SystematicCursor c = *this;
    for (std::uint64_t k = 0; k < count; ++k) out[k] = c.next();
    *this = c;
  }

 private:
  u128 q_;               // Q
  std::uint64_t n_, r_;  // N, R
  u128 point_ = 0;       // floor(P_j)
  std::uint64_t v_ = 0;  // v_j
};

// Stratified: each point has its own offset u_j; T j / N = base + rest / N steps without a division.
class StratifiedCursor {
 public:
  using u128 = exact::u128;
  RSMC_HOST_DEVICE StratifiedCursor(const EvenlySpacedPoints& points, std::uint64_t first) : p_(points), j_(first) {
    if (first >= points.samples()) return;
    const u128 r_first = p_.r_ * first;
    base_ = p_.q_ * first + r_first / p_.n_;
    rest_ = static_cast<std::uint64_t>(r_first % p_.n_);
  }

  RSMC_HOST_DEVICE u128 next() {
    const u128 point = p_.combine(base_, rest_, p_.terms(EvenlySpacedPoints::offset_bits(p_.seed_, p_.step_, j_)));
    // T j / N += T / N: Q, plus 1 when rest passes N (rest < N and R < N: tested without overflow).
    const auto n = static_cast<std::uint64_t>(p_.n_), r = static_cast<std::uint64_t>(p_.r_);
    const std::uint64_t wrap = rest_ >= n - r ? 1 : 0;
    rest_ = wrap ? rest_ - (n - r) : rest_ + r;
    base_ += p_.q_ + wrap;
    ++j_;
    return point;
  }

  RSMC_HOST_DEVICE void fill(u128* out, std::uint64_t count) {
    StratifiedCursor c = *this;
    for (std::uint64_t k = 0; k < count; ++k) out[k] = c.next();
    *this = c;
  }

 private:
  EvenlySpacedPoints p_;
  std::uint64_t j_;
  u128 base_ = 0;
  std::uint64_t rest_ = 0;
};

}  // namespace rsmc
