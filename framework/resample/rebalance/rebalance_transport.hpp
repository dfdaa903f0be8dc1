// Where MPI reads and writes the particles that neighbour rebalancing moves (roulette_resampler.hpp,
// rebalance). The choice is a function of the particles' memory space and of the MPI library alone,
// so every rank of a run makes the same one, and the result file records it:
//   host_memory     the particles live in host memory: MPI reads the send buffer and writes the
//                   receive buffer in place, no copy
//   device_memory   device memory and a CUDA-aware MPI (MPIX_Query_cuda_support() says 1): MPI gets
//                   the device buffers' pointers, no copy
//   pinned_staging  device memory and an MPI that cannot read it: one copy each way through pinned
//                   (page-locked) host buffers, kept in the workspace between steps
// The buffers live in ResampleWorkspace; the plan of what goes where in RebalancePlan.
#pragma once

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "base/core/host_or_device.hpp"

namespace rsmc {

enum class RebalanceTransport { host_memory, device_memory, pinned_staging };

const char* rebalance_transport_name(RebalanceTransport transport);

// Whether this process's MPI library reads and writes CUDA device memory (Open MPI's
// MPIX_Query_cuda_support(), where its headers declare it; false for other libraries). Local: no
// communication.
bool mpi_reads_cuda_memory();

// The host memory of the staging buffers: pinned where Kokkos has it (Kokkos 4), so that the copies
// to and from the device run at full speed and need no bounce buffer of the driver's.
#if KOKKOS_VERSION >= 40000
using PinnedHostSpace = Kokkos::SharedHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

template <class MemorySpace>
RebalanceTransport rebalance_transport_for() {
  if constexpr (runs_on_host<typename MemorySpace::execution_space>()) {
    return RebalanceTransport::host_memory;
  } else {
#ifdef KOKKOS_ENABLE_CUDA
    if (std::is_same_v<MemorySpace, Kokkos::CudaSpace> && mpi_reads_cuda_memory())
      return RebalanceTransport::device_memory;
#endif
    return RebalanceTransport::pinned_staging;
  }
}

}  // namespace rsmc
