// Exact, order-independent summation of doubles: a fixed-point "superaccumulator" (Kulisch style).
//
// Why: the reproducibility contract (docs/reproducibility.md) requires every reported number to be
// bitwise identical for any number of ranks and threads. Floating-point addition is not associative,
// so we add every double exactly into a wide fixed-point integer and round once, at the end. The
// exact sum does not depend on the order or grouping of the additions, hence neither does the result.
//
// Representation. Every finite double is an integer multiple of 2^-1074 below 2^1024, so it is an
// integer of at most 2098 bits in units of 2^-1074 (kOffset). We store that integer in base 2^32:
//
//     value = sum_k limb[k] * 2^(32*k - kOffset),   k = 0 .. kLimbs-1
//
// Each limb is an int64 holding a 32-bit digit plus room for deferred carries and a sign. A double's
// 53-bit mantissa, shifted by its exponent, touches at most three consecutive digits, and those are
// always below kTop = kLimbs-1; the top limb only ever receives carries and holds the signed high
// part of a normalised value (two's-complement-like: the lower digits are always non-negative).
//
// Carry bound (why deferred carries cannot overflow). Invariant: every limb below the top satisfies
// |limb| < (pending + 1) * 2^32. normalize() restores digits to [0, 2^32) and sets pending = 0. An
// add() changes each limb by less than 2^32 and increments pending; merge() sets
// pending = pending_a + pending_b + 1. Both first normalise whenever pending would exceed
// kMaxPending = 2^20, so |limb| < (2^20 + 1) * 2^32 < 2^53, far from 2^63 (the invariant would stay
// safe up to about 2^31; 2^20 keeps the proof trivial and normalisation, ~70 integer ops, is then
// needed at most once per ~10^6 adds, i.e. its amortised cost is nil). During normalisation a carry
// is at most 2^21 in magnitude, so nothing overflows there either.
//
// Range. The top limb has weight 2^(32*kTop - kOffset) = 2^1038 and is a signed int64, so the sum is
// exact while |sum| < 2^1100, i.e. for fewer than ~2^76 summands of the largest magnitude. Values
// beyond what a double can hold are reported by to_double() as +-inf, as an ordinary sum would.
//
// Non-finite inputs are counted, not deposited: to_double() returns NaN if any NaN was added or both
// +inf and -inf were, else +inf / -inf if either was, else the rounded exact sum. An exact zero is
// returned as +0.0 (also when every summand was -0.0; IEEE addition would give -0.0 there).
//
// ExactSum is a trivial, standard-layout aggregate with no padding and no pointers, so it can be sent
// through MPI (see exact_sum_mpi.hpp) and Kokkos reductions as raw bytes, and lives in CUDA shared or
// local memory. It has no constructor: write `ExactSum s{};` (all zero = the empty sum) or call
// clear(). A normalised ExactSum is canonical: equal values (and equal non-finite
// counts) have identical bytes.
//
// No Kokkos and no MPI here; every member works on the host, in Kokkos kernels and in CUDA device
// code.
#pragma once

#include <cstdint>
#include <type_traits>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"

namespace rsmc {
namespace exact {

namespace exact_detail {

// 128-bit integers (GCC, Clang and nvcc extensions; `__extension__` keeps -Wpedantic quiet).
__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

// Number of significant bits of v (0 for v == 0).
RSMC_HOST_DEVICE int bit_length(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(v));
#elif defined(__GNUC__) || defined(__clang__)
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
#else
  int n = 0;
  while (v != 0) {
    v >>= 1;
    ++n;
  }
  return n;
#endif
}

}  // namespace exact_detail

struct ExactSum {
  // Digits 0..65 receive mantissas (the highest mantissa bit of the largest double is bit 2097 in
  // units of 2^-1074, which lies in digit 65); digit 66 is the signed top limb for carries.
  static constexpr int kLimbs = 67;
  static constexpr int kTop = kLimbs - 1;
  static constexpr int kOffset = 1074;                    // limb[0] has weight 2^-1074, the smallest subnormal
  static constexpr std::uint32_t kMaxPending = 1u << 20;  // see "Carry bound" above
  enum NonFinite { kPosInf = 0, kNegInf = 1, kNaN = 2 };

  std::int64_t limb[kLimbs];
  std::int64_t nonfinite[3];  // counts of +inf, -inf, NaN added (indexed by NonFinite)
  std::uint32_t pending;      // adds/merges since the last carry propagation
  std::uint32_t reserved;     // always 0: makes the layout padding-free, so equal sums compare
                              // equal byte for byte

  RSMC_HOST_DEVICE void clear() {
    for (int k = 0; k < kLimbs; ++k) limb[k] = 0;
    nonfinite[0] = nonfinite[1] = nonfinite[2] = 0;
    pending = 0;
    reserved = 0;
  }

  // this += x, exactly. A handful of integer operations; no carry propagation.
  RSMC_HOST_DEVICE void add(double x) {
    const exact_detail::DoubleParts p = exact_detail::double_parts(exact_detail::double_bits(x));
    if (p.biased == 0x7ffu) {  // inf or NaN
      if (p.fraction != 0)
        ++nonfinite[kNaN];
      else
        ++nonfinite[p.sign_mask != 0 ? kNegInf : kPosInf];
      return;
    }
    if (pending >= kMaxPending) normalize();
    ++pending;
    // x = m * 2^(pos - 1074) with m < 2^53 and pos in [0, 2045].
    const std::uint64_t m = p.mantissa;
    const int pos = p.position;
    const int k = pos >> 5;
    const int s = pos & 31;
    const std::uint64_t lo = m << s;                 // bits 0..63 of m * 2^s (mod 2^64)
    const std::uint64_t hi = (m >> 32) >> (32 - s);  // bits 64..84 of m * 2^s; 0 when s == 0
    // Branch-free sign: neg is 0 or -1; (d ^ neg) - neg is d or -d.
    const std::int64_t neg = p.sign_mask;
    const std::int64_t d0 = static_cast<std::int64_t>(lo & 0xffffffffu);
    const std::int64_t d1 = static_cast<std::int64_t>(lo >> 32);
    const std::int64_t d2 = static_cast<std::int64_t>(hi);
    limb[k] += (d0 ^ neg) - neg;
    limb[k + 1] += (d1 ^ neg) - neg;
    limb[k + 2] += (d2 ^ neg) - neg;
  }

  // this += v * 2^(pos - 1074), exactly: a 128-bit fixed-point partial sum (ExactSumWindow's). Like
  // add(), it changes each limb by less than 2^32 (five digits: |v| 2^(pos mod 32) < 2^159) and
  // counts as one pending add. Requires |v| < 2^127 and 0 <= pos < 32 * (kTop - 3) (the top digit
  // then lands at most in the top limb).
  RSMC_HOST_DEVICE void add_fixed(exact_detail::i128 v, int pos) {
    using U128 = exact_detail::u128;
    if (pending >= kMaxPending) normalize();
    ++pending;
    const std::int64_t neg = v < 0 ? -1 : 0;
    const U128 u = v < 0 ? static_cast<U128>(-v) : static_cast<U128>(v);
    const int k = pos >> 5;
    const int s = pos & 31;
    const U128 lo = u << s;                                                        // bits 0..127
    const std::uint64_t top = s ? static_cast<std::uint64_t>(u >> (128 - s)) : 0;  // bits 128..158
    const std::uint64_t digit[5] = {
        static_cast<std::uint64_t>(lo) & 0xffffffffu, static_cast<std::uint64_t>(lo >> 32) & 0xffffffffu,
        static_cast<std::uint64_t>(lo >> 64) & 0xffffffffu, static_cast<std::uint64_t>(lo >> 96), top};
    for (int j = 0; j < 5; ++j) limb[k + j] += (static_cast<std::int64_t>(digit[j]) ^ neg) - neg;
  }

  // this += v * 2^(pos - 1074), exactly, for any int64 v and 0 <= pos <= 2045 (ExactSumBins' bins:
  // a sum of mantissas of one binary exponent). |v| 2^(pos mod 32) < 2^95 touches three digits, the
  // highest at most digit 65, each by less than 2^32: one pending add, as for add().
  RSMC_HOST_DEVICE void add_int64(std::int64_t v, int pos) {
    if (pending >= kMaxPending) normalize();
    ++pending;
    const std::int64_t neg = v < 0 ? -1 : 0;
    // |v| as unsigned: correct for INT64_MIN too (two's complement wrap-around of the negation).
    const std::uint64_t magnitude = v < 0 ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
    const exact_detail::u128 u = static_cast<exact_detail::u128>(magnitude) << (pos & 31);
    const int k = pos >> 5;
    const std::int64_t d0 = static_cast<std::int64_t>(static_cast<std::uint64_t>(u) & 0xffffffffu);
    const std::int64_t d1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(u >> 32) & 0xffffffffu);
    const std::int64_t d2 = static_cast<std::int64_t>(static_cast<std::uint64_t>(u >> 64));
    limb[k] += (d0 ^ neg) - neg;
    limb[k + 1] += (d1 ^ neg) - neg;
    limb[k + 2] += (d2 ^ neg) - neg;
  }

  // this += o, exactly. o may be *this.
  RSMC_HOST_DEVICE void merge(const ExactSum& o) {
    if (std::uint64_t{pending} + o.pending + 1 > kMaxPending) {
      ExactSum t = o;
      t.normalize();
      normalize();
      for (int k = 0; k < kLimbs; ++k) limb[k] += t.limb[k];
      pending = 1;
    } else {
      for (int k = 0; k < kLimbs; ++k) limb[k] += o.limb[k];
      pending = pending + o.pending + 1;
    }
    for (int i = 0; i < 3; ++i) nonfinite[i] += o.nonfinite[i];
  }

  // Propagates carries: afterwards every limb but the top is in [0, 2^32) and pending == 0. The value
  // is unchanged, and the result is canonical (depends only on the value).
  // Relies on >> of a negative int64 being an arithmetic shift (guaranteed from C++20, and what
  // every supported compiler does in C++17).
  RSMC_HOST_DEVICE void normalize() {
    std::int64_t carry = 0;
    for (int k = 0; k < kTop; ++k) {
      const std::int64_t v = limb[k] + carry;
      carry = v >> 32;                         // floor(v / 2^32)
      limb[k] = v & std::int64_t{0xffffffff};  // v - carry * 2^32, in [0, 2^32)
    }
    limb[kTop] += carry;
    pending = 0;
    reserved = 0;
  }

  // True when no non-finite value was added and the exact sum is zero.
  RSMC_HOST_DEVICE bool is_zero() const {
    if (nonfinite[0] != 0 || nonfinite[1] != 0 || nonfinite[2] != 0) return false;
    ExactSum t = *this;
    t.normalize();
    for (int k = 0; k < kLimbs; ++k)
      if (t.limb[k] != 0) return false;
    return true;
  }

  // The exact sum correctly rounded to the nearest double, ties to even; +-inf when it overflows.
  // Works on a copy; the input need not be normalised.
  RSMC_HOST_DEVICE double to_double() const {
    const std::uint64_t kInfBits = std::uint64_t{0x7ff} << 52;
    const std::uint64_t kSignBit = std::uint64_t{1} << 63;
    if (nonfinite[kNaN] != 0 || (nonfinite[kPosInf] != 0 && nonfinite[kNegInf] != 0))
      return exact_detail::double_from_bits(kInfBits | (std::uint64_t{1} << 51));  // quiet NaN
    if (nonfinite[kPosInf] != 0) return exact_detail::double_from_bits(kInfBits);
    if (nonfinite[kNegInf] != 0) return exact_detail::double_from_bits(kInfBits | kSignBit);

    ExactSum t = *this;
    t.normalize();
    std::uint64_t sign = 0;
    if (t.limb[kTop] < 0) {  // negative: work on the magnitude
      sign = kSignBit;
      for (int k = 0; k < kLimbs; ++k) t.limb[k] = -t.limb[k];
      t.normalize();
    }
    // Now every limb, the top included, is >= 0.
    if (t.limb[kTop] >= (std::int64_t{1} << 32))  // >= 2^1070
      return exact_detail::double_from_bits(sign | kInfBits);
    // All digits are in [0, 2^32) from here on.
    int h = kTop;
    while (h >= 0 && t.limb[h] == 0) --h;
    if (h < 0) return 0.0;
    // msb: position of the highest set bit, in units of 2^-1074.
    const int msb = 32 * h + exact_detail::bit_length(static_cast<std::uint64_t>(t.limb[h])) - 1;
    if (msb <= 52) {
      // An integer m < 2^53 times 2^-1074: exactly representable (subnormal, or the smallest
      // binade), and the bit pattern of m * 2^-1074 is m itself.
      const std::uint64_t m =
          static_cast<std::uint64_t>(t.limb[0]) | (h >= 1 ? static_cast<std::uint64_t>(t.limb[1]) << 32 : 0);
      return exact_detail::double_from_bits(sign | m);
    }
    // 53-bit mantissa = bits [shift, shift+52]; round bit at shift-1; sticky = bits below it.
    int shift = msb - 52;                    // >= 1
    std::uint64_t mant = t.window64(shift);  // bits above msb are zero, so mant < 2^53
    const int rpos = shift - 1;
    const bool round_bit = (t.limb[rpos >> 5] >> (rpos & 31)) & 1;
    bool sticky = (t.limb[rpos >> 5] & ((std::int64_t{1} << (rpos & 31)) - 1)) != 0;
    for (int k = (rpos >> 5) - 1; k >= 0 && !sticky; --k) sticky = t.limb[k] != 0;
    if (round_bit && (sticky || (mant & 1))) {
      ++mant;
      if (mant == (std::uint64_t{1} << 53)) {
        mant >>= 1;
        ++shift;
      }
    }
    // value = mant * 2^(shift - 1074), mant in [2^52, 2^53): biased exponent = shift + 1.
    const std::uint64_t biased = static_cast<std::uint64_t>(shift) + 1;
    if (biased >= 0x7ff) return exact_detail::double_from_bits(sign | kInfBits);
    // (biased << 52) | (mant - 2^52) == ((biased - 1) << 52) + mant
    return exact_detail::double_from_bits(sign | (((biased - 1) << 52) + mant));
  }

 private:
  // 64 bits starting at bit position pos (units of 2^-1074). Requires normalised, non-negative
  // digits below 2^32.
  RSMC_HOST_DEVICE std::uint64_t window64(int pos) const {
    const int k = pos >> 5;
    const int s = pos & 31;
    const std::uint64_t a = static_cast<std::uint64_t>(limb[k]);
    const std::uint64_t b = k + 1 < kLimbs ? static_cast<std::uint64_t>(limb[k + 1]) : 0;
    const std::uint64_t c = k + 2 < kLimbs ? static_cast<std::uint64_t>(limb[k + 2]) : 0;
    return (a >> s) | (b << (32 - s)) | ((c << 32) << (32 - s));
  }
};

static_assert(std::is_trivial<ExactSum>::value, "ExactSum must be trivial (raw-byte transport)");
static_assert(std::is_standard_layout<ExactSum>::value, "ExactSum must be standard layout");
static_assert(sizeof(ExactSum) == sizeof(std::int64_t) * (ExactSum::kLimbs + 4), "ExactSum must have no padding");

}  // namespace exact
}  // namespace rsmc
