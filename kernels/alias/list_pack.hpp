// PSA's final sweep from light and heavy LISTS, the layout of Lehmann, Huebschle-Schneider and
// Sanders ("Weighted random sampling on GPUs", 2021, section 4.2), for devices: kernels/alias/psa.hpp
// runs it after its block summaries (and PSA+'s greedy pass) when the options' layout is `lists`
// (the default on devices). The table is Vose's (PSA) or the same PSA+ table as the mask sweep, bit
// for bit: the merge order, the decisions and the arithmetic are pack_step's (alias_core.hpp).
//
//  1. PARTITION: one team per block of sweep::kBlockItems positions writes the block's lights, then
//     (after all lights) its heavies, into one list of 16-byte entries: the weight travels with the
//     index (no indirect weight loads later), and D(i) / E(j + 1) into a list of 128-bit prefixes
//     (from the block prefix sums, the block's mask words and a scan over the team's threads).
//  2. SPLIT: the co-rank of every section boundary by binary search on the prefixes (16 bytes read
//     per probe; the mask sweep's split walked a block of bits per probe).
//  3. PACK: one thread per section, sections of kListSectionItems merged items on devices. Each
//     thread owns a window of C lights and C heavies in the team's scratch (shared memory),
//     interleaved by thread; at the top of every round the team refills, with coalesced loads, every
//     window whose owner has used half of it (chunked loading), then each thread packs until it would
//     read outside its windows. D(i) and E(j + 1) are carried as running sums from the split's
//     prefixes, so the pack reads 16 bytes per item. Rows are written with one 128-bit store each
//     (AliasRow<std::uint64_t>::store, a vector store on CUDA).
// Host backends run the same kernels with teams of one thread (tests compare them with the mask
// sweep and with Vose on any thread count).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "kernels/alias/alias_core.hpp"
#include "kernels/alias/exact_sweep.hpp"

namespace rsmc::kernels::alias {

// One entry of the lists: the item's weight (unscaled) and its index; bit 63 of `tagged` marks PSA+'s
// partial item of a greedy section, whose value is its residual (sweep::Items::value), not n w.
struct alignas(16) ListItem {
  std::uint64_t weight;
  std::uint64_t tagged;
};

namespace list_detail {

constexpr std::uint64_t kPartialBit = std::uint64_t{1} << 63;

// Merged items per section of the pack on a device (one thread each).
constexpr std::uint64_t kListSectionItems = 256;
// The pack's window per list and thread (items), and its team size on a device.
constexpr int kWindow = 16;
constexpr int kDeviceTeam = 64;
// Threads per partition team on a device: each takes kBlockItems / kPartitionTeam positions.
constexpr int kDevicePartitionTeam = 64;

RSMC_HOST_DEVICE std::uint64_t index_of(const ListItem& x) { return x.tagged & ~kPartialBit; }

// The value v of a list entry: n w, or PSA+'s residual for the partial item.
RSMC_HOST_DEVICE u128 value_of(const sweep::Items& it, const ListItem& x) {
  if (x.tagged & kPartialBit) return it.partial_value[index_of(x) >> it.greedy_shift];
  return static_cast<u128>(x.weight) * it.n;
}

// The list entry of position p (tagged when it is its greedy section's partial item).
RSMC_HOST_DEVICE ListItem entry_of(const sweep::Items& it, std::uint64_t p) {
  std::uint64_t tag = 0;
  if (it.partial_pos != nullptr && it.partial_pos[p >> it.greedy_shift] == p) tag = kPartialBit;
  return ListItem{it.w[p], p | tag};
}

// The bits of positions [first, first + len) of a mask, len <= 64, first + len within one word.
RSMC_HOST_DEVICE std::uint64_t segment_bits(const std::uint64_t* mask, std::uint64_t first, std::uint64_t len) {
  const std::uint64_t word = mask[first / 64] >> (first % 64);
  return len == 64 ? word : word & ((std::uint64_t{1} << len) - 1);
}

// What one partition thread's segment holds: its lights and heavies and their deficit and excess sums.
struct SegmentSums {
  std::uint64_t lights = 0, heavies = 0;
  u128 deficit = 0, excess = 0;
};

RSMC_HOST_DEVICE void add(SegmentSums& a, const SegmentSums& b) {
  a.lights += b.lights;
  a.heavies += b.heavies;
  a.deficit += b.deficit;
  a.excess += b.excess;
}

RSMC_HOST_DEVICE SegmentSums segment_sums(const sweep::Items& it, std::uint64_t first, std::uint64_t len) {
  SegmentSums s;
  for (std::uint64_t bits = segment_bits(it.light_mask, first, len); bits != 0; bits &= bits - 1) {
    s.deficit += it.cap - it.value(first + sweep::lowest_bit(bits));
    ++s.lights;
  }
  for (std::uint64_t bits = segment_bits(it.heavy_mask, first, len); bits != 0; bits &= bits - 1) {
    s.excess += it.value(first + sweep::lowest_bit(bits)) - it.cap;
    ++s.heavies;
  }
  return s;
}

// Writes a segment's items from the state `at` (the counts and sums before it), which it advances past
// them: lights to list[at.lights] on, heavies to list[lights_total + at.heavies] on, with D(i) and
// E(j + 1).
RSMC_HOST_DEVICE void segment_write(const sweep::Items& it, std::uint64_t first, std::uint64_t len, SegmentSums& at,
                                    std::uint64_t lights_total, ListItem* list, u128* prefix) {
  for (std::uint64_t bits = segment_bits(it.light_mask, first, len); bits != 0; bits &= bits - 1) {
    const std::uint64_t p = first + sweep::lowest_bit(bits);
    list[at.lights] = entry_of(it, p);
    prefix[at.lights] = at.deficit;
    at.deficit += it.cap - it.value(p);
    ++at.lights;
  }
  for (std::uint64_t bits = segment_bits(it.heavy_mask, first, len); bits != 0; bits &= bits - 1) {
    const std::uint64_t p = first + sweep::lowest_bit(bits);
    at.excess += it.value(p) - it.cap;
    list[lights_total + at.heavies] = entry_of(it, p);
    prefix[lights_total + at.heavies] = at.excess;
    ++at.heavies;
  }
}

// The lists as the split and the pack read them.
struct Lists {
  const ListItem* list = nullptr;  // lights [0, lights), heavies [lights, lights + heavies)
  const u128* prefix = nullptr;    // D(i) of light i; E(j + 1) of heavy j
  PackShape<std::uint64_t> shape{};
  RSMC_HOST_DEVICE u128 light_before(std::uint64_t i) const {
    return i < shape.lights ? prefix[i] : shape.deficit_total;
  }
  RSMC_HOST_DEVICE u128 heavy_through(std::uint64_t j) const { return prefix[shape.lights + j]; }
};

// The number of lights among the first m merged items (alias_core.hpp's corank_search on the lists).
RSMC_HOST_DEVICE std::uint64_t list_corank(const Lists& l, std::uint64_t m) {
  std::uint64_t lo = corank_lo(m, l.shape.heavies), hi = corank_hi(m, l.shape.lights);
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const std::uint64_t last_heavy = m - mid - 1;
    const bool too_small = last_heavy >= l.shape.heavies || l.prefix[mid] < l.heavy_through(last_heavy);
    if (too_small)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// One pack thread's state: i lights and j heavies done, d = D(i), e = E(j + 1) (heavy j current).
struct PackState {
  std::uint64_t i, j, i_end, j_end;
  u128 d, e;
};

// One step of pack_step's merge with the light and the heavies in hand (pointers as pack_step's):
// the same decision, the same row, the same arithmetic; the row goes out in one 128-bit store.
RSMC_HOST_DEVICE void list_step(const sweep::Items& it, const PackShape<std::uint64_t>& s, PackState& st,
                                const ListItem* light, const ListItem* heavy, const ListItem* next_heavy,
                                AliasRow<std::uint64_t>* rows) {
  using Row = AliasRow<std::uint64_t>;
  if (st.i < s.lights && (st.j >= s.heavies || st.d < st.e)) {
    const u128 v = value_of(it, *light);
    Row row;
    if (st.j < s.heavies)
      row = Row::make(v, index_of(*heavy));
    else if (s.heavies > 0)  // rounding only (see pack_step)
      row = Row::make(v, s.last_heavy_index);
    else
      row = Row::make(s.capacity, index_of(*light));
    Row::store(rows + index_of(*light), row);
    st.d += s.capacity - v;
    ++st.i;
    return;
  }
  const std::uint64_t h = index_of(*heavy);
  if (st.j + 1 >= s.heavies) {
    Row::store(rows + h, Row::make(s.capacity, h));
  } else {
    const u128 t = finished_threshold(s.capacity, st.d, st.e);
    Row::store(rows + h, Row::make(t, t == s.capacity ? h : index_of(*next_heavy)));
    st.e += value_of(it, *next_heavy) - s.capacity;
  }
  ++st.j;
}

template <class Exec>
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;

template <class Exec>
constexpr bool on_host() {
  return Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
}

}  // namespace list_detail

// The lists' storage, kept between builds like AliasStorage's views (grows, never shrinks).
template <class MemorySpace>
struct AliasListStorage {
  Kokkos::View<ListItem*, MemorySpace> list;
  Kokkos::View<u128*, MemorySpace> prefix;
  Kokkos::View<std::uint64_t*, MemorySpace> split;
};

// Step 1: the lists of the sweep's items (it: masks and residuals as they stand), from the block
// prefix sums `pre` (exclusive, entry `blocks` the totals).
template <class Exec, class Space>
void partition_lists(const Exec& exec, const sweep::Items& it, const sweep::Prefix& pre, std::uint64_t lights_total,
                     AliasListStorage<Space>& ls) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int team = list_detail::on_host<Exec>() ? 1 : list_detail::kDevicePartitionTeam;
  const std::uint64_t per_thread = sweep::kBlockItems / static_cast<std::uint64_t>(team);
  ListItem* list = ls.list.data();
  u128* prefix = ls.prefix.data();
  const std::uint64_t n = it.n;
  const std::size_t bytes = static_cast<std::size_t>(team) * (sizeof(u128) * 2 + sizeof(std::uint64_t) * 2) + 64;
  Kokkos::parallel_for(
      "rsmc::alias partition",
      Policy(exec, static_cast<int>(pre.blocks), team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& m) {
        const auto& shmem = m.team_scratch(0);
        u128* deficit = static_cast<u128*>(shmem.get_shmem_aligned(sizeof(u128) * team, 16));
        u128* excess = static_cast<u128*>(shmem.get_shmem_aligned(sizeof(u128) * team, 16));
        std::uint64_t* count_l = static_cast<std::uint64_t*>(shmem.get_shmem_aligned(sizeof(std::uint64_t) * team, 8));
        std::uint64_t* count_h = static_cast<std::uint64_t*>(shmem.get_shmem_aligned(sizeof(std::uint64_t) * team, 8));
        const std::uint64_t b = static_cast<std::uint64_t>(m.league_rank());
        const int t = m.team_rank();
        const std::uint64_t first = b * sweep::kBlockItems + static_cast<std::uint64_t>(t) * per_thread;
        const std::uint64_t end = first + per_thread < n ? first + per_thread : n;
        // This thread's positions [first, end), in pieces of at most 64 within one mask word.
        list_detail::SegmentSums mine;
        for (std::uint64_t p = first; p < end; p += 64) {
          const list_detail::SegmentSums x = list_detail::segment_sums(it, p, end - p < 64 ? end - p : 64);
          list_detail::add(mine, x);
        }
        count_l[t] = mine.lights;
        count_h[t] = mine.heavies;
        deficit[t] = mine.deficit;
        excess[t] = mine.excess;
        m.team_barrier();
        if (t == 0) {  // exclusive scan over the team's threads, from the block's prefix
          list_detail::SegmentSums at{pre.lights_before(b), pre.heavies_before(b), pre.deficit[b], pre.excess[b]};
          for (int q = 0; q < team; ++q) {
            const list_detail::SegmentSums x{count_l[q], count_h[q], deficit[q], excess[q]};
            count_l[q] = at.lights;
            count_h[q] = at.heavies;
            deficit[q] = at.deficit;
            excess[q] = at.excess;
            list_detail::add(at, x);
          }
        }
        m.team_barrier();
        list_detail::SegmentSums at{count_l[t], count_h[t], deficit[t], excess[t]};
        for (std::uint64_t p = first; p < end; p += 64) {
          const std::uint64_t len = end - p < 64 ? end - p : 64;
          list_detail::segment_write(it, p, len, at, lights_total, list, prefix);
        }
      });
}

// Steps 2 and 3 on the lists: `sections` sections of equal merged length.
template <class Exec, class Space>
void pack_lists(const Exec& exec, const sweep::Items& it, const list_detail::Lists& l, std::uint64_t sections,
                AliasListStorage<Space>& ls, AliasRow<std::uint64_t>* rows) {
  const std::uint64_t merged = l.shape.lights + l.shape.heavies;
  const auto split = ls.split;
  Kokkos::parallel_for(
      "rsmc::alias split", list_detail::Range<Exec>(exec, 0, sections + 1),
      KOKKOS_LAMBDA(std::uint64_t k) { split(k) = list_detail::list_corank(l, sweep::boundary(k, merged, sections)); });
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  constexpr int C = list_detail::kWindow;
  const int team = list_detail::on_host<Exec>() ? 1 : list_detail::kDeviceTeam;
  const std::uint64_t teams = (sections + static_cast<std::uint64_t>(team) - 1) / static_cast<std::uint64_t>(team);
  const std::size_t bytes =
      static_cast<std::size_t>(team) * (2 * C * sizeof(ListItem) + 2 * sizeof(std::uint64_t) + 2) + 64;
  const PackShape<std::uint64_t> s = l.shape;
  const ListItem* list = l.list;
  Kokkos::parallel_for(
      "rsmc::alias pack", Policy(exec, static_cast<int>(teams), team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& m) {
        const auto& shmem = m.team_scratch(0);
        ListItem* win_l = static_cast<ListItem*>(shmem.get_shmem_aligned(sizeof(ListItem) * C * team, 16));
        ListItem* win_h = static_cast<ListItem*>(shmem.get_shmem_aligned(sizeof(ListItem) * C * team, 16));
        std::uint64_t* base_l = static_cast<std::uint64_t*>(shmem.get_shmem_aligned(sizeof(std::uint64_t) * team, 8));
        std::uint64_t* base_h = static_cast<std::uint64_t*>(shmem.get_shmem_aligned(sizeof(std::uint64_t) * team, 8));
        unsigned char* flags = static_cast<unsigned char*>(shmem.get_shmem_aligned(2 * team, 8));
        const int t = m.team_rank();
        const std::uint64_t k = static_cast<std::uint64_t>(m.league_rank()) * team + t;
        list_detail::PackState st{0, 0, 0, 0, 0, 0};
        if (k < sections) {
          st.i = split(k);
          st.j = sweep::boundary(k, merged, sections) - st.i;
          st.i_end = split(k + 1);
          st.j_end = sweep::boundary(k + 1, merged, sections) - st.i_end;
          st.d = l.light_before(st.i);
          st.e = st.j < s.heavies ? l.heavy_through(st.j) : u128(0);
        }
        bool active = st.i < st.i_end || st.j < st.j_end;
        bool loaded = false;
        std::uint64_t bl = 0, bh = 0;
        for (;;) {
          flags[t] = active ? 1 : 0;
          m.team_barrier();
          bool any = false;
          for (int q = 0; q < team; ++q) any = any || flags[q] != 0;
          m.team_barrier();
          if (!any) break;
          // chunked loading: refill the windows whose owner has used half of them
          const bool refill_l = active && st.i < s.lights && (!loaded || st.i - bl >= C / 2);
          const bool refill_h = active && st.j < s.heavies && (!loaded || st.j - bh >= C / 2);
          if (refill_l) bl = st.i;
          if (refill_h) bh = st.j;
          loaded = true;
          flags[t] = refill_l ? 1 : 0;
          flags[team + t] = refill_h ? 1 : 0;
          base_l[t] = bl;
          base_h[t] = bh;
          m.team_barrier();
          for (int q = t; q < team * C; q += team) {  // consecutive threads: consecutive items of a window
            const int w = q / C, c = q % C;
            if (flags[w]) {
              const std::uint64_t x = base_l[w] + static_cast<std::uint64_t>(c);
              if (x < s.lights) win_l[c * team + w] = list[x];
            }
            if (flags[team + w]) {
              const std::uint64_t y = base_h[w] + static_cast<std::uint64_t>(c);
              if (y < s.heavies) win_h[c * team + w] = list[s.lights + y];
            }
          }
          m.team_barrier();
          while (active) {
            if (st.i < s.lights && st.i - bl >= C) break;
            if (st.j < s.heavies && st.j - bh >= C) break;
            if (st.j + 1 < s.heavies && st.j + 1 - bh >= C) break;
            const ListItem* lp = st.i < s.lights ? &win_l[(st.i - bl) * team + t] : nullptr;
            const ListItem* hp = st.j < s.heavies ? &win_h[(st.j - bh) * team + t] : nullptr;
            const ListItem* np = st.j + 1 < s.heavies ? &win_h[(st.j + 1 - bh) * team + t] : nullptr;
            list_detail::list_step(it, s, st, lp, hp, np, rows);
            active = st.i < st.i_end || st.j < st.j_end;
          }
        }
      });
}

}  // namespace rsmc::kernels::alias
