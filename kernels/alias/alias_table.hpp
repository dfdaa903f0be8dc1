// The alias table type: n rows (threshold, alias) in a Kokkos View of a chosen memory space, with the
// per-row capacity. Templated on the weight type: `double`, or `std::uint64_t` for exact tables (every
// weight scaled by n, capacity = total W, thresholds in exact::u128). The row layout, the invariants
// and the construction order are described in kernels/alias/alias_core.hpp.
//
// Builders: build_vose (sequential reference, host; double or integer weights), build_alias /
// build_psa / build_psa_plus (kernels/alias/psa.hpp: exact integer weights, Kokkos, any execution
// space). Samplers: kernels/alias/sampling.hpp.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "kernels/alias/alias_core.hpp"

namespace rsmc::kernels::alias {

template <class Weight, class MemorySpace = Kokkos::HostSpace>
struct AliasTable {
  using weight_type = Weight;
  using value_type = alias_value_t<Weight>;
  using row_type = AliasRow<Weight>;
  using memory_space = MemorySpace;
  using rows_view = Kokkos::View<row_type*, MemorySpace>;

  rows_view rows;         // rows[i] = {threshold of item i, alias}
  value_type capacity{};  // per-row capacity: W / n for double, W for integer weights (scaled by n)
  value_type total{};     // W, the sum of the weights (exact for integer weights)

  std::uint64_t size() const { return rows.extent(0); }

  // One draw from a row index and an offset in [0, capacity) (see alias_draw for the usual one).
  KOKKOS_INLINE_FUNCTION std::uint64_t pick(std::uint64_t row, value_type offset) const {
    return alias_choice<Weight>(rows(row), row, offset);
  }

  // One draw with the stream s: a uniform row, then a uniform offset inside it.
  KOKKOS_INLINE_FUNCTION std::uint64_t draw(rng::Stream& s) const {
    return alias_draw<Weight>(rows.data(), 0, rows.extent(0), capacity, s);
  }
};

// Rows for n items, not initialised (every builder writes every row exactly once).
template <class Weight, class MemorySpace>
Kokkos::View<AliasRow<Weight>*, MemorySpace> alias_rows(std::uint64_t n) {
  return Kokkos::View<AliasRow<Weight>*, MemorySpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rsmc::alias rows")), n);
}

// A host copy of a table (a no-op copy of the handle when it already lives in host memory).
template <class Weight, class MemorySpace>
AliasTable<Weight, Kokkos::HostSpace> to_host(const AliasTable<Weight, MemorySpace>& table) {
  AliasTable<Weight, Kokkos::HostSpace> host;
  host.rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), table.rows);
  host.capacity = table.capacity;
  host.total = table.total;
  return host;
}

}  // namespace rsmc::kernels::alias
