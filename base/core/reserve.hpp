// Buffers that only grow: rsmc's one helper for the workspaces kept between calls (resampling,
// selection), so that a filter that resamples every step stops allocating after the first.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>

namespace rsmc {

// `view` (a rank-1 Kokkos::View) with room for at least n entries: reallocated, uninitialised, only
// when too small; its contents are then lost.
template <class View>
void reserve(View& view, std::size_t n, const char* label) {
  if (view.extent(0) < n) view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

}  // namespace rsmc
