// Reproducible binned summation at vector speed: Demmel and Nguyen, "Parallel Reproducible
// Summation" (IEEE Transactions on Computers, 2015), written for rsmc.
//
// What: BinnedSum adds doubles so that the result is bitwise the same for any order, chunking,
// thread count, vector width and rank split, like ExactSum, at the cost of a few floating-point
// operations per term that vectorise (no integer scatter, no data-dependent branch). It is not exact:
// each term loses its part below a fixed binary position set by the largest |term| of the whole sum
// (the error bound below), and which part is lost depends on the term only.
//
// How. Bit positions are cut into levels of kWidth = 40 bits. A sum at level a has kFolds = 3 folds;
// fold k holds a double S_k = 1.5 * 2^(m_k) + d_k with m_k = 40 (a - k) + 41, whose unit in the last
// place is u_k = 2^(m_k - 52). Depositing x (|x| <= 2^(40 a), guaranteed by the level):
//     t = S_0 + (x | 1);  q_0 = t - S_0;  S_0 = t;  r = x - q_0      (all exact but the rounding of t)
// q_0 is x rounded to a multiple of u_0: S_0 stays within its binade, so t's rounding is that of x
// at u_0. (x | 1) sets the last significand bit of x, far below u_0 / 2, so the rounding never
// ties and depends on x alone, not on S_0 (the tie-breaking of round-to-nearest-even would look at
// S_0's last bit, which depends on the order). The remainder r goes to fold 1 the same way, and
// fold 2's remainder is dropped. So every fold receives a pure function of the term, and its value is
// an exact sum of multiples of u_k. Three facts make the total order-independent:
//   - exactness: |d_k| stays below 2^(m_k - 2) for kMaxDeposits = 2^11 deposits (fold 0 moves by at
//     most 2^(m_0 - 41) per term, fold k > 0 by at most u_(k-1) / 2 = 2^(m_k - 13)), so S_k keeps its
//     exponent and every subtraction above is exact; after at most that many deposits d_k is moved
//     into an exact 128-bit integer count of u_k (spill), and S_k starts again from 1.5 * 2^(m_k);
//   - a term with |x| <= 2^(40 a') deposited at a higher level a > a' gives 0 at the levels above
//     a' (|x| < u / 2 there) and then exactly the same parts as at level a': so raising a sum's level
//     (when a larger term arrives, or to merge with a sum of a higher level) drops its lowest folds
//     and gives what depositing at the higher level from the start would have given;
//   - the level of the final sum is the highest level any term needed, i.e. the level of the largest
//     |term|: a pure function of the multiset of terms.
// Error: each term loses less than u_2 = 2^(40 (a - 2) + 41 - 52) = 2^(40 a - 91) (r's last rounding
// at fold 2, and the bit set by | 1), a the sum's level. Since max|x| > 2^(40 (a - 1)), that is below
// 2^-51 max|x| when max|x| lies just above a level boundary, and 2^-91 of the level's top 2^(40 a)
// in general: weights w <= 1 sum at level 0 with an error below n 2^-91. (Demmel and Nguyen's
// default, three folds of 40 bits; a fourth fold would guarantee 2^-91 max|x| at a third more work.)
//
// Range. Levels kMinLevel..kMaxLevel cover |x| <= 2^880 (states and weights of any sane model) down to
// a resolution of 2^-1051. Terms beyond 2^880 in magnitude, infinities and NaN go to an ExactSum
// (`rare`), exactly (infinities and NaN counted as ExactSum does), so they neither poison the folds
// nor break reproducibility; the batch loop finds them with the maximum it needs anyway.
//
// Use: add(x, n) for an array of terms (the fast path: one pass for max|x|, one vectorised deposit
// pass over kLanes independent lanes, each lane a BinnedSum at the same level, merged exactly); add(x)
// for one term; merge() for partial sums (threads, Kokkos join, MPI: binned_sum_mpi.hpp); to_double(),
// to_double_double() round the exact value of the folds once. BinnedSum is trivially copyable
// (raw-byte transport) and RSMC_HOST_DEVICE; value-initialise it (BinnedSum{}) or call clear().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/math/double_double.hpp"

namespace rsmc::exact {

using DoubleDouble = math::DoubleDouble;  // base/math/double_double.hpp

namespace binned {

constexpr int kFolds = 3;
constexpr int kWidth = 40;                 // bits per level
constexpr int kMaxDeposits = 1 << 11;      // per fold between spills (see "exactness")
constexpr int kMinLevel = -24;             // u_2 = 2^-1051 at the lowest level
constexpr int kMaxLevel = 22;              // terms up to 2^880; m_0 = 921
constexpr int kEmpty = kMinLevel - 1;      // the level of a sum without finite terms
constexpr int kLanes = 8;                  // independent accumulators in add(x, n): 2 AVX2 vectors
constexpr double kMaxMagnitude = 0x1p880;  // |x| < 2^880: level <= kMaxLevel; beyond: rare terms

// m_k, the exponent of fold k's anchor 1.5 * 2^(m_k), at `level`.
RSMC_HOST_DEVICE constexpr int anchor_exponent(int level, int fold) { return kWidth * (level - fold) + 41; }

// 2^e for -1022 <= e <= 1023.
RSMC_HOST_DEVICE double pow2(int e) {
  return exact_detail::double_from_bits(static_cast<std::uint64_t>(e + 1023) << 52);
}

// x 2^e for |e| <= 2046, as two power-of-two factors (exact while the result is a normal number
// or an exact subnormal).
RSMC_HOST_DEVICE double scale(double x, int e) {
  const int half = e / 2;
  return x * pow2(half) * pow2(e - half);
}

// The lowest level a with amax <= 2^(40 a), at least kMinLevel: with amax = 2^e exactly, the least
// a with 40 a >= e; otherwise amax < 2^(e + 1) and the least a with 40 a >= e + 1. Monotone in amax,
// so the level of a set of terms is the level of its largest |term|. Precondition: 0 <= amax < 2^880.
RSMC_HOST_DEVICE int level_for(double amax) {
  const std::uint64_t bits = exact_detail::double_bits(amax);
  const int biased = static_cast<int>(bits >> 52);
  if (biased == 0) return kMinLevel;  // 0 and subnormals
  const bool power_of_two = (bits & ((std::uint64_t{1} << 52) - 1)) == 0;
  const int need = biased - 1023 + (power_of_two ? 0 : 1);                          // amax <= 2^need
  const int level = need > 0 ? (need + kWidth - 1) / kWidth : -((-need) / kWidth);  // ceil(need / 40)
  return level < kMinLevel ? kMinLevel : level;
}

// x with its lowest significand bit set (see the header: breaks every rounding tie at the folds).
RSMC_VECTOR_INLINE double with_last_bit(double x) {
  return exact_detail::double_from_bits(exact_detail::double_bits(x) | 1u);
}

// One term into three folds: the deposit of the header comment. Branch-free.
RSMC_VECTOR_INLINE void deposit(double& s0, double& s1, double& s2, double x) {
  const double t0 = s0 + with_last_bit(x);
  const double r0 = x - (t0 - s0);
  s0 = t0;
  const double t1 = s1 + with_last_bit(r0);
  const double r1 = r0 - (t1 - s1);
  s1 = t1;
  s2 = s2 + with_last_bit(r1);
}

}  // namespace binned

// The folds of a BinnedSum: every term within the levels (|x| < 2^880), without the ExactSum of the
// rare ones. BinnedSum adds that part; a GPU thread accumulates in BinnedFolds alone (80 bytes, where
// a BinnedSum's 656 would live in local memory; binned_reduce.hpp) and reports a rare term instead.
struct BinnedFolds {
  int level;                                 // binned::kEmpty until the first finite term
  std::int32_t deposits;                     // since the last spill (<= binned::kMaxDeposits)
  double fold[binned::kFolds];               // 1.5 * 2^(m_k) + d_k (meaningless while empty)
  exact_detail::i128 spill[binned::kFolds];  // spilled d_k, in units of u_k = 2^(m_k - 52)

  RSMC_HOST_DEVICE void clear_folds() {
    level = binned::kEmpty;
    deposits = 0;
    for (int k = 0; k < binned::kFolds; ++k) {
      fold[k] = 0.0;
      spill[k] = 0;
    }
  }

  // The folds' anchors 1.5 * 2^(m_k) at `level`.
  RSMC_HOST_DEVICE static double anchor(int level, int k) {
    return 1.5 * binned::pow2(binned::anchor_exponent(level, k));
  }

  // Moves d_k into spill_k and resets the folds to their anchors. d_k is a multiple of u_k below
  // 2^(m_k - 2) in magnitude, so d_k / u_k is an integer below 2^50: exact conversions.
  RSMC_HOST_DEVICE void flush() {
    if (level == binned::kEmpty) return;
    for (int k = 0; k < binned::kFolds; ++k) {
      const int m = binned::anchor_exponent(level, k);
      const double d = fold[k] - anchor(level, k);  // exact (Sterbenz)
      spill[k] += static_cast<std::int64_t>(binned::scale(d, 52 - m));
      fold[k] = anchor(level, k);
    }
    deposits = 0;
  }

  // Raises the level to `to` (>= level), keeping what depositing at `to` from the start would have
  // kept: spills move down by the level difference, the lowest drop out. Flushes first.
  RSMC_HOST_DEVICE void raise_level(int to) {
    if (to <= level) return;
    if (level == binned::kEmpty) {
      level = to;
      for (int k = 0; k < binned::kFolds; ++k) fold[k] = anchor(to, k);
      deposits = 0;
      return;
    }
    flush();
    const int shift = to - level;
    for (int k = binned::kFolds - 1; k >= 0; --k) spill[k] = k >= shift ? spill[k - shift] : 0;
    level = to;
    for (int k = 0; k < binned::kFolds; ++k) fold[k] = anchor(to, k);
  }

  // this += x when |x| < 2^880 (binned::kMaxMagnitude) and returns true; returns false, adding
  // nothing, for a rare term: beyond the levels, +-inf or NaN.
  RSMC_HOST_DEVICE bool add_within_levels(double x) {
    const double a = x < 0.0 ? -x : x;
    if (!(a < binned::kMaxMagnitude)) return false;
    raise_level(binned::level_for(a));
    if (deposits == binned::kMaxDeposits) flush();
    ++deposits;
    binned::deposit(fold[0], fold[1], fold[2], x);
    return true;
  }

  // this += o for the folds (o may be *this).
  RSMC_HOST_DEVICE void merge_folds(const BinnedFolds& o) {
    BinnedFolds other = o;
    const int to = level > other.level ? level : other.level;
    raise_level(to);
    other.raise_level(to);
    flush();
    other.flush();
    if (level != binned::kEmpty)
      for (int k = 0; k < binned::kFolds; ++k) spill[k] += other.spill[k];
  }
};

struct BinnedSum : BinnedFolds {
  ExactSum rare;          // terms beyond 2^880, +-inf, NaN: exact / counted
  std::int64_t reserved;  // always 0: no tail padding, so equal sums have equal bytes

  RSMC_HOST_DEVICE void clear() {
    clear_folds();
    rare.clear();
    reserved = 0;
  }

  // this += x for one term.
  RSMC_HOST_DEVICE void add(double x) {
    if (!add_within_levels(x)) rare.add(x);
  }

  // this += x[0] + ... + x[n-1]. One pass for max |x| (and the rare terms), then deposits over
  // binned::kLanes lanes at most kMaxDeposits deep, each lane spilled into this sum: the lanes'
  // loop is branch-free and the compiler vectorises it across the lanes.
  // Returns max |x| (NaN or +inf when a term is; 0 for n = 0), which callers often need too.
  RSMC_HOST_DEVICE double add(const double* x, std::size_t n) {
    if (n == 0) return 0.0;
    // max |x| through the bits: for doubles without the sign bit, the integer order of the bits is
    // the numeric order, and NaN's bits lie above every number's, so one integer maximum (which
    // vectorises; a floating-point one with NaN semantics does not) finds both the level and the
    // rare terms.
    std::int64_t top = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto magnitude = static_cast<std::int64_t>(exact_detail::double_bits(x[i]) & ~(std::uint64_t{1} << 63));
      top = magnitude > top ? magnitude : top;
    }
    const double amax = exact_detail::double_from_bits(static_cast<std::uint64_t>(top));
    if (!(amax < binned::kMaxMagnitude)) {
      for (std::size_t i = 0; i < n; ++i) add(x[i]);  // rare: term by term, the large and non-finite to `rare`
      return amax;
    }
    raise_level(binned::level_for(amax));
    flush();
    constexpr std::size_t kChunk = static_cast<std::size_t>(binned::kMaxDeposits) * binned::kLanes;
    for (std::size_t start = 0; start < n; start += kChunk) {
      const std::size_t end = n - start > kChunk ? start + kChunk : n;
      add_lanes(x + start, end - start);
    }
    return amax;
  }

  // this += o, for any two sums (o may be *this).
  RSMC_HOST_DEVICE void merge(const BinnedSum& o) {
    const ExactSum other_rare = o.rare;  // o may be *this
    merge_folds(o);
    rare.merge(other_rare);
  }

  // The exact value of the folds (and rare terms) as an ExactSum.
  RSMC_HOST_DEVICE ExactSum exact_value() const {
    ExactSum e = rare;
    if (level == binned::kEmpty) return e;
    BinnedSum t = *this;
    t.flush();
    for (int k = 0; k < binned::kFolds; ++k)  // spill_k u_k = spill_k 2^(m_k - 52): ExactSum position m_k - 52 + 1074
      if (t.spill[k] != 0) e.add_fixed(t.spill[k], binned::anchor_exponent(level, k) - 52 + ExactSum::kOffset);
    return e;
  }

  // The sum, rounded once to the nearest double (ties to even).
  RSMC_HOST_DEVICE double to_double() const { return exact_value().to_double(); }

  // The sum as hi + lo: hi rounded to nearest, lo the rest rounded to nearest (for combinations such
  // as a one-pass variance that must not lose the digits below hi).
  RSMC_HOST_DEVICE DoubleDouble to_double_double() const {
    ExactSum e = exact_value();
    const double hi = e.to_double();
    if (!(hi - hi == 0.0)) return {hi, 0.0};  // inf, NaN
    e.add(-hi);
    return {hi, e.to_double()};
  }

  // The canonical form of the value, for byte comparison and transport (binned_sum_mpi.hpp): folds at
  // their anchors, every deposit in the spills, the rare terms normalised.
  RSMC_HOST_DEVICE void normalize() {
    flush();
    rare.normalize();
    reserved = 0;
  }

 private:
  // Deposits x[0..n) (n <= kLanes * kMaxDeposits, |x| within the level) into kLanes lane
  // accumulators started at the anchors, then spills each lane's folds into this sum.
  RSMC_HOST_DEVICE void add_lanes(const double* x, std::size_t n) {
    constexpr int L = binned::kLanes;
    double s0[L], s1[L], s2[L];
    const double a0 = anchor(level, 0), a1 = anchor(level, 1), a2 = anchor(level, 2);
    for (int l = 0; l < L; ++l) {
      s0[l] = a0;
      s1[l] = a1;
      s2[l] = a2;
    }
    const std::size_t full = n / L * L;
    for (std::size_t i = 0; i < full; i += L)
      for (int l = 0; l < L; ++l) binned::deposit(s0[l], s1[l], s2[l], x[i + l]);
    for (std::size_t i = full; i < n; ++i) {  // the tail, one term per lane: no lane passes the limit
      const std::size_t l = i - full;
      binned::deposit(s0[l], s1[l], s2[l], x[i]);
    }
    for (int l = 0; l < L; ++l) {
      fold[0] = s0[l];
      fold[1] = s1[l];
      fold[2] = s2[l];
      flush();
    }
  }
};

static_assert(std::is_trivially_copyable<BinnedSum>::value,
              "BinnedSum must be trivially copyable (raw-byte transport)");
static_assert(sizeof(BinnedFolds) == 32 + 16 * binned::kFolds, "BinnedFolds must have no padding");
static_assert(sizeof(BinnedSum) == sizeof(BinnedFolds) + sizeof(ExactSum) + 8, "BinnedSum must have no padding");
static_assert(std::is_trivially_copyable<BinnedFolds>::value, "BinnedFolds must be trivially copyable");

}  // namespace rsmc::exact
