// A prototype of one fused bootstrap-filter step for the stochastic volatility model, in the shape
// the engine can adopt (issue 16; docs/design/vectorised-step.md): Kokkos kernels over batches of
// kBatch particles, each batch a handful of plain loops that GCC vectorises, with every number rank-
// and thread-invariant:
//
//   pass A (parallel_reduce over batches, exact::MergeReducer<StepSums>: exact merges)
//     draws     the batch's Philox blocks with the SIMD Philox (rng::generate_blocks), or computed
//               per particle by the stream (Draws::on_the_fly)
//     propagate x' = mu + phi (x - mu) + sigma z, z from rng::CounterStream (stream layout 2)
//     weight    l = log p(y | x'), w = exp(l - shift), shift = the model's bound of l for y (SV:
//               -(log 2 pi + log y^2 + 1) / 2) plus a margin, or the maximum when the bound is missing
//               or useless (a second, rare pass)
//     sums      reproducible binned sums (exact::BinnedSum) of w, w^2, w dx, w dx^2, dx = x' - K,
//               K = the previous step's mean (one pass, no cancellation: see summarise())
//     fixed     floor(w 2^64) (exact::fixed_weight_of), and its exact batch total
//   between the passes: the exact total T, the batches' exclusive scan (host, O(batches))
//   pass B (parallel_for over batches): systematic resampling on the exact wheel, P_j = T (j + U) / N
//     select    F(C) = #{j : P_j < C} for every cumulative weight C: a double estimate, exact
//               128/256-bit arithmetic only where the estimate is within its error of an integer
//     stores    particle i's offspring are out[F(C_{i-1}) .. F(C_i)): one 4-wide store per particle,
//               overwritten by the next ones (branch-free; exact loop near a batch end or above 4)
//
// The selection is the engine's systematic scheme (framework/resample/select/selection.hpp: C_i > floor(P_j)
// <=> C_i > P_j), so the ancestors are those the distributed roulette resampler would pick.
// Host execution spaces only (the batch buffers live on the stack); one rank.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "base/exact/binned_sum.hpp"
#include "base/exact/fixed_weight.hpp"
#include "base/exact/merge_reducer.hpp"
#include "base/exact/moments.hpp"
#include "base/exact/uint128.hpp"
#include "base/rng/batch_draws.hpp"
#include "base/rng/counter_stream.hpp"

namespace rsmc::bench::prototype {

using exact::u128;

constexpr int kBatch = 512;  // particles per batch: the batch buffers (~30 KiB) stay in L1

// The stochastic volatility model (models/stochastic_volatility.hpp), with its transition templated
// on the stream and the optional bound of the log-likelihood that lets the step skip a max pass.
// `offset` moves the whole state (x - offset is the model's log-variance): 0 is SV itself; a large
// offset makes the mean large against the standard deviation, the hard case of a one-pass variance.
struct SvModel {
  double mu = -0.8698, phi = 0.97779, sigma = 0.15850;
  double offset = 0.0;
  static constexpr double kLog2Pi = 1.8378770664093454835606594728112;

  double stationary_sd() const { return sigma / std::sqrt(1.0 - phi * phi); }

  template <class Stream>
  KOKKOS_FORCEINLINE_FUNCTION double transition(double from, Stream& rng) const {
    return offset + (mu + phi * (from - offset - mu) + sigma * rng.normal());
  }
  KOKKOS_FORCEINLINE_FUNCTION double log_likelihood(double x, double y) const {
    const double v = x - offset;
    return -0.5 * (kLog2Pi + v + y * y * math::exp(-v));
  }
  // sup over x of log_likelihood(x, y), attained at x = log y^2; +inf at y = 0 (no bound).
  double log_likelihood_bound(double y) const {
    if (y == 0.0) return std::numeric_limits<double>::infinity();
    return -0.5 * (kLog2Pi + std::log(y * y) + 1.0);
  }
};

enum class Draws { on_the_fly, pregenerated };

// What pass A computes: stage 1 propagates only, 2 adds the weights, 3 the sums, 4 the fixed-point
// weights (the full pass). The lower stages exist to time the pieces.
enum Stage : int { kPropagate = 1, kWeigh = 2, kSum = 3, kFixed = 4 };

// The reduction value of pass A.
struct StepSums {
  exact::BinnedSum w, w2, wdx, wdx2;
  std::uint64_t max_w_bits;  // max of the bits of w (w >= 0: the integer order is the numeric order)
  std::uint64_t fixed_lo;    // sum of the low 32 bits of the fixed weights
  std::uint64_t fixed_hi;    // sum of the high 32 bits (both fit for N < 2^32)

  KOKKOS_INLINE_FUNCTION void clear() {
    w.clear();
    w2.clear();
    wdx.clear();
    wdx2.clear();
    max_w_bits = 0;
    fixed_lo = fixed_hi = 0;
  }
  KOKKOS_INLINE_FUNCTION void merge(const StepSums& o) {
    w.merge(o.w);
    w2.merge(o.w2);
    wdx.merge(o.wdx);
    wdx2.merge(o.wdx2);
    max_w_bits = o.max_w_bits > max_w_bits ? o.max_w_bits : max_w_bits;
    fixed_lo += o.fixed_lo;
    fixed_hi += o.fixed_hi;
  }
  u128 fixed_total() const { return (u128(fixed_hi) << 32) + fixed_lo; }
};

// C as a double, rounded once (C < 2^104: exact halves above and below bit 52).
inline double cumulative_to_double(u128 c) {
  const auto high = static_cast<std::uint64_t>(c >> 52);
  const std::uint64_t low = static_cast<std::uint64_t>(c) & ((std::uint64_t{1} << 52) - 1);
  return rng::rng_detail::exact_double(high) * 0x1p52 + rng::rng_detail::exact_double(low);
}

// Pass B's cumulative weights in doubles: kSegments prefix sums of kSegment terms, run side by side
// (independent add chains), then offset.
constexpr int kSegments = 4;
constexpr int kSegment = kBatch / kSegments;

// The systematic points of one step and F(C) = #{j < N : T (j + U) < C N}, exactly.
struct SystematicWheel {
  std::uint64_t n = 0;     // N
  u128 total = 0;          // T
  std::uint64_t u = 0;     // U 2^53, 53 bits
  double ratio = 0.0;      // N / T, rounded
  double offset = 0.0;     // U, exact
  double tolerance = 0.0;  // bound on |estimate - exact| of F's real-valued argument

  SystematicWheel(std::uint64_t particles, u128 t, std::uint64_t u53) : n(particles), total(t), u(u53) {
    ratio = static_cast<double>(n) / exact::to_double(t);
    offset = static_cast<double>(u) * 0x1p-53;
    // The cumulative weights come from double prefix sums of at most kSegment terms each plus a few
    // offsets (relative error < (kSegment + 8) 2^-53, all terms positive); then N / T (two roundings),
    // the product and the subtraction: < (kSegment + 16) N 2^-53 in all. Twice that, plus 2^-40.
    tolerance = 2.0 * (kSegment + 16) * static_cast<double>(n) * 0x1p-53 + 0x1p-40;
  }

  // T (j 2^53 + u) < C N 2^53, exactly (256-bit products).
  bool below(std::uint64_t j, u128 c) const {
    return exact::compare_products(total, (u128(j) << 53) + u, c, u128(n) << 53) < 0;
  }
  // F(C) exactly, from a candidate k that is at most a step or two off.
  std::uint64_t exact_count(u128 c, std::uint64_t k) const {
    if (k > n) k = n;
    while (k > 0 && !below(k - 1, c)) --k;
    while (k < n && below(k, c)) ++k;
    return k;
  }
  // The real-valued argument z of F(C) = clamp(ceil(z), 0, N), estimated in double.
  double estimate(double c) const { return c * ratio - offset; }
  // F(C) exactly for one C (estimate, then exact correction).
  std::uint64_t count(u128 c) const {
    const double z = estimate(cumulative_to_double(c));
    const double k = z > 0.0 ? std::ceil(z) : 0.0;
    return exact_count(c, k < static_cast<double>(n) ? static_cast<std::uint64_t>(k) : n);
  }
};

// One filter for the prototype: the particles, the pass A / pass B kernels and their buffers.
template <class ExecutionSpace = Kokkos::DefaultHostExecutionSpace>
class SvStepPrototype {
 public:
  using Memory = typename ExecutionSpace::memory_space;

  SvStepPrototype(SvModel model, std::uint64_t particles, std::uint64_t seed)
      : model_(model),
        n_(particles),
        seed_(seed),
        batches_((particles + kBatch - 1) / kBatch),
        x_("x", particles + 4),
        next_("next", particles + 4),
        fixed_("fixed", particles),
        counts_("counts", particles),
        batch_fixed_("batch_fixed", 2 * batches_),
        batch_start_("batch_start", batches_) {}

  std::uint64_t particles() const { return n_; }
  Kokkos::View<double*, Memory> states() const { return x_; }

  // x_0 from the stationary law; the reference K of the first step's moments is its mean.
  void initialise() {
    auto x = x_;
    const SvModel m = model_;
    const double sd = model_.stationary_sd();
    const std::uint64_t seed = seed_;
    Kokkos::parallel_for(
        "prototype::initialise", Kokkos::RangePolicy<ExecutionSpace>(0, n_), KOKKOS_LAMBDA(const std::size_t i) {
          rng::CounterStream s(seed, rng::Purpose::initialise, 0, i);
          x(i) = m.offset + (m.mu + sd * s.normal());
        });
    reference_ = model_.offset + model_.mu;
  }

  struct PassA {
    StepSums sums;
    double shift = 0.0;
  };

  // Pass A at `stage` with weights relative to `shift` and moments about `reference`.
  template <Draws D, int S>
  StepSums pass_a(std::uint32_t step, double y, double shift, double reference) const {
    auto x = x_;
    auto next = next_;
    auto fixed = fixed_;
    auto batch_fixed = batch_fixed_;
    const SvModel m = model_;
    const std::uint64_t n = n_, seed = seed_;
    StepSums result;
    result.clear();
    Kokkos::parallel_reduce(
        "prototype::pass_a", Kokkos::RangePolicy<ExecutionSpace>(0, batches_),
        KOKKOS_LAMBDA(const std::size_t b, StepSums& acc) {
          const std::size_t first = b * kBatch;
          const int count = static_cast<int>(n - first < std::size_t(kBatch) ? n - first : std::size_t(kBatch));
          batch_a<D, S>(m, seed, step, y, shift, reference, first, count, x.data(), next.data(), fixed.data(),
                        batch_fixed.data() + 2 * b, acc);
        },
        exact::MergeReducer<StepSums>(result));
    return result;
  }

  // One batch of pass A: plain loops over the batch, each vectorised (see the file comment).
  template <Draws D, int S>
  KOKKOS_INLINE_FUNCTION static void batch_a(const SvModel m, std::uint64_t seed, std::uint32_t step, double y,
                                             double shift, double reference, std::size_t first, int count,
                                             const double* __restrict x, double* __restrict next,
                                             std::uint64_t* __restrict fixed, std::uint64_t* __restrict batch_total,
                                             StepSums& acc) {
    alignas(64) double z[2 * kBatch];
    alignas(64) double w[kBatch], w2[kBatch], wdx[kBatch], wdx2[kBatch];
    rng::PregeneratedNormals pre;
    if (D == Draws::pregenerated) {  // SV draws one normal: one pair per particle, its first half used
      rng::generate_normals(rng::stream_key(seed, rng::Purpose::propagate), step, first,
                            static_cast<std::uint32_t>(count), 1, kBatch, z);
      pre = rng::PregeneratedNormals{z, 2, kBatch};
    }
    std::uint64_t lo_sum = 0, hi_sum = 0;
    for (int i = 0; i < count; ++i) {
      rng::CounterStream s =
          D == Draws::pregenerated
              ? rng::CounterStream(seed, rng::Purpose::propagate, step, first + i, pre, static_cast<std::uint32_t>(i))
              : rng::CounterStream(seed, rng::Purpose::propagate, step, first + i);
      const double xi = m.transition(x[first + i], s);
      next[first + i] = xi;
      if (S < kWeigh) continue;
      const double l = m.log_likelihood(xi, y);
      const double e = math::exp(l - shift);
      const double wi = l > -HUGE_VAL ? e : 0.0;  // exp(-inf) may be a tiny number in a stand-in
      // A particle of weight zero adds nothing, whatever its state (an inf or NaN state would
      // otherwise make w dx NaN).
      const double dx = wi > 0.0 ? xi - reference : 0.0;
      w[i] = wi;
      w2[i] = wi * wi;
      wdx[i] = wi * dx;
      wdx2[i] = wi * dx * dx;
      if (S < kFixed) continue;
      const std::uint64_t f = exact::fixed_weight_of(wi);
      fixed[first + i] = f;
      lo_sum += f & 0xffffffffu;
      hi_sum += f >> 32;
    }
    if (S < kWeigh) return;
    if (S >= kSum) {
      // The sum of w finds max w on the way (the fallback test needs it; a maximum inside the loop
      // above would stop its vectorisation).
      const double top = acc.w.add(w, static_cast<std::size_t>(count));
      std::uint64_t bits;
      std::memcpy(&bits, &top, sizeof bits);
      acc.max_w_bits = bits > acc.max_w_bits ? bits : acc.max_w_bits;
      acc.w2.add(w2, static_cast<std::size_t>(count));
      acc.wdx.add(wdx, static_cast<std::size_t>(count));
      acc.wdx2.add(wdx2, static_cast<std::size_t>(count));
    } else {  // keep the weights alive for the timing of the lower stages
      acc.fixed_lo += static_cast<std::uint64_t>(w[0] + w2[count - 1] + wdx[count / 2] + wdx2[count / 3] != 0.0);
    }
    if (S >= kFixed) {
      acc.fixed_lo += lo_sum;
      acc.fixed_hi += hi_sum;
      batch_total[0] = lo_sum;
      batch_total[1] = hi_sum;
    }
  }

  // Pass B: the selection only (F into counts_, for timing) or with the offspring stores into x_.
  template <bool Stores>
  void pass_b(const SystematicWheel& wheel) const {
    auto x = next_;  // pass A's new states
    auto out = x_;   // offspring go back into x (pass A read it before)
    auto fixed = fixed_;
    auto start = batch_start_;
    auto counts = counts_;
    const std::uint64_t n = n_;
    const SystematicWheel wh = wheel;
    Kokkos::parallel_for(
        "prototype::pass_b", Kokkos::RangePolicy<ExecutionSpace>(0, batches_), KOKKOS_LAMBDA(const std::size_t b) {
          const std::size_t first = b * kBatch;
          const int count = static_cast<int>(n - first < std::size_t(kBatch) ? n - first : std::size_t(kBatch));
          batch_b<Stores>(wh, start(b), first, count, x.data(), fixed.data(), out.data(), counts.data());
        });
  }

  // One batch of pass B: F_i for every cumulative weight C_i of the batch, from a double estimate
  // (vectorised), exact only where the estimate is within its error bound of an integer (rarely, and
  // then the batch's exact 128-bit prefix is recomputed); then the offspring stores.
  template <bool Stores>
  static void batch_b(const SystematicWheel& wh, u128 c_start, std::size_t first, int count, const double* __restrict x,
                      const std::uint64_t* __restrict fixed, double* __restrict out,
                      std::uint64_t* __restrict counts_out) {
    alignas(64) double c[kBatch];
    alignas(64) std::uint64_t counts[kBatch];
    const std::uint64_t* f = fixed + first;
    // Each fixed weight as a double (its two 32-bit halves exact, one rounding), then kSegments
    // prefix sums side by side.
    for (int i = 0; i < count; ++i)
      c[i] = rng::rng_detail::exact_double(f[i] >> 32) * 0x1p32 + rng::rng_detail::exact_double(f[i] & 0xffffffffu);
    double run[kSegments] = {};
    const int full = count / kSegments;  // terms per segment in this batch (the tail goes to the last)
    for (int k = 0; k < full; ++k)
      for (int s = 0; s < kSegments; ++s) c[s * full + k] = run[s] += c[s * full + k];
    for (int i = kSegments * full; i < count; ++i) c[i] = run[kSegments - 1] += c[i];
    double offset_of[kSegments];
    offset_of[0] = cumulative_to_double(c_start);
    for (int s = 1; s < kSegments; ++s) offset_of[s] = offset_of[s - 1] + run[s - 1];
    for (int s = 0; s < kSegments; ++s) {
      const int begin = s * full, end = s + 1 == kSegments ? count : begin + full;
      for (int i = begin; i < end; ++i) c[i] += offset_of[s];
    }
    // F from the estimate; `near` marks estimates within the bound of an integer.
    const double ratio = wh.ratio, offset = wh.offset, tolerance = wh.tolerance, nd = static_cast<double>(wh.n);
    std::uint64_t near = 0;
    for (int i = 0; i < count; ++i) {
      const double z = c[i] * ratio - offset;
      const double r = (z + 0x1p52) - 0x1p52;  // nearest integer (|z| < 2^51)
      const double up = r < z ? r + 1.0 : r;   // ceil
      const double gap = z - r;
      near |= (gap < 0.0 ? -gap : gap) < tolerance ? 1 : 0;
      const double clamped = up > 0.0 ? (up < nd ? up : nd) : 0.0;
      counts[i] = exact::fixed_weight_detail::small_integer_bits(clamped);
    }
    if (near != 0) {  // exact where needed (about once per 10^7 particles at N = 10^6)
      u128 running = c_start;
      for (int i = 0; i < count; ++i) {
        running += f[i];
        const double z = wh.estimate(cumulative_to_double(running));
        const double gap = z - std::nearbyint(z);
        if ((gap < 0.0 ? -gap : gap) < 2.0 * tolerance) counts[i] = wh.exact_count(running, counts[i]);
      }
    }
    if (!Stores) {
      for (int i = 0; i < count; ++i) counts_out[first + i] = counts[i];
      return;
    }
    const std::uint64_t begin = wh.count(c_start);
    const std::uint64_t end = counts[count - 1];
    std::uint64_t at = begin;
    for (int i = 0; i < count; ++i) {
      const std::uint64_t to = counts[i];
      const double v = x[first + i];
      if (at + 4 <= end && to - at <= 4) {
        const double four[4] = {v, v, v, v};
        std::memcpy(out + at, four, sizeof four);  // one 32-byte store; the next particles overwrite the surplus
      } else {
        for (std::uint64_t k = at; k < to; ++k) out[k] = v;
      }
      at = to;
    }
  }

  // What one step reports (the same numbers as the engine's StepSummary for d = 1).
  struct StepResult {
    double increment = 0.0;  // log-likelihood increment
    double ess = 0.0;
    double mean = 0.0, variance = 0.0;
    double shift = 0.0;     // the weights' shift (the bound, or the fallback)
    bool fallback = false;  // the bound was missing or useless: pass A ran twice
  };

  // Below this largest weight the bound is useless: the fixed-point weights would keep too few bits
  // (total variation of the quantised selection < N 2^-64 / sum w <= N 2^-56).
  static constexpr double kUselessMaxWeight = 0x1p-8;

  // One full step: propagate, weight, sums, resampling (every step, as `rsmc bench e2e` runs).
  template <Draws D>
  StepResult step(std::uint32_t t, double y) {
    StepResult r;
    const double bound = model_.log_likelihood_bound(y);
    // The analytic bound plus a margin for the rounding of the computed log-likelihood.
    double shift = bound + 1e-12 * (1.0 + std::fabs(bound));
    StepSums sums;
    if (std::isfinite(shift)) sums = pass_a<D, kFixed>(t, y, shift, reference_);
    double max_w = max_weight(sums, std::isfinite(shift));
    if (!(max_w >= kUselessMaxWeight) || !(max_w < HUGE_VAL)) {
      // No bound, or a useless or exceeded one: shift by the largest log-weight instead. Its value
      // comes from a pass that computes the log-likelihoods only; it is a maximum, hence exact and
      // the same for any partition.
      shift = max_log_weight(t, y);
      sums = pass_a<D, kFixed>(t, y, shift, reference_);
      max_w = max_weight(sums, true);
      r.fallback = true;
    }
    r.shift = shift;
    const exact::DoubleDouble s0 = sums.w.to_double_double();
    if (!(s0.hi > 0.0)) throw std::runtime_error("prototype: every particle has weight zero");
    r.increment = shift + std::log(s0.hi) - std::log(static_cast<double>(n_));
    r.ess = s0.hi * s0.hi / sums.w2.to_double();
    const exact::WeightedMoments mv =
        exact::one_pass_moments(reference_, s0, sums.wdx.to_double_double(), sums.wdx2.to_double_double());
    r.mean = mv.mean;
    r.variance = mv.variance;
    reference_ = mv.mean;
    resample(t, sums.fixed_total());
    return r;
  }

  // Systematic resampling on the exact wheel of pass A's fixed weights (into x_).
  void resample(std::uint32_t t, u128 total) {
    scan_batches();
    const std::uint64_t u = rng::CounterStream(seed_, rng::Purpose::resample, t, 0).next_u64() >> 11;
    pass_b<true>(SystematicWheel(n_, total, u));
  }

  static double max_weight(const StepSums& s, bool ran) {
    if (!ran) return 0.0;
    double w;
    std::memcpy(&w, &s.max_w_bits, sizeof w);
    return w;
  }

  // The largest log-likelihood of the step's new particles (weights are uniform after resampling).
  double max_log_weight(std::uint32_t step, double y) const {
    auto x = x_;
    const SvModel m = model_;
    const std::uint64_t seed = seed_;
    double top = -HUGE_VAL;
    Kokkos::parallel_reduce(
        "prototype::max_log_weight", Kokkos::RangePolicy<ExecutionSpace>(0, n_),
        KOKKOS_LAMBDA(const std::size_t i, double& best) {
          rng::CounterStream s(seed, rng::Purpose::propagate, step, i);
          const double l = m.log_likelihood(m.transition(x(i), s), y);
          best = l > best ? l : best;
        },
        Kokkos::Max<double>(top));
    return top;
  }

  // The exclusive scan of the batches' fixed-weight totals (host, O(batches)).
  void scan_batches() {
    auto totals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), batch_fixed_);
    auto start = Kokkos::create_mirror_view(batch_start_);
    u128 run = 0;
    for (std::size_t b = 0; b < batches_; ++b) {
      start(b) = run;
      run += (u128(totals(2 * b + 1)) << 32) + totals(2 * b);
    }
    Kokkos::deep_copy(batch_start_, start);
  }

  SvModel model_;
  std::uint64_t n_, seed_;
  std::size_t batches_;
  Kokkos::View<double*, Memory> x_, next_;
  Kokkos::View<std::uint64_t*, Memory> fixed_;
  Kokkos::View<std::uint64_t*, Memory> counts_;       // F of every particle (pass B without stores: timing)
  Kokkos::View<std::uint64_t*, Memory> batch_fixed_;  // per batch: sums of the low and high halves
  Kokkos::View<u128*, Memory> batch_start_;
  double reference_ = 0.0;
};

}  // namespace rsmc::bench::prototype
