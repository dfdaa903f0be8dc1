// The kernels of the data-parallel selection (framework/resample/select/parallel_selection.hpp), as
// functors over chunks of particles, particles or points. Each is a small struct of raw pointers and
// scalars whose operator() is callable on any Kokkos backend (no lambdas inside member functions,
// no std:: algorithms, no exceptions: inconsistencies set a bit in an error word).
//
// Chunks: particles [c K, min((c + 1) K, n)) for a fixed chunk size K. Results never depend on K or
// on the thread that runs a chunk: every output position is a function of the inputs only.
#pragma once

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>

#include "base/exact/fixed_weight.hpp"
#include "base/exact/uint128.hpp"
#include "framework/resample/select/evenly_spaced_points.hpp"
#include "framework/resample/select/merge_walk.hpp"
#include "framework/resample/select/multinomial_cursor.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"

namespace rsmc::selection_kernels {

using exact::u128;

// Bits of the error word.
enum ErrorBit : int {
  kWalkMismatch = 1,    // a chunk's points and weights disagree
  kPastTheEnd = 2,      // a point mapped past the last particle
  kWheelMismatch = 4,   // the weights do not add up to the rank's share of the wheel
  kPointsMismatch = 8,  // a chunk produced a different number of points than its range
};

KOKKOS_INLINE_FUNCTION void report(int* error, int bit) { Kokkos::atomic_fetch_or(error, bit); }

struct Chunks {
  std::uint64_t size = 1;  // K
  std::uint64_t n = 0;     // particles
  KOKKOS_INLINE_FUNCTION std::uint64_t begin(std::uint64_t c) const { return c * size; }
  KOKKOS_INLINE_FUNCTION std::uint64_t end(std::uint64_t c) const { return (c + 1) * size < n ? (c + 1) * size : n; }
  std::uint64_t count() const { return (n + size - 1) / size; }
};

// total[c] = the chunk's weights, summed exactly.
template <class Weight>
struct ChunkTotals {
  const Weight* weight;
  u128* total;
  Chunks chunks;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    u128 sum = 0;
    for (std::uint64_t i = chunks.begin(c); i < chunks.end(c); ++i) sum += weight[i];
    total[c] = sum;
  }
};

// fixed[j] = the fixed-point weight of log_weight[j] given e[j] = exp(log_weight[j] - max), for
// j < n, and their exact total. exact::fixed_weight_of gives fixed_weight_given_exp's bits wherever
// e is that exp (a -inf or NaN log-weight is sent to 0 by a select); the total is two 64-bit sums of
// the weights' 32-bit halves (exact for n < 2^32). No branch, no 128-bit add, no conversion
// instruction: the loop vectorises.
RSMC_VECTOR_INLINE u128 fixed_weights_from_exps(const double* __restrict log_weight, const double* __restrict e,
                                                std::uint64_t* __restrict fixed, std::uint64_t n) {
  std::uint64_t low_halves = 0, high_halves = 0;
  for (std::uint64_t j = 0; j < n; ++j) {
    const std::uint64_t f = exact::fixed_weight_of(log_weight[j] > -HUGE_VAL ? e[j] : 0.0);
    fixed[j] = f;
    low_halves += f & 0xffffffffu;
    high_halves += f >> 32;
  }
  return (static_cast<u128>(high_halves) << 32) + low_halves;
}

// The fixed-point weights of the log-weights (base/exact/fixed_weight.hpp) and their chunk totals,
// in one pass. exp_weight (optional, else null) holds exp(log_weight - shift) for every particle whose
// log-weight is finite (the filter's moment_sums computes it so): then the vectorised
// fixed_weights_from_exps, with the same bits.
struct FixedWeightChunks {
  const double* log_weight;
  const double* exp_weight;
  double shift;  // the step's: >= every log-weight (exact::fixed_weight)
  std::uint64_t* fixed;
  u128* total;
  Chunks chunks;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    const std::uint64_t begin = chunks.begin(c), end = chunks.end(c);
    if (exp_weight != nullptr && end - begin < (std::uint64_t{1} << 32)) {  // (a chunk is 4,096 by default)
      total[c] = fixed_weights_from_exps(log_weight + begin, exp_weight + begin, fixed + begin, end - begin);
      return;
    }
    u128 sum = 0;
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t f = exact::fixed_weight(log_weight[i], shift);
      fixed[i] = f;
      sum += f;
    }
    total[c] = sum;
  }
};

// Residual resampling's division pass: copies[i] = floor(N w_i / T) and residual[i] = N w_i -
// copies[i] T (exact: N < 2^32 and w_i < 2^64, so N w_i < 2^96), with their chunk totals.
struct ResidualSplit {
  const std::uint64_t* weight;
  u128 samples, total;
  std::uint64_t* copies;
  u128* residual;
  std::uint64_t* chunk_copies;
  u128* chunk_residual;
  Chunks chunks;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    std::uint64_t copy_sum = 0;
    u128 residual_sum = 0;
    for (std::uint64_t i = chunks.begin(c); i < chunks.end(c); ++i) {
      const u128 scaled = samples * weight[i];
      const u128 whole = scaled / total;
      copies[i] = static_cast<std::uint64_t>(whole);
      residual[i] = scaled - whole * total;
      copy_sum += copies[i];
      residual_sum += residual[i];
    }
    chunk_copies[c] = copy_sum;
    chunk_residual[c] = residual_sum;
  }
};

// start[c] = in[0] + .. + in[c - 1] for c = 0 .. count (start[count] is the total).
template <class T>
struct ExclusiveScan {
  using value_type = T;
  const T* in;
  T* start;
  std::uint64_t count;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c, value_type& update, const bool final) const {
    const T mine = c < count ? in[c] : T(0);
    if (final) start[c] = update;
    update += mine;
  }
};

// Systematic and stratified: position[c] = the first sample at or above the chunk's wheel start,
// minus the rank's first sample. The last entry (c = chunks) checks that the weights add up to the
// rank's share.
struct EvenlySpacedPositions {
  EvenlySpacedPoints points;
  u128 below, local;
  std::uint64_t first, end;  // the rank's samples [first, end)
  const u128* start;         // chunks + 1 wheel offsets
  std::uint64_t* position;
  std::uint64_t chunks;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    if (c == chunks && start[c] != local) report(error, kWheelMismatch);
    const u128 x = below + start[c];
    position[c] = points.first_at_or_above(x, first, end, points.guess(x)) - first;
  }
};

// Multinomial (and residual on its wheel): point_position[c] = the points below the chunk's wheel
// start, minus those below the rank's; position[c] adds the copies of the chunks before (residual).
struct MultinomialPositions {
  MultinomialTree tree;
  u128 below, local;
  std::uint64_t first;            // the points below the rank's slice
  const u128* start;              // chunks + 1 wheel offsets
  const std::uint64_t* copies;    // chunks + 1 copies before each chunk (residual), or null
  std::uint64_t* position;        // chunks + 1
  std::uint64_t* point_position;  // chunks + 1, or null
  std::uint64_t chunks;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    if (c == chunks && start[c] != local) report(error, kWheelMismatch);
    const std::uint64_t points = multinomial_count_below(tree, below + start[c]) - first;
    if (point_position != nullptr) point_position[c] = points;
    position[c] = points + (copies != nullptr ? copies[c] : 0);
  }
};

// The cursor over chunk c's points, for the merge walk and the point kernels. Evenly spaced:
// the chunk's samples are [first + position[c], first + position[c + 1]).
template <class Cursor>
struct EvenlySpacedChunkCursor {
  EvenlySpacedPoints points;
  std::uint64_t first;            // the rank's first sample
  const std::uint64_t* position;  // chunks + 1
  // Yields the chunk's points, then stops: a counted view of the unbounded cursor.
  class Counted {
   public:
    KOKKOS_INLINE_FUNCTION Counted(const EvenlySpacedPoints& p, std::uint64_t j, std::uint64_t count)
        : cursor_(p, j), left_(count) {}
    KOKKOS_INLINE_FUNCTION std::uint64_t fill(u128* out, std::uint64_t capacity) {
      const std::uint64_t take = left_ < capacity ? left_ : capacity;
      cursor_.fill(out, take);
      left_ -= take;
      return take;
    }

   private:
    Cursor cursor_;
    std::uint64_t left_;
  };
  KOKKOS_INLINE_FUNCTION Counted make(std::uint64_t c) const {
    return Counted(points, first + position[c], position[c + 1] - position[c]);
  }
};

struct MultinomialChunkCursor {
  MultinomialTree tree;
  u128 below;
  const u128* start;  // chunks + 1 wheel offsets
  KOKKOS_INLINE_FUNCTION MultinomialCursor make(std::uint64_t c) const {
    return MultinomialCursor(tree, below + start[c], below + start[c + 1]);
  }
};

// The merge walk of every chunk (merge_walk.hpp): ancestors, and counts when kCounts. Paired (on
// CPUs): work item g walks chunks 2g and 2g + 1 in lockstep (merge_walk_pair), else item c walks
// chunk c.
template <bool kCopies, bool kCounts, class Weight, class CursorSource>
struct MergeWalk {
  CursorSource cursors;
  const Weight* weight;
  const std::uint64_t* copies;  // residual, else null
  const u128* start;            // chunks + 1 wheel offsets
  const std::uint64_t* position;
  std::uint64_t* ancestor;
  std::uint64_t* counts;
  u128 below;  // wheel position of the rank's slice
  Chunks chunks;
  std::uint64_t nchunks;
  bool paired;
  int* error;

  KOKKOS_INLINE_FUNCTION WalkChunk<Weight> chunk(std::uint64_t c) const {
    WalkChunk<Weight> w;
    w.weight = weight;
    w.copies = copies;
    w.begin = chunks.begin(c);
    w.end = chunks.end(c);
    w.start = below + start[c];
    w.first = position[c];
    w.last = position[c + 1];
    w.ancestor = ancestor;
    w.counts = counts;
    return w;
  }
  KOKKOS_INLINE_FUNCTION void single(std::uint64_t c) const {
    auto cursor = cursors.make(c);
    if (!merge_walk<kCopies, kCounts>(chunk(c), cursor)) report(error, kWalkMismatch);
  }
  // Work items: ceil(nchunks / 2) when paired, else nchunks.
  std::uint64_t items() const { return paired ? (nchunks + 1) / 2 : nchunks; }

  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t g) const {
    if (!paired) {
      single(g);
      return;
    }
    const std::uint64_t c = 2 * g;
    if (c + 1 >= nchunks || chunks.end(c + 1) - chunks.begin(c + 1) != chunks.end(c) - chunks.begin(c)) {
      single(c);
      if (c + 1 < nchunks) single(c + 1);
      return;
    }
    auto cursor_a = cursors.make(c);
    auto cursor_b = cursors.make(c + 1);
    if (!merge_walk_pair<kCopies, kCounts>(chunk(c), cursor_a, chunk(c + 1), cursor_b)) report(error, kWalkMismatch);
  }
};

// lower[i] = the weights before particle i on the rank (its interval's lower bound, from the
// slice start); with copies, copies_before[i] = the copies before it.
template <class Weight>
struct LowerBounds {
  const Weight* weight;
  const u128* start;
  const std::uint64_t* copies;        // residual, else null
  const std::uint64_t* copies_start;  // chunks + 1, residual
  u128* lower;
  std::uint64_t* copies_before;
  Chunks chunks;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    u128 run = start[c];
    std::uint64_t copied = copies != nullptr ? copies_start[c] : 0;
    for (std::uint64_t i = chunks.begin(c); i < chunks.end(c); ++i) {
      lower[i] = run;
      run += weight[i];
      if (copies != nullptr) {
        copies_before[i] = copied;
        copied += copies[i];
      }
    }
  }
};

// Systematic and stratified, one thread per offspring: point[k] = floor(P_{first + k}) - below.
struct EvenlySpacedPointsAt {
  EvenlySpacedPoints points;
  std::uint64_t first;
  u128 below;
  u128* point;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t k) const {
    point[k] = points.floor_point(first + k) - below;
  }
};

// Multinomial (residual wheel too), one thread per chunk: its points, as offsets from the slice.
struct MultinomialPointsOf {
  MultinomialChunkCursor cursors;
  const std::uint64_t* point_position;  // chunks + 1
  u128 below;
  u128* point;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t c) const {
    MultinomialCursor cursor = cursors.make(c);
    const std::uint64_t first = point_position[c], count = point_position[c + 1] - first;
    u128 spare;
    if (cursor.fill(point + first, count) != count || cursor.fill(&spare, 1) != 0) report(error, kPointsMismatch);
    for (std::uint64_t k = first; k < first + count; ++k) point[k] -= below;
  }
};

// The particle whose interval holds x: the last i with lower[i] <= x (a binary search; lower[0] = 0).
KOKKOS_INLINE_FUNCTION std::uint64_t interval_of(const u128* lower, std::uint64_t n, u128 x) {
  std::uint64_t lo = 0, hi = n;  // the number of lower bounds <= x is in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (lower[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

// search: out[k] = the particle of point[k], by binary search over the lower bounds.
struct SearchLookup {
  const u128* lower;
  std::uint64_t n;
  u128 local;  // the rank's total: points are below it
  const u128* point;
  std::uint64_t* out;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t k) const {
    if (!(point[k] < local)) {
      report(error, kPastTheEnd);
      out[k] = 0;
      return;
    }
    out[k] = interval_of(lower, n, point[k]);
  }
};

// forest: out[k] = the particle of point[k], from a RadixForest sampler (radix_forest_search.hpp).
template <class Sampler>
struct ForestLookup {
  Sampler sampler;
  std::uint64_t n;
  const u128* point;
  std::uint64_t* out;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t k) const {
    const std::uint64_t i = sampler.index(point[k]);
    if (i >= n) report(error, kPastTheEnd);
    out[k] = i < n ? i : 0;
  }
};

// The first k in [0, m) with x[k] > v (x non-decreasing), or m.
KOKKOS_INLINE_FUNCTION std::uint64_t first_above(const std::uint64_t* x, std::uint64_t m, std::uint64_t v) {
  return kernels::upper_bound_index(x, m, v);
}

// Residual: residual point k (ancestor a) goes after a's copies: position copies_before[a] +
// copies[a] + k.
struct ResidualPointsPlace {
  const std::uint64_t* point_ancestor;
  const std::uint64_t* copies;
  const std::uint64_t* copies_before;
  std::uint64_t* ancestor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t k) const {
    const std::uint64_t a = point_ancestor[k];
    ancestor[copies_before[a] + copies[a] + k] = a;
  }
};

// Residual: particle a's copies come first in its block, after the residual points of lower
// particles: positions copies_before[a] + (points with ancestor < a) + t.
struct ResidualCopiesPlace {
  const std::uint64_t* point_ancestor;
  std::uint64_t points;
  const std::uint64_t* copies;
  const std::uint64_t* copies_before;
  std::uint64_t* ancestor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t a) const {
    if (copies[a] == 0) return;
    const std::uint64_t base = copies_before[a] + (a > 0 ? first_above(point_ancestor, points, a - 1) : 0);
    for (std::uint64_t t = 0; t < copies[a]; ++t) ancestor[base + t] = a;
  }
};

// counts[i] = the offspring of particle i: adjacent differences of the offspring scan
// (offspring with ancestor <= i), each by binary search over the sorted ancestors.
struct CountsOfAncestors {
  const std::uint64_t* ancestor;
  std::uint64_t offspring;
  std::uint64_t* counts;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t i) const {
    const std::uint64_t through = first_above(ancestor, offspring, i);
    counts[i] = through - (i > 0 ? first_above(ancestor, offspring, i - 1) : 0);
  }
};

// The alias sampler's ancestors from its counts, in local order: particle i's counts[i] offspring
// at positions (offspring of the particles before i) + t, an exclusive scan over the particles. A
// count that would write past `offspring`, or a total other than it, sets kPointsMismatch.
struct AncestorsOfCounts {
  using value_type = std::uint64_t;
  const std::uint64_t* counts;
  std::uint64_t* ancestor;
  std::uint64_t particles, offspring;
  int* error;
  KOKKOS_INLINE_FUNCTION void operator()(const std::uint64_t i, value_type& before, const bool final) const {
    const std::uint64_t c = counts[i];
    if (final) {
      if (before > offspring || c > offspring - before || (i + 1 == particles && before + c != offspring)) {
        report(error, kPointsMismatch);
      } else {
        for (std::uint64_t t = 0; t < c; ++t) ancestor[before + t] = i;
      }
    }
    before += c;
  }
};

}  // namespace rsmc::selection_kernels
