// See memory_preflight.hpp.
#include "framework/engine/memory_preflight.hpp"

#include <algorithm>
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

}  // namespace

std::optional<std::uint64_t> available_host_memory() {
  const std::optional<std::uint64_t> node = mem_available(), cgroup = cgroup_headroom();
  if (node && cgroup) return std::min(*node, *cgroup);
  return node ? node : cgroup;
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

void check_memory_fits(MPI_Comm comm, std::uint64_t particles, std::uint64_t bytes_per_particle,
                       const std::optional<double>& available_here) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  // The least memory per rank anywhere (unknown counts as unlimited), agreed by every rank.
  double available = available_here ? *available_here : std::numeric_limits<double>::infinity();
  MPI_Allreduce(MPI_IN_PLACE, &available, 1, MPI_DOUBLE, MPI_MIN, comm);
  // The largest block (BlockDistribution: blocks differ by at most one particle).
  const std::uint64_t per_rank =
      particles / static_cast<std::uint64_t>(ranks) + (particles % static_cast<std::uint64_t>(ranks) != 0 ? 1 : 0);
  const double needed = static_cast<double>(per_rank) * static_cast<double>(bytes_per_particle);
  if (needed <= available) return;
  const auto fitting = static_cast<std::uint64_t>(available / static_cast<double>(bytes_per_particle)) *
                       static_cast<std::uint64_t>(ranks);
  const std::string on_ranks = std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s");
  throw FieldError("particles", std::to_string(particles),
                   "particles need " + bytes_text(needed) + " per rank (" + std::to_string(per_rank) +
                       " particles per rank x " + std::to_string(bytes_per_particle) +
                       " bytes per particle), but only " + bytes_text(available) + " of memory is available per rank",
                   "at most " + std::to_string(fitting) + " particles on " + on_ranks + ", or more ranks");
}

}  // namespace rsmc
