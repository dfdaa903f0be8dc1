// Parallel alias table construction in portable Kokkos: PSA and PSA+.
//
// PSA (Huebschle-Schneider and Sanders, "Parallel weighted random sampling", 2019; on GPUs Lehmann,
// Huebschle-Schneider and Sanders, "Weighted random sampling on GPUs", 2021):
//  1. total and capacity (parallel reductions; integer sums exactly, split into 32-bit halves);
//  2. stable partition into lights and heavies (a prefix sum of the light flags), each item stored
//     with its scaled weight next to its index;
//  3. prefix sums D of the light deficits and E of the heavy excesses, written into the items;
//  4. SPLIT: sections of about `section_items` merged items; the state of Vose's sweep at every section
//     boundary m is the co-rank of m on the merge path (alias_core.hpp). A team searches
//     `splits_per_team` consecutive boundaries together by partial p-ary search (Lehmann et al.,
//     Algorithm 1): all its threads evaluate `pivots` equally spaced pivots of the common range, and the
//     range shrinks to the pivots that bracket the first and the last boundary of the team; when it no
//     longer shrinks (or is at most `pivots` wide), every thread finishes its own boundary by binary
//     search inside it;
//  5. PACK: one thread per section replays the sweep from its split state to the next (pack_section),
//     so the sections need no communication and the result equals the sequential sweep's.
// PSA+ first packs greedily: the items are cut into fixed sections of `greedy_items`, each staged in
// team scratch memory, and one thread per section runs the sweep on the section's own lights and
// heavies until either list runs out. The leftover items (the unused lights, the unused heavies, and
// the current heavy with its remainder as its weight) keep exactly (number of leftovers) x capacity
// of weight, so PSA on them, with the same capacity, completes the table.
//
// For integer weights everything is exact: PSA gives the same table as build_vose, bit for bit; PSA+ a
// different but equally exact one. Tables live in the memory space of the weights and are built by
// that space's default execution space.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/alias/alias_table.hpp"

namespace rsmc::kernels::alias {

struct PsaOptions {
    std::uint64_t section_items = 256;  // merged items per PACK section (one thread per section)
    int splits_per_team = 64;           // section boundaries a team searches together
    int pivots = 32;                    // p of the partial p-ary search
    std::uint64_t greedy_items = 1024;  // PSA+: items per greedy section (staged in team scratch)
};

// What a construction did (for benchmarks and tests).
struct PsaStats {
    std::uint64_t greedy_rows = 0;  // PSA+: rows completed by the greedy pass
    std::uint64_t lights = 0;       // items that went through SPLIT/PACK as lights ...
    std::uint64_t heavies = 0;      // ... and as heavies
    std::uint64_t sections = 0;     // PACK sections
};

// The state after SPLIT: the partitioned items with their prefix sums, and the co-rank of every
// section boundary (split_lights[k] = lights among the first section_boundary(k) merged items).
template <class Weight, class MemorySpace>
struct PsaWork {
    Kokkos::View<LightItem<Weight>*, MemorySpace> lights;
    Kokkos::View<HeavyItem<Weight>*, MemorySpace> heavies;
    Kokkos::View<std::uint64_t*, MemorySpace> split_lights;  // sections + 1 entries
    PackShape<Weight> shape{};
    std::uint64_t sections = 0;
    AliasTotals<Weight> totals{};
};

namespace psa_detail {

template <class T, class Space>
Kokkos::View<T*, Space> uninitialized(const char* label, std::uint64_t n) {
    return Kokkos::View<T*, Space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

inline void check_options(const PsaOptions& o) {
    if (o.section_items == 0 || o.splits_per_team < 1 || o.pivots < 1 || o.greedy_items == 0 ||
        o.greedy_items > (std::uint64_t{1} << 20))
        throw Error("alias PSA options: expected section_items >= 1, splits_per_team >= 1, pivots >= 1 and "
                    "1 <= greedy_items <= 2^20");
}

// Total and capacity of the weights, checked (see alias_totals).
template <class Exec, class WeightView>
AliasTotals<std::remove_const_t<typename WeightView::value_type>> totals(const WeightView& w) {
    using Weight = std::remove_const_t<typename WeightView::value_type>;
    const std::uint64_t n = w.extent(0);
    check_alias_size(n, AliasTraits<Weight>::is_exact);
    using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
    if constexpr (AliasTraits<Weight>::is_exact) {
        // n < 2^32, so each sum of 32-bit halves fits in 64 bits; the total is exact.
        std::uint64_t lo = 0, hi = 0;
        Kokkos::parallel_reduce(
            "rsmc::alias total lo", policy(0, n),
            KOKKOS_LAMBDA(std::uint64_t i, std::uint64_t & s) { s += w(i) & 0xffffffffu; }, lo);
        Kokkos::parallel_reduce(
            "rsmc::alias total hi", policy(0, n), KOKKOS_LAMBDA(std::uint64_t i, std::uint64_t & s) { s += w(i) >> 32; },
            hi);
        return alias_totals_from_sum((static_cast<u128>(hi) << 32) + lo, n, 0);
    } else {
        double sum = 0.0;
        std::uint64_t bad = 0;
        Kokkos::parallel_reduce(
            "rsmc::alias total", policy(0, n), KOKKOS_LAMBDA(std::uint64_t i, double& s) { s += w(i); }, sum);
        Kokkos::parallel_reduce(
            "rsmc::alias check", policy(0, n),
            KOKKOS_LAMBDA(std::uint64_t i, std::uint64_t & b) { b += weight_is_valid(w(i)) ? 0 : 1; }, bad);
        return alias_totals_from_sum(sum, n, bad);
    }
}

// Step 3 and 4: prefix sums into the items (lights: weight -> before; heavies: weight in `through`
// -> E(j + 1)), then the split.
template <class Exec, class Weight, class Space>
void prefix_and_split(PsaWork<Weight, Space>& work, const PsaOptions& opt) {
    using V = alias_value_t<Weight>;
    using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
    const auto L = work.lights;
    const auto H = work.heavies;
    const V cap = work.shape.capacity;
    const std::uint64_t nl = L.extent(0), nh = H.extent(0);
    V d_total = 0;
    Kokkos::parallel_scan(
        "rsmc::alias light prefix", policy(0, nl),
        KOKKOS_LAMBDA(std::uint64_t x, V & acc, bool final) {
            const V d = cap - L(x).weight;
            if (final) L(x).before = acc;
            acc += d;
        },
        d_total);
    if (nh > 0) {
        Kokkos::parallel_scan(
            "rsmc::alias heavy prefix", policy(0, nh), KOKKOS_LAMBDA(std::uint64_t y, V & acc, bool final) {
                const V e = H(y).through - cap;
                acc += e;
                if (final) H(y).through = acc;
            });
        Kokkos::View<std::uint64_t, Space> last("rsmc::alias last heavy");
        Kokkos::parallel_for(
            "rsmc::alias last heavy", policy(0, 1), KOKKOS_LAMBDA(std::uint64_t) { last() = H(nh - 1).index; });
        auto last_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last);
        work.shape.last_heavy_index = last_host();
    } else {
        work.shape.last_heavy_index = 0;
    }
    work.shape.deficit_total = d_total;
    work.shape.lights = nl;
    work.shape.heavies = nh;

    const std::uint64_t merged = nl + nh;
    const std::uint64_t S = merged == 0 ? 0 : (merged + opt.section_items - 1) / opt.section_items;
    work.sections = S;
    work.split_lights = uninitialized<std::uint64_t, Space>("rsmc::alias split lights", S + 1);
    if (S == 0) {
        Kokkos::deep_copy(work.split_lights, std::uint64_t{0});
        return;
    }
    const auto split = work.split_lights;
    const PackShape<Weight> shape = work.shape;
    const std::uint64_t K = static_cast<std::uint64_t>(opt.splits_per_team);
    const int P = opt.pivots;
    const auto league = static_cast<int>((S + 1 + K - 1) / K);
    using team_policy = Kokkos::TeamPolicy<Exec>;
    using member_type = typename team_policy::member_type;
    Kokkos::parallel_for(
        "rsmc::alias split", team_policy(league, Kokkos::AUTO), KOKKOS_LAMBDA(const member_type& team) {
            const LightItem<Weight>* Lp = L.data();
            const HeavyItem<Weight>* Hp = H.data();
            const std::uint64_t k0 = static_cast<std::uint64_t>(team.league_rank()) * K;
            const std::uint64_t k1 = k0 + K < S + 1 ? k0 + K : S + 1;
            const std::uint64_t m_first = section_boundary(k0, merged, S);
            const std::uint64_t m_last = section_boundary(k1 - 1, merged, S);
            // Partial p-ary search: [a, b] contains the co-ranks of all boundaries of the team.
            std::uint64_t a = corank_lo(m_first, shape.heavies);
            std::uint64_t b = corank_hi(m_last, shape.lights);
            while (b - a > static_cast<std::uint64_t>(P)) {
                const std::uint64_t span = b - a;
                std::uint64_t new_a = 0, new_b = 0;
                Kokkos::parallel_reduce(
                    Kokkos::TeamThreadRange(team, P),
                    [&](int t, std::uint64_t& best) {
                        const std::uint64_t piv =
                            a + static_cast<std::uint64_t>(static_cast<u128>(span) * (t + 1) / (P + 1));
                        if (corank_too_small<Weight>(shape, Lp, Hp, piv, m_first) && piv + 1 > best) best = piv + 1;
                    },
                    Kokkos::Max<std::uint64_t>(new_a));
                Kokkos::parallel_reduce(
                    Kokkos::TeamThreadRange(team, P),
                    [&](int t, std::uint64_t& best) {
                        const std::uint64_t piv =
                            a + static_cast<std::uint64_t>(static_cast<u128>(span) * (t + 1) / (P + 1));
                        if (!corank_too_small<Weight>(shape, Lp, Hp, piv, m_last) && piv < best) best = piv;
                    },
                    Kokkos::Min<std::uint64_t>(new_b));
                if (new_a < a) new_a = a;
                if (new_b > b) new_b = b;
                if (new_a == a && new_b == b) break;  // the team's boundaries span the pivots: no progress
                a = new_a;
                b = new_b;
            }
            // Each thread: binary search for its own boundary inside [a, b].
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k0, k1), [&](std::uint64_t k) {
                const std::uint64_t m = section_boundary(k, merged, S);
                const std::uint64_t lo_m = corank_lo(m, shape.heavies), hi_m = corank_hi(m, shape.lights);
                split(k) = corank_search<Weight>(shape, Lp, Hp, m, a > lo_m ? a : lo_m, b < hi_m ? b : hi_m);
            });
        });
}

}  // namespace psa_detail

// Steps 1-4 of PSA: totals, partition, prefix sums, split.
template <class WeightView>
PsaWork<std::remove_const_t<typename WeightView::value_type>, typename WeightView::memory_space> psa_prepare(
    const WeightView& weights, const PsaOptions& options = {}) {
    using Weight = std::remove_const_t<typename WeightView::value_type>;
    using Space = typename WeightView::memory_space;
    using Exec = typename WeightView::execution_space;
    using V = alias_value_t<Weight>;
    using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
    static_assert(std::is_same<Weight, double>::value || std::is_same<Weight, std::uint64_t>::value,
                  "alias tables take double or std::uint64_t weights");
    psa_detail::check_options(options);
    PsaWork<Weight, Space> work;
    work.totals = psa_detail::totals<Exec>(weights);
    const V cap = work.totals.capacity;
    work.shape.capacity = cap;
    const std::uint64_t n = weights.extent(0);
    std::uint64_t nl = 0;
    Kokkos::parallel_reduce(
        "rsmc::alias count lights", policy(0, n),
        KOKKOS_LAMBDA(std::uint64_t i, std::uint64_t & c) {
            c += AliasTraits<Weight>::scaled(weights(i), n) < cap ? 1 : 0;
        },
        nl);
    const auto L = psa_detail::uninitialized<LightItem<Weight>, Space>("rsmc::alias lights", nl);
    const auto H = psa_detail::uninitialized<HeavyItem<Weight>, Space>("rsmc::alias heavies", n - nl);
    Kokkos::parallel_scan(
        "rsmc::alias partition", policy(0, n), KOKKOS_LAMBDA(std::uint64_t i, std::uint64_t & c, bool final) {
            const V v = AliasTraits<Weight>::scaled(weights(i), n);
            const bool light = v < cap;
            if (final) {
                if (light) {
                    L(c).weight = v;
                    L(c).index = i;
                } else {
                    H(i - c).through = v;  // the weight, until the prefix sum replaces it
                    H(i - c).index = i;
                }
            }
            c += light ? 1 : 0;
        });
    work.lights = L;
    work.heavies = H;
    psa_detail::prefix_and_split<Exec>(work, options);
    return work;
}

// Step 5 of PSA: every section packed by one thread from its split state.
template <class Weight, class Space>
void psa_pack(const PsaWork<Weight, Space>& work, const Kokkos::View<AliasRow<Weight>*, Space>& rows) {
    using Exec = typename Kokkos::View<AliasRow<Weight>*, Space>::execution_space;
    using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
    const auto L = work.lights;
    const auto H = work.heavies;
    const auto split = work.split_lights;
    const PackShape<Weight> shape = work.shape;
    const std::uint64_t S = work.sections, merged = shape.lights + shape.heavies;
    Kokkos::parallel_for(
        "rsmc::alias pack", policy(0, S), KOKKOS_LAMBDA(std::uint64_t k) {
            const std::uint64_t i = split(k), i_end = split(k + 1);
            const std::uint64_t j = section_boundary(k, merged, S) - i;
            const std::uint64_t j_end = section_boundary(k + 1, merged, S) - i_end;
            pack_section<Weight>(shape, L.data(), H.data(), i, j, i_end, j_end, rows.data());
        });
}

// PSA: the alias table of `weights` (double or std::uint64_t), in their memory space.
template <class WeightView>
AliasTable<std::remove_const_t<typename WeightView::value_type>, typename WeightView::memory_space> build_psa(
    const WeightView& weights, const PsaOptions& options = {}, PsaStats* stats = nullptr) {
    using Weight = std::remove_const_t<typename WeightView::value_type>;
    using Space = typename WeightView::memory_space;
    const auto work = psa_prepare(weights, options);
    AliasTable<Weight, Space> table;
    table.rows = alias_rows<Weight, Space>(weights.extent(0));
    table.capacity = work.totals.capacity;
    table.total = work.totals.total;
    psa_pack(work, table.rows);
    if (stats) *stats = PsaStats{0, work.shape.lights, work.shape.heavies, work.sections};
    return table;
}

namespace psa_detail {

// PSA+'s greedy sweep over one section staged in scratch: items[0..len) with their scaled weights;
// order is scratch for the light/heavy lists. Writes the rows it completes; the leftovers go to out:
// lights from out[0] upwards, heavies from out[len - 1] downwards. Returns their counts.
template <class Weight>
KOKKOS_INLINE_FUNCTION void greedy_section(const WeightedItem<Weight>* items, std::uint32_t* order, std::uint32_t len,
                                           alias_value_t<Weight> cap, AliasRow<Weight>* rows,
                                           WeightedItem<Weight>* out, std::uint64_t* left_lights,
                                           std::uint64_t* left_heavies) {
    using V = alias_value_t<Weight>;
    std::uint32_t nl = 0, back = len;
    for (std::uint32_t t = 0; t < len; ++t) {
        if (items[t].weight < cap)
            order[nl++] = t;
        else
            order[--back] = t;  // heavy j is order[len - 1 - j]
    }
    const std::uint32_t nh = len - nl;
    std::uint32_t i = 0, j = 0;  // lights used; heavies finished
    std::uint64_t ol = 0, oh = 0;
    if (nl > 0 && nh > 0) {
        std::uint32_t h = order[len - 1];
        V r = items[h].weight;
        for (;;) {
            if (r > cap) {  // heavy j still holds more than a bucket
                if (i == nl) break;
                const WeightedItem<Weight>& x = items[order[i++]];
                rows[x.index].threshold = x.weight;
                rows[x.index].alias = items[h].index;
                r = r - (cap - x.weight);
            } else {  // heavy j is done; the next heavy completes its row
                if (j + 1 == nh) break;
                const std::uint32_t next = order[len - 2 - j];
                rows[items[h].index].threshold = r;
                rows[items[h].index].alias = r == cap ? items[h].index : items[next].index;
                r = items[next].weight - (cap - r);
                h = next;
                ++j;
            }
        }
        // The current heavy h leaves with its remainder r as its weight.
        const WeightedItem<Weight> rest{r, items[h].index};
        if (r < cap)
            out[ol++] = rest;
        else
            out[len - 1 - oh++] = rest;
        ++j;  // h is accounted for
    }
    for (; i < nl; ++i) out[ol++] = items[order[i]];
    for (; j < nh; ++j) out[len - 1 - oh++] = items[order[len - 1 - j]];
    *left_lights = ol;
    *left_heavies = oh;
}

}  // namespace psa_detail

// PSA+: greedy packing in fixed sections staged in team scratch memory, then PSA on the leftovers.
template <class WeightView>
AliasTable<std::remove_const_t<typename WeightView::value_type>, typename WeightView::memory_space> build_psa_plus(
    const WeightView& weights, const PsaOptions& options = {}, PsaStats* stats = nullptr) {
    using Weight = std::remove_const_t<typename WeightView::value_type>;
    using Space = typename WeightView::memory_space;
    using Exec = typename WeightView::execution_space;
    using V = alias_value_t<Weight>;
    using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
    using team_policy = Kokkos::TeamPolicy<Exec>;
    using member_type = typename team_policy::member_type;
    using scratch_space = typename Exec::scratch_memory_space;
    using scratch_items = Kokkos::View<WeightedItem<Weight>*, scratch_space, Kokkos::MemoryUnmanaged>;
    using scratch_order = Kokkos::View<std::uint32_t*, scratch_space, Kokkos::MemoryUnmanaged>;
    static_assert(std::is_same<Weight, double>::value || std::is_same<Weight, std::uint64_t>::value,
                  "alias tables take double or std::uint64_t weights");
    psa_detail::check_options(options);

    const std::uint64_t n = weights.extent(0);
    PsaWork<Weight, Space> work;
    work.totals = psa_detail::totals<Exec>(weights);
    const V cap = work.totals.capacity;
    work.shape.capacity = cap;
    AliasTable<Weight, Space> table;
    table.rows = alias_rows<Weight, Space>(n);
    table.capacity = cap;
    table.total = work.totals.total;
    const auto rows = table.rows;

    // Greedy pass.
    const std::uint64_t B = options.greedy_items;
    const std::uint64_t G = (n + B - 1) / B;
    const auto tmp = psa_detail::uninitialized<WeightedItem<Weight>, Space>("rsmc::alias leftovers", n);
    const auto left_l = psa_detail::uninitialized<std::uint64_t, Space>("rsmc::alias left lights", G);
    const auto left_h = psa_detail::uninitialized<std::uint64_t, Space>("rsmc::alias left heavies", G);
    const std::size_t scratch_bytes = scratch_items::shmem_size(B) + scratch_order::shmem_size(B);
    // Level 0 (GPU shared memory) when the section fits, else level 1; the result is the same.
    const int level = scratch_bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(0)) ? 0 : 1;
    Kokkos::parallel_for(
        "rsmc::alias greedy",
        team_policy(static_cast<int>(G), Kokkos::AUTO).set_scratch_size(level, Kokkos::PerTeam(scratch_bytes)),
        KOKKOS_LAMBDA(const member_type& team) {
            const std::uint64_t g = static_cast<std::uint64_t>(team.league_rank());
            const std::uint64_t first = g * B;
            const std::uint32_t len = static_cast<std::uint32_t>(n - first < B ? n - first : B);
            scratch_items items(team.team_scratch(level), B);
            scratch_order order(team.team_scratch(level), B);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](std::uint32_t t) {
                items(t).weight = AliasTraits<Weight>::scaled(weights(first + t), n);
                items(t).index = first + t;
            });
            team.team_barrier();
            Kokkos::single(Kokkos::PerTeam(team), [&]() {
                psa_detail::greedy_section<Weight>(items.data(), order.data(), len, cap, rows.data(),
                                                   tmp.data() + first, &left_l(g), &left_h(g));
            });
        });

    // Compact the leftovers into the light and heavy lists.
    const auto off_l = psa_detail::uninitialized<std::uint64_t, Space>("rsmc::alias left light offsets", G);
    const auto off_h = psa_detail::uninitialized<std::uint64_t, Space>("rsmc::alias left heavy offsets", G);
    std::uint64_t nl = 0, nh = 0;
    Kokkos::parallel_scan(
        "rsmc::alias left light scan", policy(0, G),
        KOKKOS_LAMBDA(std::uint64_t g, std::uint64_t & acc, bool final) {
            if (final) off_l(g) = acc;
            acc += left_l(g);
        },
        nl);
    Kokkos::parallel_scan(
        "rsmc::alias left heavy scan", policy(0, G),
        KOKKOS_LAMBDA(std::uint64_t g, std::uint64_t & acc, bool final) {
            if (final) off_h(g) = acc;
            acc += left_h(g);
        },
        nh);
    const auto L = psa_detail::uninitialized<LightItem<Weight>, Space>("rsmc::alias lights", nl);
    const auto H = psa_detail::uninitialized<HeavyItem<Weight>, Space>("rsmc::alias heavies", nh);
    if (nl + nh > 0) {
        Kokkos::parallel_for(
            "rsmc::alias compact", team_policy(static_cast<int>(G), Kokkos::AUTO),
            KOKKOS_LAMBDA(const member_type& team) {
                const std::uint64_t g = static_cast<std::uint64_t>(team.league_rank());
                const std::uint64_t first = g * B;
                const std::uint64_t len = n - first < B ? n - first : B;
                Kokkos::parallel_for(Kokkos::TeamThreadRange(team, left_l(g)), [&](std::uint64_t t) {
                    const WeightedItem<Weight> x = tmp(first + t);
                    L(off_l(g) + t).weight = x.weight;
                    L(off_l(g) + t).index = x.index;
                });
                Kokkos::parallel_for(Kokkos::TeamThreadRange(team, left_h(g)), [&](std::uint64_t t) {
                    const WeightedItem<Weight> x = tmp(first + len - 1 - t);
                    H(off_h(g) + t).through = x.weight;
                    H(off_h(g) + t).index = x.index;
                });
            });
    }
    work.lights = L;
    work.heavies = H;
    psa_detail::prefix_and_split<Exec>(work, options);
    psa_pack(work, rows);
    if (stats) *stats = PsaStats{n - nl - nh, nl, nh, work.sections};
    return table;
}

}  // namespace rsmc::kernels::alias
