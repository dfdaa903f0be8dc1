// What a benchmark records about the machine while it runs (Linux /proc): the load average, so
// that noisy runs are visible in the JSON, the peak resident set of this process, and the memory
// available for new allocations (to skip sizes that cannot fit).
#pragma once

#include <cstdint>
#include <string>

namespace rsmc::bench {

// The first three fields of /proc/loadavg, e.g. "1.48 1.39 0.98" ("unknown" if unreadable).
std::string load_average();

// VmHWM of /proc/self/status in bytes: the peak resident set of this process so far (0 if unknown).
std::uint64_t peak_resident_bytes();

// MemAvailable of /proc/meminfo in bytes (0 if unknown).
std::uint64_t available_memory_bytes();

}  // namespace rsmc::bench
