// Whether a filter's particles fit in memory, checked before anything is allocated: a run that
// cannot fit fails with one line naming N, the bytes each rank needs and the memory there is,
// instead of an allocator's multi-line message (or the kernel's out-of-memory killer) part way in.
//
// What a BootstrapFilter holds per particle on its rank, in the particles' memory space: the state
// and its scratch buffer (2 x 8 d bytes), the log-weights and their scratch (16), the filter's
// weights (8), and the roulette resampler's fixed-point weights and ancestors (16); on the host, the
// fixed-point weights' host copy and the offspring counts (16, in the same memory on a CPU build).
// The available memory: on the host, the kernel's MemAvailable (and a cgroup's limit, when lower),
// shared by the ranks of a node; on a CUDA device, its free memory.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "base/core/host_or_device.hpp"

namespace rsmc {

// Bytes per particle a BootstrapFilter allocates in `MemorySpace` (see above).
template <class MemorySpace>
constexpr std::uint64_t filter_bytes_per_particle(int state_dim) {
  const std::uint64_t in_space = 16 * static_cast<std::uint64_t>(state_dim) + 40;
  const bool host = runs_on_host<typename MemorySpace::execution_space>();
  return host ? in_space + 16 : in_space;
}

// Bytes this node can still give to new allocations (MemAvailable, or the cgroup limit less what the
// cgroup uses when lower); empty when the system does not say.
std::optional<std::uint64_t> available_host_memory();

// Free bytes in `MemorySpace` for this process: the host's available memory shared by
// `ranks_on_node` ranks, or a CUDA device's free memory; empty when unknown.
template <class MemorySpace>
std::optional<double> available_per_rank(int ranks_on_node) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<MemorySpace, Kokkos::CudaSpace>) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return std::nullopt;
    return static_cast<double>(free);
  }
#endif
  if (!runs_on_host<typename MemorySpace::execution_space>()) return std::nullopt;
  const std::optional<std::uint64_t> node = available_host_memory();
  if (!node) return std::nullopt;
  return static_cast<double>(*node) / ranks_on_node;
}

// "1.46 TiB": a byte count for people.
std::string bytes_text(double bytes);

// Throws FieldError("particles") on every rank of `comm` when the filter's particles (N over the
// ranks of comm, state dimension d) need more bytes on some rank than it has: the check runs on every
// rank and the verdict is agreed. Collective.
void check_memory_fits(MPI_Comm comm, std::uint64_t particles, std::uint64_t bytes_per_particle,
                       const std::optional<double>& available_here);

// The check for a BootstrapFilter with particles in `MemorySpace`. Collective.
template <class MemorySpace>
void check_filter_memory(MPI_Comm comm, std::uint64_t particles, int state_dim) {
  MPI_Comm node;
  int rank = 0, ranks_on_node = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &ranks_on_node);
  MPI_Comm_free(&node);
  check_memory_fits(comm, particles, filter_bytes_per_particle<MemorySpace>(state_dim),
                    available_per_rank<MemorySpace>(ranks_on_node));
}

}  // namespace rsmc
