// Vose's sequential alias table construction: the reference the parallel builders are tested against.
//
// M. D. Vose, "A linear algorithm for generating random numbers with a given distribution", IEEE TSE
// 17 (1991). One pass classifies the items into lights (scaled weight < capacity) and heavies, both in
// increasing item order (lights from the front of one index array, heavies from its back); the sweep
// then fills light buckets from the current heavy and, when the heavy's remainder r drops to at most a
// bucket, makes r its own threshold and completes its row from the next heavy (Vose's "a large item
// whose remainder is small joins the small list", taken immediately). The decision and the thresholds
// are those of alias_core.hpp's merge path, so for integer weights the table equals PSA's bit for bit.
// For double weights r is a running remainder r - (capacity - w_light), clamped into [0, capacity].
//
// O(n) time, one index array of n 32-bit (n < 2^32) or 64-bit integers besides the table (a
// VoseWorkspace, reusable across builds).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "kernels/alias/alias_table.hpp"

namespace rsmc::kernels::alias {

namespace vose_detail {

// The sweep over the index array `order`: lights in order[0..lights), heavy j at order[n - 1 - j].
// Branch-free main loop (the light/heavy decision is data dependent and mispredicts often): every
// iteration computes both candidate rows and selects one.
template <class Weight, class Index>
void sweep(const Weight* w, std::uint64_t n, alias_value_t<Weight> cap, AliasRow<Weight>* rows, Index* order) {
  using V = alias_value_t<Weight>;
  using Traits = AliasTraits<Weight>;
  std::uint64_t lights = 0, back = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    // Both slots lie in the unfilled gap [lights, back); only the chosen one is kept.
    const bool light = Traits::scaled(w[i], n) < cap;
    order[lights] = static_cast<Index>(i);
    order[back - 1] = static_cast<Index>(i);
    lights += light ? 1 : 0;
    back -= light ? 0 : 1;
  }
  const std::uint64_t heavies = n - lights;
  const Index* L = order;
  const Index* H = order + n - 1;  // heavy j = H[-j]
  std::uint64_t i = 0;
  if (heavies > 0) {
    std::uint64_t j = 0;
    std::uint64_t h = H[0];
    V r = Traits::scaled(w[h], n);
    const std::uint64_t last_light = lights > 0 ? lights - 1 : 0;
    while (j + 1 < heavies) {
      // Light candidate: light i (clamped; unused when i == lights). Heavy candidate: heavy j is
      // done, its row completed by heavy j + 1.
      const std::uint64_t x = lights > 0 ? L[i < lights ? i : last_light] : h;
      const std::uint64_t next = H[-static_cast<std::int64_t>(j + 1)];
      const V wl = Traits::scaled(w[x], n);
      const V wn = Traits::scaled(w[next], n);
      const bool take_light = i < lights && r > cap;
      const V t = r < cap ? r : cap;
      rows[take_light ? x : h] = AliasRow<Weight>::make(take_light ? wl : t, take_light || t == cap ? h : next);
      r = take_light ? r - (cap - wl) : wn - (cap - r);
      h = take_light ? h : next;
      i += take_light ? 1 : 0;
      j += take_light ? 0 : 1;
    }
    // The last heavy fills lights while it holds more than a bucket, then keeps the rest.
    for (; i < lights && r > cap; ++i) {
      const std::uint64_t x = L[i];
      const V wl = Traits::scaled(w[x], n);
      rows[x] = AliasRow<Weight>::make(wl, h);
      r = r - (cap - wl);
    }
    rows[h] = AliasRow<Weight>::make(cap, h);
  }
  // Lights left over: impossible with exact arithmetic; with doubles only nearly-full buckets that
  // rounding left behind. Same fallback as pack_step.
  for (; i < lights; ++i) {
    const std::uint64_t x = L[i];
    if (heavies > 0)
      rows[x] = AliasRow<Weight>::make(Traits::scaled(w[x], n), H[-static_cast<std::int64_t>(heavies - 1)]);
    else
      rows[x] = AliasRow<Weight>::make(cap, x);
  }
}

}  // namespace vose_detail

// Scratch memory of build_vose (one index per item), kept between builds of the same size so that a
// rebuild touches no fresh pages.
struct VoseWorkspace {
  std::unique_ptr<std::uint32_t[]> order32;
  std::unique_ptr<std::uint64_t[]> order64;
  std::uint64_t capacity32 = 0, capacity64 = 0;
};

// Vose's construction of the alias table of w[0..n) on the host, into `table` (its rows are reused
// when they have n entries, reallocated otherwise). Throws rsmc::Error on invalid weights (see
// alias_totals).
template <class Weight>
void build_vose(const Weight* w, std::uint64_t n, AliasTable<Weight, Kokkos::HostSpace>& table,
                VoseWorkspace& workspace) {
  static_assert(std::is_same<Weight, double>::value || std::is_same<Weight, std::uint64_t>::value,
                "alias tables take double or std::uint64_t weights");
  const AliasTotals<Weight> totals = alias_totals(w, n);
  if (table.rows.extent(0) != n) table.rows = alias_rows<Weight, Kokkos::HostSpace>(n);
  table.capacity = totals.capacity;
  table.total = totals.total;
  if (n < (std::uint64_t{1} << 32)) {
    if (workspace.capacity32 < n) {
      workspace.order32.reset(new std::uint32_t[n]);
      workspace.capacity32 = n;
    }
    vose_detail::sweep<Weight, std::uint32_t>(w, n, totals.capacity, table.rows.data(), workspace.order32.get());
  } else {
    if (workspace.capacity64 < n) {
      workspace.order64.reset(new std::uint64_t[n]);
      workspace.capacity64 = n;
    }
    vose_detail::sweep<Weight, std::uint64_t>(w, n, totals.capacity, table.rows.data(), workspace.order64.get());
  }
}

// The same into a new table.
template <class Weight>
AliasTable<Weight, Kokkos::HostSpace> build_vose(const Weight* w, std::uint64_t n) {
  AliasTable<Weight, Kokkos::HostSpace> table;
  VoseWorkspace workspace;
  build_vose(w, n, table, workspace);
  return table;
}

// The same for weights in a host-accessible View.
template <class WeightView>
AliasTable<std::remove_const_t<typename WeightView::value_type>, Kokkos::HostSpace> build_vose(
    const WeightView& weights) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename WeightView::memory_space>::accessible,
                "build_vose runs on the host: pass weights in host-accessible memory");
  return build_vose(weights.data(), static_cast<std::uint64_t>(weights.extent(0)));
}

}  // namespace rsmc::kernels::alias
