// rsmc::copy_and_fence: Kokkos::deep_copy on one execution-space instance, then a fence of that
// instance only.
//
// Kokkos' deep_copy without an instance fences every instance of every space before and after the
// copy: on CUDA a cudaDeviceSynchronize. The engine runs all its work on the default instance of its
// execution space (one stream on a GPU), so waiting for that instance is enough; and the copy is
// complete when this returns, so its host side may be read or reused at once.
#pragma once

#include <Kokkos_Core.hpp>

namespace rsmc {

template <class ExecutionSpace, class Dst, class Src>
void copy_and_fence(const ExecutionSpace& exec, const Dst& dst, const Src& src) {
  Kokkos::deep_copy(exec, dst, src);
  exec.fence();
}

}  // namespace rsmc
