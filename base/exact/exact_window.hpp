// A fast exact front end of ExactSum for runs of terms of similar magnitude, such as the weight sums
// of a chunk of particles (w, w^2, w x_c): most terms are added into one 128-bit integer instead of
// three limbs of the 67-limb superaccumulator.
//
// The window is a signed 128-bit integer acc in units of 2^(base - 1074), base fixed by the first
// term (kBelow bits below its leading bit position). A finite term m 2^(pos - 1074) (m < 2^53) with
// 0 <= pos - base <= kSpan goes in as acc += +-m 2^(pos - base), which is exact: each term is below
// 2^(53 + kSpan) = 2^106 and at most kMaxTerms = 2^20 terms go in before a flush, so |acc| < 2^126.
// Every other term (larger, much smaller, inf, NaN) goes straight to the ExactSum, as does the window
// on flush() (ExactSum::add_fixed). All of it is exact integer arithmetic, so the ExactSum ends with
// exactly the value plain ExactSum::add calls would give: after normalisation the same bytes, and the
// same to_double(), whatever the order and the window positions. (Only the pending-carry count
// differs, which is not part of the value.)
//
// Trivial (clear() to start); RSMC_HOST_DEVICE: host, Kokkos kernels and CUDA device code.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"
#include "base/exact/exact_sum.hpp"

namespace rsmc::exact {

struct ExactSumWindow {
  static constexpr int kBelow = 40;                     // window starts this many bits below the first term
  static constexpr int kSpan = 53;                      // shifts 0..kSpan fit
  static constexpr std::uint32_t kMaxTerms = 1u << 20;  // terms between flushes
  // Highest base: 2045 (the largest double's position) - kBelow = 2005 < 32 * (kTop - 3) = 2016, as
  // ExactSum::add_fixed requires.
  static_assert(2045 - kBelow < 32 * (ExactSum::kTop - 3), "window base beyond ExactSum::add_fixed's range");

  exact_detail::i128 acc;
  int base;             // -1: not set (no term in the window yet)
  std::uint32_t count;  // terms in acc

  RSMC_HOST_DEVICE void clear() {
    acc = 0;
    base = -1;
    count = 0;
  }

  // target += x, exactly (through the window when x fits).
  RSMC_HOST_DEVICE void add(double x, ExactSum& target) {
    const exact_detail::DoubleParts p = exact_detail::double_parts(exact_detail::double_bits(x));
    if (p.biased == 0x7ffu) {  // inf, NaN: counted by the ExactSum
      target.add(x);
      return;
    }
    if (count == kMaxTerms) flush(target);
    const std::uint64_t m = p.mantissa;
    const int pos = p.position;
    if (base < 0) base = pos > kBelow ? pos - kBelow : 0;
    const int shift = pos - base;
    if (shift < 0 || shift > kSpan) {
      target.add(x);
      return;
    }
    ++count;
    const exact_detail::i128 term = static_cast<exact_detail::i128>(m) << shift;
    acc += p.sign_mask != 0 ? -term : term;
  }

  // Moves the window's sum into target; the window is empty afterwards.
  RSMC_HOST_DEVICE void flush(ExactSum& target) {
    if (acc != 0) target.add_fixed(acc, base);
    clear();
  }
};

}  // namespace rsmc::exact
