#include "framework/resample/select/selection.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "base/core/error.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/resample/select/local_sampling.hpp"
#include "framework/resample/select/sorted_multinomial.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

namespace {

using exact::u128;
constexpr u128 kTwo53 = u128(1) << 53;

// The 53 random bits of a systematic / stratified offset U = u / 2^53 in [0, 1).
std::uint64_t offset_bits(std::uint64_t seed, std::uint32_t step, std::uint64_t sample) {
  return rng::Stream(seed, rng::Purpose::resample, step, sample).next_u64() >> 11;
}

// Local cumulative sums in wheel coordinates: cumulative[i] = below + w_0 + ... + w_i.
std::vector<u128> local_cumulative(const std::vector<std::uint64_t>& w, u128 below) {
  std::vector<u128> c(w.size());
  u128 run = below;
  for (std::size_t i = 0; i < w.size(); ++i) c[i] = run += w[i];
  return c;
}

// s.counts = n zeros, in the caller's buffer when it lends one.
void zero_counts(const SelectionInputs& in, std::size_t n, Selection& s) {
  if (in.counts_buffer != nullptr) s.counts = std::move(*in.counts_buffer);
  s.counts.assign(n, 0);
}

// The integer parts of the systematic / stratified points, in closed form.
// P_j = T (j 2^53 + u_j) / (N 2^53) and, for an integer C, C > P_j <=> C > floor(P_j), so floor(P_j)
// is all the selection needs. With T = Q N + R (Q = floor(T / N)) and Q = Q_hi 2^53 + Q_lo:
//   P_j = Q j + R j / N + Q_hi u_j + Q_lo u_j / 2^53 + R u_j / (N 2^53)
// Every product fits in 128 bits (T < 2^128, N < 2^64, u_j < 2^53), and the three fractional parts
// add up to (r_j 2^53 + (Q_lo u_j mod 2^53) N + R u_j) / (N 2^53) < 3, a carry of 0, 1 or 2.
class EvenlySpacedPoints {
 public:
  EvenlySpacedPoints(const SelectionInputs& in, bool stratified)
      : in_(in),
        stratified_(stratified),
        n_(in.samples),
        q_(in.wheel.total / n_),
        r_(in.wheel.total % n_),
        shared_(offset_bits(in.seed, in.step, 0)) {}

  // floor(P_j) for any j (direct form).
  u128 floor_point(std::uint64_t j) const {
    const u128 rj = r_ * j;  // < N^2 < 2^128
    return combine(q_ * j + rj / n_, rj % n_, terms(offset(j)));
  }
  // First sample j with P_j >= x, for an integer x on the wheel (P_j >= x <=> floor(P_j) >= x).
  std::uint64_t first_at_or_above(u128 x) const {
    std::uint64_t lo = 0, hi = in_.samples;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (floor_point(mid) >= x)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
  // Calls f(floor(P_j)) for j = first .. end-1, stepping floor(T j / N) instead of dividing.
  template <class F>
  void for_each(std::uint64_t first, std::uint64_t end, F&& f) const {
    const u128 r_first = r_ * first;
    u128 base = q_ * first + r_first / n_, rest = r_first % n_;  // T j / N = base + rest / N
    if (!stratified_) {
      for_each_systematic(first, end, base, static_cast<std::uint64_t>(rest), f);
      return;
    }
    for (std::uint64_t j = first; j < end; ++j) {
      f(combine(base, rest, terms(offset(j))));
      base += q_;
      rest += r_;
      if (rest >= n_) {
        rest -= n_;
        ++base;
      }
    }
  }

 private:
  std::uint64_t offset(std::uint64_t j) const { return stratified_ ? offset_bits(in_.seed, in_.step, j) : shared_; }
  // The parts of T u / (N 2^53) = whole + fraction / (N 2^53) that depend on u only: computed once
  // per step for systematic resampling, whose u is shared (the 128-bit products leave the loop).
  struct OffsetTerms {
    u128 whole;     // Q_hi u + floor(Q_lo u / 2^53)
    u128 fraction;  // (Q_lo u mod 2^53) N + R u, < 2 N 2^53
  };
  OffsetTerms terms(std::uint64_t u) const {
    const u128 q_hi = q_ >> 53, q_lo = q_ & (kTwo53 - 1);
    const u128 lo_product = q_lo * u;  // < 2^106
    return {q_hi * u + (lo_product >> 53), (lo_product & (kTwo53 - 1)) * n_ + r_ * u};
  }
  // for_each for systematic resampling, where the offset terms t are the same for every sample: the
  // fraction rest 2^53 + t.fraction of combine() then steps by r 2^53, and drops by N 2^53 when rest
  // wraps past N, so it is carried along instead of recomputed; the wrap and the carry are selected
  // without branches (both follow the digits of R / N and would mispredict). rest < N < 2^64 and
  // r < N, so rest + r is tested as rest >= N - r without overflow.
  template <class F>
  void for_each_systematic(std::uint64_t first, std::uint64_t end, u128 base, std::uint64_t rest, F&& f) const {
    const OffsetTerms t = terms(shared_);
    const auto n = static_cast<std::uint64_t>(n_), r = static_cast<std::uint64_t>(r_);
    const u128 denominator = n_ * kTwo53, twice = 2 * denominator, step = r_ * kTwo53;
    u128 point = base + t.whole;                       // floor(P_j) without the carry
    u128 fraction = u128(rest) * kTwo53 + t.fraction;  // < 3 N 2^53
    for (std::uint64_t j = first; j < end; ++j) {
      f(point + u128(fraction >= denominator) + u128(fraction >= twice));
      const std::uint64_t wrap = rest >= n - r ? 1 : 0;
      rest = wrap ? rest - (n - r) : rest + r;
      point += q_ + wrap;
      fraction += step;
      fraction -= denominator & -u128(wrap);
    }
  }

  // floor(base + rest / N + T u / (N 2^53)), with t = terms(u). The carry (0, 1 or 2) comes from two
  // comparisons, not a loop: a data-dependent trip count would mispredict at random points.
  u128 combine(u128 base, u128 rest, const OffsetTerms& t) const {
    const u128 denominator = n_ * kTwo53;
    const u128 fraction = rest * kTwo53 + t.fraction;  // < 3 N 2^53 < 2^119
    const u128 carry = u128(fraction >= denominator) + u128(fraction >= 2 * denominator);
    return base + t.whole + carry;
  }

  const SelectionInputs& in_;
  bool stratified_;
  u128 n_, q_, r_;
  std::uint64_t shared_;
};

// Offspring counts from the rank's points with the configured local sampler, added to s.counts;
// s.first_id and s.offspring must be set (by the time generate has run, for the inverse CDFs).
// `weights` are those the points were drawn on (the fixed weights, or the residuals); generate(emit)
// passes every point of the rank, as an offset from its slice start, in increasing order.
template <class Weight, class Generate>
void add_local_counts(const SelectionInputs& in, const std::vector<Weight>& weights, Selection& s,
                      Generate&& generate) {
  if (in.sampler == LocalSampler::alias) {
    // Draw ids N + (new id of the draw): apart from every id a scheme's points use (< N).
    add_alias_counts(*in.fixed_weights, s.offspring, in.seed, in.step, in.samples + s.first_id, s.counts);
  } else {
    add_inverse_cdf_counts(in.sampler, weights, generate, s.counts);
  }
}

// Systematic and stratified: the rank's points are the samples j with P_j in its slice, and their
// number is known in closed form.
Selection select_evenly_spaced(const SelectionInputs& in, bool stratified) {
  const EvenlySpacedPoints points(in, stratified);
  Selection s;
  zero_counts(in, in.fixed_weights->size(), s);
  s.first_id = points.first_at_or_above(in.wheel.below);
  const std::uint64_t end = points.first_at_or_above(in.wheel.below + in.wheel.local);
  s.offspring = end - s.first_id;
  add_local_counts(in, *in.fixed_weights, s, [&](auto&& emit) {
    points.for_each(s.first_id, end, [&](u128 point) { emit(point - in.wheel.below); });
  });
  return s;
}

// Multinomial: `samples` i.i.d. points on a wheel [0, total), generated sorted; those in this rank's
// slice [below, below + local) are added to s.offspring and, for the inverse CDFs, mapped to
// ancestors. Returns the number of points below the slice. (The alias sampler needs the count
// before it draws: a counting pass first.)
template <class Weight>
std::uint64_t multinomial_share(const SelectionInputs& in, const std::vector<Weight>& weights, u128 below, u128 local,
                                u128 total, std::uint64_t samples, Selection& s) {
  auto points = [&](auto&& emit) {
    return sorted_multinomial_points(in.seed, in.step, samples, total, below, below + local, [&](u128 point) {
      ++s.offspring;
      emit(point - below);
    });
  };
  std::uint64_t first = 0;
  if (in.sampler == LocalSampler::alias)
    first = points([](u128) {});
  else
    add_inverse_cdf_counts(
        in.sampler, weights, [&](auto&& emit) { first = points(emit); }, s.counts);
  return first;
}

Selection select_multinomial(const SelectionInputs& in) {
  Selection s;
  zero_counts(in, in.fixed_weights->size(), s);
  s.first_id = multinomial_share(in, *in.fixed_weights, in.wheel.below, in.wheel.local, in.wheel.total, in.samples, s);
  if (in.sampler == LocalSampler::alias) add_local_counts(in, *in.fixed_weights, s, [](auto&&) {});
  return s;
}

// Residual: floor(N w_i / T) copies, then M = N - sum of floors multinomial samples on the wheel of
// residuals r_i = N w_i - floor(N w_i / T) T (whose total is exactly M T). With the alias sampler the
// rank's offspring count (floors + residual points) is kept and its ancestors are alias draws.
Selection select_residual(const SelectionInputs& in, MPI_Comm comm) {
  const std::vector<std::uint64_t>& w = *in.fixed_weights;
  const u128 n = in.samples, total = in.wheel.total;
  if (in.samples >= (std::uint64_t(1) << 32))
    throw Error(
        "residual resampling supports fewer than 2^32 particles (the residual wheel N * T must fit in "
        "128 bits); got " +
        std::to_string(in.samples));
  Selection s;
  zero_counts(in, w.size(), s);
  std::vector<u128> residual(w.size());
  std::uint64_t floors = 0;
  u128 residual_local = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const u128 scaled = n * w[i];
    const u128 copies = scaled / total;
    s.counts[i] = static_cast<std::uint64_t>(copies);
    floors += s.counts[i];
    residual[i] = scaled - copies * total;
    residual_local += residual[i];
  }
  const exact::ScanTotal floor_scan = exact::exclusive_scan_total(floors, comm);
  const exact::ScanTotal residual_scan = exact::exclusive_scan_total(residual_local, comm);
  const std::uint64_t remaining = in.samples - static_cast<std::uint64_t>(floor_scan.total);
  s.offspring = floors;
  std::uint64_t residual_below = 0;
  if (remaining > 0)
    residual_below =
        multinomial_share(in, residual, residual_scan.below, residual_local, residual_scan.total, remaining, s);
  s.first_id = static_cast<std::uint64_t>(floor_scan.below) + residual_below;
  if (in.sampler == LocalSampler::alias) {
    std::fill(s.counts.begin(), s.counts.end(), 0);
    add_local_counts(in, w, s, [](auto&&) {});
  }
  return s;
}

}  // namespace

Selection select_offspring(Scheme scheme, const SelectionInputs& in, MPI_Comm comm) {
  if (in.fixed_weights == nullptr) throw Error("select_offspring: no weights given");
  if (in.wheel.total == 0) throw Error("resampling: every particle has zero weight");
  switch (scheme) {
    case Scheme::systematic:
      return select_evenly_spaced(in, false);
    case Scheme::stratified:
      return select_evenly_spaced(in, true);
    case Scheme::multinomial:
      return select_multinomial(in);
    case Scheme::residual:
      return select_residual(in, comm);
  }
  throw Error("select_offspring: unknown scheme");
}

Selection select_algorithm1(const SelectionInputs& in) {
  if (in.wheel.total == 0) throw Error("resampling: every particle has zero weight");
  const auto cumulative = local_cumulative(*in.fixed_weights, in.wheel.below);
  const u128 end = in.wheel.below + in.wheel.local;
  Selection s;
  zero_counts(in, in.fixed_weights->size(), s);
  for (std::uint64_t i = 0; i < in.samples; ++i) {
    rng::Stream stream(in.seed, rng::Purpose::resample, in.step, i);
    const u128 u = rng::uniform_below(stream, in.wheel.total);
    if (u < in.wheel.below) {
      ++s.first_id;
    } else if (u < end) {
      const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
      ++s.counts[static_cast<std::size_t>(it - cumulative.begin())];
      ++s.offspring;
    }
  }
  return s;
}

}  // namespace rsmc
