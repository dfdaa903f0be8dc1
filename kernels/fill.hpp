// rsmc::kernels::fill: sets the first n entries of a View to one value with a parallel_for in an
// execution space.
//
// Kokkos::deep_copy(view, value) does the same work on the device, but Kokkos Tools reports it as a
// deep copy of the whole View (source "Scalar"), so a profile of the host/device traffic cannot
// tell it from a transfer of N items. The filter's step fills N-sized arrays (log-weights after a
// resampling, the forest's build arrays); tests/mpi/test_step_copies_mpi.cpp checks that no deep
// copy of a step grows with N, and these fills are kernels, which is what they are.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>

namespace rsmc::kernels {

namespace fill_detail {
template <class View>
struct Fill {
  View view;
  typename View::non_const_value_type value;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const { view(i) = value; }
};
}  // namespace fill_detail

// view(i) = value for i < n (n <= view.extent(0)), on the instance exec; not fenced.
template <class ExecutionSpace, class View>
void fill(const ExecutionSpace& exec, const std::string& label, const View& view, std::size_t n,
          typename View::const_value_type value) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n), fill_detail::Fill<View>{view, value});
}

// The same on ExecutionSpace's default instance.
template <class ExecutionSpace, class View>
void fill(const std::string& label, const View& view, std::size_t n, typename View::const_value_type value) {
  fill(ExecutionSpace(), label, view, n, value);
}

}  // namespace rsmc::kernels
