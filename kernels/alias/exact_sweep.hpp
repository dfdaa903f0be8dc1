// The per-thread steps of the exact (std::uint64_t weight) alias construction: block summaries, the
// split, the section sweep of PSA and the greedy sweep of PSA+. kernels/alias/psa.hpp runs them as
// Kokkos kernels; here they are plain RSMC_HOST_DEVICE functions on pointers (no Kokkos), so that one
// thread's work can be read, tested and timed on its own.
//
// Notation (alias_core.hpp): n < 2^32 items, weights w_p, total W < 2^96; scaled weights v_p = n w_p,
// every row of capacity W. Item p is light if v_p < W, i.e. w_p < ceil(W / n) (`light_bound`, one
// 64-bit comparison), heavy otherwise. Lights and heavies are taken in increasing position.
//
// Vose's sweep as a merge (alias_core.hpp): with D(i) the deficits W - v of lights 0..i-1 and E(j)
// the excesses v - W of heavies 0..j-1, the state (i lights done, j heavies done) has heavy j current
// with the residual r = v_j - (D(i) - E(j)); the sweep fills light i from heavy j while r > W, else
// heavy j's row gets threshold r and alias heavy j + 1 (itself if r = W), and heavy j + 1 becomes
// current with residual v_{j+1} - (W - r). All of it is exact in 128 bits (n W < 2^128), so the table
// does not depend on where the sweep is cut: any state on the merge path can start a section.
//
// What a sweep reads about the items is kept small:
//   - two bit masks (a light and a heavy bit per position; an item in neither is not part of this
//     sweep, e.g. a row PSA+'s greedy pass already finished);
//   - per block of kBlockItems positions, the number of lights and heavies in it and the sums of
//     their deficits and excesses, turned into exclusive prefix sums over the blocks (entry `blocks`
//     holds the totals). They locate light i and heavy j (position, D(i), E(j)) with a binary search
//     over the blocks and a walk over one block's bits, which is all the split needs (co-ranks by
//     binary search, as in PSA; Huebschle-Schneider and Sanders, "Parallel weighted random
//     sampling", 2019);
//   - the weights themselves, read only for items of the sweep. PSA+ leaves at most one item per
//     greedy section with a residual instead of its weight (`partial_*`).
// A section's sweep finds its next light and next heavy by scanning the masks (or, in PSA+'s greedy
// pass, the weights themselves) like the sequential sweep of Huebschle-Schneider and Sanders.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/alias/alias_core.hpp"

namespace rsmc::kernels::alias::sweep {

using Row = AliasRow<std::uint64_t>;

// Positions per block summary: the walk of a lookup reads at most this many bits (and the weights of
// the matching items). A multiple of 64.
constexpr std::uint64_t kBlockItems = 1024;
constexpr std::uint64_t kWordsPerBlock = kBlockItems / 64;

RSMC_HOST_DEVICE int lowest_bit(std::uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// ceil(W / n): w < light_bound(W, n) exactly when n w < W.
RSMC_HOST_DEVICE std::uint64_t light_bound(u128 total, std::uint64_t n) {
  return static_cast<std::uint64_t>((total + (n - 1)) / n);
}

// The items of one sweep: weights, capacity, the two masks and (PSA+) the residuals.
struct Items {
  const std::uint64_t* w = nullptr;
  std::uint64_t n = 0;
  u128 cap = 0;                         // W
  std::uint64_t bound = 0;              // light_bound(W, n)
  std::uint64_t* light_mask = nullptr;  // bit p of word p / 64: item p is a light of this sweep
  std::uint64_t* heavy_mask = nullptr;  // ... a heavy of this sweep
  // PSA+ only (else null): greedy section g = p >> greedy_shift left item partial_pos[g] (n if none)
  // with the residual partial_value[g] in place of its scaled weight.
  const std::uint64_t* partial_pos = nullptr;
  const u128* partial_value = nullptr;
  unsigned greedy_shift = 0;

  RSMC_HOST_DEVICE u128 scaled(std::uint64_t p) const { return static_cast<u128>(w[p]) * n; }
  RSMC_HOST_DEVICE u128 value(std::uint64_t p) const {
    if (partial_pos != nullptr) {
      const std::uint64_t g = p >> greedy_shift;
      if (partial_pos[g] == p) return partial_value[g];
    }
    return scaled(p);
  }
  RSMC_HOST_DEVICE std::uint64_t words() const { return (n + 63) / 64; }
};

// Exclusive prefix sums over the blocks (blocks + 1 entries each; entry b covers blocks 0..b-1).
// counts packs the two counts: lights in the high 32 bits, heavies in the low 32 (both < 2^32).
struct Prefix {
  const std::uint64_t* counts = nullptr;
  const u128* deficit = nullptr;
  const u128* excess = nullptr;
  std::uint64_t blocks = 0;

  RSMC_HOST_DEVICE std::uint64_t lights_before(std::uint64_t b) const { return counts[b] >> 32; }
  RSMC_HOST_DEVICE std::uint64_t heavies_before(std::uint64_t b) const { return counts[b] & 0xffffffffu; }
  RSMC_HOST_DEVICE std::uint64_t lights() const { return lights_before(blocks); }
  RSMC_HOST_DEVICE std::uint64_t heavies() const { return heavies_before(blocks); }
};

RSMC_HOST_DEVICE std::uint64_t pack_counts(std::uint64_t lights, std::uint64_t heavies) {
  return (lights << 32) | heavies;
}

// ---- block summaries ---------------------------------------------------------------------------

// One block's counts and sums, to be prefix-summed.
struct BlockSums {
  std::uint64_t counts = 0;
  u128 deficit = 0;
  u128 excess = 0;
};

// PSA: every item of block b takes part. Writes the block's mask words and returns its sums. The
// weights of lights and heavies are summed in 32-bit halves (at most kBlockItems terms each, so
// 64-bit sums are exact) and scaled once.
RSMC_HOST_DEVICE BlockSums summarize_all(const Items& it, std::uint64_t b) {
  const std::uint64_t first = b * kBlockItems;
  const std::uint64_t end = first + kBlockItems < it.n ? first + kBlockItems : it.n;
  std::uint64_t light_lo = 0, light_hi = 0, heavy_lo = 0, heavy_hi = 0, lights = 0;
  for (std::uint64_t word = first / 64; word * 64 < end; ++word) {
    const std::uint64_t base = word * 64;
    const std::uint64_t len = end - base < 64 ? end - base : 64;
    std::uint64_t bits = 0;
    for (std::uint64_t q = 0; q < len; ++q) {
      const std::uint64_t x = it.w[base + q];
      const std::uint64_t light = x < it.bound ? 1 : 0;
      const std::uint64_t xl = x & (0 - light);  // x if light, else 0
      const std::uint64_t xh = x - xl;
      bits |= light << q;
      lights += light;
      light_lo += xl & 0xffffffffu;
      light_hi += xl >> 32;
      heavy_lo += xh & 0xffffffffu;
      heavy_hi += xh >> 32;
    }
    const std::uint64_t valid = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    it.light_mask[word] = bits;
    it.heavy_mask[word] = ~bits & valid;
  }
  const std::uint64_t heavies = end - first - lights;
  const u128 light_sum = (static_cast<u128>(light_hi) << 32) + light_lo;
  const u128 heavy_sum = (static_cast<u128>(heavy_hi) << 32) + heavy_lo;
  BlockSums s;
  s.counts = pack_counts(lights, heavies);
  s.deficit = static_cast<u128>(lights) * it.cap - light_sum * it.n;
  s.excess = heavy_sum * it.n - static_cast<u128>(heavies) * it.cap;
  return s;
}

RSMC_HOST_DEVICE std::uint64_t popcount(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__popcll(static_cast<unsigned long long>(x)));
#else
  return static_cast<std::uint64_t>(__builtin_popcountll(x));
#endif
}

// The weights of the lights and of the heavies of one mask word, added in 32-bit halves (at most
// kBlockItems terms per block, so the 64-bit sums are exact). Branch-free over the word's positions,
// so that it vectorises: the leftovers of a greedy section are dense runs.
struct HalfSums {
  std::uint64_t light_lo = 0, light_hi = 0, heavy_lo = 0, heavy_hi = 0;
};
RSMC_HOST_DEVICE void add_word(const std::uint64_t* x, std::uint64_t len, std::uint64_t light, std::uint64_t heavy,
                               HalfSums& s) {
  for (std::uint64_t q = 0; q < len; ++q) {
    const std::uint64_t xl = x[q] & (0 - ((light >> q) & 1));
    const std::uint64_t xh = x[q] & (0 - ((heavy >> q) & 1));
    s.light_lo += xl & 0xffffffffu;
    s.light_hi += xl >> 32;
    s.heavy_lo += xh & 0xffffffffu;
    s.heavy_hi += xh >> 32;
  }
}

// The sums of block b from its mask words as they stand, with PSA+'s residual in place of the
// partial item's scaled weight (a greedy section spans whole blocks, so a block holds at most one).
RSMC_HOST_DEVICE BlockSums summarize_masks(const Items& it, std::uint64_t b) {
  HalfSums h;
  std::uint64_t lights = 0, heavies = 0;
  const std::uint64_t first = b * kBlockItems;
  const std::uint64_t end = first + kBlockItems < it.n ? first + kBlockItems : it.n;
  for (std::uint64_t word = first / 64; word * 64 < end; ++word) {
    const std::uint64_t light = it.light_mask[word], heavy = it.heavy_mask[word];
    if ((light | heavy) == 0) continue;
    const std::uint64_t base = word * 64;
    add_word(it.w + base, end - base < 64 ? end - base : 64, light, heavy, h);
    lights += popcount(light);
    heavies += popcount(heavy);
  }
  u128 light_total = ((static_cast<u128>(h.light_hi) << 32) + h.light_lo) * it.n;
  u128 heavy_total = ((static_cast<u128>(h.heavy_hi) << 32) + h.heavy_lo) * it.n;
  if (it.partial_pos != nullptr) {
    const std::uint64_t g = first >> it.greedy_shift;
    const std::uint64_t p = it.partial_pos[g];
    if (p >= first && p < end) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (it.light_mask[p / 64] & bit) light_total = light_total - it.scaled(p) + it.partial_value[g];
      if (it.heavy_mask[p / 64] & bit) heavy_total = heavy_total - it.scaled(p) + it.partial_value[g];
    }
  }
  BlockSums s;
  s.counts = pack_counts(lights, heavies);
  s.deficit = static_cast<u128>(lights) * it.cap - light_total;
  s.excess = heavy_total - static_cast<u128>(heavies) * it.cap;
  return s;
}

// ---- lookups and the split ---------------------------------------------------------------------

// The k-th item of one kind (light or heavy) of the sweep: its position (n if there is none) and the
// sum of the deficits (lights) or excesses (heavies) of the items of that kind before it.
struct Located {
  std::uint64_t pos;
  u128 before;
};

RSMC_HOST_DEVICE Located locate(const Items& it, const Prefix& pre, bool light, std::uint64_t k) {
  const auto count_before = [&](std::uint64_t b) { return light ? pre.lights_before(b) : pre.heavies_before(b); };
  const u128* sums = light ? pre.deficit : pre.excess;
  if (k >= count_before(pre.blocks)) return Located{it.n, sums[pre.blocks]};
  std::uint64_t lo = 0, hi = pre.blocks;  // the last block b with count_before(b) <= k holds item k
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (count_before(mid) <= k)
      lo = mid;
    else
      hi = mid;
  }
  std::uint64_t rest = k - count_before(lo);
  u128 before = sums[lo];
  const std::uint64_t* mask = light ? it.light_mask : it.heavy_mask;
  for (std::uint64_t word = lo * kWordsPerBlock;; ++word) {
    for (std::uint64_t bits = mask[word]; bits != 0; bits &= bits - 1) {
      const std::uint64_t p = word * 64 + lowest_bit(bits);
      if (rest == 0) return Located{p, before};
      const u128 v = it.value(p);
      before += light ? it.cap - v : v - it.cap;
      --rest;
    }
  }
}

// The number of lights among the first m items of the merge: the smallest i in
// [max(0, m - heavies), min(m, lights)] with D(i) >= E(m - i) (light i does not precede heavy
// m - i - 1), by binary search.
RSMC_HOST_DEVICE std::uint64_t corank(const Items& it, const Prefix& pre, std::uint64_t m) {
  std::uint64_t lo = m > pre.heavies() ? m - pre.heavies() : 0;
  std::uint64_t hi = m < pre.lights() ? m : pre.lights();
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (locate(it, pre, true, mid).before < locate(it, pre, false, m - mid).before)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Merged items before section k of `sections`.
RSMC_HOST_DEVICE std::uint64_t boundary(std::uint64_t k, std::uint64_t merged, std::uint64_t sections) {
  return static_cast<std::uint64_t>(static_cast<u128>(k) * merged / sections);
}

// ---- the sweep ------------------------------------------------------------------------------------

// A forward cursor over the set bits of a mask in [p, end): the current word and its set bits at or
// after the current position, so that stepping to the next set bit is a few instructions (no reload,
// no shift). Its range's last word (`last`) and `end` come from the caller (a sweep's two cursors
// share them; fewer live values keep the sweep's loops in registers). The words it reads are those of
// [p, end) only; no bit at or past `end` may be set in them (end is a multiple of 64, or n, past which
// the masks are zero).
struct BitCursor {
  const std::uint64_t* mask;
  std::uint64_t word;  // the word `bits` came from
  std::uint64_t bits;  // its set bits at or after the current position; 0 once past the last

  RSMC_HOST_DEVICE static std::uint64_t last_word(std::uint64_t end) { return end == 0 ? 0 : (end - 1) / 64; }
  RSMC_HOST_DEVICE static BitCursor at(const std::uint64_t* mask, std::uint64_t p, std::uint64_t end) {
    if (p >= end) return BitCursor{mask, 0, 0};
    BitCursor c{mask, p / 64, mask[p / 64] & (~std::uint64_t{0} << (p % 64))};
    c.skip_empty(last_word(end));
    return c;
  }
  RSMC_HOST_DEVICE void skip_empty(std::uint64_t last) {
    while (bits == 0 && word < last) bits = mask[++word];
  }
  RSMC_HOST_DEVICE bool done() const { return bits == 0; }
  RSMC_HOST_DEVICE std::uint64_t pos(std::uint64_t end) const { return bits == 0 ? end : word * 64 + lowest_bit(bits); }
  RSMC_HOST_DEVICE void next(std::uint64_t last) {
    bits &= bits - 1;
    skip_empty(last);
  }
};

// Where a sweep finds its items: in the masks, within [.., end) (PSA's sweep: every item, or PSA+'s
// leftovers, whose residuals Partials reads; a greedy section: its own items, classified first).
template <bool Partials>
struct MaskSource {
  static constexpr bool partials = Partials;
  const Items* it;
  std::uint64_t end;
  RSMC_HOST_DEVICE std::uint64_t last() const { return BitCursor::last_word(end); }
  RSMC_HOST_DEVICE BitCursor lights_from(std::uint64_t p) const { return BitCursor::at(it->light_mask, p, end); }
  RSMC_HOST_DEVICE BitCursor heavies_from(std::uint64_t p) const { return BitCursor::at(it->heavy_mask, p, end); }
  RSMC_HOST_DEVICE u128 value(std::uint64_t p) const { return Partials ? it->value(p) : it->scaled(p); }
};

// The state of a sweep: the next light's position (src.end if none), the current heavy and its
// residual.
struct SweepState {
  std::uint64_t light;
  std::uint64_t heavy;
  u128 r;
};

// fill_lights' 64-bit loop for PSA+'s greedy sections (plain scaled weights, no step limit), on the
// cursor's word and bits directly: few live values, so that the loop keeps them in registers.
RSMC_HOST_DEVICE std::int64_t fill_greedy_lights64(const std::uint64_t* w, std::uint64_t n, std::uint64_t c, Row* rows,
                                                   std::uint64_t h, BitCursor& lights, std::uint64_t last,
                                                   std::int64_t left) {
  std::uint64_t bits = lights.bits, word = lights.word;
  const std::uint64_t upper = Row::upper_of(h);
  for (;;) {
    while (bits != 0) {
      const std::uint64_t i = word * 64 + lowest_bit(bits);
      bits &= bits - 1;
      const std::uint64_t v = w[i] * n;  // < c: no wrap
      Row::store_below_2_64(rows + i, v, upper);
      left -= static_cast<std::int64_t>(c - v);
      if (left <= 0) {
        lights.word = word;
        lights.bits = bits;
        lights.skip_empty(last);
        return left;
      }
    }
    if (word >= last) break;
    bits = lights.mask[++word];
  }
  lights.word = word;
  lights.bits = 0;
  return left;
}

// The inner loop of a sweep: fills lights from heavy h, whose residual is r, while r exceeds a
// bucket, a light is left and (PSA's sections) steps remain; returns the residual. The lights'
// values are below cap, so when cap < 2^62 the loop runs in 64 bits: it spends a budget of at most
// 2^62 of the heavy's excess r - cap (a signed 64-bit count that the deficits cap - v bring below
// zero), then takes what it spent off r in 128 bits and goes on if the budget was capped. The rows
// and the residual are those of the 128-bit loop, bit for bit; the loop-carried chain is one 64-bit
// subtraction.
template <bool Greedy, class Source>
RSMC_HOST_DEVICE u128 fill_lights(const Source& src, u128 cap, Row* rows, BitCursor& lights, std::uint64_t last,
                                  std::uint64_t h, u128 r, std::uint64_t& steps) {
  constexpr std::uint64_t kBudgetMax = std::uint64_t{1} << 62;
  if (cap < kBudgetMax) {
    const std::uint64_t c = static_cast<std::uint64_t>(cap);
    while (r > cap && !lights.done() && (Greedy || steps > 0)) {
      const u128 excess = r - cap;
      const std::int64_t budget = static_cast<std::int64_t>(excess < kBudgetMax ? excess : kBudgetMax);
      std::int64_t left = budget;
      if (Greedy && !Source::partials) {
        left = fill_greedy_lights64(src.it->w, src.it->n, c, rows, h, lights, last, left);
        r -= static_cast<std::uint64_t>(budget) - static_cast<std::uint64_t>(left);
        continue;
      }
      const std::uint64_t upper = Row::upper_of(h);
      do {
        const std::uint64_t i = lights.pos(src.end);
        const std::uint64_t v = static_cast<std::uint64_t>(src.value(i));  // < cap
        Row::store_below_2_64(rows + i, v, upper);
        left -= static_cast<std::int64_t>(c - v);  // > -2^63: left > 0 before, c - v < 2^62
        lights.next(last);
        --steps;
      } while (left > 0 && !lights.done() && (Greedy || steps > 0));
      r -= static_cast<std::uint64_t>(budget) - static_cast<std::uint64_t>(left);  // the deficits filled, < 2^63
    }
    return r;
  }
  while (r > cap && !lights.done() && (Greedy || steps > 0)) {
    const std::uint64_t i = lights.pos(src.end);
    const u128 v = src.value(i);
    rows[i] = Row::make(v, h);
    r = r - (cap - v);
    lights.next(last);
    --steps;
  }
  return r;
}

// Vose's sweep from state s: fills lights from the current heavy while its residual exceeds a bucket
// (and a light is left), then finishes the heavy (threshold r; alias itself if r = cap, else the next
// heavy, which becomes current with residual r + its value - cap), and so on. Greedy (PSA+'s sections)
// stops when the heavy needs a light and none is left, or is done (r < cap) and no heavy is left: then
// s describes what is left. Otherwise (PSA's sections) it writes exactly `steps` rows. The loops follow
// runs of lights (most items for skewed weights), where their branches are predictable.
template <bool Greedy, class Source>
RSMC_HOST_DEVICE SweepState sweep(const Source& src, u128 cap, Row* rows, SweepState s, std::uint64_t steps) {
  const std::uint64_t last = src.last(), end = src.end;
  BitCursor lights = src.lights_from(s.light);
  BitCursor heavies = src.heavies_from(s.heavy + 1);  // the heavies after the current one
  std::uint64_t h = s.heavy;
  u128 r = s.r;
  for (;;) {
    r = fill_lights<Greedy>(src, cap, rows, lights, last, h, r, steps);
    if ((!Greedy && steps == 0) || r > cap) return SweepState{lights.pos(end), h, r};  // Greedy: out of lights
    if (heavies.done()) {  // no heavy left: PSA's last heavy (r = cap), or a greedy section's end
      if (r == cap) rows[h] = Row::make(r, h);
      return SweepState{lights.pos(end), r == cap ? end : h, r};
    }
    const std::uint64_t next = heavies.pos(end);
    rows[h] = Row::make(r, r == cap ? h : next);
    r = r + src.value(next) - cap;  // r <= cap <= value: no wrap
    h = next;
    heavies.next(last);
    --steps;
  }
}

// PSA: `steps` rows from the state (i0 lights, j0 heavies) on the merge path of the whole sweep (i0 +
// j0 and i0 + j0 + steps are section boundaries, i0 a co-rank).
RSMC_HOST_DEVICE void sweep_section(const Items& it, const Prefix& pre, Row* rows, std::uint64_t i0, std::uint64_t j0,
                                    std::uint64_t steps) {
  if (steps == 0) return;
  const Located light = locate(it, pre, true, i0);
  const Located heavy = locate(it, pre, false, j0);
  if (heavy.pos >= it.n) return;  // exact arithmetic: a state with steps left has a current heavy
  const u128 r = it.value(heavy.pos) - (light.before - heavy.before);  // D(i0) >= E(j0) on the merge path
  const SweepState start{light.pos, heavy.pos, r};
  if (it.partial_pos != nullptr)
    sweep<false>(MaskSource<true>{&it, it.n}, it.cap, rows, start, steps);
  else
    sweep<false>(MaskSource<false>{&it, it.n}, it.cap, rows, start, steps);
}

// ---- PSA+: the greedy sweep of one section -----------------------------------------------------

// What a greedy section leaves: the items of one kind at positions >= from (all lights there, or all
// heavies there), plus `partial` (it.n if none) with its residual.
struct Leftovers {
  std::uint64_t from;
  bool lights;  // the kind left at positions >= from
  std::uint64_t partial;
  u128 partial_value;
};

// Bit q set where w[q] < bound, for q < len. The first form (a fixed 64) compares into bytes, which
// vectorises, and packs each 8 flag bytes into 8 bits with one multiplication: byte k (0 or 1) of x
// lands at bit 56 + k of x * 0x0102040810204080, and no two partial products share a bit, so nothing
// carries. GCC does not vectorise the plain `bits |= flag << q` loop.
RSMC_HOST_DEVICE std::uint64_t light_bits(const std::uint64_t* w, std::uint64_t bound) {
  unsigned char flags[64];
  for (int q = 0; q < 64; ++q) flags[q] = w[q] < bound ? 1 : 0;
  std::uint64_t bits = 0;
  for (int k = 0; k < 8; ++k) {
    std::uint64_t x;  // flags 8k .. 8k + 7, byte q at bits 8q (x86-64 and CUDA are little-endian)
    std::memcpy(&x, flags + 8 * k, 8);
    bits |= ((x * 0x0102040810204080ull) >> 56) << (8 * k);
  }
  return bits;
}
RSMC_HOST_DEVICE std::uint64_t light_bits(const std::uint64_t* w, std::uint64_t bound, std::uint64_t len) {
  std::uint64_t bits = 0;
  for (std::uint64_t q = 0; q < len; ++q) bits |= (w[q] < bound ? std::uint64_t{1} : 0) << q;
  return bits;
}

// Classifies the items of [first, end) into the masks (first a multiple of 64; end too, or n).
RSMC_HOST_DEVICE void classify(const Items& it, std::uint64_t first, std::uint64_t end) {
  for (std::uint64_t word = first / 64; word * 64 < end; ++word) {
    const std::uint64_t base = word * 64;
    const std::uint64_t len = end - base < 64 ? end - base : 64;
    const std::uint64_t bits = len == 64 ? light_bits(it.w + base, it.bound) : light_bits(it.w + base, it.bound, len);
    const std::uint64_t valid = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    it.light_mask[word] = bits;
    it.heavy_mask[word] = ~bits & valid;
  }
}

// Vose's sweep restricted to the items of [first, end) (Huebschle-Schneider and Sanders' PSA+ greedy
// step, over a fixed section so that the result does not depend on the threads): fills rows until the
// section runs out of lights (while the current heavy still holds more than a bucket) or of heavies
// (when the current heavy is done), and returns what is left. Every row it writes is final and exact;
// the leftovers carry exactly (their count) x W of weight.
RSMC_HOST_DEVICE Leftovers greedy_sweep(const Items& it, Row* rows, std::uint64_t first, std::uint64_t end) {
  classify(it, first, end);
  const MaskSource<false> src{&it, end};
  const std::uint64_t h = src.heavies_from(first).pos(end);
  if (h == end) return Leftovers{first, true, it.n, 0};  // no heavy: every light is left
  const SweepState s = sweep<true>(src, it.cap, rows, SweepState{first, h, it.scaled(h)}, 0);
  if (s.r > it.cap) return Leftovers{s.heavy, false, s.heavy, s.r};  // out of lights: the heavy and later heavies
  if (s.heavy == end) return Leftovers{s.light, true, it.n, 0};      // the last heavy is exactly done
  return Leftovers{s.light, true, s.heavy, s.r};                     // out of heavies: a light residual
}

// Rewrites the masks of [first, end) to the leftovers of its greedy sweep: the items of the left kind
// at positions >= from, and the partial item classified by its residual.
RSMC_HOST_DEVICE void mask_leftovers(const Items& it, const Leftovers& left, std::uint64_t first, std::uint64_t end) {
  for (std::uint64_t word = first / 64; word * 64 < end; ++word) {
    const std::uint64_t base = word * 64;
    std::uint64_t keep = 0;  // positions >= from
    if (left.from <= base)
      keep = ~std::uint64_t{0};
    else if (left.from < base + 64)
      keep = ~std::uint64_t{0} << (left.from - base);
    std::uint64_t light = left.lights ? it.light_mask[word] & keep : 0;
    std::uint64_t heavy = left.lights ? 0 : it.heavy_mask[word] & keep;
    if (left.partial < it.n && left.partial >= base && left.partial < base + 64) {
      const std::uint64_t bit = std::uint64_t{1} << (left.partial - base);
      light &= ~bit;
      heavy &= ~bit;
      if (left.partial_value < it.cap)
        light |= bit;
      else
        heavy |= bit;
    }
    it.light_mask[word] = light;
    it.heavy_mask[word] = heavy;
  }
}

}  // namespace rsmc::kernels::alias::sweep
