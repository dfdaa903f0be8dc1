#include "bench/system_info.hpp"

#include <fstream>
#include <sstream>

namespace rsmc::bench {
namespace {

// The value of "<key>: <number> kB" in a /proc file, in bytes (0 when absent).
std::uint64_t kib_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() || line[key.size()] != ':') continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

std::uint64_t peak_resident_bytes() { return kib_field("/proc/self/status", "VmHWM"); }

std::uint64_t available_memory_bytes() { return kib_field("/proc/meminfo", "MemAvailable"); }

}  // namespace rsmc::bench
