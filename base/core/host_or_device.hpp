// Host or device: the one question rsmc asks to choose between its host and device code paths, asked
// one way everywhere (the engine's batches, the selection's walk, the binned reductions, the
// resampler's host loops, MPI's buffers).
#pragma once

#include <Kokkos_Core.hpp>

namespace rsmc {

// Whether ExecutionSpace runs on the host's CPU (Serial, OpenMP, Threads) rather than on a device
// (Cuda, HIP, SYCL). Code for it may then touch its memory from the host too. A memory space asks
// it of its execution space: runs_on_host<typename MemorySpace::execution_space>().
template <class ExecutionSpace>
KOKKOS_INLINE_FUNCTION constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
}

}  // namespace rsmc
