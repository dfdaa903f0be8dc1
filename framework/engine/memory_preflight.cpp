// See memory_preflight.hpp.
#include "framework/engine/memory_preflight.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "base/core/error.hpp"

namespace rsmc {
namespace {

// The "MemAvailable: <n> kB" line of /proc/meminfo, in bytes.
std::optional<std::uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return std::nullopt;
}

// A cgroup v2 limit less its current use (a batch system's memory limit), when there is one.
std::optional<std::uint64_t> cgroup_headroom() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), current_in("/sys/fs/cgroup/memory.current");
  std::uint64_t limit = 0, current = 0;
  if (!(max_in >> limit) || !(current_in >> current)) return std::nullopt;  // "max": no limit
  return limit > current ? limit - current : 0;
}

// The least of `here` over the ranks of comm (unknown counts as unlimited). Collective.
double least(MPI_Comm comm, const std::optional<double>& here) {
  double value = here ? *here : std::numeric_limits<double>::infinity();
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MIN, comm);
  return value;
}

// How many `each` fit in `room` bytes (0 when none does).
std::uint64_t how_many(double room, double each) {
  return room <= 0.0 || each <= 0.0 ? 0 : static_cast<std::uint64_t>(std::floor(room / each));
}

}  // namespace

std::optional<std::uint64_t> available_host_memory() {
  const std::optional<std::uint64_t> node = mem_available(), cgroup = cgroup_headroom();
  if (node && cgroup) return std::min(*node, *cgroup);
  return node ? node : cgroup;
}

int ranks_on_node(MPI_Comm comm) {
  MPI_Comm node;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &ranks);
  MPI_Comm_free(&node);
  return ranks;
}

double host_memory_per_rank(MPI_Comm comm) {
  return least(comm, available_per_rank<Kokkos::HostSpace>(ranks_on_node(comm)));
}

std::string bytes_text(double bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 7) {
    bytes /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return text;
}

void check_memory_fits(MPI_Comm comm, const FilterMemory& need, std::uint64_t particle_bytes, bool particles_on_host,
                       const std::optional<double>& space_here, const std::optional<double>& host_here) {
  const double host = least(comm, host_here);
  const double space = particles_on_host ? host : least(comm, space_here);
  const auto ranks = static_cast<std::uint64_t>(std::max(need.filter_ranks, 1));
  // The largest block (BlockDistribution: blocks differ by at most one particle).
  const std::uint64_t per_rank = need.particles / ranks + (need.particles % ranks != 0 ? 1 : 0);
  const double step_bytes = static_cast<double>(filter_bytes_per_step(need.state_dim, need.obs_dim, need.simulated));
  const double particles_need = static_cast<double>(per_rank) * static_cast<double>(particle_bytes);
  const double steps_need = static_cast<double>(need.steps) * step_bytes;
  // The particles share the host's memory with the per-step data on a CPU build, not on a device.
  const bool particles_fit = particles_need + (particles_on_host ? steps_need : 0.0) <= space;
  const bool steps_fit = steps_need + (particles_on_host ? particles_need : 0.0) <= host;
  if (particles_fit && steps_fit) return;

  // The state dimension: a reason to mention when it makes a particle or a step large.
  const bool large_state = need.state_dim >= 4;
  std::string state;
  if (large_state)
    state = "state dimension " + std::to_string(need.state_dim) +
            (need.state_dim_source.empty() ? std::string() : " (" + FieldError::literal(need.state_dim_source) + ")");
  const std::string smaller_state = large_state ? ", or a smaller state dimension" : "";
  // When not even one more particle or step fits beside the rest, no count of the blamed input
  // helps: say what one of each needs.
  const std::string too_large_for_one =
      std::string(large_state ? "a smaller state dimension" : "fewer particles and steps, or more ranks") +
      " (one particle needs " + bytes_text(static_cast<double>(particle_bytes)) + ", one step " +
      bytes_text(step_bytes) + ")";
  const bool blame_particles = particles_on_host ? particles_need >= steps_need : !particles_fit;
  if (blame_particles) {
    const double room = space - (particles_on_host ? steps_need : 0.0);
    const std::string other =
        particles_on_host && steps_need >= 0.01 * particles_need
            ? " (the " + std::to_string(need.steps) + " steps' data need " + bytes_text(steps_need) + " more)"
            : "";
    const std::string on_ranks = std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s");
    throw FieldError("particles", std::to_string(need.particles),
                     "particles need " + bytes_text(particles_need) + " per rank (" + std::to_string(per_rank) +
                         " particles per rank x " + std::to_string(particle_bytes) + " bytes per particle" +
                         (large_state ? ", " + state : std::string()) + "), but only " + bytes_text(space) + " of " +
                         (particles_on_host ? "memory" : "device memory") + " is available per rank" + other,
                     room >= static_cast<double>(particle_bytes)
                         ? "at most " + std::to_string(how_many(room, static_cast<double>(particle_bytes)) * ranks) +
                               " particles on " + on_ranks + ", or more ranks" + smaller_state
                         : too_large_for_one);
  }
  const double room = host - (particles_on_host ? particles_need : 0.0);
  const std::string other = particles_on_host && particles_need >= 0.01 * steps_need
                                ? " (the particles need " + bytes_text(particles_need) + " more)"
                                : "";
  throw FieldError(
      "steps", std::to_string(need.steps),
      "steps need " + bytes_text(steps_need) + " per rank (" + std::to_string(need.steps) + " steps x " +
          std::to_string(static_cast<std::uint64_t>(step_bytes)) + " bytes per step for the per-step " + "results" +
          (need.simulated ? " and the simulated data" : "") + (large_state ? ", " + state : std::string()) +
          "), but only " + bytes_text(host) + " of memory is available per rank" + other,
      room >= step_bytes ? "at most " + std::to_string(how_many(room, step_bytes)) + " steps" + smaller_state
                         : too_large_for_one);
}

void check_steps_fit(MPI_Comm comm, std::uint64_t steps, std::uint64_t bytes_per_step, const std::string& what,
                     const std::string& state) {
  const double host = host_memory_per_rank(comm);
  const double need = static_cast<double>(steps) * static_cast<double>(bytes_per_step);
  if (need <= host) return;
  throw FieldError("steps", std::to_string(steps),
                   "steps need " + bytes_text(need) + " per rank (" + std::to_string(steps) + " steps x " +
                       std::to_string(bytes_per_step) + " bytes per step for " + what +
                       (state.empty() ? std::string() : ", " + FieldError::literal(state)) + "), but only " +
                       bytes_text(host) + " of memory is available per rank",
                   "at most " + std::to_string(how_many(host, static_cast<double>(bytes_per_step))) + " steps");
}

}  // namespace rsmc
