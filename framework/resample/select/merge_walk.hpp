// The merge walk of one chunk of particles against the sorted sample points that fall on it: the
// ancestor of every offspring, and each particle's offspring count, in one pass.
//
// A chunk is particles [begin, end) of the rank, whose wheel interval [start, start + their
// weights) holds the points a cursor produces in increasing order (framework/resample/select/
// evenly_spaced_points.hpp, multinomial_cursor.hpp). Particle i takes the points below its
// cumulative weight C_i that earlier particles did not take (the inverse CDF: the first particle
// with C_i > point), plus, for residual resampling, its copies[i] deterministic copies first. Its
// offspring occupy the next positions of the rank's ancestor array, from the chunk's first
// position on, so every chunk writes a disjoint range and chunks run in any order, on any thread.
//
// Branch-free where it matters: a particle's count is 0 to 3 for almost every particle, so the walk
// compares C_i against the next four buffered points, stores the particle's index at the next three
// positions unconditionally (a later particle overwrites what it does not own) and advances by the
// count. Only a count above 3, or the last three positions of the chunk (whose spill would land in
// the next chunk's range), take the loop. Points are pulled from the cursor in blocks into a small
// buffer with four sentinels past its end.
//
// RSMC_HOST_DEVICE; no Kokkos, no MPI. Returns false when the points and weights disagree (a point
// left over, or more offspring than the chunk's range): the caller reports it.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"

namespace rsmc {

template <class Weight>
struct WalkChunk {
  const Weight* weight = nullptr;         // the rank's weights (the wheel the points are on)
  const std::uint64_t* copies = nullptr;  // residual: deterministic copies per particle; else null
  std::uint64_t begin = 0, end = 0;       // particles
  exact::u128 start = 0;                  // wheel position of the chunk's first particle
  std::uint64_t first = 0, last = 0;      // the chunk's range of the ancestor array
  std::uint64_t* ancestor = nullptr;      // the rank's ancestor array
  std::uint64_t* counts = nullptr;        // offspring per particle, or null
};

namespace merge_walk_detail {

// Out of line: inlined, the cursor's code crowds the particle loop's registers, and the running sum
// goes through memory at every particle.
#if defined(__CUDACC__)
#define RSMC_MERGE_WALK_NOINLINE __noinline__
#else
#define RSMC_MERGE_WALK_NOINLINE __attribute__((noinline))
#endif

constexpr std::uint64_t kBlock = 64;  // points pulled from the cursor at a time
constexpr std::uint64_t kFast = 3;    // counts up to this take the branch-free path

// Keeps the unread points x[t, size) at the front, appends new ones from the cursor and puts
// kFast + 1 sentinels (above every wheel position) after them. Returns the new size; `more` turns
// false once the cursor is exhausted.
template <class Cursor>
RSMC_MERGE_WALK_NOINLINE RSMC_HOST_DEVICE std::uint64_t refill(exact::u128* x, std::uint64_t t, std::uint64_t size,
                                                               Cursor& cursor, bool& more) {
  const std::uint64_t keep = size - t;
  for (std::uint64_t k = 0; k < keep; ++k) x[k] = x[t + k];
  size = keep;
  if (more) {
    const std::uint64_t got = cursor.fill(x + size, kBlock - size);
    more = got == kBlock - size;
    size += got;
  }
  for (std::uint64_t k = 0; k <= kFast; ++k) x[size + k] = ~exact::u128(0);
  return size;
}

}  // namespace merge_walk_detail

namespace merge_walk_detail {

#if defined(__CUDACC__)
#define RSMC_MERGE_WALK_INLINE __forceinline__ __host__ __device__
#else
#define RSMC_MERGE_WALK_INLINE __attribute__((always_inline)) RSMC_HOST_DEVICE
#endif

// What the walks of a kernel read and never write, by value: read through the WalkChunk, every
// store to the ancestors could alias it and force a reload.
template <class Weight>
struct Fixed {
  const Weight* weight;
  const std::uint64_t* copies;
  std::uint64_t* ancestor;
  std::uint64_t* counts;
};

// The parts of one walk's state that only a refill touches (memory): the point buffer, the cursor,
// the number of points in the buffer and whether the cursor has more. The hot state (read pointer
// p, refill mark, running sum, output position) stays in the caller's locals.
template <class Cursor>
struct Lane {
  exact::u128* x;
  Cursor* cursor;
  std::uint64_t* size;
  bool* more;
};

// x[0 .. kFast] readable after a refill: the mark past which p triggers the next one.
RSMC_MERGE_WALK_INLINE const exact::u128* refill_mark(const exact::u128* x, std::uint64_t size, bool more) {
  return more ? x + size - (kFast + 1) : x + size;
}

template <class Cursor>
RSMC_MERGE_WALK_INLINE void refill_lane(const Lane<Cursor>& lane, const exact::u128*& p, const exact::u128*& limit) {
  *lane.size = refill(lane.x, static_cast<std::uint64_t>(p - lane.x), *lane.size, *lane.cursor, *lane.more);
  p = lane.x;
  limit = refill_mark(lane.x, *lane.size, *lane.more);
}

// Particle i of one walk whose output range ends at `last`. Sets `failed` when the chunk's points
// and weights disagree (more offspring than the range holds).
template <bool kCopies, bool kCounts, class Weight, class Cursor>
RSMC_MERGE_WALK_INLINE void step(std::uint64_t i, const Fixed<Weight>& f, std::uint64_t last, const Lane<Cursor>& lane,
                                 const exact::u128*& p, const exact::u128*& limit, exact::u128& cumulative,
                                 std::uint64_t& pos, bool& failed) {
  using exact::u128;
  if constexpr (sizeof(Weight) == sizeof(std::uint64_t)) {  // add/adc (GCC otherwise widens via the stack)
    const std::uint64_t w = f.weight[i];
    std::uint64_t lo = static_cast<std::uint64_t>(cumulative), hi = static_cast<std::uint64_t>(cumulative >> 64);
    lo += w;
    hi += lo < w ? 1 : 0;
    cumulative = (u128(hi) << 64) | lo;
  } else {
    cumulative += f.weight[i];
  }
  if (p > limit) refill_lane(lane, p, limit);
  const std::uint64_t fixed = kCopies ? f.copies[i] : 0;
  const bool hit0 = p[0] < cumulative, hit1 = p[1] < cumulative, hit2 = p[2] < cumulative;
  const std::uint64_t hits = std::uint64_t(hit0) + std::uint64_t(hit1) + std::uint64_t(hit2);
  std::uint64_t count = fixed + hits;
  if (!(p[3] < cumulative) && count <= kFast && pos + kFast <= last) {
    f.ancestor[pos] = i;
    f.ancestor[pos + 1] = i;
    f.ancestor[pos + 2] = i;
    p += hits;
  } else {
    std::uint64_t all_hits = 0;
    while (p[0] < cumulative) {
      ++p;
      ++all_hits;
      if (p > limit) refill_lane(lane, p, limit);
    }
    count = fixed + all_hits;
    if (count > last - pos) {
      failed = true;
      count = last - pos;
    }
    for (std::uint64_t k = 0; k < count; ++k) f.ancestor[pos + k] = i;
  }
  pos += count;
  if (kCounts) f.counts[i] = count;
}

template <class Weight>
RSMC_HOST_DEVICE Fixed<Weight> fixed_of(const WalkChunk<Weight>& c) {
  return Fixed<Weight>{c.weight, c.copies, c.ancestor, c.counts};
}

}  // namespace merge_walk_detail

// The walk of one chunk; `cursor` yields exactly the points of the chunk's wheel interval.
// The fast path compares the cumulative weight with the next kFast + 1 points (the last one only to
// confirm the count is at most kFast) and stores kFast copies of the index.
template <bool kCopies, bool kCounts, class Weight, class Cursor>
RSMC_MERGE_WALK_NOINLINE RSMC_HOST_DEVICE bool merge_walk(const WalkChunk<Weight>& c, Cursor& cursor) {
  using exact::u128;
  namespace d = merge_walk_detail;
  u128 x[d::kBlock + d::kFast + 1];
  bool more = true, failed = false;
  std::uint64_t size = d::refill(x, 0, 0, cursor, more);
  const d::Lane<Cursor> lane{x, &cursor, &size, &more};
  const d::Fixed<Weight> f = d::fixed_of(c);
  const u128* p = x;
  const u128* limit = d::refill_mark(x, size, more);
  u128 cumulative = c.start;
  std::uint64_t pos = c.first;
  const std::uint64_t last = c.last;
  for (std::uint64_t i = c.begin, end = c.end; i < end; ++i)
    d::step<kCopies, kCounts>(i, f, last, lane, p, limit, cumulative, pos, failed);
  return !failed && pos == last && p == x + size && !more;
}

// Two chunks of equal length walked in lockstep on one thread: each walk's next point depends on
// its previous comparisons (a chain of loads and compares through the buffer), so one walk alone
// leaves the core waiting; two independent chains overlap. The same results as two merge_walk().
// Both chunks index the same weights and ancestors (Fixed is shared).
template <bool kCopies, bool kCounts, class Weight, class Cursor>
RSMC_MERGE_WALK_NOINLINE RSMC_HOST_DEVICE bool merge_walk_pair(const WalkChunk<Weight>& a, Cursor& cursor_a,
                                                               const WalkChunk<Weight>& b, Cursor& cursor_b) {
  using exact::u128;
  namespace d = merge_walk_detail;
  u128 xa[d::kBlock + d::kFast + 1], xb[d::kBlock + d::kFast + 1];
  bool more_a = true, more_b = true, failed = false;
  std::uint64_t size_a = d::refill(xa, 0, 0, cursor_a, more_a), size_b = d::refill(xb, 0, 0, cursor_b, more_b);
  const d::Lane<Cursor> lane_a{xa, &cursor_a, &size_a, &more_a}, lane_b{xb, &cursor_b, &size_b, &more_b};
  const d::Fixed<Weight> f = d::fixed_of(a);
  const u128 *pa = xa, *pb = xb;
  const u128 *limit_a = d::refill_mark(xa, size_a, more_a), *limit_b = d::refill_mark(xb, size_b, more_b);
  u128 cumulative_a = a.start, cumulative_b = b.start;
  std::uint64_t pos_a = a.first, pos_b = b.first;
  const std::uint64_t last_a = a.last, last_b = b.last, shift = b.begin - a.begin;
  for (std::uint64_t i = a.begin, end = a.end; i < end; ++i) {
    d::step<kCopies, kCounts>(i, f, last_a, lane_a, pa, limit_a, cumulative_a, pos_a, failed);
    d::step<kCopies, kCounts>(i + shift, f, last_b, lane_b, pb, limit_b, cumulative_b, pos_b, failed);
  }
  return !failed && pos_a == last_a && pa == xa + size_a && !more_a && pos_b == last_b && pb == xb + size_b && !more_b;
}

}  // namespace rsmc
