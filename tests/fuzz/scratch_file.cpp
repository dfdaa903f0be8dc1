#include "scratch_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>

namespace rsmc::fuzz {
namespace {

std::string scratch_dir() {
  if (::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// Removes the scratch files at exit (a static object's destructor).
struct ScratchFiles {
  std::map<std::string, std::string> by_suffix;
  ~ScratchFiles() {
    for (const auto& entry : by_suffix) std::remove(entry.second.c_str());
  }
};

ScratchFiles& files() {
  static ScratchFiles instance;
  return instance;
}

}  // namespace

std::string scratch_path(const std::string& suffix) {
  std::string& path = files().by_suffix[suffix];
  if (path.empty()) path = scratch_dir() + "/rsmc-fuzz-" + std::to_string(::getpid()) + "-input" + suffix;
  return path;
}

std::string write_scratch(const std::string& suffix, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path(suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && (size == 0 || std::fwrite(data, 1, size, f) == size);
  if (f == nullptr || std::fclose(f) != 0 || !ok) {
    std::fprintf(stderr, "rsmc fuzz: cannot write the scratch file '%s'\n", path.c_str());
    std::abort();
  }
  return path;
}

}  // namespace rsmc::fuzz
