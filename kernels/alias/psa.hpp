// Exact parallel alias table construction in portable Kokkos, for std::uint64_t weights (the
// engine's fixed-point weights): PSA and PSA+ (Huebschle-Schneider and Sanders, "Parallel weighted
// random sampling", 2019; on GPUs Lehmann, Huebschle-Schneider and Sanders, "Weighted random sampling
// on GPUs", 2021). Every kernel is templated on the execution space and runs on the instance the
// caller passes; the per-thread steps are in kernels/alias/exact_sweep.hpp.
//
// PSA:
//  1. the total W (given by the caller, or an exact sum: 32-bit halves per block, then a scan);
//  2. per block of sweep::kBlockItems items: a light and a heavy bit per item, and the block's counts
//     and sums of deficits and excesses; exclusive prefix sums over the blocks (three scans);
//  3. SPLIT: `sections` sections of equal merged length; the co-rank of a section's first boundary by
//     binary search, each probe located through the block prefix sums and one block's bits;
//  4. SWEEP: the same thread runs Vose's sweep from that state for the section's length, finding its
//     lights and heavies in the bit masks.
// All arithmetic is exact (128 bits), so the table is Vose's (build_vose) bit for bit, whatever the
// section count, the thread count or the backend.
//
// PSA+: a greedy sweep first, over fixed sections of `greedy_items` items (one thread per section, the
// section's weights in cache), until the section runs out of lights or of heavies; its rows are final.
// Each section leaves items of one kind at the end of its range plus at most one heavy with a residual
// weight; they carry exactly (their count) x W, and PSA over them (steps 2-4 on the rewritten masks)
// completes the table. The table depends on greedy_items (a fixed option, never on the threads), not on
// anything else: bitwise identical for any thread count and backend at the same greedy_items. It is a
// different valid table than Vose's.
//
// Storage: AliasStorage holds the rows and every workspace; it grows to the largest n seen and is
// reused, so a build of a size already seen allocates nothing (the engine's case: one build per step).
// The host reads back three scalars per build (the totals, to check them) and nothing proportional to n.
//
// Double weights: there is no double-weight PSA any more (its table depended on the thread count);
// build_vose (sequential) builds double tables for the benchmarks and tests, and the list-based PSA
// of kernels/host/alias_pack.hpp and kernels/cuda/alias.cu keeps a sequential split.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "base/core/host_or_device.hpp"
#include "kernels/alias/alias_table.hpp"
#include "kernels/alias/exact_sweep.hpp"
#include "kernels/alias/list_pack.hpp"

namespace rsmc::kernels::alias {

enum class AliasMethod {
  psa,       // Vose's table, for any sections, threads and backend
  psa_plus,  // greedy sections first: faster for most weights; the table depends on greedy_items
};

// How the final sweep finds its items (the table does not depend on it):
enum class AliasLayout {
  automatic,  // lists on devices, masks on host backends
  masks,      // each section walks the light and heavy bit masks (kernels/alias/exact_sweep.hpp)
  lists,      // light and heavy lists with their weights, a chunked pack (kernels/alias/list_pack.hpp)
};

struct PsaOptions {
  AliasMethod method = AliasMethod::psa;
  // PSA+: items per greedy section, a power of two in [sweep::kBlockItems, 2^31]. The table depends
  // on it: keep it fixed where tables must match (e.g. a host and a GPU run).
  std::uint64_t greedy_items = std::uint64_t{1} << 16;
  // Sections of the final sweep; 0: 4 per unit of concurrency on host backends, one per
  // kDeviceSectionItems (masks) or list_detail::kListSectionItems (lists) items on devices. The table
  // does not depend on it.
  std::uint64_t sections = 0;
  AliasLayout layout = AliasLayout::automatic;
};

// What a construction did (for benchmarks and tests).
struct PsaStats {
  std::uint64_t greedy_rows = 0;  // PSA+: rows finished by the greedy sweep
  std::uint64_t lights = 0;       // items the final sweep took as lights ...
  std::uint64_t heavies = 0;      // ... and as heavies
  std::uint64_t sections = 0;     // sections of the final sweep
  bool lists = false;             // the final sweep ran on lists (AliasLayout)
};

// The rows and every workspace of build_alias, reusable across builds; grows, never shrinks. Views in
// MemorySpace; `totals` is the only host copy (three scalars).
template <class MemorySpace>
struct AliasStorage {
  using memory_space = MemorySpace;
  template <class T>
  using view = Kokkos::View<T*, MemorySpace>;

  view<AliasRow<std::uint64_t>> rows;
  view<std::uint64_t> light_mask, heavy_mask;  // one bit per item
  view<std::uint64_t> counts;                  // per block, then its exclusive prefix (sweep::Prefix)
  view<u128> deficit, excess;                  // likewise
  view<std::uint64_t> partial_pos;             // PSA+: per greedy section
  view<u128> partial_value;
  view<u128> totals;  // lights, heavies, deficit, excess of the whole sweep
  typename view<u128>::HostMirror totals_host;
  AliasListStorage<MemorySpace> lists;  // AliasLayout::lists only
  std::uint64_t capacity = 0;           // items the views hold
};

namespace psa_detail {

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;

template <class T, class Space>
void grow(Kokkos::View<T*, Space>& v, std::uint64_t size, const char* label) {
  if (v.extent(0) < size)
    v = Kokkos::View<T*, Space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), size);
}

inline std::uint64_t blocks_of(std::uint64_t n) { return (n + sweep::kBlockItems - 1) / sweep::kBlockItems; }

inline unsigned log2_exact(std::uint64_t x) {
  unsigned k = 0;
  while ((std::uint64_t{1} << k) < x) ++k;
  return k;
}

inline void check_options(const PsaOptions& o) {
  const bool power_of_two = o.greedy_items != 0 && (o.greedy_items & (o.greedy_items - 1)) == 0;
  if (o.method == AliasMethod::psa_plus &&
      (!power_of_two || o.greedy_items < sweep::kBlockItems || o.greedy_items > (std::uint64_t{1} << 31)))
    throw Error("alias PSA+ options: greedy_items = " + std::to_string(o.greedy_items) +
                "; expected a power of two from " + std::to_string(sweep::kBlockItems) + " to 2^31");
}

// Items per section of the final sweep on a device. Each section is one thread's sequential sweep,
// so smaller sections give more threads and more binary searches to find their starts: on an H100
// (2026-11-27, `rsmc bench kernels --section-items`, bench/results/gpu-2026-11-27-NVIDIA-H100/sections/)
// 128 built n = 10^7 in 7.6 ms (power-law weights) and 10.6 ms (uniform) where 512 took 10.1 and
// 12.7, and n = 10^6 1.6x faster; 64 was slower at 10^7, 32 and below much slower.
constexpr std::uint64_t kDeviceSectionItems = 128;

template <class Exec>
bool uses_lists(const PsaOptions& o) {
  if (o.layout == AliasLayout::automatic) return !Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
  return o.layout == AliasLayout::lists;
}

template <class Exec>
std::uint64_t section_count(const Exec& exec, const PsaOptions& o, std::uint64_t merged) {
  std::uint64_t s = o.sections;
  if (s == 0) {
    if (runs_on_host<Exec>())
      s = 4 * static_cast<std::uint64_t>(exec.concurrency());
    else
      s = merged / (uses_lists<Exec>(o) ? list_detail::kListSectionItems : kDeviceSectionItems) + 1;
  }
  return s < merged ? s : (merged > 0 ? merged : 1);
}

// Sizes every view for n items (and the sections the options can ask for).
template <class Space>
void reserve(AliasStorage<Space>& st, std::uint64_t n, const PsaOptions& o) {
  if (st.capacity < n) {
    const std::uint64_t cap = n + n / 8;  // a little slack: sizes that vary by a few items do not reallocate
    grow(st.rows, cap, "rsmc::alias rows");
    grow(st.light_mask, (cap + 63) / 64, "rsmc::alias light mask");
    grow(st.heavy_mask, (cap + 63) / 64, "rsmc::alias heavy mask");
    grow(st.counts, blocks_of(cap) + 1, "rsmc::alias block counts");
    grow(st.deficit, blocks_of(cap) + 1, "rsmc::alias block deficits");
    grow(st.excess, blocks_of(cap) + 1, "rsmc::alias block excesses");
    st.capacity = cap;
  }
  if (o.method == AliasMethod::psa_plus) {
    const std::uint64_t g = (st.capacity + o.greedy_items - 1) / o.greedy_items;
    grow(st.partial_pos, g, "rsmc::alias partial positions");
    grow(st.partial_value, g, "rsmc::alias partial values");
  }
  if (st.totals.extent(0) < 4) {
    grow(st.totals, 4, "rsmc::alias totals");
    st.totals_host = Kokkos::create_mirror_view(st.totals);
  }
}

template <class Space>
sweep::Items items_of(const std::uint64_t* w, std::uint64_t n, u128 total, const AliasStorage<Space>& st) {
  sweep::Items it;
  it.w = w;
  it.n = n;
  it.cap = total;
  it.bound = sweep::light_bound(total, n);
  it.light_mask = st.light_mask.data();
  it.heavy_mask = st.heavy_mask.data();
  return it;
}

template <class Space>
sweep::Prefix prefix_of(const AliasStorage<Space>& st, std::uint64_t blocks) {
  sweep::Prefix p;
  p.counts = st.counts.data();
  p.deficit = st.deficit.data();
  p.excess = st.excess.data();
  p.blocks = blocks;
  return p;
}

// The exact sum of the weights: per-block sums of 32-bit halves into `deficit` (as scratch), then a
// scan over the blocks.
template <class Exec, class Space>
u128 total(const Exec& exec, const std::uint64_t* w, std::uint64_t n, AliasStorage<Space>& st) {
  const std::uint64_t blocks = blocks_of(n);
  const auto sums = st.deficit;
  Kokkos::parallel_for(
      "rsmc::alias block totals", Range<Exec>(exec, 0, blocks), KOKKOS_LAMBDA(std::uint64_t b) {
        const std::uint64_t first = b * sweep::kBlockItems;
        const std::uint64_t end = first + sweep::kBlockItems < n ? first + sweep::kBlockItems : n;
        std::uint64_t lo = 0, hi = 0;
        for (std::uint64_t p = first; p < end; ++p) {
          lo += w[p] & 0xffffffffu;
          hi += w[p] >> 32;
        }
        sums(b) = (static_cast<u128>(hi) << 32) + lo;
      });
  u128 sum = 0;
  Kokkos::parallel_scan(
      "rsmc::alias total", Range<Exec>(exec, 0, blocks),
      KOKKOS_LAMBDA(std::uint64_t b, u128 & acc, bool /*final*/) { acc += sums(b); }, sum);
  return sum;
}

// In place: v(b) = v(0) + .. + v(b - 1) for b <= blocks (v(blocks) becomes the total).
template <class Exec, class T, class Space>
void exclusive_scan(const Exec& exec, const Kokkos::View<T*, Space>& v, std::uint64_t blocks, const char* label) {
  Kokkos::parallel_scan(
      label, Range<Exec>(exec, 0, blocks + 1), KOKKOS_LAMBDA(std::uint64_t b, T & acc, bool final) {
        const T x = v(b);
        if (final) v(b) = acc;
        acc += x;
      });
}

// totals(0..3) = the sweep's lights, heavies, deficit and excess, from the prefix entries of `blocks`.
template <class TotalsView>
KOKKOS_INLINE_FUNCTION void write_totals(const TotalsView& totals, std::uint64_t counts, u128 deficit, u128 excess) {
  totals(0) = counts >> 32;
  totals(1) = counts & 0xffffffffu;
  totals(2) = deficit;
  totals(3) = excess;
}

// The block sums become their exclusive prefix sums (entry `blocks`: the totals), and totals(0..3) the
// sweep's lights, heavies, deficit and excess. Host backends: one thread in one kernel (a few
// thousand blocks: cheaper than three parallel scans and their barriers); devices: three scans.
template <class Exec, class Space>
void block_prefix(const Exec& exec, const AliasStorage<Space>& st, std::uint64_t blocks) {
  const auto counts = st.counts;
  const auto deficit = st.deficit;
  const auto excess = st.excess;
  const auto totals = st.totals;
  // Two kernels chosen here, not an `if constexpr` inside one lambda (nvcc: no first capture there).
  if constexpr (runs_on_host<Exec>()) {
    Kokkos::parallel_for(
        "rsmc::alias block prefix", Range<Exec>(exec, 0, 1), KOKKOS_LAMBDA(std::uint64_t) {
          std::uint64_t c = 0;
          u128 d = 0, e = 0;
          for (std::uint64_t b = 0; b <= blocks; ++b) {
            const std::uint64_t cb = counts(b);
            const u128 db = deficit(b), eb = excess(b);
            counts(b) = c;
            deficit(b) = d;
            excess(b) = e;
            c += cb;
            d += db;
            e += eb;
          }
          write_totals(totals, counts(blocks), deficit(blocks), excess(blocks));
        });
  } else {
    exclusive_scan(exec, counts, blocks, "rsmc::alias count prefix");
    exclusive_scan(exec, deficit, blocks, "rsmc::alias deficit prefix");
    exclusive_scan(exec, excess, blocks, "rsmc::alias excess prefix");
    Kokkos::parallel_for(
        "rsmc::alias totals", Range<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(std::uint64_t) { write_totals(totals, counts(blocks), deficit(blocks), excess(blocks)); });
  }
}

// Writes block b's sums (b == blocks: zeros, the slot of the totals).
template <class Space>
struct BlockSink {
  Kokkos::View<std::uint64_t*, Space> counts;
  Kokkos::View<u128*, Space> deficit, excess;
  KOKKOS_INLINE_FUNCTION void operator()(std::uint64_t b, const sweep::BlockSums& s) const {
    counts(b) = s.counts;
    deficit(b) = s.deficit;
    excess(b) = s.excess;
  }
};

// Step 2 of PSA for every item.
template <class Exec, class Space>
void summarize_all(const Exec& exec, const sweep::Items& it, const AliasStorage<Space>& st) {
  const std::uint64_t blocks = blocks_of(it.n);
  const BlockSink<Space> sink{st.counts, st.deficit, st.excess};
  Kokkos::parallel_for(
      "rsmc::alias summarize", Range<Exec>(exec, 0, blocks + 1),
      KOKKOS_LAMBDA(std::uint64_t b) { sink(b, b < blocks ? sweep::summarize_all(it, b) : sweep::BlockSums{}); });
}

// PSA+'s greedy pass: one thread per greedy section sweeps it, records its partial item and rewrites
// the masks and block sums of its range to its leftovers.
// `it` has no residuals: the greedy sweep reads plain weights; `left` (it with the residuals) is what
// the leftovers' sums read, once the section's own residual is recorded.
template <class Exec, class Space>
void greedy(const Exec& exec, const sweep::Items& it, const sweep::Items& left_items, const AliasStorage<Space>& st,
            std::uint64_t greedy_items) {
  const std::uint64_t n = it.n, blocks = blocks_of(n);
  const std::uint64_t sections = (n + greedy_items - 1) / greedy_items;
  const auto partial_pos = st.partial_pos;
  const auto partial_value = st.partial_value;
  const BlockSink<Space> sink{st.counts, st.deficit, st.excess};
  AliasRow<std::uint64_t>* rows = st.rows.data();
  using Dynamic = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>, Kokkos::Schedule<Kokkos::Dynamic>>;
  Kokkos::parallel_for(
      "rsmc::alias greedy", Dynamic(exec, 0, sections), KOKKOS_LAMBDA(std::uint64_t g) {
        const std::uint64_t first = g * greedy_items;
        const std::uint64_t end = first + greedy_items < n ? first + greedy_items : n;
        const sweep::Leftovers left = sweep::greedy_sweep(it, rows, first, end);
        partial_pos(g) = left.partial;
        partial_value(g) = left.partial_value;
        sweep::mask_leftovers(it, left, first, end);
        for (std::uint64_t b = first / sweep::kBlockItems; b * sweep::kBlockItems < end; ++b)
          sink(b, sweep::summarize_masks(left_items, b));
        if (g + 1 == sections) sink(blocks, sweep::BlockSums{});
      });
}

// Steps 3 and 4 of PSA on the masks and block sums as they stand (PSA: every item; PSA+: the
// leftovers). Returns the sweep's light and heavy counts and its section count; throws if the total
// was not the weights' sum (the deficits and excesses must then differ). Each section finds its own
// two co-ranks (the split) and sweeps between them: one kernel.
template <class Exec, class Space>
PsaStats split_and_sweep(const Exec& exec, const sweep::Items& it, AliasStorage<Space>& st, const PsaOptions& o) {
  const std::uint64_t blocks = blocks_of(it.n);
  block_prefix(exec, st, blocks);
  Kokkos::deep_copy(exec, st.totals_host, st.totals);
  exec.fence();
  if (st.totals_host(2) != st.totals_host(3))
    throw Error("alias table: the given total is not the sum of the " + std::to_string(it.n) + " weights");
  PsaStats stats;
  stats.lights = static_cast<std::uint64_t>(st.totals_host(0));
  stats.heavies = static_cast<std::uint64_t>(st.totals_host(1));
  const std::uint64_t merged = stats.lights + stats.heavies;
  const std::uint64_t sections = section_count(exec, o, merged);
  stats.sections = sections;
  if (merged == 0) return stats;
  const sweep::Prefix pre = prefix_of(st, blocks);
  AliasRow<std::uint64_t>* rows = st.rows.data();
  if (uses_lists<Exec>(o)) {
    stats.lists = true;
    grow(st.lists.list, st.capacity, "rsmc::alias lists");
    grow(st.lists.prefix, st.capacity, "rsmc::alias list prefixes");
    grow(st.lists.split, sections + 1, "rsmc::alias list splits");
    partition_lists(exec, it, pre, stats.lights, st.lists);
    list_detail::Lists l;
    l.list = st.lists.list.data();
    l.prefix = st.lists.prefix.data();
    l.shape.capacity = it.cap;
    l.shape.deficit_total = st.totals_host(2);
    l.shape.lights = stats.lights;
    l.shape.heavies = stats.heavies;
    l.shape.last_heavy_index = 0;  // read only after rounding, which exact arithmetic never does
    pack_lists(exec, it, l, sections, st.lists, rows);
    return stats;
  }
  Kokkos::parallel_for(
      "rsmc::alias sweep", Range<Exec>(exec, 0, sections), KOKKOS_LAMBDA(std::uint64_t k) {
        const std::uint64_t m0 = sweep::boundary(k, merged, sections);
        const std::uint64_t m1 = sweep::boundary(k + 1, merged, sections);
        const std::uint64_t i0 = sweep::corank(it, pre, m0);
        sweep::sweep_section(it, pre, rows, i0, m0 - i0, m1 - m0);
      });
  return stats;
}

template <class WeightView>
constexpr void check_weight_view() {
  static_assert(std::is_same<typename WeightView::non_const_value_type, std::uint64_t>::value,
                "exact alias tables take std::uint64_t weights");
  static_assert(WeightView::rank == 1, "alias weights are a rank-1 View");
}

}  // namespace psa_detail

// The exact sum of `weights` (a rank-1 View of std::uint64_t in Space), on exec; storage provides the
// scratch. n < 2^32 so that it fits in 96 bits.
template <class Exec, class WeightView, class Space>
u128 alias_total(const Exec& exec, const WeightView& weights, AliasStorage<Space>& storage) {
  psa_detail::check_weight_view<WeightView>();
  const std::uint64_t n = weights.extent(0);
  check_alias_size(n, true);
  psa_detail::reserve(storage, n, PsaOptions{});
  return psa_detail::total(exec, weights.data(), n, storage);
}

// The engine's entry point: the exact alias table of `weights` (n < 2^32 std::uint64_t in Space),
// whose sum is `total` (the caller's exact 128-bit sum; checked: a wrong total throws rsmc::Error),
// built on exec into `storage`. Returns the table: its rows are the first n rows of storage.rows, valid
// until the next build into the same storage. Allocates only when n exceeds what storage has held.
template <class Exec, class WeightView, class Space>
AliasTable<std::uint64_t, Space> build_alias(const Exec& exec, const WeightView& weights, u128 total,
                                             AliasStorage<Space>& storage, const PsaOptions& options = {},
                                             PsaStats* stats = nullptr) {
  psa_detail::check_weight_view<WeightView>();
  static_assert(std::is_same<typename WeightView::memory_space, Space>::value,
                "build_alias: the weights and the storage must live in the same memory space");
  psa_detail::check_options(options);
  const std::uint64_t n = weights.extent(0);
  check_alias_size(n, true);
  alias_totals_from_sum(total, n, 0);  // throws on a zero total
  psa_detail::reserve(storage, n, options);
  const sweep::Items it = psa_detail::items_of(weights.data(), n, total, storage);
  sweep::Items rest = it;  // the items of the final sweep: PSA+'s leftovers read their residuals
  if (options.method == AliasMethod::psa) {
    psa_detail::summarize_all(exec, it, storage);
  } else {
    rest.partial_pos = storage.partial_pos.data();
    rest.partial_value = storage.partial_value.data();
    rest.greedy_shift = psa_detail::log2_exact(options.greedy_items);
    psa_detail::greedy(exec, it, rest, storage, options.greedy_items);
  }
  PsaStats s = psa_detail::split_and_sweep(exec, rest, storage, options);
  s.greedy_rows = n - s.lights - s.heavies;
  if (stats) *stats = s;
  AliasTable<std::uint64_t, Space> table;
  table.rows = Kokkos::subview(storage.rows, Kokkos::make_pair(std::uint64_t{0}, n));
  table.capacity = total;
  table.total = total;
  return table;
}

// The same with the total computed here (one more pass over the weights).
template <class Exec, class WeightView, class Space>
AliasTable<std::uint64_t, Space> build_alias(const Exec& exec, const WeightView& weights, AliasStorage<Space>& storage,
                                             const PsaOptions& options = {}, PsaStats* stats = nullptr) {
  const u128 total = alias_total(exec, weights, storage);
  return build_alias(exec, weights, total, storage, options, stats);
}

// Convenience (tests, benchmarks): a new table from fresh storage, on the default execution space of
// the weights' memory space, by PSA or PSA+ (options.method is set accordingly).
template <class WeightView>
AliasTable<std::uint64_t, typename WeightView::memory_space> build_new(AliasMethod method, const WeightView& weights,
                                                                       PsaOptions options, PsaStats* stats) {
  AliasStorage<typename WeightView::memory_space> storage;
  options.method = method;
  return build_alias(typename WeightView::execution_space(), weights, storage, options, stats);
}

template <class WeightView>
AliasTable<std::uint64_t, typename WeightView::memory_space> build_psa(const WeightView& weights,
                                                                       const PsaOptions& options = {},
                                                                       PsaStats* stats = nullptr) {
  return build_new(AliasMethod::psa, weights, options, stats);
}

template <class WeightView>
AliasTable<std::uint64_t, typename WeightView::memory_space> build_psa_plus(const WeightView& weights,
                                                                            const PsaOptions& options = {},
                                                                            PsaStats* stats = nullptr) {
  return build_new(AliasMethod::psa_plus, weights, options, stats);
}

}  // namespace rsmc::kernels::alias
