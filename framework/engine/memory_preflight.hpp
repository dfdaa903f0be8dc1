// Whether a run fits in memory, checked before anything that grows with an input is allocated: a
// run that cannot fit fails with one line naming the input, the bytes each rank needs and the
// memory there is, instead of an allocator's multi-line message (or the kernel's out-of-memory
// killer, minutes later) part way in.
//
// What a filter run holds on each rank, in bytes:
//  - per particle, in the particles' memory space: the state and its scratch buffer (2 x 8 d), the
//    log-weights and their scratch (16), the filter's weights (8), and the roulette resampler's
//    fixed-point weights and ancestors (16); on the host, the fixed-point weights' host copy and the
//    offspring counts (16, in the same memory on a CPU build);
//  - per step (filter_bytes_per_step): the per-step series (ESS, increments, d means and d
//    variances, counts; about 73 + 16 d bytes) twice, as the run's progress and as its result; the
//    observations (8 m); data simulated without --data hold the true states and the observations
//    twice while they are made (16 (d + m)) on every rank.
// The available memory: on the host, the kernel's MemAvailable (and a cgroup's limit, when lower),
// shared by the ranks of a node; on a CUDA device, its free memory.
#pragma once

#include "framework/parallel/mpi.hpp"

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

// Bytes per step a filter run holds on every rank (see above), on the host.
constexpr std::uint64_t filter_bytes_per_step(int state_dim, int obs_dim, bool simulated) {
  const auto d = static_cast<std::uint64_t>(state_dim), m = static_cast<std::uint64_t>(obs_dim);
  return 2 * (73 + 16 * d) + 8 * m + (simulated ? 16 * (d + m) : 0);
}

// Bytes per step `rsmc simulate` holds on every rank: the trajectory and the observations as made
// (16 (d + m): the simulation's arrays and their host copies), the copies it writes (8 (d + m)) and
// the file's bytes (up to 25 per value as CSV text; 8 in HDF5, built in memory).
constexpr std::uint64_t simulation_bytes_per_step(int state_dim, int obs_dim) {
  return 56 * (static_cast<std::uint64_t>(state_dim) + static_cast<std::uint64_t>(obs_dim));
}

// Bytes this node can still give to new allocations (MemAvailable, or the cgroup limit less what the
// cgroup uses when lower); empty when the system does not say.
std::optional<std::uint64_t> available_host_memory();

// The number of ranks of `comm` on this rank's node. Collective.
int ranks_on_node(MPI_Comm comm);

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

// The host memory each rank of `comm` may use: its node's available memory over the node's ranks,
// the least over `comm` (infinite when the system does not say). Collective.
double host_memory_per_rank(MPI_Comm comm);

// "1.46 TiB": a byte count for people.
std::string bytes_text(double bytes);

// What sets a filter run's memory on each rank.
struct FilterMemory {
  std::uint64_t particles = 0;   // N, over the ranks that share one filter
  int filter_ranks = 1;          // the ranks one filter's particles are spread over
  int state_dim = 1;             // d
  int obs_dim = 1;               // m
  std::uint64_t steps = 0;       // T: the per-step series and the observations
  bool simulated = false;        // the data are simulated on every rank (no --data)
  std::string state_dim_source;  // how messages name the state dimension's origin, or ""
};

// Throws a FieldError on every rank of `comm` when a filter run (`need`) needs more bytes on some
// rank than it has: per rank, the largest block of particles (`particle_bytes` each) in the
// particles' memory space, which has `space_here` bytes free on this rank (the host's memory when
// `particles_on_host`), and the per-step data in the host's `host_here`. The least over the ranks
// counts (unknown: unlimited). The error names the input that needs the most: "particles"
// ("--particles: 100000000000 particles need 8 TiB per rank (...), but only 21 GiB of memory is
// available per rank; expected ...") or "steps". Collective.
void check_memory_fits(MPI_Comm comm, const FilterMemory& need, std::uint64_t particle_bytes, bool particles_on_host,
                       const std::optional<double>& space_here, const std::optional<double>& host_here);

// Throws FieldError("steps") on every rank of `comm` when `steps` steps of `bytes_per_step` host bytes
// each (`what`: "the simulated data") need more than the least any rank has; `state` says where a
// large state dimension came from (or ""). Collective.
void check_steps_fit(MPI_Comm comm, std::uint64_t steps, std::uint64_t bytes_per_step, const std::string& what,
                     const std::string& state);

// The check for a BootstrapFilter with particles in `MemorySpace`. Collective.
template <class MemorySpace>
void check_filter_memory(MPI_Comm comm, const FilterMemory& need) {
  const int node_ranks = ranks_on_node(comm);
  check_memory_fits(comm, need, filter_bytes_per_particle<MemorySpace>(need.state_dim),
                    runs_on_host<typename MemorySpace::execution_space>(), available_per_rank<MemorySpace>(node_ranks),
                    available_per_rank<Kokkos::HostSpace>(node_ranks));
}

}  // namespace rsmc
