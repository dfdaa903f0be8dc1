// Systematic / stratified selection by 256-bit products at every comparison: the slow, obviously
// exact reference that the closed-form 128-bit selection of select_offspring (selection.cpp) is
// tested against. Test support only; nothing in the library uses it.
#pragma once

#include <cstdint>

#include "base/core/error.hpp"
#include "base/exact/uint128.hpp"
#include "base/rng/stream.hpp"
#include "framework/resample/select/selection.hpp"

namespace rsmc::testing {

namespace selection_reference {
using exact::u128;
constexpr u128 kTwo53 = u128(1) << 53;

// The 53 random bits of a systematic / stratified offset U = u / 2^53 in [0, 1) (as selection.cpp).
inline std::uint64_t offset_bits(std::uint64_t seed, std::uint32_t step, std::uint64_t sample) {
  return rng::Stream(seed, rng::Purpose::resample, step, sample).next_u64() >> 11;
}

// 256-bit x += y (no overflow in our use: every value is below 2^246).
inline void add_to(exact::U256& x, const exact::U256& y) {
  u128 carry = 0;
  for (int k = 0; k < 4; ++k) {
    const u128 sum = u128(x.w[k]) + y.w[k] + carry;
    x.w[k] = static_cast<std::uint64_t>(sum);
    carry = sum >> 64;
  }
}

// Systematic (stratified when `stratified`): sample j sits at P_j = T (j 2^53 + u_j) / (N 2^53).
// Comparisons are exact: C_i > P_j <=> C_i N 2^53 > T (j 2^53 + u_j), both sides 256-bit. The walk
// keeps both sides as running 256-bit sums, so each step costs an addition and a comparison.
inline Selection select_evenly_spaced_wide(const SelectionInputs& in, bool stratified) {
  const std::vector<std::uint64_t>& w = *in.fixed_weights;
  const u128 n = in.samples, total = in.wheel.total;
  const u128 denominator = n * kTwo53;  // N 2^53 < 2^117
  const std::uint64_t shared = offset_bits(in.seed, in.step, 0);
  auto offset = [&](std::uint64_t j) { return stratified ? offset_bits(in.seed, in.step, j) : shared; };
  // First sample with P_j >= x, for x an integer on the wheel: P_j >= x <=> T (j 2^53 + u_j) >= x N 2^53.
  auto first_at_or_above = [&](u128 x) {
    std::uint64_t lo = 0, hi = in.samples;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (exact::compare_products(total, u128(mid) * kTwo53 + offset(mid), x, denominator) >= 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  };
  Selection s;
  s.counts.assign(w.size(), 0);
  s.first_id = first_at_or_above(in.wheel.below);
  const std::uint64_t end = first_at_or_above(in.wheel.below + in.wheel.local);
  s.offspring = end - s.first_id;
  if (s.offspring == 0) return s;

  const exact::U256 step = exact::mul_wide(total, kTwo53);               // T 2^53: from sample j to j + 1
  exact::U256 base = exact::mul_wide(total, u128(s.first_id) * kTwo53);  // T j 2^53
  std::size_t i = 0;
  exact::U256 cumulative = exact::mul_wide(in.wheel.below + w[0], denominator);  // C_i N 2^53
  for (std::uint64_t j = s.first_id; j < end; ++j) {
    exact::U256 point = base;  // T (j 2^53 + u_j)
    add_to(point, exact::mul_wide(total, offset(j)));
    while (exact::compare(cumulative, point) <= 0) {
      if (++i == w.size())
        throw Error("internal error: a resampling point fell outside this rank's slice of the wheel");
      add_to(cumulative, exact::mul_wide(w[i], denominator));
    }
    ++s.counts[i];
    add_to(base, step);
  }
  return s;
}
}  // namespace selection_reference

inline Selection select_evenly_spaced_reference(const SelectionInputs& in, bool stratified) {
  return selection_reference::select_evenly_spaced_wide(in, stratified);
}

}  // namespace rsmc::testing
