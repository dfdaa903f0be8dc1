// Alias tables: the row and item types and every per-row / per-section step that the sequential
// reference (vose.hpp), the portable Kokkos construction (psa.hpp), the native CUDA kernels
// (kernels/cuda/alias.cu) and their host twins (kernels/host/alias_*.hpp) share. No Kokkos here, so
// that raw CUDA code can include it; everything device-callable is RSMC_HOST_DEVICE.
//
// The table (Walker 1977; Vose 1991). n items with weights w_i, total W. Every row is a bucket of the
// same capacity; row i keeps the share `threshold` of its bucket for item i and gives the rest to item
// `alias`. A draw picks a row uniformly and an offset uniformly inside the bucket: item i if offset <
// threshold, else alias. Item i is drawn with probability (its shares over all rows) / (n capacity).
//   - double weights: capacity = W / n (rounded), thresholds in weight units; a draw's offset is
//     uniform() * capacity.
//   - std::uint64_t weights, exactly: every weight is scaled by n (n w_i, a 128-bit integer), so each
//     row's capacity is the total W and all arithmetic is exact in `exact::u128`. Summing each item's
//     shares over all rows gives n w_i exactly; a draw's offset is uniform_below(W), so item i is drawn
//     with probability n w_i / (n W) = w_i / W exactly (up to the generator).
// Invariants of every table built here: alias < n; 0 <= threshold <= capacity; a row whose threshold
// equals the capacity has alias == its own index (so rounding in offset < threshold cannot matter);
// an item of weight zero is never drawn (its own row has threshold 0 and every alias has a positive
// weight).
//
// Construction order (shared by Vose, PSA and PSA+): items are split into lights (scaled weight <
// capacity) and heavies (>= capacity), each list in increasing item order. With deficits d = capacity
// - w of the lights and excesses e = w - capacity of the heavies, D(i) is the sum of the deficits of
// lights 0..i-1 and E(j) the sum of the excesses of heavies 0..j-1. Vose's sweep keeps one current
// heavy j and, at state (i lights done, j heavies done), either
//   - fills light i from heavy j (row of light i = {w, heavy j}) if D(i) < E(j + 1), i.e. heavy j still
//     has more than a bucket left, or
//   - finishes heavy j, whose remainder capacity + E(j + 1) - D(i) <= capacity becomes its own threshold
//     and whose row is completed by heavy j + 1.
// Read as a merge of the two sorted key sequences D(i) (lights) and E(j + 1) (heavies), the sweep is a
// merge path, and the state after m merged items is the co-rank of m (the number of lights among the
// first m), found by binary search: that is the PSA split (Huebschle-Schneider and Sanders, "Parallel
// weighted random sampling", 2019). Sections between consecutive splits pack independently with the
// same decisions and the same arithmetic as the sweep, so for integer weights Vose and PSA tables are
// identical bit for bit. For doubles, Vose keeps a running remainder while PSA evaluates
// capacity - (D(i) - E(j + 1)) from prefix sums; both round, both are clamped into [0, capacity].
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/core/error.hpp"
#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::kernels::alias {

using exact::u128;

// What the weight type Weight means for a table: the type of scaled weights, thresholds, capacities and
// prefix sums (value_type), the scaling, and how a draw picks its offset inside a bucket.
template <class Weight>
struct AliasTraits;

template <>
struct AliasTraits<double> {
  using value_type = double;
  static constexpr bool is_exact = false;
  RSMC_HOST_DEVICE static double scaled(double w, std::uint64_t /*n*/) { return w; }
  RSMC_HOST_DEVICE static double offset(rng::Stream& s, double capacity) { return s.uniform() * capacity; }
};

template <>
struct AliasTraits<std::uint64_t> {
  using value_type = u128;
  static constexpr bool is_exact = true;
  RSMC_HOST_DEVICE static u128 scaled(std::uint64_t w, std::uint64_t n) { return static_cast<u128>(w) * n; }
  RSMC_HOST_DEVICE static u128 offset(rng::Stream& s, u128 capacity) { return rng::uniform_below(s, capacity); }
};

template <class Weight>
using alias_value_t = typename AliasTraits<Weight>::value_type;

// One table row, 16 bytes (one 128-bit load or store) for both weight types; read it through
// threshold() and alias(), write it with make().
//   - double: the threshold as a double and the alias as a 64-bit index;
//   - std::uint64_t: the threshold is at most the capacity W < n 2^64 < 2^96 (n < 2^32, see
//     check_alias_size), so it is kept in 96 bits (low 64 + high 32) beside a 32-bit alias.
template <class Weight>
struct AliasRow;

template <>
struct alignas(16) AliasRow<double> {
  double threshold_value;     // share of this row that stays with the row's own item
  std::uint64_t alias_index;  // the item that owns the rest of the row
  RSMC_HOST_DEVICE double threshold() const { return threshold_value; }
  RSMC_HOST_DEVICE std::uint64_t alias() const { return alias_index; }
  RSMC_HOST_DEVICE static AliasRow make(double threshold, std::uint64_t alias) { return AliasRow{threshold, alias}; }
};

template <>
struct alignas(16) AliasRow<std::uint64_t> {
  std::uint64_t threshold_lo;  // bits 0..63 of the threshold
  std::uint32_t threshold_hi;  // bits 64..95
  std::uint32_t alias_index;
  RSMC_HOST_DEVICE u128 threshold() const { return (static_cast<u128>(threshold_hi) << 64) | threshold_lo; }
  RSMC_HOST_DEVICE std::uint64_t alias() const { return alias_index; }
  RSMC_HOST_DEVICE static AliasRow make(u128 threshold, std::uint64_t alias) {
    return AliasRow{static_cast<std::uint64_t>(threshold), static_cast<std::uint32_t>(threshold >> 64),
                    static_cast<std::uint32_t>(alias)};
  }
  // *dst = make(threshold, alias) for a threshold below 2^64, as two 64-bit stores, the second of
  // them `upper = upper_of(alias)` (loop-invariant in a sweep's run of lights). Compilers write make()'s
  // value as three stores, or assemble it in a vector register first; the sweeps' inner loops are
  // measurably faster this way (kernels/alias/exact_sweep.hpp).
  RSMC_HOST_DEVICE static std::uint64_t upper_of(std::uint64_t alias) { return alias << 32; }
  RSMC_HOST_DEVICE static void store_below_2_64(AliasRow* dst, std::uint64_t threshold, std::uint64_t upper) {
    dst->threshold_lo = threshold;
    std::memcpy(reinterpret_cast<char*>(dst) + 8, &upper, 8);  // threshold_hi = 0, alias_index (little-endian)
  }
  // *dst = row as one 128-bit store on CUDA (Lehmann et al.: a single vector store per row, not the
  // two or three the compiler makes of the struct's fields; rows are 16-byte aligned).
  RSMC_HOST_DEVICE static void store(AliasRow* dst, const AliasRow& row) {
#if defined(__CUDA_ARCH__)
    ulonglong2 v;
    v.x = row.threshold_lo;
    v.y = static_cast<unsigned long long>(row.threshold_hi) | (static_cast<unsigned long long>(row.alias_index) << 32);
    *reinterpret_cast<ulonglong2*>(dst) = v;
#else
    *dst = row;
#endif
  }
};
static_assert(sizeof(AliasRow<std::uint64_t>) == 16 && offsetof(AliasRow<std::uint64_t>, threshold_hi) == 8 &&
                  offsetof(AliasRow<std::uint64_t>, alias_index) == 12,
              "AliasRow<std::uint64_t>::store_below_2_64 writes bytes 8..15 as one word");

// A light item as the pack reads it: its scaled weight, D(i) (deficits of the lights before it) and
// its index; the weight travels with the index (Lehmann et al.: no indirect weight loads in the pack).
template <class Weight>
struct LightItem {
  alias_value_t<Weight> weight;
  alias_value_t<Weight> before;
  std::uint64_t index;
};

// A heavy item as the pack reads it: E(j + 1) (excesses up to and including it) and its index.
template <class Weight>
struct HeavyItem {
  alias_value_t<Weight> through;
  std::uint64_t index;
};

// An item with a (scaled, possibly residual) weight: the input of partitioning, and PSA+'s leftovers.
template <class Weight>
struct WeightedItem {
  alias_value_t<Weight> weight;
  std::uint64_t index;
};

// Everything a pack step needs besides the two item lists.
template <class Weight>
struct PackShape {
  alias_value_t<Weight> capacity;       // per-row capacity
  alias_value_t<Weight> deficit_total;  // D(lights)
  std::uint64_t lights;                 // number of light items
  std::uint64_t heavies;                // number of heavy items
  std::uint64_t last_heavy_index;       // index of the last heavy item (if any): rounding fallback
};

// ---- the shared arithmetic ---------------------------------------------------------------------

// Threshold of a finished heavy: capacity - (d - e) with d = D(i), e = E(j + 1), clamped into
// [0, capacity]. Exact for integers (where d >= e and d - e <= capacity hold anyway).
RSMC_HOST_DEVICE double finished_threshold(double capacity, double d, double e) {
  const double t = capacity - (d - e);
  if (!(t < capacity)) return capacity;  // d <= e (rounding, or no lights left)
  return t > 0.0 ? t : 0.0;
}
RSMC_HOST_DEVICE u128 finished_threshold(u128 capacity, u128 d, u128 e) {
  if (d <= e) return capacity;
  const u128 diff = d - e;
  return diff >= capacity ? u128(0) : capacity - diff;
}

// The row chosen for a draw: row_index if the offset falls below the threshold, else the alias.
template <class Weight>
RSMC_HOST_DEVICE std::uint64_t alias_choice(const AliasRow<Weight>& row, std::uint64_t row_index,
                                            alias_value_t<Weight> offset) {
  // Branch-free select: the comparison is unpredictable for rows with a fractional threshold.
  const std::uint64_t keep = offset < row.threshold() ? ~std::uint64_t{0} : 0;
  return row.alias() ^ ((row_index ^ row.alias()) & keep);
}

// One draw from rows[0..rows_count) with the stream s: row = s.integer(rows_count), then the offset
// (double: uniform() * capacity; integer: uniform_below(capacity)). One Philox block for double
// tables and integer tables with W < 2^64. Returns the item: first_row + row or its alias.
template <class Weight>
RSMC_HOST_DEVICE std::uint64_t alias_draw(const AliasRow<Weight>* rows, std::uint64_t first_row,
                                          std::uint64_t rows_count, alias_value_t<Weight> capacity, rng::Stream& s) {
  const std::uint64_t r = s.integer(rows_count);
  const alias_value_t<Weight> offset = AliasTraits<Weight>::offset(s, capacity);
  return alias_choice<Weight>(rows[r], first_row + r, offset);
}

// One step of the merge-path pack at state (i, j): light = &L[i] if i < lights, heavy = &H[j] if
// j < heavies, next_heavy = &H[j + 1] if j + 1 < heavies (read only when heavy j finishes). Writes the
// row it completes to (*row_index, *row) and advances i or j.
template <class Weight>
RSMC_HOST_DEVICE void pack_step(const PackShape<Weight>& s, std::uint64_t& i, std::uint64_t& j,
                                const LightItem<Weight>* light, const HeavyItem<Weight>* heavy,
                                const HeavyItem<Weight>* next_heavy, std::uint64_t* row_index, AliasRow<Weight>* row) {
  using Row = AliasRow<Weight>;
  const alias_value_t<Weight> d = i < s.lights ? light->before : s.deficit_total;
  if (i < s.lights && (j >= s.heavies || d < heavy->through)) {
    *row_index = light->index;
    if (j < s.heavies)
      *row = Row::make(light->weight, heavy->index);
    else if (s.heavies > 0)  // rounding only: no heavy left for a (nearly full) light
      *row = Row::make(light->weight, s.last_heavy_index);
    else  // rounding only: every item came out light; give each its whole row
      *row = Row::make(s.capacity, light->index);
    ++i;
    return;
  }
  *row_index = heavy->index;
  if (j + 1 >= s.heavies) {  // the last heavy keeps the rest (exactly a bucket for integers)
    *row = Row::make(s.capacity, heavy->index);
  } else {
    const alias_value_t<Weight> t = finished_threshold(s.capacity, d, heavy->through);
    *row = Row::make(t, t == s.capacity ? heavy->index : next_heavy->index);
  }
  ++j;
}

// Packs one section: from state (i, j) to (i_end, j_end), both on the merge path.
template <class Weight>
RSMC_HOST_DEVICE void pack_section(const PackShape<Weight>& s, const LightItem<Weight>* lights,
                                   const HeavyItem<Weight>* heavies, std::uint64_t i, std::uint64_t j,
                                   std::uint64_t i_end, std::uint64_t j_end, AliasRow<Weight>* rows) {
  while (i < i_end || j < j_end) {
    std::uint64_t r = 0;
    AliasRow<Weight> row;
    pack_step<Weight>(s, i, j, i < s.lights ? lights + i : nullptr, j < s.heavies ? heavies + j : nullptr,
                      j + 1 < s.heavies ? heavies + j + 1 : nullptr, &r, &row);
    rows[r] = row;
  }
}

// ---- the split: co-ranks on the merge path -------------------------------------------------------

// Merged items before section k of `sections`: floor(k m / sections), m = lights + heavies.
RSMC_HOST_DEVICE std::uint64_t section_boundary(std::uint64_t k, std::uint64_t merged, std::uint64_t sections) {
  return static_cast<std::uint64_t>(static_cast<u128>(k) * merged / sections);
}

// True if more than i lights are among the first m merged items: light i precedes the heavy m - i - 1
// that taking only i lights would need (or there are not enough heavies). Monotone: true for
// i < corank(m), false from there on.
template <class Weight>
RSMC_HOST_DEVICE bool corank_too_small(const PackShape<Weight>& s, const LightItem<Weight>* lights,
                                       const HeavyItem<Weight>* heavies, std::uint64_t i, std::uint64_t m) {
  if (i >= s.lights || i >= m) return false;
  const std::uint64_t last_heavy = m - i - 1;
  if (last_heavy >= s.heavies) return true;
  return lights[i].before < heavies[last_heavy].through;
}

// The number of lights among the first m merged items, by binary search in [lo, hi], which must
// contain it (callers narrow the range first; the full range is [max(0, m - heavies), min(m, lights)]).
template <class Weight>
RSMC_HOST_DEVICE std::uint64_t corank_search(const PackShape<Weight>& s, const LightItem<Weight>* lights,
                                             const HeavyItem<Weight>* heavies, std::uint64_t m, std::uint64_t lo,
                                             std::uint64_t hi) {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (corank_too_small<Weight>(s, lights, heavies, mid, m))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

RSMC_HOST_DEVICE std::uint64_t corank_lo(std::uint64_t m, std::uint64_t heavies) {
  return m > heavies ? m - heavies : 0;
}
RSMC_HOST_DEVICE std::uint64_t corank_hi(std::uint64_t m, std::uint64_t lights) { return m < lights ? m : lights; }

// ---- sectioned sampling: section counts without communication ------------------------------------

// Stream ids (global id word of rng::Stream, Purpose::resample) used by the alias samplers at a step:
//   baseline draw d:               first_draw_id + d                       (top bits 00; must stay < 2^62)
//   sectioned draw g:              kSectionedDrawTag | (first_draw_id + g) (top bits 01)
//   node h of the section tree:    kSectionNodeTag | h                     (top bits 11)
// (The sorted multinomial resampler uses top bits 10 for its tree; the two never run at the same step.)
constexpr std::uint64_t kSectionedDrawTag = std::uint64_t{1} << 62;
constexpr std::uint64_t kSectionNodeTag = std::uint64_t{3} << 62;
constexpr std::uint64_t kDrawIdLimit = std::uint64_t{1} << 62;

RSMC_HOST_DEVICE std::uint64_t section_count_of(std::uint64_t rows, std::uint64_t section_rows) {
  return rows / section_rows + (rows % section_rows != 0 ? 1 : 0);
}

// The number of the `total_draws` draws of a sectioned batch that fall into section `section`
// (sections of `section_rows` consecutive rows, the last one shorter). Every row is equally likely, so
// the counts are multinomial with probabilities (rows of the section) / rows. They are generated by
// binomial splitting on a fixed binary tree over the sections (Sanders et al., Algorithm R): node h
// (root 1, children 2h and 2h + 1) covering sections [a, b) with m draws sends Binomial(m, rows in
// [a, mid) / rows in [a, b)) of them to its left child, drawn with rng::binomial (exact, no normal
// approximation) from Stream(seed, resample, step, kSectionNodeTag | h). A section walks its path from
// the root on its own: the count is a pure function of (seed, step, total_draws, rows, section_rows,
// section), found in O(log sections) binomial draws with no communication.
RSMC_HOST_DEVICE std::uint64_t section_draws(std::uint64_t seed, std::uint32_t step, std::uint64_t total_draws,
                                             std::uint64_t rows, std::uint64_t section_rows, std::uint64_t section) {
  const std::uint64_t sections = section_count_of(rows, section_rows);
  std::uint64_t a = 0, b = sections, node = 1, m = total_draws;
  while (b - a > 1 && m > 0) {
    const std::uint64_t mid = a + (b - a) / 2;
    const std::uint64_t left_rows = (mid - a) * section_rows;  // sections before `mid` are full
    const std::uint64_t end_row = b * section_rows < rows ? b * section_rows : rows;
    const std::uint64_t all_rows = end_row - a * section_rows;
    rng::Stream stream(seed, rng::Purpose::resample, step, kSectionNodeTag | node);
    const std::uint64_t left = rng::binomial(stream, m, static_cast<double>(left_rows) / static_cast<double>(all_rows));
    if (section < mid) {
      m = left;
      b = mid;
      node = 2 * node;
    } else {
      m -= left;
      a = mid;
      node = 2 * node + 1;
    }
  }
  return m;
}

// alias_draw with the stream Stream(seed, resample, step, id), bit for bit, but computed from the
// stream's Philox blocks directly in the common case: the row is Lemire's multiply of the first u64
// (words 0, 1 of block 0) unless it would be rejected (probability rows_count / 2^64); the offset
// comes from the second u64 (words 2, 3): uniform() for double tables (rejected only if its 53 bits
// are zero), integer(W) for integer tables with W < 2^64, and the masked 128-bit candidate (low word
// = the second u64, high word = the first u64 of block 1) for W > 2^64. Whenever the Stream would
// reject and draw again, the Stream itself is used. (No Stream object on the fast path keeps the
// Philox state in registers whatever the compiler decides to inline.) alias_draw_prepare is that fast
// path without the row load: it sets (row, offset) and returns true, or returns false where the Stream
// would reject (then alias_draw_at's answer is the Stream draw); batched callers prefetch the rows.
template <class Weight>
RSMC_HOST_DEVICE bool alias_draw_prepare(std::uint64_t rows_count, alias_value_t<Weight> capacity, std::uint64_t seed,
                                         std::uint32_t step, std::uint64_t id, std::uint64_t& row,
                                         alias_value_t<Weight>& offset) {
  const rng::Block b = rng::block(seed, rng::Purpose::resample, step, id, 0);
  const std::uint64_t x = (static_cast<std::uint64_t>(b.v[1]) << 32) | b.v[0];
  const std::uint64_t y = (static_cast<std::uint64_t>(b.v[3]) << 32) | b.v[2];
  const u128 row_product = static_cast<u128>(x) * rows_count;
  if (static_cast<std::uint64_t>(row_product) < rows_count) return false;  // Stream::integer would draw again
  row = static_cast<std::uint64_t>(row_product >> 64);
  if constexpr (AliasTraits<Weight>::is_exact) {
    const std::uint64_t cap_hi = static_cast<std::uint64_t>(capacity >> 64);
    const std::uint64_t cap_lo = static_cast<std::uint64_t>(capacity);
    if (cap_hi == 0) {  // uniform_below -> Stream::integer(cap_lo), Lemire on y
      const u128 p = static_cast<u128>(y) * cap_lo;
      offset = static_cast<u128>(p >> 64);
      return static_cast<std::uint64_t>(p) >= cap_lo;
    } else if (capacity - 1 > ~std::uint64_t{0}) {  // capacity > 2^64: masked 128-bit candidate
      const std::uint64_t top = static_cast<std::uint64_t>((capacity - 1) >> 64);
      const std::uint64_t mask = ~std::uint64_t{0} >> exact::u128_detail::clz64(top);
      const rng::Block b1 = rng::block(seed, rng::Purpose::resample, step, id, 1);
      const std::uint64_t z = (static_cast<std::uint64_t>(b1.v[1]) << 32) | b1.v[0];
      offset = (static_cast<u128>(z & mask) << 64) | y;
      return offset < capacity;
    } else {  // capacity == 2^64: one next_u64()
      offset = static_cast<u128>(y);
      return true;
    }
  } else {
    const std::uint64_t m = y >> 11;
    offset = static_cast<double>(m) * 0x1.0p-53 * capacity;
    return m != 0;
  }
}

template <class Weight>
RSMC_HOST_DEVICE std::uint64_t alias_draw_at(const AliasRow<Weight>* rows, std::uint64_t first_row,
                                             std::uint64_t rows_count, alias_value_t<Weight> capacity,
                                             std::uint64_t seed, std::uint32_t step, std::uint64_t id) {
  std::uint64_t r = 0;
  alias_value_t<Weight> offset{};
  if (alias_draw_prepare<Weight>(rows_count, capacity, seed, step, id, r, offset))
    return alias_choice<Weight>(rows[r], first_row + r, offset);
  rng::Stream stream(seed, rng::Purpose::resample, step, id);
  return alias_draw<Weight>(rows, first_row, rows_count, capacity, stream);
}

// Draw k of section s in a sectioned batch: stream id kSectionedDrawTag | stream_id, where stream_id =
// first_draw_id + (draws of the sections before s) + k; a uniform row of the section's rows.
template <class Weight>
RSMC_HOST_DEVICE std::uint64_t sectioned_draw(const AliasRow<Weight>* section_rows_ptr, std::uint64_t first_row,
                                              std::uint64_t rows_in_section, alias_value_t<Weight> capacity,
                                              std::uint64_t seed, std::uint32_t step, std::uint64_t stream_id) {
  return alias_draw_at<Weight>(section_rows_ptr, first_row, rows_in_section, capacity, seed, step,
                               kSectionedDrawTag | stream_id);
}

// Baseline draw with stream id `id` from the whole table.
template <class Weight>
RSMC_HOST_DEVICE std::uint64_t baseline_draw(const AliasRow<Weight>* rows, std::uint64_t n,
                                             alias_value_t<Weight> capacity, std::uint64_t seed, std::uint32_t step,
                                             std::uint64_t id) {
  return alias_draw_at<Weight>(rows, 0, n, capacity, seed, step, id);
}

// ---- host-side checks --------------------------------------------------------------------------

// The total weight and the per-row capacity of `n` weights, after checking them; throws rsmc::Error.
// double: every weight finite and >= 0, the sum finite and > 0; capacity = sum / n.
// uint64: n < 2^32 (so that n W and all prefix sums fit in 128 bits), the sum > 0; capacity = sum.
template <class Weight>
struct AliasTotals {
  alias_value_t<Weight> total;
  alias_value_t<Weight> capacity;
};

constexpr double kMaxDouble = 1.7976931348623157e308;  // DBL_MAX: w <= it means finite and not NaN

inline void check_alias_size(std::uint64_t n, bool exact) {
  if (n == 0) throw Error("alias table: no weights; expected at least one item");
  if (exact && n >= (std::uint64_t{1} << 32))
    throw Error("alias table: " + std::to_string(n) +
                " integer weights; expected fewer than 2^32 (the exact 128-bit arithmetic needs n W < 2^128)");
  if (!exact && n >= kDrawIdLimit) throw Error("alias table: too many weights (" + std::to_string(n) + ")");
}

inline AliasTotals<double> alias_totals_from_sum(double sum, std::uint64_t n, std::uint64_t bad) {
  if (bad != 0)
    throw Error("alias table: " + std::to_string(bad) +
                " weight(s) negative, NaN or infinite; expected finite weights >= 0");
  if (!(sum > 0.0) || !(sum <= kMaxDouble))
    throw Error("alias table: the weights sum to " + std::to_string(sum) + "; expected a finite positive total");
  return AliasTotals<double>{sum, sum / static_cast<double>(n)};
}

inline AliasTotals<std::uint64_t> alias_totals_from_sum(u128 sum, std::uint64_t /*n*/, std::uint64_t /*bad*/) {
  if (sum == 0) throw Error("alias table: all weights are zero; expected a positive total");
  return AliasTotals<std::uint64_t>{sum, sum};
}

RSMC_HOST_DEVICE bool weight_is_valid(double w) { return w >= 0.0 && w <= kMaxDouble; }
RSMC_HOST_DEVICE bool weight_is_valid(std::uint64_t) { return true; }

// Sequential totals of a host array (Vose and the host twins).
template <class Weight>
AliasTotals<Weight> alias_totals(const Weight* w, std::uint64_t n) {
  check_alias_size(n, AliasTraits<Weight>::is_exact);
  alias_value_t<Weight> sum = 0;
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    bad += weight_is_valid(w[i]) ? 0 : 1;
    sum += static_cast<alias_value_t<Weight>>(w[i]);
  }
  return alias_totals_from_sum(sum, n, bad);
}

}  // namespace rsmc::kernels::alias
