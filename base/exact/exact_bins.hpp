// The fastest exact front end of ExactSum on a CPU: one 64-bit integer bin per binary exponent.
//
// A finite double is x = +-m 2^(pos - 1074) with m < 2^53, pos = max(e - 1, 0) and e its biased
// exponent. add(x) adds +-m to bin[e]: no shift, no carry, no data-dependent branch, so on a host
// it costs about a third of ExactSum::add, and less than half of ExactSumWindow::add when the terms
// spread over many binades (measured: bench/results/, docs/performance.md). Non-finite terms go
// straight to the ExactSum, which counts them.
//
// Overflow bound: each term changes a bin by less than 2^53, so kMaxTermsPerFlush = 1024 terms keep
// every |bin| below 2^63. The caller flushes after at most that many add()s (e.g. every 1024
// items, each adding at most one term to an accumulator). flush() moves every non-zero
// bin into the ExactSum with ExactSum::add_int64, all exact integer arithmetic, so the ExactSum ends
// with exactly the value plain ExactSum::add calls give: after normalisation the same bytes, the same
// to_double(), whatever the order, the flush points or the thread schedule.
//
// 16 KiB per accumulator: meant for host execution spaces and a handful of accumulators (GPU
// threads and many accumulators: ExactSumWindow). Trivial. Empty when value-initialised
// (ExactSumBins{}), after clear() and after flush(): clearing 16 KiB costs more than many adds, so a
// caller keeps flushed bins between calls instead of clearing them. The engine's per-step sums were
// ExactSums through these front ends until they became BinnedSums (binned_reduce.hpp); they remain
// the exact baseline of bench/step_prototype's comparison of sums.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/double_bits.hpp"
#include "base/exact/exact_sum.hpp"

namespace rsmc::exact {

struct ExactSumBins {
  static constexpr int kBins = 2048;  // biased exponents 0..2046 (2047, inf and NaN, is never binned)
  static constexpr std::uint32_t kMaxTermsPerFlush = 1024;  // 1024 (2^53 - 1) < 2^63

  std::int64_t bin[kBins];

  RSMC_HOST_DEVICE void clear() {
    for (int e = 0; e < kBins; ++e) bin[e] = 0;
  }

  // target += x, exactly (through the bins when x is finite).
  RSMC_HOST_DEVICE void add(double x, ExactSum& target) {
    const exact_detail::DoubleParts p = exact_detail::double_parts(exact_detail::double_bits(x));
    if (p.biased == 0x7ffu) {  // inf, NaN: counted by the ExactSum
      target.add(x);
      return;
    }
    const auto m = static_cast<std::int64_t>(p.mantissa);
    bin[p.biased] += (m ^ p.sign_mask) - p.sign_mask;
  }

  // Moves the bins' sum into target; the bins are all zero afterwards. Skips empty groups of 8 bins
  // with one test: terms usually occupy a few dozen neighbouring binades. (Tracking the range in use
  // instead costs two compares per add, and measured slower.)
  RSMC_HOST_DEVICE void flush(ExactSum& target) {
    for (int g = 0; g < kBins; g += 8) {
      std::int64_t any = 0;
      for (int j = 0; j < 8; ++j) any |= bin[g + j];
      if (any == 0) continue;
      for (int j = 0; j < 8; ++j) {
        const int e = g + j;
        if (bin[e] == 0) continue;
        target.add_int64(bin[e], e > 0 ? e - 1 : 0);
        bin[e] = 0;
      }
    }
  }
};

}  // namespace rsmc::exact
